"""Prompts for the Environment Designer: the skill catalog, design and repair messages.

The designer is asked for a whole program plus a privileged hint. Everything the
program must satisfy comes from :data:`spade_gym.contract.CONTRACT_TEXT`, which is
inserted verbatim: the validator, the sandbox and this prompt then cannot drift apart.
The rest of the prompt is guidance on *what makes a good training environment* (a task at
the agent's frontier, with a hint that really helps), which no code checks directly but
which the hint-based regret reward pays for.

Nothing here imports heavy dependencies; building a prompt is pure string work.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from spade_gym.contract import CONTRACT_TEXT, DEFAULT_MAX_TURNS
from spade_gym.errors import ConfigError

#: Recorded on every generated environment's card, so a pool can be traced to the prompt
#: that produced it. Bump it whenever the wording below changes meaningfully.
PROMPT_VERSION = "spade-designer-v1"

DIFFICULTIES = ("easy", "medium", "hard")
#: Default turn budget of a multi-turn design: long enough that "several turns" of optimal
#: play still leaves room for mistakes.
MULTI_TURN_MAX_TURNS = 12
#: How many concept ideas are shown per prompt: enough to inspire, few enough that
#: prompts for the same skill still differ.
IDEAS_PER_PROMPT = 3
#: Characters of a reference environment's code shown in the prompt.
SNIPPET_CHARS = 1500


# --------------------------------------------------------------------------- skills


@dataclass(frozen=True)
class Skill:
    """A cognitive skill an environment trains, with ideas to seed the designer."""

    name: str
    slug: str
    description: str
    single_turn_ideas: tuple[str, ...]
    multi_turn_ideas: tuple[str, ...]


def _skill(name: str, description: str, single: Sequence[str], multi: Sequence[str]) -> Skill:
    return Skill(name, _slug(name), description, tuple(single), tuple(multi))


def _slug(name: str) -> str:
    return re.sub(r"[\s_-]+", "_", name.strip().lower())


_CATALOG = (
    _skill(
        "Pattern Recognition",
        "finding the hidden rule behind sequences, grids, symbols or input-output examples",
        [
            "infer a string-rewriting rule from a handful of input -> output pairs and apply it "
            "to a new input",
            "continue a sequence built by interleaving two different recurrences",
            "decode a message under a keyed substitution cipher, given a few known word pairs",
            "predict the next frame of a small cellular grid from three earlier frames",
        ],
        [
            "code breaking: guess a hidden code, receive per-position feedback (right place / "
            "wrong place / absent) each turn",
            "probe a black-box function with inputs of your choice, then submit its formula",
            "a hidden tiling pattern revealed one cell per query; reveal as few cells as possible, "
            "then predict the rest",
        ],
    ),
    _skill(
        "Logical Deduction",
        "drawing certain conclusions from premises, constraints and eliminated possibilities",
        [
            "an ordering puzzle: positional clues with exactly one consistent arrangement",
            "truth-tellers and liars: decide who lies from what each one says about the others",
            "a grid logic puzzle (which person owns which item in which house) with a unique "
            "answer",
            "find the only switch setting that satisfies a set of boolean conditions",
        ],
        [
            "interactive deduction: question one suspect per turn (some lie by a fixed rule), "
            "then make an accusation",
            "find the odd-weight coin among many with a balance scale and a limited number of "
            "weighings",
            "identify a hidden object in a structured attribute space with yes/no queries",
        ],
    ),
    _skill(
        "Mathematical Reasoning",
        "multi-step quantitative reasoning: arithmetic, algebra, number theory, combinatorics, "
        "probability",
        [
            "count the arrangements that satisfy several combinatorial constraints at once",
            "solve a system of modular conditions hidden in a story about calendars or gears",
            "the exact expected value of a small dice game, as a reduced fraction",
            "a cryptarithm in which letters stand for distinct digits",
        ],
        [
            "reach an exact target number from a start value by choosing operations that cost "
            "budget",
            "a bidding game against an opponent whose fixed strategy can be worked out from its "
            "bids",
            "recover a hidden polynomial from evaluations at points you choose, with few queries",
        ],
    ),
    _skill(
        "Spatial Reasoning",
        "tracking positions, orientations, shapes and movement in two or three dimensions",
        [
            "where does a marked cell end up after a shape is rotated, reflected and shifted",
            "count the cubes visible from one side of a described stack of blocks",
            "the final position and heading of a robot after turn/move commands among walls",
        ],
        [
            "navigation with fog of war: explore a maze seeing only neighbouring cells and reach "
            "the exit before the fuel runs out",
            "push crates onto target squares in a small warehouse where careless moves get stuck",
            "rotate and slide pieces until they fill a target outline",
            "steer a drone through a 3-D grid with a wind drift you must infer from its motion",
        ],
    ),
    _skill(
        "Strategic Planning",
        "choosing sequences of actions that reach a goal under limited resources, deadlines or "
        "an opponent",
        [
            "the shortest plan that reaches a goal state in a small puzzle world (answer: the "
            "plan)",
            "schedule dependent tasks on two machines; answer the earliest finishing time",
            "the winning first move in a take-away game with unusual move rules",
        ],
        [
            "inventory management: buy, store and sell goods over several days of seeded demand",
            "negotiation with a simulated party that has a hidden reservation price and a "
            "concession rule",
            "a two-player game against a deterministic opponent that only a precise strategy "
            "beats",
            "a crafting tree under a turn budget: gather, build intermediate parts, then the goal "
            "item",
        ],
    ),
    _skill(
        "Causal Inference",
        "working out what causes what from interventions and observations, not just "
        "correlations",
        [
            "from a log of experiments with switches and lamps, say which switch drives which "
            "lamp",
            "a described causal graph with a confounder: predict the effect of an intervention",
            "find the ingredient that triggers a reaction from recipes and their outcomes",
        ],
        [
            "experiment design to find a hidden causal rule: set variables, run a trial, read "
            "the outcome, finally state the rule",
            "troubleshoot a machine: test components to trace symptoms to the faulty one, then "
            "repair it",
            "contain a spreading process on a network by intervening on a few nodes per turn",
            "debug a circuit of logic gates by probing wires",
        ],
    ),
    _skill(
        "Memory Recall",
        "keeping and using information seen earlier, across many items or many turns",
        [
            "a long event log; answer a question that combines facts scattered through it",
            "follow a sequence of swaps between containers; where does a given item end up",
            "a ledger with later corrections; the final balance of one account",
        ],
        [
            "a concentration game: flip cards, remember what was where, match all pairs within "
            "a flip budget",
            "a witness gives statements over several turns; later you must point out the "
            "contradictions",
            "items are shown once each turn and never again; later, buy exactly the remembered "
            "list",
        ],
    ),
    _skill(
        "Optimization",
        "finding the best solution among many under constraints, not merely a feasible one",
        [
            "a knapsack in which some items exclude each other; answer the best total value",
            "the cheapest route through weighted towns that visits every required stop",
            "assign workers to shifts at minimum cost while covering every shift",
        ],
        [
            "online knapsack: one item arrives per turn, accept or reject it, reach a target "
            "value without exceeding capacity",
            "run a factory: set production each turn as prices change and reach a profit target",
            "tune the hidden parameters of a black-box scorer with a limited number of "
            "evaluations",
        ],
    ),
    _skill(
        "Language Understanding",
        "interpreting, transforming and reasoning about words, sentences and meaning",
        [
            "rearrange a phrase into words that satisfy letter and length constraints",
            "find the sentence of a short passage that the other sentences contradict",
            "apply a described grammar rule of an invented language to a new sentence",
        ],
        [
            "a text adventure: read room descriptions, collect items, use them to open the way",
            "learn an invented language from short dialogues, then translate a message",
            "fill a small crossword where each answer is checked slot by slot",
        ],
    ),
)

#: The nine cognitive skills, keyed by display name.
SKILLS: dict[str, Skill] = {skill.name: skill for skill in _CATALOG}
_BY_SLUG = {skill.slug: skill for skill in _CATALOG}


def skill_by_name(name: str | Skill) -> Skill:
    """Look a skill up by name or slug, ignoring case, spaces, hyphens and underscores.

    CLI users and presets spell skills both ways ("logical_deduction", "Logical
    Deduction"); both must reach the same entry.
    """
    if isinstance(name, Skill):
        return name
    skill = _BY_SLUG.get(_slug(name))
    if skill is None:
        valid = ", ".join(f"{s.name!r} ({s.slug})" for s in _CATALOG)
        raise ValueError(f"unknown skill {name!r}; valid skills are: {valid}")
    return skill


# --------------------------------------------------------------------------- grounding


@dataclass
class GroundingCorpus:
    """Documents that designs are grounded in, one drawn fresh for every design.

    Grounding keeps a long self-play run from collapsing onto a few favourite games:
    each prompt brings a different concept from the outside world.
    """

    documents: list[str]
    max_words: int = 3000
    #: Lines of the source file that held no usable document (blank, bad JSON, no text).
    skipped: int = 0

    def __post_init__(self) -> None:
        if not self.documents:
            raise ConfigError("a grounding corpus needs at least one document")
        if self.max_words < 1:
            raise ConfigError(f"max_words must be at least 1, got {self.max_words}")

    @classmethod
    def from_jsonl(cls, path: str | Path, max_words: int = 3000) -> GroundingCorpus:
        """Read a JSONL file whose lines are objects with a ``text`` field.

        Unusable lines are counted in :attr:`skipped` rather than fatal, since corpora
        scraped from the web always have a few; a file without a single usable document
        is a configuration mistake and raises :class:`ConfigError`.
        """
        path = Path(path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"cannot read grounding corpus {path}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"grounding corpus {path} is not UTF-8 text: {exc}") from exc
        documents: list[str] = []
        skipped = 0
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                skipped += 1
                continue
            text = record.get("text") if isinstance(record, dict) else None
            if isinstance(text, str) and text.strip():
                documents.append(text.strip())
            else:
                skipped += 1
        if not documents:
            raise ConfigError(
                f"grounding corpus {path} has no usable document ({skipped} line(s) skipped); "
                'expected one JSON object per line with a non-empty "text" field, e.g. '
                '{"text": "Ferries cross the river every 40 minutes..."}'
            )
        return cls(documents, max_words=max_words, skipped=skipped)

    def sample(self, rng: random.Random) -> str:
        """Draw one document uniformly, truncated to :attr:`max_words` words."""
        return _truncate_words(rng.choice(self.documents), self.max_words)


def _truncate_words(text: str, max_words: int) -> str:
    """Cut ``text`` after ``max_words`` whitespace-separated words, keeping its layout."""
    for count, match in enumerate(re.finditer(r"\S+", text), start=1):
        if count == max_words:
            rest = text[match.end():]
            if rest.strip():
                return f"{text[:match.end()]}\n[document truncated at {max_words} words]"
            break
    return text


# --------------------------------------------------------------------------- memory


#: Win-rate band of the agent's frontier: hard enough to teach, easy enough to learn from.
FRONTIER = (0.15, 0.85)
TOO_EASY = 0.9
TOO_HARD = 0.1


@dataclass(frozen=True)
class MemoryEntry:
    """An environment from the pool, with how the agent fared on it (None: not played yet)."""

    name: str
    skill: str
    source: str
    win_rate: float | None = None
    regret: float | None = None


@dataclass(frozen=True)
class DesignMemory:
    """What the designer is shown about earlier environments.

    References near the agent's frontier show what good calibration looks like; named
    negatives show what to steer away from. Build one with :meth:`select`.
    """

    references: tuple[MemoryEntry, ...] = ()
    negatives: tuple[MemoryEntry, ...] = ()

    def __post_init__(self) -> None:
        unmeasured = [e.name for e in self.negatives if e.win_rate is None]
        if unmeasured:
            raise ValueError(f"negative examples need a win rate: {', '.join(unmeasured)}")

    @classmethod
    def select(
        cls,
        entries: Sequence[MemoryEntry],
        skill: str | Skill,
        k: int = 2,
        rng: random.Random | None = None,
        max_negatives: int = 2,
    ) -> DesignMemory:
        """Pick up to ``k`` frontier references and up to ``max_negatives`` negatives.

        References are entries of the same skill with a win rate inside :data:`FRONTIER`;
        high-regret ones are preferred (the hint mattered there), with some randomness
        among the best so consecutive prompts do not show the same pair. Entries never
        played are shown only when no frontier entry exists, since their calibration is
        unknown. Negatives are same-skill entries that were far too easy or too hard.
        """
        rng = rng or random.Random()
        slug = skill_by_name(skill).slug
        same = [e for e in entries if _slug(e.skill) == slug]
        frontier = [e for e in same if e.win_rate is not None
                    and FRONTIER[0] <= e.win_rate <= FRONTIER[1]]
        if frontier:
            frontier.sort(key=lambda e: e.regret if e.regret is not None else float("-inf"),
                          reverse=True)
            pool = frontier[: 2 * k]
        else:
            pool = [e for e in same if e.win_rate is None]
        references = rng.sample(pool, min(k, len(pool)))
        bad = [e for e in same if e.win_rate is not None
               and (e.win_rate > TOO_EASY or e.win_rate < TOO_HARD)]
        negatives = rng.sample(bad, min(max_negatives, len(bad)))
        return cls(tuple(references), tuple(negatives))

    def __bool__(self) -> bool:
        return bool(self.references or self.negatives)


def _render_memory(memory: DesignMemory) -> str:
    parts = []
    if memory.references:
        parts.append(
            "# Reference environments\n"
            "These environments from the current pool are shown for calibration: those with a "
            "win rate between 15% and 85% sit at the agent's frontier, and a high regret means "
            "the hint made a real difference. Learn from them, then create a DIFFERENT "
            "environment: new mechanics, not a renamed or re-skinned copy."
        )
        for entry in memory.references:
            if entry.win_rate is None:
                stats = "not played yet"
            else:
                regret = "n/a" if entry.regret is None else f"{entry.regret:.2f}"
                stats = f"win rate {entry.win_rate:.2f}, regret {regret}"
            parts.append(
                f"## {entry.name} (skill: {entry.skill}; {stats})\n"
                f"```python\n{_snippet(entry.source)}\n```"
            )
    if memory.negatives:
        lines = ["Avoid environments like these:"]
        for entry in memory.negatives:
            label = "too easy" if entry.win_rate >= 0.5 else "too hard"
            lines.append(f"- {label} (win rate {entry.win_rate:.2f}): {entry.name}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _snippet(source: str) -> str:
    """The start of a program, cut at a line boundary so the model sees whole lines."""
    source = source.strip("\n")
    if len(source) <= SNIPPET_CHARS:
        return source
    cut = source.rfind("\n", 0, SNIPPET_CHARS)
    return source[: cut if cut > 0 else SNIPPET_CHARS] + "\n# ... (truncated)"


# --------------------------------------------------------------------------- prompt text


_SYSTEM = (
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

_FORMAT = '''\
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


def build_design_messages(
    skill: str | Skill,
    *,
    multi_turn: bool,
    difficulty: str = "medium",
    grounding: str | None = None,
    memory: DesignMemory | None = None,
    rng: random.Random | None = None,
    max_turns: int | None = None,
) -> list[dict]:
    """Chat messages asking the designer for one environment program plus its hint.

    ``rng`` picks the concept ideas shown (an unseeded generator if omitted, so repeated
    prompts differ); pass a seeded one for reproducible prompts. ``max_turns`` defaults to
    :data:`~spade_gym.contract.DEFAULT_MAX_TURNS` for single-turn and
    :data:`MULTI_TURN_MAX_TURNS` for multi-turn designs.
    """
    skill = skill_by_name(skill)
    if difficulty not in DIFFICULTIES:
        raise ValueError(
            f"unknown difficulty {difficulty!r}; choose one of {', '.join(DIFFICULTIES)}")
    if max_turns is None:
        max_turns = MULTI_TURN_MAX_TURNS if multi_turn else DEFAULT_MAX_TURNS
    minimum = 4 if multi_turn else 1
    if max_turns < minimum:
        raise ValueError(
            f"max_turns={max_turns} is too small for a {'multi' if multi_turn else 'single'}-turn "
            f"design; use at least {minimum}"
        )
    rng = rng or random.Random()
    ideas = skill.multi_turn_ideas if multi_turn else skill.single_turn_ideas
    chosen = rng.sample(ideas, min(IDEAS_PER_PROMPT, len(ideas)))
    kind = "multi-turn game" if multi_turn else "single-turn task"

    sections = [
        f"# Task\nDesign a {kind} as a Python environment that trains the skill "
        f"**{skill.name}**: {skill.description}.\n"
        "Concept ideas (pick one, combine two, or invent your own; make it yours, not a "
        "textbook exercise):\n" + "\n".join(f"- {idea}" for idea in chosen)
    ]
    if grounding is not None and grounding.strip():
        sections.append(
            "# Grounding\nBuild the environment on one concept, mechanism or technique from the "
            "document below, so that playing well requires understanding it. Do not reference "
            "the document: the player never sees it, so the game text must not mention, quote "
            "or rely on it.\n<document>\n" + grounding.strip() + "\n</document>"
        )
    if multi_turn:
        sections.append(_MULTI_TURN.format(
            max_turns=max_turns, low=max(2, max_turns // 2), high=max(3, max_turns * 3 // 4)))
    else:
        sections.append(_SINGLE_TURN.format(max_turns=max_turns))
    sections.append(_DIFFICULTY.format(
        difficulty=difficulty, steps=_STEPS[difficulty], level=_LEVELS[difficulty]))
    sections.append(_HINT_AND_SOLUTION)
    sections.append(CONTRACT_TEXT.rstrip("\n"))
    sections.append(_TIPS)
    if memory:
        sections.append(_render_memory(memory))
    sections.append(_FORMAT)
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": "\n\n".join(sections)},
    ]


def build_repair_messages(
    design_messages: Sequence[dict], completion: str, feedback: str
) -> list[dict]:
    """Continue a design conversation with the validator's verdict on the last attempt.

    The model sees its own previous answer and the exact report (``summary()`` of the
    validation result), which is what lets it fix the named problem instead of starting
    over. Works on a repair conversation too, for a second round of fixes.
    """
    if not design_messages:
        raise ValueError("design_messages is empty; pass the messages the completion answered")
    if not feedback.strip():
        raise ValueError("feedback is empty; pass the validation report of the rejected program")
    request = (
        "Your environment was rejected by automatic validation. The report:\n\n"
        f"{feedback.strip()}\n\n"
        "Fix every problem in the report. Keep the design unless the design itself is the "
        "problem (for example, answering \\boxed{<solution()>} every turn does not win). Reply "
        "with the COMPLETE corrected program, not a diff or a fragment, in one ```python block, "
        "followed by <hint>...</hint>."
    )
    return [dict(m) for m in design_messages] + [
        {"role": "assistant", "content": completion},
        {"role": "user", "content": request},
    ]
