"""The program contract: what an environment program must define, in one place.

Everything that describes a program to someone else reads from here: the sandbox
(which modules exist inside it), the validator (which methods must exist), the
designer prompt (the text a model is shown) and the designer-output parser.
Keeping them on one source of truth means the prompt can never promise a module
the sandbox refuses, nor the validator demand a method the prompt never asked for.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from spade_gym.errors import DesignerOutputError

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
#: Reward a winning episode ends with (the reference convention).
WIN_REWARD = 1.0

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
        tree = ast.parse(source)
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


# --------------------------------------------------------------------------- designer output


@dataclass(frozen=True)
class DesignerOutput:
    """A designer completion split into its parts."""

    code: str
    hint: str | None
    #: Non-fatal remarks about the parse (several code blocks, missing hint, ...).
    notes: tuple[str, ...] = ()


_THINK_END = re.compile(r"</think>", re.IGNORECASE)
#: A fenced block. The opening fence may carry a language word and attributes
#: (```python title=env.py); the closing fence is ``` at the start of a line, so an empty
#: block (```python + ```) closes at once. A block nobody closed runs to the end (group 3 is None).
_FENCE = re.compile(
    r"```[ \t]*(?:([A-Za-z][\w+.-]*)(?:[ \t][^\n`]*)?)?\n(.*?)(?:(^[ \t]*```)|\Z)",
    re.DOTALL | re.MULTILINE,
)
_HINT = re.compile(r"<hint>(.*?)(?:</hint>|\Z)", re.DOTALL | re.IGNORECASE)
_HINT_OPEN = re.compile(r"<hint>", re.IGNORECASE)
_HINT_LINE = re.compile(r"^[ \t]*<hint>", re.MULTILINE | re.IGNORECASE)
_CLASS_ENV = re.compile(r"^class\s+\w*Env\b", re.MULTILINE)
_CODE_LANGUAGES = ("python", "py", "python3", "")
#: How many ``</think>`` cut points are tried before giving up (bounds the work on garbage).
_MAX_THINK_CUTS = 16


def parse_designer_output(text: str) -> DesignerOutput:
    """Extract the program and the ``<hint>`` from a designer completion.

    Tolerant by design: models wrap answers in thinking text, emit several code
    blocks, forget the fence or the closing tag. The rules, in order:

    * line endings are normalised to ``\\n`` (a CRLF fence would otherwise not be seen);
    * everything up to the last ``</think>`` is discarded, unless that ``</think>`` is
      code (a string literal in the program): then the thinking ends at the latest
      earlier ``</think>`` after which every later one lies inside a code block, or
      there was no thinking at all;
    * the program is the fenced block (``python`` or unlabelled) that defines an
      ``*Env`` class — the last such block if there are several, since models revise;
      a block that is never closed ends at a line starting with ``<hint>``;
      without any fence, the text from the first ``import``/``class`` line is used;
    * the hint is the content of the last ``<hint>...</hint>`` outside code blocks.

    Raises :class:`DesignerOutputError` naming exactly what was missing.
    """
    if not isinstance(text, str):
        raise DesignerOutputError(f"designer output must be text, got {type(text).__name__}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    ends = [m.end() for m in _THINK_END.finditer(text)]
    # Cut points to try: the last </think> first, 0 (no thinking) last.
    cuts = ends[::-1][:_MAX_THINK_CUTS] + [0]
    first_error: DesignerOutputError | None = None
    for cut in cuts:
        try:
            output, code_spans = _parse_answer(text[cut:])
        except DesignerOutputError as exc:
            first_error = first_error or exc
            continue
        later = [end - cut for end in ends if end > cut]
        if all(any(lo < end <= hi for lo, hi in code_spans) for end in later):
            if later:
                note = "'</think>' occurs inside code; not treated as the end of thinking"
                output = DesignerOutput(output.code, output.hint, output.notes + (note,))
            return output
    # Reachable only after the first cut failed: it has no later </think> to check.
    assert first_error is not None
    raise first_error


def _parse_answer(text: str) -> tuple[DesignerOutput, list[tuple[int, int]]]:
    """Parse the answer part of a completion; also return the spans of all code in it."""
    notes: list[str] = []
    blocks = []  # (language, block span, content span, closed)
    for m in _FENCE.finditer(text):
        language = (m.group(1) or "").lower()
        content_start, content_end = m.span(2)
        block_end = m.end()
        closed = m.group(3) is not None
        if not closed and language in _CODE_LANGUAGES:
            hint_at = _HINT_LINE.search(text, content_start, content_end)
            if hint_at:
                content_end = block_end = hint_at.start()
        blocks.append((language, (m.start(), block_end), (content_start, content_end), closed))
    code_blocks = [b for b in blocks if b[0] in _CODE_LANGUAGES]
    env_blocks = [b for b in code_blocks if _CLASS_ENV.search(text, *b[2])]
    spans = [b[2] for b in blocks]
    outside = text
    for _, (start, end), _, _ in reversed(blocks):
        outside = outside[:start] + outside[end:]
    if env_blocks:
        _, _, span, closed = env_blocks[-1]
        if not closed:
            notes.append("the code block is not closed with ```")
        if len(env_blocks) > 1:
            notes.append(f"{len(env_blocks)} code blocks define an *Env class; used the last one")
    elif code_blocks:
        raise DesignerOutputError(
            "found a ```python block but no class whose name ends in 'Env' in it; "
            "the program must define the environment class (e.g. `class MazeEnv:`)"
        )
    else:
        start = re.search(r"^(?:from\s+\S+\s+import|import\s|class\s)", text, re.MULTILINE)
        if start is None or not _CLASS_ENV.search(text):
            raise DesignerOutputError(
                "no program found: expected one ```python code block defining a class whose "
                "name ends in 'Env'"
            )
        hint_at = _HINT_OPEN.search(text, start.start())
        span = (start.start(), hint_at.start() if hint_at else len(text))
        spans.append(span)
        outside = text[: span[0]] + text[span[1]:]
        notes.append("no code fence; took the program from the first import/class line")
    hints = [h.strip() for h in _HINT.findall(outside)]
    hints = [h for h in hints if h]
    hint = hints[-1] if hints else None
    if hint is None:
        notes.append("no <hint>...</hint> section found")
    code = text[span[0]:span[1]].strip("\n") + "\n"
    return DesignerOutput(code=code, hint=hint, notes=tuple(notes)), spans
