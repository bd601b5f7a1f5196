"""Worker side: load a program, call into it under deadlines, return plain data.

This module runs inside a sandboxed worker process (see ``zygote.py``), next to the
program. Everything it sends back is re-checked by the host, but it still does the
contract checks itself so that the error a designer model sees names the exact
method and value at fault (``step() returned reward nan``) and the line it came from.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import linecache
import math
import numbers
import resource
import signal
import socket
import sys
import time
import traceback
import types
from decimal import Decimal

import numpy

from spade_gym.contract import BASE_CLASS_NAMES, ENV_CLASS_SUFFIX, INJECTED_NAMES
from spade_gym.errors import PolicyViolation
from spade_gym.sandbox import probes, protocol, tooluse
from spade_gym.sandbox.guards import PROGRAM_MODULE, Guards
from spade_gym.sandbox.limits import Limits
from spade_gym.sandbox.policy import PROGRAM_FILENAME, CompiledProgram, compile_program
from spade_gym.sandbox.surfaces import Surfaces


# ----------------------------------------------------------------------------- failures


class CallFailed(Exception):
    """A call into the program failed; ``error`` is the plain-data description sent to the host."""

    def __init__(self, error: dict):
        super().__init__(error.get("message"))
        self.error = error


class _Deadline(BaseException):
    """Raised inside program code when its wall-clock budget is spent."""


class _CPUExhausted(BaseException):
    """Raised inside program code when the worker's CPU budget is spent."""


# Deadlines inside the worker: one interval timer ticks every _TICK seconds while a
# request is being served; each call into the program records when it started and
# its budget, and the tick raises _Deadline in the program once the budget is spent.
# Two system calls per request instead of two per program call (a batch of probe
# episodes makes thousands of calls), at the price of up to one tick of overshoot.
_TICK = 0.02
_call_armed = False
_call_deadline = 0.0
_monotonic = time.monotonic


def _on_alarm(signum, frame):
    # Raised again on every later tick, so a program that swallows the exception
    # (bare ``except:``) is interrupted again; the host kills the worker if it never gives up.
    if _call_armed and _monotonic() > _call_deadline:
        raise _Deadline()


def _on_cpu(signum, frame):
    if _call_armed:
        raise _CPUExhausted()


def install_signal_handlers() -> None:
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGXCPU, _on_cpu)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes fail with EFBIG instead of killing


def start_ticking() -> None:
    signal.setitimer(signal.ITIMER_REAL, _TICK, _TICK)


def stop_ticking() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)


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


# ----------------------------------------------------------------------------- error capture


def _program_traceback(exc: BaseException, max_chars: int) -> tuple[str, int | None]:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == PROGRAM_FILENAME]
    lineno = frames[-1].lineno if frames else None
    lines = ["Traceback (program frames only):"]
    for f in frames[-12:]:
        lines.append(f'  line {f.lineno}, in {f.name}')
        if f.line:
            lines.append(f"    {f.line.strip()}")
    return "\n".join(lines)[:max_chars], lineno


def _safe_message(exc: BaseException, max_chars: int) -> str:
    try:
        text = str(exc)
    except BaseException:  # a program-defined __str__ that raises
        text = "<exception message could not be rendered>"
    name = type(exc).__name__
    if len(text) > max_chars:
        text = text[:max_chars] + f"... [{len(text) - max_chars} more characters cut]"
    return f"{name}: {text}" if text else name


def describe_failure(exc: BaseException, what: str, limits: Limits, output: str = "") -> dict:
    if isinstance(exc, CallFailed):
        return exc.error
    tb, lineno = _program_traceback(exc, limits.max_error_chars)
    where = f" (line {lineno})" if lineno else ""
    if isinstance(exc, _Deadline):
        kind = "timeout"
        message = f"{what} did not return within its deadline{where}; it was interrupted there"
    elif isinstance(exc, _CPUExhausted):
        kind = "cpu"
        message = f"{what} exhausted the CPU budget{where}"
    elif isinstance(exc, MemoryError):
        kind = "memory"
        message = f"{what} ran out of memory{where} (limit {limits.memory_bytes // (1 << 20)} MiB)"
    elif isinstance(exc, PolicyViolation):
        return {"kind": "policy", "message": exc.message, "lineno": exc.lineno, "traceback": None, "output": None}
    elif isinstance(exc, RecursionError):
        kind = "program"
        message = f"{what} raised RecursionError{where}: maximum recursion depth exceeded"
    else:
        kind = "program"
        message = f"{what} raised {_safe_message(exc, limits.max_error_chars)}{where}"
    return {"kind": kind, "message": message, "lineno": lineno, "traceback": tb,
            "output": output[-2000:] or None}


def protocol_failure(message: str) -> CallFailed:
    return CallFailed({"kind": "protocol", "message": message, "lineno": None, "traceback": None, "output": None})


# ----------------------------------------------------------------------------- result checks


def check_text(value, what: str, limit: int) -> str:
    if type(value) is not str:
        if not isinstance(value, str):
            raise protocol_failure(f"{what} must be a str, got {type(value).__name__}")
        value = str.__str__(value)
    if len(value) > limit:
        raise protocol_failure(f"{what} is {len(value)} characters long; the limit is {limit}")
    return value


def check_number(value, what: str) -> float:
    if type(value) is float:
        number = value
    elif isinstance(value, (numbers.Real, Decimal, numpy.number, numpy.bool_)):
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise protocol_failure(f"{what} could not be converted to float: {exc}") from None
    else:
        raise protocol_failure(f"{what} must be a number, got {type(value).__name__}")
    if not math.isfinite(number):
        raise protocol_failure(f"{what} must be finite, got {number}")
    return number


def check_flag(value, what: str) -> bool:
    if value is True or value is False:
        return value
    if isinstance(value, numpy.bool_):
        return bool(value)
    raise protocol_failure(f"{what} must be a bool, got {type(value).__name__} {_short_repr(value)}")


def _short_repr(value) -> str:
    try:
        text = repr(value)
    except BaseException:
        return "<unrepresentable>"
    return text if len(text) <= 60 else text[:57] + "..."


class JSONChecker:
    """Turns ``info`` into JSON data. ``strict`` refuses non-JSON values (validation);
    otherwise they are converted to text so a training loop never stops over a set."""

    def __init__(self, limit_bytes: int, strict: bool):
        self.limit = limit_bytes
        self.strict = strict

    def __call__(self, value, what: str) -> dict:
        if not isinstance(value, dict):
            raise protocol_failure(f"{what} must be a dict, got {type(value).__name__}")
        if not value:
            return {}
        self.budget = 20_000
        self.chars = 0
        data = self._convert(value, what, 0)
        # Exact size only when the cheap estimate (characters of strings + 24 per
        # element) says the limit might be near: the common info dict is tiny.
        if self.chars + 24 * (20_000 - self.budget) > self.limit // 4:
            size = len(json.dumps(data, ensure_ascii=False))
            if size > self.limit:
                raise protocol_failure(f"{what} is {size} bytes as JSON; the limit is {self.limit}")
        return data

    def _convert(self, value, path: str, depth: int):
        self.budget -= 1
        if self.budget < 0:
            raise protocol_failure(f"{path} has too many elements")
        if depth > 32:
            raise protocol_failure(f"{path} is nested more than 32 levels deep")
        t = type(value)
        if t is str:
            self.chars += len(value)
            return value
        if value is None or t is bool or t is int:
            if t is int and abs(value) >= 1 << 63:
                return self._convert_other(value, path, "an integer too large for JSON")
            return value
        if t is float:
            if math.isfinite(value):
                return value
            return self._convert_other(value, path, f"the non-finite float {value}")
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if type(key) is str:
                    skey = key
                    self.chars += len(key)
                elif key is None or isinstance(key, (bool, int, float)):
                    skey = json.dumps(key) if not isinstance(key, str) else key
                else:
                    if self.strict:
                        raise protocol_failure(f"{path} has a key of type {type(key).__name__}; keys must be str")
                    skey = str(key)
                out[skey] = self._convert(item, f"{path}[{skey!r}]", depth + 1)
            return out
        if t is list or t is tuple:
            return [self._convert(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
        if isinstance(value, numpy.generic):
            return self._convert(value.item(), path, depth)
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, (list, tuple)):
            return [self._convert(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
        return self._convert_other(value, path, f"a {type(value).__name__}")

    def _convert_other(self, value, path, description):
        if self.strict:
            raise protocol_failure(f"{path} holds {description}, which is not JSON-compatible")
        try:
            return str(value)[:1000]
        except BaseException:
            return f"<{type(value).__name__}>"


# ----------------------------------------------------------------------------- program instances


def _accepts(func, name: str) -> bool:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


class Instance:
    """One instance of the program's environment class, with its own module namespace."""

    def __init__(self, runtime: "ProgramRuntime", kwargs: dict):
        self.runtime = runtime
        namespace = runtime.new_namespace()
        load_seconds = runtime.limits.load_timeout
        runtime.timed(exec, (runtime.compiled.code, namespace), "executing the program module", seconds=load_seconds)
        cls = runtime.find_env_class(namespace)
        self.class_name = cls.__name__
        self.dropped_kwargs = [k for k in kwargs if not _accepts(cls, k)]
        call_kwargs = {k: v for k, v in kwargs.items() if k not in self.dropped_kwargs}
        self.env = runtime.timed(cls, (), f"{cls.__name__}.__init__", call_kwargs, seconds=load_seconds)
        if "max_turns" in self.dropped_kwargs and "max_turns" in kwargs:
            # The reference loader's fallback: construct without, then set the attribute.
            try:
                self.env.max_turns = kwargs["max_turns"]
            except Exception:
                pass
        self.reset_takes_seed = _accepts(getattr(cls, "reset"), "seed")
        self.has_hint = callable(getattr(type(self.env), "hint", None))
        self.has_solution = callable(getattr(type(self.env), "solution", None))

    def max_turns(self):
        value = self.runtime.timed(getattr, (self.env, "max_turns", None), "reading max_turns")
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class ProgramRuntime:
    """Everything one worker knows about its program."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.output = PrintSink()
        self.guards = Guards(self.output)
        self.surfaces = Surfaces(self.guards.getattr_slow)
        self.compiled: CompiledProgram | None = None
        self.instances: dict[int, Instance] = {}
        self.strict_info = False
        self._json_checkers = {flag: JSONChecker(limits.max_info_bytes, flag) for flag in (False, True)}

    def check_info(self, value, what: str) -> dict:
        return self._json_checkers[self.strict_info](value, what)

    # ---------------------------------------------------------------- calls

    def timed(self, fn, args=(), what="call", kwargs=None, seconds=None):
        """Run ``fn`` with the worker-side deadline armed; raise CallFailed on any failure."""
        global _call_armed, _call_deadline
        _call_deadline = _monotonic() + (self.limits.call_timeout if seconds is None else seconds)
        _call_armed = True
        try:
            if kwargs:
                return fn(*args, **kwargs)
            return fn(*args)
        except CallFailed:
            raise
        except BaseException as exc:  # noqa: BLE001 - every program failure is reported, not raised
            raise CallFailed(describe_failure(exc, what, self.limits, self.output.tail())) from None
        finally:
            _call_armed = False

    # ---------------------------------------------------------------- loading

    def load(self, source: str, kwargs: dict, count: int) -> dict:
        try:
            self.compiled = compile_program(source)
        except PolicyViolation as exc:
            raise CallFailed(describe_failure(exc, "compile", self.limits)) from None
        linecache.cache[PROGRAM_FILENAME] = (len(source), None, source.splitlines(True), PROGRAM_FILENAME)
        self.load_kwargs = dict(kwargs)
        first = None
        for index in range(count):
            self.instances[index] = Instance(self, kwargs)
            first = first or self.instances[index]
        return {
            "class_name": first.class_name,
            "dropped_kwargs": first.dropped_kwargs,
            "has_hint": first.has_hint,
            "has_solution": first.has_solution,
            "max_turns": first.max_turns(),
            "sha256": self.compiled.sha256,
        }

    def new_namespace(self) -> dict:
        surfaces = self.surfaces.for_instance()

        def importer(name, globals=None, locals=None, fromlist=(), level=0):
            if level:
                raise ImportError("relative imports are not allowed in SPADE programs")
            if name not in surfaces:
                internal = _internal_module(name)
                if internal is not None:
                    return internal if fromlist else sys.modules[name.split(".")[0]]
                raise ImportError(f"import of '{name}' is not allowed in SPADE programs")
            return surfaces[name] if fromlist else surfaces[name.split(".")[0]]

        # A real module object, registered in sys.modules, because library code looks
        # the class's module up there (dataclasses does, for string annotations).
        # Programs cannot reach either: there is no sys.modules and no module objects.
        module = types.ModuleType(PROGRAM_MODULE)
        sys.modules[PROGRAM_MODULE] = module
        namespace = module.__dict__
        namespace.update({
            "__builtins__": self.guards.builtins(importer),
            "__name__": PROGRAM_MODULE,
            "_getattr_": self.guards.getattr_fast,
            "_getattr_slow_": self.guards.getattr_slow,
            "_write_": self.guards.write,
            "_type_": type,
            "_P_": self.guards.program_only,
        })
        tooluse.install(namespace, surfaces)
        for alias, target in INJECTED_NAMES.items():
            module, _, member = target.partition(".")
            value = surfaces[module]
            if member:
                value = getattr(value, member)
            namespace[alias] = value
        return namespace

    def find_env_class(self, namespace: dict):
        candidates = [
            v for k, v in namespace.items()
            if isinstance(v, type) and k.endswith(ENV_CLASS_SUFFIX) and k not in BASE_CLASS_NAMES
            and self.guards.is_program_type(v)
        ]
        leaves = [c for c in candidates if not any(o is not c and issubclass(o, c) for o in candidates)]
        if not leaves:
            raise protocol_failure(
                f"the program defines no environment class: expected a class whose name ends in '{ENV_CLASS_SUFFIX}'"
            )
        if len(leaves) > 1:
            names = ", ".join(c.__name__ for c in leaves)
            raise protocol_failure(f"the program defines several environment classes ({names}); keep exactly one")
        env_class = leaves[0]
        missing = [m for m in ("reset", "step") if not callable(getattr(env_class, m, None))]
        if missing:
            raise protocol_failure(f"{env_class.__name__} has no {' or '.join(missing)}() method")
        return env_class

    def instance(self, index: int) -> Instance:
        try:
            return self.instances[index]
        except KeyError:
            raise protocol_failure(f"no program instance {index}") from None

    # ---------------------------------------------------------------- contract calls

    def reset(self, index: int, seed) -> list:
        inst = self.instance(index)
        self._refill_cpu_budget()
        self.output.clear()
        env = inst.env
        # The checks run under the deadline too: converting a result can call the
        # program's own __str__/__float__/__eq__, which may loop forever.
        if inst.reset_takes_seed:
            return self.timed(lambda: self.check_reset(env.reset(seed=seed)), (), "reset()")
        return self.timed(lambda: self.check_reset(env.reset()), (), "reset()")

    def check_reset(self, result) -> list:
        limits = self.limits
        if isinstance(result, str):
            return [check_text(result, "reset() observation", limits.max_observation_chars), {}]
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise protocol_failure(
                f"reset() must return (observation, info) or a str, got {_type_and_len(result)}"
            )
        obs = check_text(result[0], "reset() observation", limits.max_observation_chars)
        info = self.check_info(result[1], "reset() info")
        return [obs, info]

    def step(self, index: int, action) -> list:
        inst = self.instance(index)
        if not isinstance(action, str):
            raise protocol_failure(f"action must be a str, got {type(action).__name__}")
        step = inst.env.step
        return self.timed(lambda: self.check_step(step(action)), (), "step()")

    def check_step(self, result) -> list:
        limits = self.limits
        if not isinstance(result, (tuple, list)) or len(result) != 5:
            raise protocol_failure(
                "step() must return (observation, reward, terminated, truncated, info), "
                f"got {_type_and_len(result)}"
            )
        obs = check_text(result[0], "step() observation", limits.max_observation_chars)
        reward = check_number(result[1], "step() reward")
        terminated = check_flag(result[2], "step() terminated")
        truncated = check_flag(result[3], "step() truncated")
        info = self.check_info(result[4], "step() info")
        return [obs, reward, terminated, truncated, info]

    def solution(self, index: int) -> str:
        inst = self.instance(index)
        if not inst.has_solution:
            raise protocol_failure(f"{inst.class_name} has no solution() method")
        return self.timed(self._checked_solution, (inst.env,), "solution()")

    def _checked_solution(self, env) -> str:
        value = env.solution()
        if isinstance(value, (int, float, numpy.integer, numpy.floating)) and not isinstance(value, bool):
            value = str(value)
        return check_text(value, "solution()", self.limits.max_observation_chars)

    def hint(self, index: int):
        inst = self.instance(index)
        if not inst.has_hint:
            return None
        return self.timed(self._checked_hint, (inst.env,), "hint()")

    def _checked_hint(self, env):
        value = env.hint()
        if value is None:
            return None
        return check_text(value, "hint()", self.limits.max_observation_chars)

    def tools(self, index: int) -> list:
        """The tool schemas of a tool-use instance's current episode (``get_tools()``)."""
        inst = self.instance(index)
        if not callable(getattr(type(inst.env), "get_tools", None)):
            raise protocol_failure(f"{inst.class_name} is not a tool-use environment: it has no get_tools() method")
        return self.timed(self._checked_tools, (inst.env,), "get_tools()")

    def _checked_tools(self, env) -> list:
        data = self._json_checkers[True]({"tools": env.get_tools()}, "get_tools()")["tools"]
        try:
            return tooluse.check_tool_list(data)
        except ValueError as exc:
            raise protocol_failure(str(exc)) from None

    def close_instance(self, index: int) -> None:
        inst = self.instances.pop(index, None)
        close = getattr(type(inst.env), "close", None) if inst else None
        if callable(close):
            self.timed(inst.env.close, (), "close()")

    def _refill_cpu_budget(self) -> None:
        """Give each episode a fresh CPU budget (RLIMIT_CPU counts the worker's lifetime)."""
        used = resource.getrusage(resource.RUSAGE_SELF)
        spent = int(used.ru_utime + used.ru_stime) + 1
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        target = spent + self.limits.cpu_seconds_per_episode
        if hard != resource.RLIM_INFINITY:
            target = min(target, hard)
        if soft == resource.RLIM_INFINITY or soft - spent < self.limits.cpu_seconds_per_episode // 2:
            resource.setrlimit(resource.RLIMIT_CPU, (target, hard))

    # ---------------------------------------------------------------- batched episodes

    def episodes(self, index: int, seeds: list, policy_spec: dict, max_steps: int, record: bool) -> list:
        return [self._episode(index, seed, policy_spec, max_steps, record) for seed in seeds]

    def _episode(self, index, seed, policy_spec, max_steps, record) -> dict:
        # Running hash of everything the episode returned. The worker's hash seed is
        # fixed (PYTHONHASHSEED=0 in every zygote), so equal episodes give equal
        # digests in any worker; it is ~10x cheaper than hashing JSON with sha256.
        digest = 0
        out = {"seed": seed, "turns": 0, "return": 0.0, "rewards": [], "terminated": False,
               "truncated": False, "ended": False, "error": None, "error_turn": None,
               "obs0": None, "obs0_sha": None, "solution0": None, "hint0": None, "transcript": None,
               "max_turns": None}
        transcript = [] if record else None
        policy = probes.make_policy(policy_spec, seed)
        turn = -1
        try:
            obs, info = self.reset(index, seed)
            out["obs0"] = obs[:2000]
            out["obs0_sha"] = hashlib.sha256(obs.encode("utf-8", "replace")).hexdigest()
            digest = hash((digest, obs, repr(info) if info else None))
            inst = self.instance(index)
            out["max_turns"] = inst.max_turns()
            if inst.has_solution:
                out["solution0"] = self.solution(index)[:1000]
            if inst.has_hint:
                hint = self.hint(index)
                out["hint0"] = hint[:4000] if hint is not None else None
            if transcript is not None:
                transcript.append({"obs": obs[:4000]})
            policy.begin(obs)
            for turn in range(max_steps):
                solution = self.solution(index) if policy.needs_solution else None
                action = policy.act(obs, turn, solution)
                obs, reward, terminated, truncated, info = self.step(index, action)
                out["turns"] = turn + 1
                out["rewards"].append(reward)
                out["return"] += reward
                digest = hash((digest, obs, reward, terminated, truncated, repr(info) if info else None))
                if transcript is not None:
                    transcript.append({"action": action[:500], "obs": obs[:4000], "reward": reward,
                                       "terminated": terminated, "truncated": truncated})
                if terminated or truncated:
                    out.update(terminated=terminated, truncated=truncated, ended=True)
                    break
        except CallFailed as failure:
            out["error"] = failure.error
            out["error_turn"] = turn + 1 if turn >= 0 else 0
        out["digest"] = f"{digest & 0xFFFFFFFFFFFFFFFF:016x}"
        out["transcript"] = transcript
        return out


#: Modules that C code of an allowed library imports lazily *on behalf of* a program:
#: ``ndarray.max()`` imports ``numpy._core._methods``, ``str(ndarray)`` imports
#: ``numpy._core.arrayprint``, ``datetime.strptime`` imports ``_strptime``. C code resolves
#: ``__import__`` from the calling frame's builtins — the program's — so these requests
#: reach the program's import hook. A program itself can never ask for them: ``import``
#: statements naming them are rejected at compile time and ``__import__`` is unreachable.
#: Only modules already loaded in the zygote are handed over (no code is read from disk).
_INTERNAL_PREFIXES = ("numpy.", "_strptime", "encodings.")


def _internal_module(name: str):
    if name.startswith(_INTERNAL_PREFIXES) or name in ("_strptime", "encodings"):
        return sys.modules.get(name)
    return None


def _type_and_len(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"a {type(value).__name__}"


# ----------------------------------------------------------------------------- the serve loop


def serve(sock: socket.socket, limits: Limits) -> None:
    """Answer requests from the host until it hangs up."""
    install_signal_handlers()
    runtime = ProgramRuntime(limits)
    handlers = {
        "load": lambda m: runtime.load(m["source"], m.get("kwargs") or {}, int(m.get("count", 1))),
        "reset": lambda m: runtime.reset(m.get("i", 0), m.get("seed")),
        "step": lambda m: runtime.step(m.get("i", 0), m.get("action")),
        "solution": lambda m: runtime.solution(m.get("i", 0)),
        "hint": lambda m: runtime.hint(m.get("i", 0)),
        "tools": lambda m: runtime.tools(m.get("i", 0)),
        "close": lambda m: runtime.close_instance(m.get("i", 0)),
        "episodes": lambda m: runtime.episodes(m.get("i", 0), m["seeds"], m["policy"],
                                               int(m["max_steps"]), bool(m.get("record"))),
        "batch": lambda m: _batch(runtime, m["items"]),
        "strict_info": lambda m: setattr(runtime, "strict_info", bool(m["value"])),
        "ping": lambda m: "pong",
        "selfcheck": lambda m: selfcheck(),
    }
    while True:
        try:
            message = protocol.recv_blocking(sock, limits.max_message_bytes)
        except (protocol.FramingError, OSError, ValueError, _Deadline, _CPUExhausted):
            return
        try:
            handler = handlers.get(message.get("op")) if isinstance(message, dict) else None
            if handler is None:
                raise protocol_failure(f"unknown request {message!r:.80}")
            start_ticking()
            try:
                reply = {"ok": True, "result": handler(message)}
            finally:
                stop_ticking()
        except CallFailed as failure:
            reply = {"ok": False, "error": failure.error}
        except (_Deadline, _CPUExhausted) as exc:
            reply = {"ok": False, "error": describe_failure(exc, "the call", limits)}
        except MemoryError:
            reply = {"ok": False, "error": {"kind": "memory", "message": "the worker ran out of memory",
                                            "lineno": None, "traceback": None, "output": None}}
        except Exception as exc:  # a bug in the runtime itself, reported rather than hidden
            reply = {"ok": False, "error": {"kind": "internal", "message": f"{type(exc).__name__}: {exc}",
                                            "lineno": None, "traceback": traceback.format_exc()[-3000:],
                                            "output": None}}
        try:
            protocol.send(sock, reply)
        except (OSError, ValueError):
            try:
                protocol.send(sock, {"ok": False, "error": {"kind": "protocol", "message":
                                    "the result could not be encoded", "lineno": None,
                                    "traceback": None, "output": None}})
            except OSError:
                return


def _batch(runtime: ProgramRuntime, items: list) -> list:
    """Several reset/step calls on different instances in one round-trip (vector envs)."""
    results = []
    for item in items:
        try:
            if "action" in item:
                value = runtime.step(item["i"], item["action"])
            else:
                value = runtime.reset(item["i"], item.get("seed"))
            results.append({"ok": True, "result": value})
        except CallFailed as failure:
            results.append({"ok": False, "error": failure.error})
    return results


def selfcheck() -> dict:
    """Report what the process layer enforces, from inside a worker (used by the tests).

    Tries the things a program that escaped the language layer would try, with the
    runtime's own (unrestricted) code, and reports what happened.
    """
    import os

    facts: dict = {"uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd()}
    try:
        facts["cwd_entries"] = os.listdir(".")
    except OSError as exc:
        facts["cwd_entries"] = f"error: {exc.strerror}"
    facts["environ"] = sorted(os.environ)
    facts["rlimits"] = {
        name: resource.getrlimit(getattr(resource, name))
        for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE")
    }
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        facts["fork"] = "allowed"
    except OSError as exc:
        facts["fork"] = f"refused: {exc.strerror}"
    for path in ("probe.txt", "/tmp/spade-selfcheck-probe.txt"):
        try:
            with open(path, "w") as handle:
                handle.write("x" * 10)
            facts.setdefault("writes", {})[path] = "allowed"
            os.unlink(path)
        except OSError as exc:
            facts.setdefault("writes", {})[path] = f"refused: {exc.strerror}"
    for path in ("/proc/1/environ", "/etc/hostname"):
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            facts.setdefault("reads", {})[path] = "allowed"
        except OSError as exc:
            facts.setdefault("reads", {})[path] = f"refused: {exc.strerror}"
    import socket as socket_module

    try:
        socket_module.socket(socket_module.AF_INET, socket_module.SOCK_DGRAM).close()
        facts["socket"] = "allowed"
    except OSError as exc:
        facts["socket"] = f"refused: {exc.strerror}"
    try:
        os.kill(os.getppid(), 0)
        facts["signal_parent"] = "allowed"
    except OSError as exc:
        facts["signal_parent"] = f"refused: {exc.strerror}"
    return facts
