"""The program contract: what an environment program must define, in one place.

Everything that describes a program to someone else reads from here: the sandbox
(which modules exist inside it), the validator (which methods must exist) and the
designer prompt (the text a model is shown).
Keeping them on one source of truth means the prompt can never promise a module
the sandbox refuses, nor the validator demand a method the prompt never asked for.
"""

from __future__ import annotations

import ast

from spade_gym import syntax

#: Suffix that marks the environment class (the SPADE reference loader's rule).
ENV_CLASS_SUFFIX = "Env"
#: Methods every program must define on its environment class.
REQUIRED_METHODS = ("reset", "step", "solution")
#: Methods a program may define; ``hint`` gives a per-episode privileged hint.
OPTIONAL_METHODS = ("hint", "close")

#: The two kinds of program. A *game* defines ``step()`` itself and is answered in
#: ``\boxed{}``; a *tool-use* program subclasses :data:`TOOL_USE_BASE_CLASS`, whose
#: ``step()`` reads ``<tool_call>`` JSON and ``<answer>`` (SPADE's second setting).
GAME_KIND = "game"
TOOL_USE_KIND = "tool-use"
KINDS = (GAME_KIND, TOOL_USE_KIND)
#: The base class tool-use programs subclass without importing it (it is in their
#: namespace, as under the reference loader), and the module name the reference also
#: lets them import it from.
TOOL_USE_BASE_CLASS = "ToolUseBaseEnv"
TOOL_USE_BASE_MODULE = "tool_use_base_env"
#: Class names that end in ``Env`` but are bases, never the environment class itself.
BASE_CLASS_NAMES = (ENV_CLASS_SUFFIX, TOOL_USE_BASE_CLASS)
#: What a tool-use class must define itself (``step`` comes from the base class), and
#: the prefix of its tool methods.
TOOL_USE_REQUIRED_METHODS = ("reset", "solution")
TOOL_METHOD_PREFIX = "tool_"

#: Modules a program may import. The first group is what programs written for the
#: SPADE reference loader use; the second is small, pure helpers LLM-written code
#: reaches for. Each is exposed through a vetted surface (see ``sandbox.surfaces``).
ALLOWED_MODULES = (
    "random", "re", "math", "itertools", "functools", "collections", "collections.abc",
    "string", "json", "copy", "heapq", "operator", "statistics", "fractions", "decimal",
    "datetime", "dataclasses", "typing", "enum", "bisect", "numpy", "math_verify",
    # small, side-effect-free helpers
    "abc", "textwrap", "difflib", "cmath", "numbers", "hashlib", "time", "sys", "types",
    "__future__",
    # the reference loader's alias for the tool-use base class (``from tool_use_base_env import ...``)
    TOOL_USE_BASE_MODULE,
)

#: Names the SPADE reference loader injects into every program without an import.
#: Programs written for it rely on them, so the sandbox provides them too.
INJECTED_NAMES = {
    # modules
    "itertools": "itertools", "math": "math", "random": "random", "re": "re",
    "json": "json", "collections": "collections", "functools": "functools",
    "string": "string", "copy": "copy", "heapq": "heapq", "operator": "operator",
    "statistics": "statistics", "np": "numpy", "numpy": "numpy",
    # members
    "deque": "collections.deque", "defaultdict": "collections.defaultdict",
    "Counter": "collections.Counter", "OrderedDict": "collections.OrderedDict",
    "namedtuple": "collections.namedtuple",
    "combinations": "itertools.combinations", "permutations": "itertools.permutations",
    "product": "itertools.product", "chain": "itertools.chain",
    "accumulate": "itertools.accumulate",
    "reduce": "functools.reduce", "lru_cache": "functools.lru_cache",
    "deepcopy": "copy.deepcopy", "heappush": "heapq.heappush", "heappop": "heapq.heappop",
    "Tuple": "typing.Tuple", "Dict": "typing.Dict", "List": "typing.List",
    "Optional": "typing.Optional", "Union": "typing.Union", "Any": "typing.Any",
    "Set": "typing.Set", "FrozenSet": "typing.FrozenSet", "Callable": "typing.Callable",
    "Iterable": "typing.Iterable", "Sequence": "typing.Sequence", "Mapping": "typing.Mapping",
}

#: Default number of turns when neither the program nor the card says otherwise.
DEFAULT_MAX_TURNS = 10
#: Longest action (characters) an environment forwards to a program and an agent sends;
#: longer text is cut. Programs must survive actions this long (the validator fuzzes with them).
MAX_ACTION_CHARS = 100_000
#: Reward a winning episode ends with (the reference convention).
WIN_REWARD = 1.0
#: Every reward lies in this closed range (the host clamps what a worker reports).
REWARD_RANGE = (-1.0, 1.0)

#: The contract as the designer model reads it. Kept short and exact: every sentence is
#: something the validator checks or the sandbox enforces.
CONTRACT_TEXT = f"""\
PROGRAM CONTRACT (checked automatically; a program that breaks it is rejected)
- One Python module defining exactly one environment class whose name ends in `Env`
  (helper classes and functions are fine).
- `__init__(self, max_turns=<N>, **kwargs)`: store `max_turns`, initialise ALL state.
  Accept a `difficulty` keyword ("easy", "medium", "hard") that changes the task size.
- `reset(self, seed=None) -> (observation: str, info: dict)`: start a new task. The same
  seed must always give the same task; seed your random generator from it
  (`self.rng = random.Random(seed)` or `random.seed(seed)`). Different seeds must give
  different tasks.
- `step(self, action: str) -> (observation: str, reward: float, terminated: bool,
  truncated: bool, info: dict)`: never raise, whatever the text (empty, huge, unicode,
  malformed). Answers/commands arrive as `\\boxed{{...}}`; text without a box gets a
  format reminder. Reward is a finite float in [-1, 1]; a win gives {WIN_REWARD} and
  `terminated=True`. Every episode must end (terminated or truncated) within `max_turns`.
- `solution(self) -> str`: the winning answer for the CURRENT state (for multi-turn games:
  the best next action). Answering `\\boxed{{<solution()>}}` turn after turn must win.
- Optional `hint(self) -> str`: a per-episode privileged hint (never the answer itself).
- `info` must be JSON-compatible (str, numbers, bools, None, lists, dicts); never put the
  solution in it.
- Allowed imports: {", ".join(m for m in ALLOWED_MODULES if m not in ("__future__", TOOL_USE_BASE_MODULE))}.
  `from math_verify import parse, verify` compares mathematical answers.
  No file, network, process or OS access; no `eval`/`exec`/`open`/`input`; no dunder
  attributes except `__init__`, `__name__`, `__class__` and operator methods.
- Observations are at most 64 KiB of text; each call must return within a few seconds.
"""


#: The contract of a tool-use program, as the designer model reads it. Every sentence is
#: something the validator checks (see ``docs/tool-use.md``).
TOOL_USE_CONTRACT_TEXT = f"""\
TOOL-USE PROGRAM CONTRACT (checked automatically; a program that breaks it is rejected)
- One Python module defining exactly one environment class whose name ends in `Env` and
  that subclasses `{TOOL_USE_BASE_CLASS}`. Do not import or define `{TOOL_USE_BASE_CLASS}`:
  it is already in the namespace. Do not define `step()`: the base class owns it. It reads
  `<answer>...</answer>` first (a right answer wins: reward {WIN_REWARD}, terminated), else the
  first `<tool_call>{{"name": ..., "arguments": {{...}}}}</tool_call>`, calls
  `tool_<name>(**arguments)` and returns `"Tool result:\\n<result>"`. A wrong answer, an unknown
  tool, bad JSON and a tool that raises each get feedback; text with neither is a format error
  (reward -0.1). After `max_turns` turns the episode is truncated.
- If you define `__init__(self, max_turns=<N>, difficulty="medium", **kwargs)`, set your own
  attributes first and call `super().__init__(max_turns=max_turns, **kwargs)` last (it calls
  `reset()`). The `difficulty` keyword ("easy", "medium", "hard") changes the task size.
- `reset(self, seed=None) -> (task: str, {{}})`: set `self.turn_count = 0` and
  `self._call_history = []`; draw everything from a generator seeded with the seed
  (`rng = random.Random(seed)`); build the simulated state in `self._state`, declare the tools
  in `self._tools` and set `self._expected_answer`. The same seed always gives the same task;
  different seeds give different tasks.
- `self._tools = {{name: {{"description": str, "parameters": {{"type": "object", "properties":
  {{...}}, "required": [...]}}}}}}`: valid JSON Schema; tool names use letters, digits and `_`.
- One method `tool_<name>(self, ...)` per declared tool whose parameters are EXACTLY the
  declared property names (optional ones with defaults). Tools are deterministic (no
  randomness, no clock), read and change `self._state`, and return text.
- `solution(self) -> str`: the winning play from the state right after `reset()`: one
  `<tool_call>...</tool_call>` per line, then `<answer>...</answer>`. Played one line per turn in
  a fresh episode it must win on every seed within `max_turns`.
- Tools must be needed: the final answer submitted before any tool call must NOT win (make
  `_check_answer(self, answer)` also check `self._call_history` or `self._state`), and the
  answer never appears in the task text.
- Optional `hint(self) -> str`: a per-episode privileged hint (never the answer itself).
- Allowed imports: {", ".join(m for m in ALLOWED_MODULES if m not in ("__future__", TOOL_USE_BASE_MODULE))}.
  No file, network, process or OS access; no `eval`/`exec`/`open`/`input`; no dunder
  attributes except `__init__`, `__name__`, `__class__` and operator methods.
- Observations are at most 64 KiB of text; each call must return within a few seconds.
"""


# --------------------------------------------------------------------------- program kind


def environment_class(tree: ast.Module) -> ast.ClassDef | None:
    """The environment class of a parsed program: the one module-level ``*Env`` class no
    other ``*Env`` class derives from (None if there is not exactly one)."""
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef)
               and s.name.endswith(ENV_CLASS_SUFFIX) and s.name not in BASE_CLASS_NAMES]
    used_as_base = {b.id for c in classes for b in c.bases if isinstance(b, ast.Name)}
    leaves = [c for c in classes if c.name not in used_as_base]
    return leaves[0] if len(leaves) == 1 else None


def program_kind(source: str) -> str:
    """``"tool-use"`` if the environment class derives from ``ToolUseBaseEnv`` (directly or
    through classes the program defines), else ``"game"``.

    Decided from the source text alone, on the host, so that no worker reply can change
    how a program is validated or served. A program that hides the base class behind an
    alias is treated as a game, and must then pass the game checks.
    """
    try:
        tree = syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, TypeError):
        return GAME_KIND
    env = environment_class(tree)
    if env is None:
        return GAME_KIND
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    pending, seen = [env], set()
    while pending:
        node = pending.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        for base in node.bases:
            if isinstance(base, ast.Name):
                if base.id == TOOL_USE_BASE_CLASS:
                    return TOOL_USE_KIND
                if base.id in classes:
                    pending.append(classes[base.id])
    return GAME_KIND
