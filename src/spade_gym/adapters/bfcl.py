"""BFCL's single-turn categories as spade-gym environments (``spade/bfcl-<category>-v0``).

Why: SPADE's tool-use training is meant to transfer to function calling that no
designer wrote, and the paper measures that on the Berkeley Function Calling
Leaderboard (BFCL). The PyPI package ``bfcl-eval`` ships BFCL's questions and possible
answers, so the benchmark runs offline, through the same ``spade-gym eval`` command,
driver and agents as the generated suite.

* One environment per category, one task per seed, in BFCL's order (seed ``s`` is task
  ``s`` modulo the category's size).
* BFCL judges one reply. Tool-calling agents send a reply's parallel calls as one step
  each (as tool-use environments expect), so the environment records calls (answering
  each with a "recorded" tool result; nothing is executed) until a step holds no call
  (plain text or an ``<answer>``), then scores everything recorded and ends the episode.
  It ends at once when the verdict can no longer change (a call where none fits, more
  calls than expected, a malformed call).
* The observation is the conversation plus the available functions (as OpenAI function
  schemas) and the action protocol; ``info["tools"]`` holds the same schemas for agents
  that call tools natively. Function names with dots are shown with ``_`` (``math.factorial``
  -> ``math_factorial``), as BFCL does for APIs that forbid dots; either spelling is accepted.
* Actions are the ``<tool_call>`` text protocol of :mod:`spade_gym.toolcalls`, several
  blocks for parallel calls. Reward 1.0 if the calls pass BFCL's AST checking rules
  (:mod:`spade_gym.adapters.bfcl_checker`), else 0.0.
* ``spade_gym.privileged(env).solution()`` is one of BFCL's possible answers, as text.

``bfcl-eval`` is optional (``pip install --no-deps bfcl-eval``; see the ``bfcl`` extra). The single-turn
categories only read its data files and never import its code, so ``pip install --no-deps
bfcl-eval`` is enough for them (``multi_turn_base`` also runs its simulators, which need
``mpmath``). Nothing is read until an environment is made. The data is trusted (it ships
in a package): no sandbox is involved.

``multi_turn_base`` (``spade/bfcl-multi_turn_base-v0``) is registered here too and
built by :mod:`spade_gym.adapters.bfcl_multi_turn`. Not covered: ``simple_java`` and
``simple_javascript`` (their arguments are Java and JavaScript literals, checked by BFCL's
language-specific converters), the other multi-turn categories, and the memory,
web-search and format-sensitivity categories (see docs/bfcl.md).
"""

from __future__ import annotations

import copy
import importlib.metadata
import importlib.util
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import gymnasium as gym

from spade_gym.adapters.bfcl_checker import OPTIONAL, Verdict, api_name, check
from spade_gym.contract import TOOL_USE_KIND
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.wrappers import HintWrapper
from spade_gym.errors import ConfigError, RegistryError, SpadeError
from spade_gym.toolcalls import ToolCall, format_answer, format_calls, openai_tools, parse_action

#: Every adapter id starts with this; the rest is the BFCL category and ``-v0``.
ID_PREFIX = "spade/bfcl-"
ENTRY_POINT = "spade_gym.adapters.bfcl:make_bfcl_env"
#: The PyPI distribution that ships the data, and its data file names.
DISTRIBUTION = "bfcl-eval"
DATA_FILE = "BFCL_v4_{category}.json"
#: BFCL category -> how a reply is checked (see :mod:`spade_gym.adapters.bfcl_checker`).
CATEGORIES: dict[str, str] = {
    "simple_python": "simple",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel",
    "live_simple": "simple",
    "live_multiple": "multiple",
    "live_parallel": "parallel",
    "live_parallel_multiple": "parallel",
    "irrelevance": "irrelevance",
    "live_irrelevance": "irrelevance",
    "live_relevance": "relevance",
}
#: Multi-turn categories (see :mod:`spade_gym.adapters.bfcl_multi_turn`).
MULTI_TURN_CATEGORIES = ("multi_turn_base",)
#: BFCL's types -> JSON Schema types, for the OpenAI function schemas agents are given.
JSON_SCHEMA_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}
PROTOCOL_INSTRUCTION = (
    "To call functions, reply with one block per call:\n"
    '<tool_call>{"name": "<function name>", "arguments": {<the arguments as a JSON object>}}</tool_call>\n'
    "Make every call the request needs (several blocks in one reply for several calls). "
    "When you have made them all, or if none of the functions fits the request, reply "
    "without any <tool_call> block."
)
#: The tool result of a recorded call: BFCL checks calls, it never runs them.
RECORDED = ("Recorded (these functions are not executed here). Make any other call the request "
            "needs, or reply without a <tool_call> block when you are done.")
#: Steps after which an episode ends whatever the agent does.
MAX_STEPS = 32
#: What the oracle replies where no call is right.
NO_CALL_ANSWER = "None of the available functions fits this request."
MAX_OBSERVATION_CHARS = 400_000
MAX_ACTION_CHARS = 100_000


class BfclUnavailable(ConfigError):
    """The ``bfcl-eval`` package (BFCL's data) is not installed."""


class BfclDataError(ConfigError):
    """BFCL's data files are missing or not in the expected format."""


@dataclass(frozen=True)
class BfclTask:
    """One BFCL question: its id, conversation, function declarations and possible answers."""

    id: str
    messages: tuple[dict[str, str], ...]
    functions: tuple[dict[str, Any], ...]
    ground_truth: tuple[dict[str, Any], ...]


# ----------------------------------------------------------------------------- data


def data_dir() -> Path:
    """``bfcl_eval/data`` of the installed package, found without importing it."""
    spec = importlib.util.find_spec("bfcl_eval")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise BfclUnavailable(
            "BFCL environments need the bfcl-eval package (BFCL's data); install it with "
            "pip install 'spade-gym[bfcl]' && pip install --no-deps bfcl-eval==2026.3.23"
        )
    return Path(locations[0]) / "data"


def data_version() -> str | None:
    """The installed bfcl-eval version (scores are comparable only on the same data)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise BfclDataError(f"BFCL data file {path} is missing; reinstall bfcl-eval") from None
    try:
        return [json.loads(line) for line in lines if line.strip()]
    except ValueError as exc:
        raise BfclDataError(f"BFCL data file {path} is not JSON lines: {exc}") from None


def _known(category: str) -> str:
    if category not in CATEGORIES:
        raise RegistryError(f"unknown BFCL category {category!r}; known: {', '.join(CATEGORIES)}")
    return category


@lru_cache(maxsize=None)
def _category(category: str) -> tuple[tuple[BfclTask, ...], tuple[tuple[str, str], ...]]:
    """(tasks kept, (id, reason) of tasks excluded) for a category, read once per process."""
    _known(category)
    root = data_dir()
    questions = _read_jsonl(root / DATA_FILE.format(category=category))
    answers: dict[str, Any] = {}
    if CATEGORIES[category] not in ("irrelevance", "relevance"):
        answers = {row["id"]: row["ground_truth"] for row in _read_jsonl(root / "possible_answer" /
                                                                         DATA_FILE.format(category=category))}
    tasks = []
    for row in questions:
        try:
            turns = row["question"]
            if len(turns) != 1:
                raise BfclDataError(f"{row['id']}: {len(turns)} turns; {category} should be single-turn")
            ground_truth = answers[row["id"]] if answers else []
            tasks.append(BfclTask(row["id"], tuple(turns[0]), tuple(row["function"]), tuple(ground_truth)))
        except (KeyError, TypeError) as exc:
            raise BfclDataError(f"unexpected BFCL data in {category} (entry {row.get('id', '?')!r}): {exc!r}") from None
    # A few of BFCL's possible answers contradict their own question's declarations (a
    # required parameter with no possible value, an answer naming an undeclared
    # parameter): no reply passes BFCL's rules there, so every model fails them alike.
    # They are left out, found by checking each task's own possible answer.
    kept, excluded = [], []
    for task in tasks:
        verdict = _reference_verdict(category, task)
        if verdict.valid:
            kept.append(task)
        else:
            excluded.append((task.id, f"BFCL's possible answer fails its own rules: {verdict.error}"))
    if not kept:
        raise BfclDataError(f"BFCL category {category} has no tasks")
    return tuple(kept), tuple(excluded)


def load_tasks(category: str) -> tuple[BfclTask, ...]:
    """Every scorable task of a category, in BFCL's order (read once per process)."""
    return _category(category)[0]


def excluded_tasks(category: str) -> tuple[tuple[str, str], ...]:
    """``(task id, reason)`` of the category's tasks that no reply can pass (left out of the env)."""
    return _category(category)[1]


def num_tasks(category: str) -> int:
    """How many tasks a category has (single- or multi-turn)."""
    if category in MULTI_TURN_CATEGORIES:
        from spade_gym.adapters import bfcl_multi_turn

        return len(bfcl_multi_turn.load_tasks(category))
    return len(load_tasks(category))


# ----------------------------------------------------------------------------- presentation


def _schema(node: Any) -> Any:
    """A BFCL parameter schema as JSON Schema (``dict`` -> ``object``, ``float`` -> ``number``, ...)."""
    if isinstance(node, list):
        return [_schema(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            out[key] = JSON_SCHEMA_TYPES.get(value, value)
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _schema(spec) for name, spec in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _schema(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def shown_names(functions: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """BFCL name -> the name agents see: dots as ``_``, unless that would merge two functions."""
    names = [f["name"] for f in functions]
    api = [api_name(n) for n in names]
    if len(set(api)) != len(api) or set(api) & (set(names) - set(api)):
        return {n: n for n in names}
    return dict(zip(names, api))


def tool_schemas(task: BfclTask) -> list[dict[str, Any]]:
    """The task's functions as OpenAI function schemas (the shown names, JSON Schema types)."""
    names = shown_names(task.functions)
    return openai_tools({
        names[f["name"]]: {"description": f.get("description", ""),
                           "parameters": _schema(f.get("parameters") or {"type": "dict", "properties": {}})}
        for f in task.functions
    })


def render_observation(task: BfclTask, tools: list[dict[str, Any]], *, show_tools: bool = True) -> str:
    messages = task.messages
    if len(messages) == 1 and messages[0].get("role") == "user":
        conversation = str(messages[0].get("content", ""))
    else:
        conversation = "\n\n".join(f"{str(m.get('role', 'user')).capitalize()}: {m.get('content', '')}"
                                   for m in messages)
    parts = [conversation.strip()]
    if show_tools:
        parts.append("Available functions (OpenAI function schemas):\n" + json.dumps(tools, indent=1, ensure_ascii=False))
    parts.append(PROTOCOL_INSTRUCTION)
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------- the oracle


def _first_allowed(options: Any) -> Any:
    options = options if isinstance(options, list) else [options]
    return next((o for o in options if o != OPTIONAL), OPTIONAL)


def _concrete_dict(answer: Mapping[str, Any]) -> dict[str, Any]:
    """One concrete dict from a possible dict answer (key -> possible values)."""
    out = {}
    for key, options in answer.items():
        options = options if isinstance(options, list) else [options]
        if OPTIONAL not in options:
            out[key] = _first_allowed(options)
    return out


def _concrete_value(options: list[Any], schema: Mapping[str, Any]) -> Any:
    value = _first_allowed(options)
    raw_items = schema.get("items")
    items: Mapping[str, Any] = raw_items if isinstance(raw_items, Mapping) else {}
    if schema.get("type") == "dict" and isinstance(value, Mapping):
        return _concrete_dict(value)
    if items.get("type") == "dict" and isinstance(value, list):
        return [_concrete_dict(v) if isinstance(v, Mapping) else v for v in value]
    return value


def reference_calls(task: BfclTask) -> list[ToolCall]:
    """One of the possible answers, as calls (under the names agents are shown)."""
    names = shown_names(task.functions)
    declared = {f["name"]: f.get("parameters") or {} for f in task.functions}
    calls = []
    for entry in task.ground_truth:
        name, expected = next(iter(entry.items()))
        parameters = declared.get(name, {})
        properties = parameters.get("properties") or {}
        required = set(parameters.get("required") or ())
        arguments = {}
        for param, options in expected.items():
            options = options if isinstance(options, list) else [options]
            if param not in required and OPTIONAL in options:
                continue  # optional: leaving it out is a possible answer
            arguments[param] = _concrete_value(options, properties.get(param) or {})
        calls.append(ToolCall(names.get(name, name), arguments))
    return calls


# ----------------------------------------------------------------------------- the environment


class BfclEnv(gym.Env[str, str]):
    """One BFCL category: ``reset(seed=s)`` poses task ``s % size``; one ``step`` scores the reply.

    ``show_tools=False`` leaves the function schemas out of the observation, for agents
    that pass ``info["tools"]`` to a chat template or an API's ``tools=`` instead.
    """

    metadata = {"render_modes": []}
    #: Agents treat it as a tool-use environment (``spade_gym.tools(env)``, native tool calling).
    kind = TOOL_USE_KIND

    def __init__(self, category: str, *, show_tools: bool = True):
        self.category = _known(category)
        self.mode = CATEGORIES[category]
        self.show_tools = bool(show_tools)
        self.tasks = load_tasks(category)
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self._task: BfclTask | None = None
        self._tools: list[dict[str, Any]] | None = None
        self._calls: list[ToolCall] = []
        self._malformed: list[str] = []
        self._steps = 0
        self._done = False

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The current task's functions as OpenAI function schemas (see :func:`spade_gym.tools`)."""
        if self._tools is None:
            raise SpadeError(f"{self!r} has no tools yet: call reset() first (each task declares its functions)")
        return copy.deepcopy(self._tools)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        index = int(seed) if seed is not None else int(self.np_random.integers(0, len(self.tasks)))
        index %= len(self.tasks)
        self._task = self.tasks[index]
        self._calls, self._malformed, self._steps, self._done = [], [], 0, False
        tools = self._tools = tool_schemas(self._task)
        observation = render_observation(self._task, tools, show_tools=self.show_tools)
        info = {"tools": copy.deepcopy(tools), "category": self.category, "task_id": self._task.id, "index": index,
                "num_tasks": len(self.tasks), "bfcl_version": data_version()}
        return observation[:MAX_OBSERVATION_CHARS], info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._done:
            raise gym.error.ResetNeeded("the episode is over: call reset() before step()")
        parsed = parse_action(str(action)[:MAX_ACTION_CHARS])
        self._calls.extend(parsed.calls)
        self._malformed.extend(parsed.errors)
        self._steps += 1
        if not self._settled(replied=not parsed.calls or parsed.answer is not None):
            return f"Tool result:\n{RECORDED}", 0.0, False, False, {"recorded": len(self._calls),
                                                                     "task_id": self._task.id}
        self._done = True
        verdict = self.score(self._calls, self._malformed)
        # (not "error": in spade-gym's info dicts that key means the environment itself failed)
        info = {"valid": verdict.valid, "reason": verdict.error, "reason_type": verdict.error_type,
                "calls": [{"name": c.name, "arguments": c.arguments} for c in self._calls],
                "task_id": self._task.id}
        reward = 1.0 if verdict.valid else 0.0
        observation = "Correct." if verdict.valid else f"Incorrect ({verdict.error_type}). Score: 0."
        return observation, reward, True, False, info

    def _settled(self, *, replied: bool) -> bool:
        """Whether to score now: the agent's reply is complete, or no later call can change the verdict."""
        if replied or self._steps >= MAX_STEPS:
            return True
        assert self._task is not None, "step() checks for a task before it asks whether to score"
        if self.mode in ("irrelevance", "relevance"):
            return bool(self._calls)  # one call decides both
        return bool(self._malformed) or len(self._calls) > len(self._task.ground_truth)

    def score(self, calls: Iterable[ToolCall], malformed: Iterable[str] = ()) -> Verdict:
        """The current task's verdict on ``calls``; ``malformed`` are blocks that did not parse."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before scoring")
        calls, malformed = list(calls), list(malformed)
        # A malformed block is a reply BFCL cannot decode: wrong where a call is expected,
        # and (as in BFCL) no call at all where none is.
        if malformed and self.mode not in ("irrelevance", "relevance"):
            return Verdict(False, malformed[0], "malformed_call")
        return check(self.mode, self._task.functions, calls, self._task.ground_truth)

    # Privileged access, used through spade_gym.privileged(env) only.

    def _privileged_solution(self) -> str:
        """One possible answer as action text: the calls then ``<answer>done</answer>`` (which ends
        the reply), or only an answer where no call is right."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before asking for the solution")
        if self.mode == "irrelevance":
            return format_answer(NO_CALL_ANSWER)
        if self.mode == "relevance":  # BFCL only checks that some function is called
            calls = [ToolCall(shown_names(self._task.functions)[self._task.functions[0]["name"]], {})]
        else:
            calls = reference_calls(self._task)
        return format_calls(calls) + "\n" + format_answer("done")

    def _privileged_hint(self) -> str | None:
        return None


def _reference_verdict(category: str, task: BfclTask) -> Verdict:
    """The verdict on the task's own possible answer (by construction right, unless the data is not)."""
    mode = CATEGORIES[category]
    if mode in ("irrelevance", "relevance"):
        return Verdict(True)
    return check(mode, task.functions, reference_calls(task), task.ground_truth)


def make_bfcl_env(*, category: str, hint: Any = False, show_tools: bool = True) -> gym.Env:
    """Entry point of every BFCL id. BFCL has no hints: ``hint=True`` (eval's hint arm) only sets ``info["hint"]``."""
    env: gym.Env
    if category in MULTI_TURN_CATEGORIES:
        from spade_gym.adapters.bfcl_multi_turn import BfclMultiTurnEnv

        env = BfclMultiTurnEnv(category, show_tools=show_tools)
    else:
        env = BfclEnv(category, show_tools=show_tools)
    if hint:
        env = HintWrapper(env, where="info" if hint == "info" else "observation")
    return env


# ----------------------------------------------------------------------------- registration


def env_id(category: str) -> str:
    """``live_simple`` -> ``spade/bfcl-live_simple-v0``."""
    return f"{ID_PREFIX}{category}-v0"


def category_of(env_id: str) -> str | None:
    """The BFCL category of an adapter id, or None for any other id."""
    spec = gym.registry.get(env_id)
    if spec is None or spec.entry_point != ENTRY_POINT:
        return None
    return spec.kwargs["category"]


def register_bfcl(categories: Iterable[str] | None = None) -> list[str]:
    """Register ``spade/bfcl-<category>-v0`` (default: every category, multi-turn included); returns the ids.

    Reads no data and works without bfcl-eval installed: making an env then raises
    :class:`BfclUnavailable`. Registering again is harmless.
    """
    known = [*CATEGORIES, *MULTI_TURN_CATEGORIES]
    names = known if categories is None else list(categories)
    for category in names:
        if category not in known:
            raise RegistryError(f"unknown BFCL category {category!r}; known: {', '.join(known)}")
    ids = []
    for category in names:
        bfcl_id = env_id(category)
        if bfcl_id not in gym.registry:
            gym.register(id=bfcl_id, entry_point=ENTRY_POINT, kwargs={"category": category},
                         disable_env_checker=False)
        ids.append(bfcl_id)
    return ids


def registered_ids() -> list[str]:
    """BFCL ids registered in this process, sorted."""
    return sorted(spec.id for spec in gym.registry.values() if spec.entry_point == ENTRY_POINT)
