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

Reading the data files is :mod:`~spade_gym.adapters.bfcl_data`; the schemas, observation
and possible answers an agent is judged against are :mod:`~spade_gym.adapters.bfcl_answers`;
what the single- and multi-turn environments share is :mod:`~spade_gym.adapters.bfcl_env`.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import gymnasium as gym

from spade_gym.adapters import bfcl_multi_turn
from spade_gym.adapters.bfcl_answers import (  # re-exported: see __all__
    JSON_SCHEMA_TYPES,
    PROTOCOL_INSTRUCTION,
    reference_calls,
    reference_verdict,
    render_observation,
    shown_names,
    tool_schemas,
)
from spade_gym.adapters.bfcl_checker import Verdict, check
from spade_gym.adapters.bfcl_data import (  # re-exported: see __all__
    CATEGORIES,
    DATA_FILE,
    DISTRIBUTION,
    MAX_OBSERVATION_CHARS,
    MULTI_TURN_CATEGORIES,
    BfclDataError,
    BfclTask,
    BfclUnavailable,
    data_dir,
    data_version,
    known_category,
    read_jsonl,
)
from spade_gym.adapters.bfcl_env import BfclToolEnv
from spade_gym.contract import MAX_ACTION_CHARS
from spade_gym.env.hint_mode import HintValue
from spade_gym.env.wrappers import with_hint
from spade_gym.errors import RegistryError
from spade_gym.toolcalls import ToolCall, format_answer, format_calls, parse_action

#: Every adapter id starts with this; the rest is the BFCL category and ``-v0``.
ID_PREFIX = "spade/bfcl-"
ENTRY_POINT = "spade_gym.adapters.bfcl:make_bfcl_env"
#: The tool result of a recorded call: BFCL checks calls, it never runs them.
RECORDED = ("Recorded (these functions are not executed here). Make any other call the request "
            "needs, or reply without a <tool_call> block when you are done.")
#: Steps after which an episode ends whatever the agent does.
MAX_STEPS = 32
#: What the oracle replies where no call is right.
NO_CALL_ANSWER = "None of the available functions fits this request."


# ----------------------------------------------------------------------------- the scorable tasks


@cache
def _category(category: str) -> tuple[tuple[BfclTask, ...], tuple[tuple[str, str], ...]]:
    """(tasks kept, (id, reason) of tasks excluded) for a category, read once per process."""
    known_category(category)
    root = data_dir()
    questions = read_jsonl(root / DATA_FILE.format(category=category))
    answers: dict[str, Any] = {}
    if CATEGORIES[category] not in ("irrelevance", "relevance"):
        answers = {row["id"]: row["ground_truth"] for row in read_jsonl(root / "possible_answer" /
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
        verdict = reference_verdict(category, task)
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
        return len(bfcl_multi_turn.load_tasks(category))
    return len(load_tasks(category))


# ----------------------------------------------------------------------------- the environment


class BfclEnv(BfclToolEnv[BfclTask]):
    """One BFCL category: ``reset(seed=s)`` poses task ``s % size``; one ``step`` scores the reply.

    ``show_tools=False`` leaves the function schemas out of the observation, for agents
    that pass ``info["tools"]`` to a chat template or an API's ``tools=`` instead.
    """

    def __init__(self, category: str, *, show_tools: bool = True):
        category = known_category(category)
        self.mode = CATEGORIES[category]
        super().__init__(category, load_tasks(category), show_tools=show_tools)
        self._calls: list[ToolCall] = []
        self._malformed: list[str] = []
        self._steps = 0

    def _tool_schemas(self, task: BfclTask) -> list[dict[str, Any]]:
        return tool_schemas(task)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        index, task = self._pose(seed)
        self._calls, self._malformed, self._steps = [], [], 0
        tools = self.tools  # a copy: what the agent is handed cannot change the task's
        observation = render_observation(task, tools, show_tools=self.show_tools)
        info = {"tools": tools, "category": self.category, "task_id": task.id, "index": index,
                "num_tasks": len(self.tasks), "bfcl_version": data_version()}
        return observation[:MAX_OBSERVATION_CHARS], info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        task = self._playing()
        parsed = parse_action(str(action)[:MAX_ACTION_CHARS])
        self._calls.extend(parsed.calls)
        self._malformed.extend(parsed.errors)
        self._steps += 1
        if not self._settled(replied=not parsed.calls or parsed.answer is not None):
            return f"Tool result:\n{RECORDED}", 0.0, False, False, {"recorded": len(self._calls),
                                                                     "task_id": task.id}
        self._done = True
        verdict = self.score(self._calls, self._malformed)
        # (not "error": in spade-gym's info dicts that key means the environment itself failed)
        info = {"valid": verdict.valid, "reason": verdict.error, "reason_type": verdict.error_type,
                "calls": [{"name": c.name, "arguments": c.arguments} for c in self._calls],
                "task_id": task.id}
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


def make_bfcl_env(*, category: str, hint: HintValue = False, show_tools: bool = True) -> gym.Env:
    """Entry point of every BFCL id. BFCL has no hints: ``hint=True`` (eval's hint arm) only sets ``info["hint"]``."""
    env: gym.Env
    if category in MULTI_TURN_CATEGORIES:
        env = bfcl_multi_turn.BfclMultiTurnEnv(category, show_tools=show_tools)
    else:
        env = BfclEnv(category, show_tools=show_tools)
    return with_hint(env, hint)


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


__all__ = [
    "CATEGORIES", "DATA_FILE", "DISTRIBUTION", "ENTRY_POINT", "ID_PREFIX", "JSON_SCHEMA_TYPES", "MAX_ACTION_CHARS",
    "MAX_OBSERVATION_CHARS", "MAX_STEPS", "MULTI_TURN_CATEGORIES", "NO_CALL_ANSWER", "PROTOCOL_INSTRUCTION", "RECORDED",
    "BfclDataError", "BfclEnv", "BfclTask", "BfclUnavailable", "category_of", "data_dir", "data_version", "env_id",
    "excluded_tasks", "load_tasks", "make_bfcl_env", "num_tasks", "reference_calls", "register_bfcl",
    "registered_ids", "render_observation", "shown_names", "tool_schemas",
]
