"""The design prompt for games: episode design, difficulty, hint and solution, format example.

Everything a game program must satisfy comes from :data:`spade_gym.contract.CONTRACT_TEXT`,
inserted verbatim, so the validator, the sandbox and this prompt cannot drift apart. The
rest is guidance on what makes a good training environment (a task at the agent's frontier,
with a hint that really helps), which the hint-based regret reward pays for.
"""

from __future__ import annotations

import random

from spade_gym.contract import CONTRACT_TEXT, DEFAULT_MAX_TURNS
from spade_gym.generate.prompts.skills import Skill

#: Default turn budget of a multi-turn design: long enough that "several turns" of optimal
#: play still leaves room for mistakes.
MULTI_TURN_MAX_TURNS = 12
#: How many concept ideas are shown per prompt: enough to inspire, few enough that
#: prompts for the same skill still differ.
IDEAS_PER_PROMPT = 3

SYSTEM = (
    "You are an expert designer of training environments for reasoning agents. You write "
    "complete, executable Python programs: text games that a language-model agent plays turn "
    "by turn with text actions. A good environment is hard but fair: it can be won by "
    "reasoning, it cannot be won by guessing, and its outcome is decided by code, not by "
    "judgement."
)

_SINGLE_TURN = """\
# Episode design: single-turn task
- `reset()` creates ONE task. The first observation states the rules, the task and the
  answer format `\\boxed{{answer}}`.
- A correct answer wins at once (reward 1.0, terminated). A wrong answer gets specific
  feedback about what is wrong, without revealing the answer, and the player may try the
  SAME task again until `max_turns` (default {max_turns}) runs out. Never start a new task
  inside `step()`.
- The task is solvable from the observation alone, by reasoning. The program computes the
  answer from the task it generated; never hard-code it."""

_MULTI_TURN = """\
# Episode design: genuinely multi-turn game
The player acts in a world whose state evolves; each turn it sends ONE command as
`\\boxed{{command}}`. Default `max_turns`: {max_turns}.
- Every action changes the state, and the observation reports its consequence.
- The feedback of one turn informs the next move: information is revealed gradually
  (hidden state, fog of war, measurements, replies of a simulated party).
- Every turn offers several meaningfully different actions, and the choice matters. List
  the available commands in every observation.
- Optimal play needs several turns, roughly {low} to {high} of the {max_turns}.
- Random play loses almost always.
- A clear win condition (reward 1.0, terminated) and, ideally, a way to lose (reward 0.0,
  terminated). Running out of turns ends the episode as truncated.
- Each observation shows the current state, the result of the last action, the available
  commands and progress (e.g. `Turn 3/{max_turns} | Fuel: 6 | Items: key`).
This is NOT a multi-turn game: one question the player may retry ("same question, try
again"); counting up to a target; turns with only one sensible action; a game that optimal
play wins in one to three turns."""

_DIFFICULTY = """\
# Difficulty (target level: {difficulty})
- Winning takes several distinct reasoning steps (at least {steps}); no single lookup,
  formula or operation solves it.
- Answer and action spaces are large, so guessing fails: a random answer should win far
  less than 1% of episodes. Randomise every parameter from the seed.
- Hide information: the observation never contains the answer and never states the rule
  the player has to discover. Never reveal the answer in feedback either.
- Feedback is specific (which part is wrong, higher or lower, which constraint fails),
  never a bare "Wrong".
- The `difficulty` keyword ("easy", "medium", "hard"; make "{difficulty}" the default)
  changes the task size: more items, longer chains, larger grids, fewer queries.
- {level}"""

_LEVELS = {
    "easy": "easy: small instances that a careful reasoner solves in a few steps.",
    "medium": "medium: a strong reasoner needs real work and sometimes fails.",
    "hard": "hard: large instances, long chains of deduction, tempting but wrong shortcuts.",
}
_STEPS = {"easy": 2, "medium": 3, "hard": 5}

_HINT_AND_SOLUTION = """\
# Privileged hint
Training compares the agent's results WITH the hint and WITHOUT it on the same tasks; an
environment is valuable when the hint makes a real difference. The hint is a key
observation, a strategy or a partial sketch of the solution that really helps. It never
states the answer, nor the complete winning action sequence.
- When the task varies by seed (it should), define `hint(self) -> str` returning the hint
  for the CURRENT episode, e.g. "the third clue rules out every odd position; start there".
- Also write a short general hint, true for every episode, in the `<hint>...</hint>`
  section after the code.

# solution()
`solution(self) -> str` returns the answer for the CURRENT state, computed from that state;
for a multi-turn game it is the best next action (the text that goes inside `\\boxed{}`).
The validator plays episodes by answering `\\boxed{<solution()>}` every turn: that must win
on every seed, within `max_turns`."""

_TIPS = """\
# Writing tips
- Store the answer in a private attribute such as `self._answer`; `self.solution` is the
  method and must not be overwritten.
- In f-strings, double the literal braces (`f"Reply with \\\\boxed{{move}}"`) and keep
  backslashes out of the `{...}` expressions.
- Read the command with a regular expression such as `re.search(r"\\\\boxed\\{(.*?)\\}", action)`,
  then normalise case and spaces before comparing."""

FORMAT = '''\
# Output format
Reply with exactly one ```python fenced block containing the whole program, followed by
the general hint in <hint>...</hint>. If you reason first, do it before the code block;
write nothing after </hint>.

FORMAT EXAMPLE ONLY. This toy is far too easy and would be rejected; it only shows the
shape of a reply. Your environment must be a different and much richer game.
```python
import random
import re


class ParityToyEnv:
    def __init__(self, max_turns=3, difficulty="easy", **kwargs):
        self.max_turns = max_turns
        self.size = {"easy": 3, "medium": 5, "hard": 8}.get(difficulty, 5)
        self.rng = random.Random()
        self.numbers = []
        self.turn = 0
        self._answer = ""

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.numbers = [self.rng.randint(1, 99) for _ in range(self.size)]
        self.turn = 0
        self._answer = "even" if sum(self.numbers) % 2 == 0 else "odd"
        task = f"Is the sum of {self.numbers} even or odd?"
        return task + " Reply \\\\boxed{even} or \\\\boxed{odd}.", {}

    def step(self, action):
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        match = re.search(r"\\\\boxed\\{(.*?)\\}", str(action))
        if match is None:
            return "Reply \\\\boxed{even} or \\\\boxed{odd}.", 0.0, False, out_of_turns, {}
        if match.group(1).strip().lower() == self._answer:
            return "Correct!", 1.0, True, False, {}
        return "Wrong: count the odd numbers.", 0.0, False, out_of_turns, {}

    def solution(self):
        return self._answer

    def hint(self):
        return f"Of these {len(self.numbers)} numbers only the odd ones matter."
```
<hint>Only how many odd numbers there are decides the parity of a sum.</hint>'''




def game_sections(skill: Skill, *, multi_turn: bool, difficulty: str, max_turns: int | None,
                  rng: random.Random) -> tuple[list[str], list[str]]:
    """The sections of a game design request before and after the shared ones (grounding,
    memory): ``(leading, trailing)``."""
    if max_turns is None:
        max_turns = MULTI_TURN_MAX_TURNS if multi_turn else DEFAULT_MAX_TURNS
    minimum = 4 if multi_turn else 1
    if max_turns < minimum:
        raise ValueError(
            f"max_turns={max_turns} is too small for a {'multi' if multi_turn else 'single'}-turn "
            f"design; use at least {minimum}"
        )
    ideas = skill.multi_turn_ideas if multi_turn else skill.single_turn_ideas
    chosen = rng.sample(ideas, min(IDEAS_PER_PROMPT, len(ideas)))
    kind = "multi-turn game" if multi_turn else "single-turn task"
    task = (f"# Task\nDesign a {kind} as a Python environment that trains the skill "
            f"**{skill.name}**: {skill.description}.\n"
            "Concept ideas (pick one, combine two, or invent your own; make it yours, not a "
            "textbook exercise):\n" + "\n".join(f"- {idea}" for idea in chosen))
    if multi_turn:
        episode = _MULTI_TURN.format(max_turns=max_turns, low=max(2, max_turns // 2), high=max(3, max_turns * 3 // 4))
    else:
        episode = _SINGLE_TURN.format(max_turns=max_turns)
    trailing = [
        episode,
        _DIFFICULTY.format(difficulty=difficulty, steps=_STEPS[difficulty], level=_LEVELS[difficulty]),
        _HINT_AND_SOLUTION,
        CONTRACT_TEXT.rstrip("\n"),
        _TIPS,
    ]
    return [task], trailing


#: Grounding for games: the document supplies a concept the game is built on.
GROUNDING = (
    "# Grounding\nBuild the environment on one concept, mechanism or technique from the "
    "document below, so that playing well requires understanding it. Do not reference "
    "the document: the player never sees it, so the game text must not mention, quote "
    "or rely on it."
)
#: What the repair request cites as a design that is itself the problem.
REPAIR_EXAMPLE = "answering \\boxed{<solution()>} every turn does not win"
