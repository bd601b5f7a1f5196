"""Worker side: everything one worker knows about its program, and the contract calls.

A :class:`ProgramRuntime` compiles the program once, holds its instances (one per
vector-env slot, see ``instance.py``), and answers ``reset``/``step``/``solution``/
``hint`` with checked plain data (``results.py``). The request loop is ``serve.py``;
deadlines are ``deadline.py``.
"""

from __future__ import annotations

import linecache

import numpy

from spade_gym.errors import PolicyViolation
from spade_gym.sandbox.language import tooluse
from spade_gym.sandbox.language.compiler import PROGRAM_FILENAME, CompiledProgram, compile_program
from spade_gym.sandbox.language.guards import Guards
from spade_gym.sandbox.language.surfaces import Surfaces
from spade_gym.sandbox.limits import Limits
from spade_gym.sandbox.worker import deadline
from spade_gym.sandbox.worker.instance import Instance
from spade_gym.sandbox.worker.results import (
    CallFailed,
    JSONChecker,
    check_flag,
    check_reward,
    check_text,
    cut_text,
    describe_failure,
    protocol_failure,
    type_and_len,
)

_clock = deadline.clock
_monotonic = deadline.monotonic


class PrintSink:
    """``print`` for programs: keeps the last few KiB for error reports, drops the rest."""

    def __init__(self, keep_chars: int = 4000):
        self.keep = keep_chars
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def __call__(self, *args, sep=" ", end="\n", file=None, flush=False):
        text = (sep if isinstance(sep, str) else " ").join(str(a) for a in args)
        text += end if isinstance(end, str) else "\n"
        self.parts.append(text[-self.keep:])
        self.size += min(len(text), self.keep)
        while self.size > self.keep and len(self.parts) > 1:
            removed = self.parts.pop(0)
            self.size -= len(removed)
            self.dropped += len(removed)

    def tail(self) -> str:
        return "".join(self.parts)[-self.keep:]

    def clear(self) -> None:
        self.parts.clear()
        self.size = 0


class ProgramRuntime:
    """Everything one worker knows about its program."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.output = PrintSink()
        self.guards = Guards(self.output)
        self.surfaces = Surfaces(self.guards)
        self.compiled: CompiledProgram | None = None
        self.instances: dict[int, Instance] = {}
        self.strict = False
        self._json_checkers = {flag: JSONChecker(limits.max_info_bytes, flag) for flag in (False, True)}

    def check_info(self, value, what: str) -> dict:
        return self._json_checkers[self.strict](value, what)

    # ---------------------------------------------------------------- calls

    def timed(self, fn, args=(), what="call", kwargs=None, seconds=None):
        """Run ``fn`` with the worker-side deadline armed; raise CallFailed on any failure."""
        # The clock is set inline (not through deadline.arm/disarm): this runs on every step.
        clock = _clock
        clock.deadline = _monotonic() + (self.limits.call_timeout if seconds is None else seconds)
        clock.armed = True
        try:
            result = fn(*args, **kwargs) if kwargs else fn(*args)
            if _monotonic() > clock.deadline:
                # The program swallowed the interruption and finished late: the
                # result does not count (the host refuses late results too).
                raise deadline.Deadline()
            return result
        except CallFailed:
            raise
        except BaseException as exc:  # noqa: BLE001 - every program failure is reported, not raised
            raise CallFailed(describe_failure(exc, what, self.limits, self.output.tail())) from None
        finally:
            clock.armed = False

    # ---------------------------------------------------------------- loading

    def load(self, source: str, kwargs: dict, count: int) -> dict:
        try:
            self.compiled = compile_program(source)
        except PolicyViolation as exc:
            raise CallFailed(describe_failure(exc, "compile", self.limits)) from None
        linecache.cache[PROGRAM_FILENAME] = (len(source), None, source.splitlines(True), PROGRAM_FILENAME)
        for index in range(count):
            self.instances[index] = Instance(self, kwargs)
        first = self.instances[0]
        return {
            "class_name": first.class_name,
            "dropped_kwargs": first.dropped_kwargs,
            "has_hint": first.has_hint,
            "has_solution": first.has_solution,
            "max_turns": first.max_turns(),
            "sha256": self.compiled.sha256,
        }

    def instance(self, index: int) -> Instance:
        try:
            return self.instances[index]
        except KeyError:
            raise protocol_failure(f"no program instance {index}") from None

    # ---------------------------------------------------------------- contract calls

    def reset(self, index: int, seed) -> list:
        inst = self.instance(index)
        deadline.refill_cpu_budget(self.limits.cpu_seconds_per_episode)
        self.output.clear()
        env = inst.env
        # The checks run under the deadline too: converting a result can call the
        # program's own __str__/__float__/__eq__, which may loop forever.
        if inst.reset_takes_seed:
            return inst.call(lambda: self.check_reset(env.reset(seed=seed)), (), "reset()")
        return inst.call(lambda: self.check_reset(env.reset()), (), "reset()")

    def check_reset(self, result) -> list:
        limit = self.limits.max_observation_chars
        if isinstance(result, str):
            return [cut_text(result, "reset() observation", limit), {}]
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise protocol_failure(f"reset() must return (observation, info) or a str, got {type_and_len(result)}")
        return [cut_text(result[0], "reset() observation", limit), self.check_info(result[1], "reset() info")]

    def step(self, index: int, action: str) -> list:
        inst = self.instance(index)
        step = inst.env.step
        return inst.call(lambda: self.check_step(step(action)), (), "step()")

    def check_step(self, result) -> list:
        if not isinstance(result, (tuple, list)) or len(result) != 5:
            raise protocol_failure(
                f"step() must return (observation, reward, terminated, truncated, info), got {type_and_len(result)}"
            )
        return [
            cut_text(result[0], "step() observation", self.limits.max_observation_chars),
            check_reward(result[1], self.strict),
            check_flag(result[2], "step() terminated"),
            check_flag(result[3], "step() truncated"),
            self.check_info(result[4], "step() info"),
        ]

    def solution(self, index: int) -> str:
        inst = self.instance(index)
        if not inst.has_solution:
            raise protocol_failure(f"{inst.class_name} has no solution() method")
        return inst.call(self._checked_solution, (inst.env,), "solution()")

    def _checked_solution(self, env) -> str:
        value = env.solution()
        if isinstance(value, (int, float, numpy.integer, numpy.floating)) and not isinstance(value, bool):
            value = str(value)
        return check_text(value, "solution()", self.limits.max_observation_chars)

    def hint(self, index: int):
        inst = self.instance(index)
        if not inst.has_hint:
            return None
        return inst.call(self._checked_hint, (inst.env,), "hint()")

    def _checked_hint(self, env):
        value = env.hint()
        if value is None:
            return None
        return check_text(value, "hint()", self.limits.max_observation_chars)

    def tools(self, index: int) -> list:
        """The tool schemas of a tool-use instance's current episode (``get_tools()``)."""
        inst = self.instance(index)
        return inst.call(self._checked_tools, (inst.env, inst.class_name), "get_tools()")

    def _checked_tools(self, env, class_name: str) -> list:
        # Reading the method off the class can run a program descriptor: inside the deadline.
        if not callable(getattr(type(env), "get_tools", None)):
            raise protocol_failure(f"{class_name} is not a tool-use environment: it has no get_tools() method")
        data = self._json_checkers[True]({"tools": env.get_tools()}, "get_tools()")["tools"]
        try:
            return tooluse.check_tool_list(data)
        except ValueError as exc:
            raise protocol_failure(str(exc)) from None

    def close_instance(self, index: int) -> None:
        inst = self.instances.pop(index, None)
        if inst is not None:
            inst.call(_close_env, (inst.env,), "close()")


def _close_env(env) -> None:
    if callable(getattr(type(env), "close", None)):  # may run a program descriptor: timed
        env.close()
