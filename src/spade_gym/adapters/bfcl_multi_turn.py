"""BFCL's ``multi_turn_base`` as a spade-gym environment (``spade/bfcl-multi_turn_base-v0``).

A task is a conversation of several user turns over stateful simulated APIs (a file
system, messaging, trading, travel booking, a vehicle, ...) that bfcl-eval ships as plain
Python. Within a turn the agent calls functions and sees their results; a reply without a
call ends the turn. The turn is then checked as BFCL checks it: the ground truth's calls
are run on simulators of their own, and the agent's simulators must be in the same state
(every public attribute equal), and every result the ground truth's calls produced must be
among the results the agent's calls produced so far. A failed turn ends the episode with
reward 0; passing the last one gives 1. A turn ends by force after
``MAX_STEPS_PER_TURN`` steps, as in BFCL.

The simulators run in a worker process (:mod:`spade_gym.adapters._bfcl_worker`) with a
memory limit and a deadline per request: they are trusted code, but they run with
arguments a model chose. BFCL's ground truth is Python call text, which BFCL evaluates with
``eval()``; here it is parsed (literal arguments only) and dispatched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium as gym

from spade_gym.adapters.bfcl_answers import json_schema
from spade_gym.adapters.bfcl_data import (
    DATA_FILE,
    MAX_OBSERVATION_CHARS,
    BfclDataError,
    data_dir,
    data_version,
    read_jsonl,
)
from spade_gym.adapters.bfcl_env import BfclToolEnv
from spade_gym.adapters.worker_client import WorkerClient, start_worker
from spade_gym.contract import MAX_ACTION_CHARS
from spade_gym.errors import RegistryError, SpadeError
from spade_gym.toolcalls import ParsedAction, ToolCall, format_answer, format_calls, openai_tools, parse_action

#: Multi-turn categories this module runs.
CATEGORIES = ("multi_turn_base",)
#: Simulator class -> its function documentation file in bfcl-eval's data.
FUNC_DOC_FILES = {
    "GorillaFileSystem": "gorilla_file_system.json", "MathAPI": "math_api.json", "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json", "TicketAPI": "ticket_api.json", "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json", "VehicleControlAPI": "vehicle_control.json",
}
#: Steps (replies with calls) per user turn before the turn ends by force (BFCL's limit).
MAX_STEPS_PER_TURN = 20
#: Seconds the worker may take to start, and to answer one request.
START_DEADLINE_S = 60.0
REQUEST_DEADLINE_S = 10.0
#: Longest tool result shown to the agent (characters).
MAX_RESULT_CHARS = 20_000
PROTOCOL_INSTRUCTION = (
    "Use the functions to do what the user asks. Call them with one block per call:\n"
    '<tool_call>{"name": "<function name>", "arguments": {<the arguments as a JSON object>}}</tool_call>\n'
    "You see each call's result. When the request is done, reply without any <tool_call> block; "
    "the user may then ask for more."
)
WORKER = Path(__file__).with_name("_bfcl_worker.py")


class SimulatorFailure(SpadeError):
    """BFCL's simulators did not answer in time, crashed, or answered nonsense."""


@dataclass(frozen=True)
class MultiTurnTask:
    id: str
    turns: tuple[tuple[dict[str, str], ...], ...]
    initial_config: dict[str, Any]
    involved_classes: tuple[str, ...]
    functions: tuple[dict[str, Any], ...]
    ground_truth: tuple[tuple[str, ...], ...]


@cache
def _func_docs(class_name: str) -> tuple[dict[str, Any], ...]:
    path = data_dir() / "multi_turn_func_doc" / FUNC_DOC_FILES[class_name]
    return tuple(read_jsonl(path))


@cache
def load_tasks(category: str) -> tuple[MultiTurnTask, ...]:
    """Every task of a multi-turn category, in BFCL's order (read once per process)."""
    if category not in CATEGORIES:
        raise RegistryError(f"unknown BFCL multi-turn category {category!r}; known: {', '.join(CATEGORIES)}")
    root = data_dir()
    name = DATA_FILE.format(category=category)
    answers = {row["id"]: row["ground_truth"] for row in read_jsonl(root / "possible_answer" / name)}
    tasks = []
    for row in read_jsonl(root / name):
        try:
            excluded = set(row.get("excluded_function") or ())
            classes = tuple(row["involved_classes"])
            unknown = [c for c in classes if c not in FUNC_DOC_FILES]
            if unknown:
                raise BfclDataError(f"{row['id']}: simulators {unknown} are not supported")
            functions = tuple(f for c in classes for f in _func_docs(c) if f["name"] not in excluded)
            truth = tuple(tuple(turn) for turn in answers[row["id"]])
            if len(truth) != len(row["question"]):
                raise BfclDataError(f"{row['id']}: {len(row['question'])} turns but {len(truth)} answers")
            tasks.append(MultiTurnTask(row["id"], tuple(tuple(turn) for turn in row["question"]),
                                       row["initial_config"], classes, functions, truth))
        except KeyError as exc:
            raise BfclDataError(f"unexpected BFCL data in {category} (entry {row.get('id', '?')!r}): {exc!r}") \
                from None
    return tuple(tasks)


def tool_schemas(task: MultiTurnTask) -> list[dict[str, Any]]:
    return openai_tools({
        f["name"]: {"description": f.get("description", ""),
                    "parameters": json_schema(f.get("parameters") or {"type": "dict", "properties": {}})}
        for f in task.functions
    })


class Simulators(WorkerClient):
    """The worker process of one environment (see :mod:`~spade_gym.adapters.worker_client`)."""

    def __init__(self, request_deadline: float = REQUEST_DEADLINE_S) -> None:
        super().__init__(lambda: start_worker(WORKER), name="BFCL's simulators", failure=SimulatorFailure,
                         request_deadline=request_deadline)

    def close(self) -> None:
        self.kill()  # a worker holds one task's simulators: none is kept for the next episode


def _render_turn(messages: Iterable[dict[str, str]]) -> str:
    messages = list(messages)
    if len(messages) == 1 and messages[0].get("role") == "user":
        return str(messages[0].get("content", "")).strip()
    return "\n\n".join(f"{str(m.get('role', 'user')).capitalize()}: {m.get('content', '')}" for m in messages)


class BfclMultiTurnEnv(BfclToolEnv[MultiTurnTask]):
    """One BFCL multi-turn category; ``reset(seed=s)`` poses task ``s % size``.

    A call that the simulators cannot finish within ``request_deadline`` seconds (or that
    crashes them) ends the episode with reward 0: the agent asked for it.
    """

    def __init__(self, category: str = "multi_turn_base", *, show_tools: bool = True,
                 request_deadline: float = REQUEST_DEADLINE_S):
        super().__init__(category, load_tasks(category), show_tools=show_tools)
        self._simulators = Simulators(request_deadline)
        self._turn = 0

    def _tool_schemas(self, task: MultiTurnTask) -> list[dict[str, Any]]:
        return tool_schemas(task)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        index, task = self._pose(seed)
        self._turn = 0
        self._turn_calls = self._turn_steps = 0
        self._results: list[str] = []
        self._simulators.request({"op": "start", "config": task.initial_config,
                                  "classes": list(task.involved_classes)}, deadline=START_DEADLINE_S)
        tools = self.tools  # a copy: what the agent is handed cannot change the task's
        parts = [_render_turn(task.turns[0])]
        if self.show_tools:
            parts.append("Available functions (OpenAI function schemas):\n"
                         + json.dumps(tools, indent=1, ensure_ascii=False))
        parts.append(PROTOCOL_INSTRUCTION)
        info = {"tools": tools, "category": self.category, "task_id": task.id,
                "index": index, "num_tasks": len(self.tasks), "turns": len(task.turns),
                "bfcl_version": data_version()}
        return "\n\n".join(parts)[:MAX_OBSERVATION_CHARS], info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        task = self._playing()
        parsed = parse_action(str(action)[:MAX_ACTION_CHARS])
        info: dict[str, Any] = {"task_id": task.id, "turn": self._turn}
        try:
            return self._step(task, parsed, info)
        except SimulatorFailure as exc:
            self._done = True
            self._simulators.close()
            info.update(valid=False, reason=str(exc), reason_type="simulator")
            return f"Incorrect (simulator). Score: 0. {exc}", 0.0, True, False, info

    def _step(self, task: MultiTurnTask, parsed: ParsedAction, info: dict[str, Any]
              ) -> tuple[str, float, bool, bool, dict]:
        if parsed.calls:
            assert self._tools is not None, "reset() sets the tools with the task"
            allowed = [t["function"]["name"] for t in self._tools]
            results = [str(self._simulators.request({"op": "call", "name": c.name, "arguments": c.arguments,
                                                     "allowed": allowed}).get("result", ""))[:MAX_RESULT_CHARS]
                       for c in parsed.calls]
            self._results.extend(results)
            self._turn_calls += len(parsed.calls)
            self._turn_steps += 1
            if self._turn_steps < MAX_STEPS_PER_TURN:
                if len(results) == 1:
                    observation = f"Tool result:\n{results[0]}"
                else:
                    observation = "Tool results:\n" + "\n".join(f"{c.name}: {r}" for c, r in zip(parsed.calls, results))
                return observation, 0.0, False, False, info
        # A reply without a (well-formed) call ends the turn, as in BFCL.
        reason, reason_type = self._check_turn(task)
        info.update(valid=reason is None, reason=reason or "", reason_type=reason_type)
        if reason is not None:
            self._done = True
            return f"Incorrect ({reason_type}). Score: 0.", 0.0, True, False, info
        self._turn += 1
        self._turn_calls = self._turn_steps = 0
        if self._turn == len(task.turns):
            self._done = True
            return "Correct.", 1.0, True, False, info
        return _render_turn(task.turns[self._turn]), 0.0, False, False, info

    def _check_turn(self, task: MultiTurnTask) -> tuple[str | None, str]:
        """Run the turn's ground truth and compare, as BFCL's multi-turn checker does."""
        truth = list(task.ground_truth[self._turn])
        truth_results = [str(r) for r in self._simulators.request({"op": "ground_truth", "calls": truth})["results"]]
        if not truth:
            return None, ""
        if self._turn_calls == 0:
            return f"no function called in turn {self._turn + 1}", "empty_turn"
        state = self._simulators.request({"op": "compare"})
        if not state.get("valid"):
            differences = [str(d) for d in state.get("differences", [])][:5]
            return f"the state after turn {self._turn + 1} differs from BFCL's ({', '.join(differences)})", "state"
        remaining = list(self._results)
        for result in truth_results:
            if result in remaining:
                remaining.remove(result)
            else:
                return f"a result BFCL's calls produce in turn {self._turn + 1} is missing: {result[:200]!r}", \
                    "response"
        return None, ""

    def close(self) -> None:
        self._simulators.close()

    # Privileged access, used through spade_gym.privileged(env) only.

    def _privileged_solution(self) -> str:
        """BFCL's ground truth from the current turn on: each turn's calls, then ``<answer>done</answer>``."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before asking for the solution")
        remaining = [list(t) for t in self._task.ground_truth[self._turn:]]
        plan = self._simulators.request({"op": "plan", "turns": remaining})
        blocks = []
        for turn in plan["turns"]:
            calls = [ToolCall(str(c["name"]), dict(c["arguments"])) for c in turn]
            blocks.append((format_calls(calls) + "\n" if calls else "") + format_answer("done"))
        return "\n".join(blocks)
