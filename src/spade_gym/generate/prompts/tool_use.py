"""The design prompt for tool-use environments (SPADE's second setting).

The designer writes a subclass of ``ToolUseBaseEnv``: simulated, stateful tools, a task that
needs several dependent calls, and a ``solution()`` written in the action protocol. What the
validator checks comes from :data:`spade_gym.contract.TOOL_USE_CONTRACT_TEXT`, inserted
verbatim; the rest is guidance on what makes a tool-use task worth training on.
"""

from __future__ import annotations

import random

from spade_gym.contract import TOOL_USE_CONTRACT_TEXT
from spade_gym.generate.prompts.skills import Skill

#: Turn budget of a tool-use design: room for the calls of a hard task plus a few mistakes.
TOOL_USE_MAX_TURNS = 12
#: Concept ideas shown per prompt.
IDEAS_PER_PROMPT = 3

SYSTEM = (
    "You are an expert designer of training environments for tool-using agents. You write "
    "complete, executable Python programs that simulate a small stateful system (a file system, "
    "a bank, a booking service, an inventory...) behind a set of tools. A language-model agent "
    "must call the tools, turn by turn, to finish a task. A good environment is realistic and "
    "exact: the task cannot be finished without the tools, careless calls fail, and success is "
    "decided by code."
)

_ENVIRONMENT = """\
# What makes a good tool-use environment
- Stateful: `self._state` holds the simulated system (files and a current directory, balances,
  reservations, device flags...). Provide query tools (read state) AND mutation tools (change it).
- Dependent calls: the task needs several calls where later ones use what earlier ones returned
  or the state they left (look up an id, then act on it; create a folder, then move into it).
- Preconditions: a mutation called in the wrong state returns a clear error ("Error: report.txt
  is not in /home", "Error: insufficient funds") so the agent must query before it acts.
- Distractors: include 1-2 plausible tools the task does not need; do not label them unused.
- Hidden information: the task text says what to achieve and the answer format, never the
  answer or the data the agent must look up. No single call returns the whole answer.
- Exactness: arguments and answers are checked exactly (ids, amounts, paths); answers are short
  (a number, an id, a path, a comma-separated list, or `done` for a pure state change).
- Realistic data: generate 10-50 records from the seed, not two or three.
- Budget: the solution needs at most `max_turns - 2` calls; never require calling a tool once per
  record."""

_DIFFICULTY = """\
# Difficulty (target level: {difficulty})
{level}
The `difficulty` keyword ("easy", "medium", "hard"; make "{difficulty}" the default) changes the
task size: more records, more tools, longer chains of calls."""

_LEVELS = {
    "easy": "- 1-2 dependent calls; 3-4 tools, one of them a distractor; the answer comes from one or two "
            "results.",
    "medium": "- 2-4 dependent calls; 4-6 tools, 1-2 distractors; the answer combines several results.",
    "hard": "- 4 or more dependent calls where the order matters; 5-8 tools, 2-3 distractors; some results "
            "are partial (paginated, filtered) and must be combined.",
}

_HINT_AND_SOLUTION = """\
# Privileged hint
Training compares the agent's results WITH the hint and WITHOUT it on the same tasks; an
environment is valuable when the hint makes a real difference. The hint is a strategy or a key
observation ("list the accounts first: ids encode the owner's name"), never the answer and never
the full sequence of calls.
- Define `hint(self) -> str` for the CURRENT episode, and write a short general hint, true for
  every episode, in the `<hint>...</hint>` section after the code.

# solution()
`solution(self)` returns the winning play for the task posed by the last `reset()`: one
`<tool_call>{"name": "...", "arguments": {...}}</tool_call>` per line, then
`<answer>...</answer>` on the last line. Build each line with `json.dumps` so it is valid JSON.
The validator plays it one line per turn in a fresh episode; it must win on every seed."""

_TIPS = """\
# Writing tips
- Store the answer in `self._expected_answer` (the default `_check_answer` compares with it:
  case-insensitive, numbers within 0.01). `self.solution` is the method; never overwrite it.
- Your `_check_answer(self, answer)` must ALSO require the work to be done, e.g.
  `return any(c["name"] == "transfer" for c in self._call_history) and super()._check_answer(answer)`,
  or a check of `self._state`: the validator submits the right answer with no tool call first,
  and that must not win.
- Tool method parameters are exactly the schema's property names; give defaults to the
  optional ones. A tool returns text (use `json.dumps` for structured results)."""

FORMAT = '''\
# Output format
Reply with exactly one ```python fenced block containing the whole program, followed by
the general hint in <hint>...</hint>. If you reason first, do it before the code block;
write nothing after </hint>.

FORMAT EXAMPLE ONLY. This toy is far too easy and would be rejected; it only shows the
shape of a reply. Your environment must be a different and much richer system.
```python
import json
import random


class LockerToyEnv(ToolUseBaseEnv):
    def __init__(self, max_turns=8, difficulty="easy", **kwargs):
        self.difficulty = difficulty
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        self.turn_count = 0
        self._call_history = []
        rng = random.Random(seed)
        count = {"easy": 4, "medium": 8, "hard": 16}.get(self.difficulty, 8)
        names = rng.sample(range(10, 99), count)
        self._state = {"codes": {f"L{n}": rng.randint(1000, 9999) for n in names},
                       "items": {f"L{n}": rng.choice(["lamp", "rope", "map", "coin"]) for n in names},
                       "open": set()}
        self._target = rng.choice(sorted(self._state["codes"]))
        self._tools = {
            "get_code": {"description": "The code of a locker",
                         "parameters": {"type": "object", "properties": {"locker": {"type": "string"}},
                                        "required": ["locker"]}},
            "open_locker": {"description": "Open a locker with its code; returns what is inside",
                            "parameters": {"type": "object",
                                           "properties": {"locker": {"type": "string"},
                                                          "code": {"type": "integer"}},
                                           "required": ["locker", "code"]}},
        }
        self._expected_answer = self._state["items"][self._target]
        return f"What is inside locker {self._target}? Answer with <answer>ITEM</answer>.", {}

    def tool_get_code(self, locker):
        if locker not in self._state["codes"]:
            return f"Error: no locker {locker}"
        return str(self._state["codes"][locker])

    def tool_open_locker(self, locker, code):
        if self._state["codes"].get(locker) != code:
            return "Error: wrong code"
        self._state["open"].add(locker)
        return f"Locker {locker} contains: {self._state['items'][locker]}"

    def _check_answer(self, answer):
        return self._target in self._state["open"] and super()._check_answer(answer)

    def solution(self):
        code = self._state["codes"][self._target]
        calls = [{"name": "get_code", "arguments": {"locker": self._target}},
                 {"name": "open_locker", "arguments": {"locker": self._target, "code": code}}]
        lines = [f"<tool_call>{json.dumps(call)}</tool_call>" for call in calls]
        return "\\n".join(lines + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return "Fetch the locker's code before you try to open it."
```
<hint>Every locker needs its own code: look it up first, then open the locker.</hint>'''

#: Grounding for tool-use environments: the document supplies the domain.
GROUNDING = (
    "# Grounding\nBuild the tools, the data and the task in the domain of the document below "
    "(its entities, procedures and vocabulary). The environment must be self-contained: the agent "
    "never sees the document, so the task text must not mention, quote or rely on it."
)
#: What the repair request cites as a design that is itself the problem.
REPAIR_EXAMPLE = "playing the lines of solution() one per turn does not win"


def tool_use_sections(skill: Skill, *, difficulty: str, max_turns: int | None,
                      rng: random.Random) -> tuple[list[str], list[str]]:
    """The sections of a tool-use design request before and after the shared ones (grounding,
    memory): ``(leading, trailing)``."""
    max_turns = TOOL_USE_MAX_TURNS if max_turns is None else max_turns
    if max_turns < 4:
        raise ValueError(f"max_turns={max_turns} is too small for a tool-use design; use at least 4")
    chosen = rng.sample(skill.multi_turn_ideas, min(IDEAS_PER_PROMPT, len(skill.multi_turn_ideas)))
    task = (f"# Task\nDesign a tool-use environment, a subclass of `ToolUseBaseEnv`, that trains the "
            f"skill **{skill.name}**: {skill.description}. Default `max_turns`: {max_turns}.\n"
            "Task ideas (pick one, combine two, or invent your own in a realistic domain):\n"
            + "\n".join(f"- {idea}" for idea in chosen))
    trailing = [
        _ENVIRONMENT,
        _DIFFICULTY.format(difficulty=difficulty, level=_LEVELS[difficulty]),
        _HINT_AND_SOLUTION,
        TOOL_USE_CONTRACT_TEXT.rstrip("\n"),
        _TIPS,
    ]
    return [task], trailing
