"""The validation checks, one function each, and the context they share.

Every check runs the program through the sandbox. Probe episodes (oracle, baselines,
fuzzing) are played *inside* the worker by :meth:`ProgramHandle.episodes`, one round
trip per batch of seeds, and cached in the :class:`Context`, so the checks that read
the same episodes (contract, termination, solvability, non-triviality, determinism)
pay for them once: the first check that needs a batch runs it.

A check returns an :class:`Outcome`. When the program hangs, crashes or exhausts a
limit, the check raises :class:`Abort` instead: that check fails with the reason and
validation stops (a hanging program would otherwise cost a deadline per probe).

Messages are written for the designer model that must repair the program: which seed,
which turn, which action, what came back, the program line and its own traceback.
"""

from __future__ import annotations

import ast
import json
import math
import random
import re
import statistics
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from spade_gym.contract import DEFAULT_MAX_TURNS, ENV_CLASS_SUFFIX, REQUIRED_METHODS
from spade_gym.errors import PolicyViolation, SandboxError
from spade_gym.sandbox import ProgramHandle, compile_program, probes
from spade_gym.validation import fingerprint as fingerprints
from spade_gym.validation.config import ValidationConfig

#: Error kinds that mean the program hung, crashed or exhausted a limit (validation stops).
FATAL_KINDS = frozenset({"timeout", "memory", "cpu", "crash", "internal", "unavailable"})
#: Distinct problems listed per check before the rest are counted.
MAX_LISTED = 3
#: Traceback lines (program frames) quoted per error.
TRACEBACK_LINES = 6

ORACLE = {"kind": "oracle"}
#: The baseline replayed in a fresh worker by the determinism check (covers wrong-answer paths).
REPLAY_BASELINE = {"kind": "random_words"}

POLICY_DESCRIPTIONS = {
    "oracle": "answers \\boxed{<solution()>}",
    "random_numbers": "boxes random numbers",
    "random_words": "boxes random common words",
    "empty": "sends empty answers",
    "copy": "boxes a token copied from the observation",
    "repeat": "repeats one guess copied from the observation",
}


class Abort(Exception):
    """The program hung, crashed or exhausted a limit: the current check fails and validation stops."""

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message)
        self.message = message
        self.details = details


class Outcome(NamedTuple):
    passed: bool
    message: str
    details: dict | None = None


# ----------------------------------------------------------------------------- message helpers


def excerpt(text: Any, limit: int = 80) -> str:
    """A short quoted rendering of a value for messages (long text is cut and its length given)."""
    if not isinstance(text, str):
        text = repr(text)
        return text if len(text) <= limit else text[:limit] + "…"
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"… ({len(text)} characters)"


def describe_error(error: dict | SandboxError) -> str:
    """An error the sandbox reported: its message, then the program's own traceback excerpt."""
    if isinstance(error, SandboxError):
        # The host folds the program's output into ``details`` after its traceback.
        trace, _, output = (error.details or "").partition("\nProgram output (tail):\n")
        error = {"kind": error.kind, "message": error.message, "lineno": error.lineno, "traceback": trace,
                 "output": output or None}
    message = str(error.get("message") or "unknown error").strip()
    lines = [message]
    trace = error.get("traceback")
    if trace:
        frames = [line.rstrip() for line in str(trace).splitlines() if line.startswith("  ")][-TRACEBACK_LINES:]
        if frames:
            lines.append("Traceback (program frames, innermost last):")
            lines.extend(frames)
    output = error.get("output")
    if output:
        lines.append(f"Program output before the error (tail): {excerpt(str(output)[-300:], 300)}")
    return "\n".join(lines)


def policy_label(spec: dict) -> str:
    kind = spec.get("kind", "?")
    return f"{kind} ({POLICY_DESCRIPTIONS[kind]})" if kind in POLICY_DESCRIPTIONS else str(kind)


@dataclass
class Problem:
    """One thing wrong, found at one place; problems with the same ``key`` are reported once."""

    key: str
    where: str
    text: str


def format_problems(headline: str, problems: list[Problem], total_label: str = "") -> str:
    """``headline`` then one entry per distinct problem (grouped by key), at most :data:`MAX_LISTED`."""
    groups: dict[str, list[Problem]] = {}
    for problem in problems:
        groups.setdefault(problem.key, []).append(problem)
    lines = [headline]
    for key, members in list(groups.items())[:MAX_LISTED]:
        first = members[0]
        text_lines = first.text.splitlines() or [""]
        also = f" (and {len(members) - 1} more {total_label or 'case(s)'} like it)" if len(members) > 1 else ""
        lines.append(f"- {first.where}: {text_lines[0]}{also}")
        lines.extend(f"  {line}" for line in text_lines[1:])
    if len(groups) > MAX_LISTED:
        lines.append(f"- ... and {len(groups) - MAX_LISTED} more distinct problem(s)")
    return "\n".join(lines)


def won(record: dict) -> bool:
    """Win: ended ``terminated`` with a positive final reward that is the episode's maximum."""
    rewards = record.get("rewards") or []
    return (record.get("error") is None and bool(record.get("terminated")) and bool(rewards)
            and rewards[-1] > 0 and rewards[-1] >= max(rewards))


def _boundary_pattern(text: str) -> re.Pattern:
    return re.compile(r"(?<![0-9A-Za-z])" + re.escape(text) + r"(?![0-9A-Za-z])", re.IGNORECASE)


# ----------------------------------------------------------------------------- fuzz corpus

# Why not hypothesis' engine here: it is a test-time library. Run inside the validator it
# writes a ``.hypothesis`` directory into the user's working directory, seeds generation
# from constants it harvests from whatever modules happen to be loaded (so the "same" seed
# gives different texts in the CLI and in a test run), and fails with a nested-@given
# health check when a user's own hypothesis test calls the validator. Instead the same
# strategy families are drawn here from a ``random.Random`` seeded by the config: the
# corpus is a pure function of (fuzz_examples, fuzz_seed), identical in every process.
# The test-suite still throws hypothesis-generated text at the validator and at step().

#: Inputs every program sees, whatever the seed: the cases generated code most often mishandles.
FIXED_FUZZ: tuple[str, ...] = (
    "", " ", "\n", "\t \n ", "hello", "\\boxed{}", "\\boxed{ }", "\\boxed{", "\\boxed", "}", "{}",
    "\\boxed{}}", "\\boxed{{}}", "\\boxed{{1}}", "\\boxed{\\boxed{1}}", "\\boxed{\\boxed{}}",
    "\\boxed{1}\\boxed{2}", "\\boxed{-1}", "\\boxed{0}", "\\boxed{007}", "\\boxed{1.5}", "\\boxed{1e309}",
    "\\boxed{nan}", "\\boxed{inf}", "\\boxed{-0}", "\\boxed{" + "9" * 5000 + "}", "\\boxed{\\frac{1}{2}}",
    "\\boxed{(1, 2)}", "\\boxed{[1, 2]}", "\\boxed{None}", "\\boxed{True}", "\\boxed{%s%d}", "\\boxed{{0}}",
    "\\boxed{\n}", "\\boxed {1}", "$\\boxed{1}$", "The answer is \\boxed{42}.", "\\boxed{yes}",
    "\\boxed{north}", "\\boxed{a,b}", "\\boxed{🙂}", "\\boxed{漢字}", "\u202e\\boxed{1}", "\x00", "\\boxed{\x00}",
    "\ud800", "\\boxed{" * 300 + "}" * 300, "x" * 100_000, "\\boxed{" + "a" * 100_000 + "}",
)

_WHITESPACE = " \t\n\r\x0b\x0c\u00a0\u2003\u3000"
_CHAR_RANGES = (  # (low, high) code points: ASCII, controls, Latin-1, combining, CJK, emoji, astral
    (0x20, 0x7E), (0x00, 0x1F), (0x80, 0xFF), (0x300, 0x36F), (0x4E00, 0x4FFF), (0x1F300, 0x1F64F),
    (0x10000, 0x10FFFF), (0x2000, 0x206F),
)


def _random_text(rng: random.Random, max_size: int) -> str:
    size = min(int(rng.expovariate(1 / 12)), max_size)
    return "".join(chr(rng.randint(*rng.choice(_CHAR_RANGES))) for _ in range(size))


def _draw_fuzz(rng: random.Random) -> str:
    boxed = probes.boxed
    family = rng.randrange(9)
    if family == 0:  # arbitrary unicode text
        return _random_text(rng, 200)
    if family == 1:  # whitespace only
        return "".join(rng.choice(_WHITESPACE) for _ in range(rng.randint(1, 8)))
    if family == 2:  # boxed arbitrary text
        return boxed(_random_text(rng, 60))
    if family == 3:  # boxed integers, any size or sign
        return boxed(str(rng.choice([rng.randint(-10, 10), rng.randint(-10**6, 10**6), rng.getrandbits(200)])))
    if family == 4:  # boxed floats, including awkward renderings
        return boxed(rng.choice([repr(rng.uniform(-1e6, 1e6)), f"{rng.random():.3e}", "-.5", "1_000"]))
    if family == 5:  # boxed words and phrases
        return boxed(" ".join(rng.choice(probes.WORDS) for _ in range(rng.randint(1, 3))))
    if family == 6:  # malformed boxes: cut anywhere
        text = boxed(rng.choice(probes.WORDS))
        return text[: rng.randint(0, len(text) - 1)] + _random_text(rng, 5)
    if family == 7:  # nested boxes
        inner = rng.choice(["", str(rng.randint(0, 99)), rng.choice(probes.WORDS)])
        for _ in range(rng.randint(2, 6)):
            inner = rng.choice([boxed(inner), "{" + inner + "}", inner + boxed("")])
        return inner
    return rng.choice(probes.WORDS) + rng.choice(["", " ", "\n"]) + boxed(str(rng.randint(0, 9)))  # box after prose


_fuzz_cache: dict[tuple[int, int], tuple[str, ...]] = {}


def fuzz_corpus(examples: int, seed: int) -> tuple[str, ...]:
    """The fixed edge cases plus ``examples`` drawn texts; the same for the same arguments."""
    key = (examples, seed)
    corpus = _fuzz_cache.get(key)
    if corpus is None:
        rng = random.Random(f"spade-gym-fuzz:{seed}")
        corpus = _fuzz_cache[key] = FIXED_FUZZ + tuple(_draw_fuzz(rng) for _ in range(examples))
    return corpus


def program_fuzz(observation: str, solution: str | None) -> list[str]:
    """Inputs built from one episode: the observation itself, tokens copied from it, and the
    solution in odd but reasonable formats (a sound program must not crash on any of them)."""
    texts = [observation, probes.boxed(observation[:200])]
    texts += [probes.boxed(c) for c in probes.observation_candidates(observation)[:4]]
    if solution:
        texts += [probes.boxed(f" {solution} "), probes.boxed(solution.upper()), probes.boxed(probes.boxed(solution)),
                  solution, probes.boxed(solution) * 2]
    return texts


# ----------------------------------------------------------------------------- context


@dataclass
class Context:
    """What the checks of one validation share: the program, its handles and cached probes."""

    source: Any
    config: ValidationConfig
    hint: Any = None
    suite: Any = None
    details: dict = field(default_factory=dict)
    handle: ProgramHandle | None = None
    class_name: str = "program"
    mentions_difficulty: bool = False
    #: The ``difficulty`` default of the environment's ``__init__``, when it is a literal.
    default_difficulty: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    reset_records: list = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    #: A second worker and the episodes it played first thing (compared by the determinism check).
    fresh_handle: ProgramHandle | None = None
    fresh_records: dict = field(default_factory=dict)
    _probes: dict = field(default_factory=dict)
    _handles: list = field(default_factory=list)

    @property
    def seeds(self) -> list[int]:
        return self.config.seed_list

    @property
    def turn_limit(self) -> int:
        """Turns a probe episode may take before the termination check fails it."""
        return min(self.max_turns, self.config.max_turns_limit) + self.config.turn_slack

    def open_handle(self, *, strict: bool = False, kwargs: dict | None = None) -> ProgramHandle:
        handle = ProgramHandle(self.source, kwargs=dict(self.config.program_kwargs if kwargs is None else kwargs),
                               limits=self.config.limits, strict_info=strict)
        self._handles.append(handle)
        return handle

    def close(self) -> None:
        for handle in self._handles:
            try:
                handle.close()
            except Exception:  # closing must never hide the report
                pass
        self._handles.clear()

    def run(self, handle: ProgramHandle, seeds: list[int], policy: dict, *, max_steps: int,
            record: bool = False, what: str | None = None, staged: bool = True) -> list[dict]:
        """Play episodes in the worker; raise :class:`Abort` if the program hangs or crashes.

        The first seed goes alone (unless ``staged`` is False: the worker already played
        these seeds), so that a program that hangs on every seed costs one deadline, not one
        per seed; the host-side timeout of each batch caps what a slow-but-not-hanging
        program can cost.
        """
        what = what or f"policy {policy_label(policy)}"
        records: list[dict] = []
        limits = self.config.limits
        for stage in (seeds[:1], seeds[1:]) if staged else (seeds,):
            if not stage:
                continue
            spent = time.perf_counter() - self.started
            if spent > self.config.max_seconds:
                raise Abort(f"{what}: validation stopped after {spent:.0f} s (limit {self.config.max_seconds:g} s); "
                            f"the program is far too slow", {"kind": "slow"})
            where = f"seed {stage[0]}" if len(stage) == 1 else f"seeds {stage[0]}..{stage[-1]}"
            budget = (limits.call_timeout * 2 + limits.kill_grace
                      + len(stage) * (max_steps + 3) * self.config.probe_call_allowance)
            start = time.perf_counter()
            try:
                got = handle.episodes(stage, policy, max_steps=max_steps, record=record, timeout=budget)
            except SandboxError as exc:
                raise Abort(f"{what}, {where}: {describe_error(exc)}",
                            {"kind": exc.kind, "lineno": exc.lineno}) from None
            elapsed = time.perf_counter() - start
            if not isinstance(got, list) or len(got) != len(stage) or not all(isinstance(r, dict) for r in got):
                raise Abort(f"{what}: the sandbox worker returned malformed episode records", {"kind": "protocol"})
            for rec in got:
                error = rec.get("error")
                if error and error.get("kind") in FATAL_KINDS:
                    raise Abort(f"{what}, seed {rec.get('seed')}, turn {rec.get('error_turn')}: "
                                f"{describe_error(error)}",
                                {"kind": error.get("kind"), "lineno": error.get("lineno"), "seed": rec.get("seed"),
                                 "turn": rec.get("error_turn")})
            calls = sum(1 + (rec.get("turns") or 0) for rec in got)
            per_call = elapsed / calls
            if elapsed > 1.0 and per_call > self.config.probe_call_allowance:
                raise Abort(f"{what}, {where}: the program is too slow to validate: {calls} "
                            f"reset/step calls took {elapsed:.1f} s ({per_call * 1000:.0f} ms per call; the cost "
                            f"budget is {self.config.cost_budget_ms:g} ms)", {"kind": "slow"})
            records.extend(got)
        return records

    def probe(self, policy: dict, *, record: bool = False) -> list[dict]:
        """Episodes of ``policy`` on every validation seed in the main worker (cached)."""
        key = (json.dumps(policy, sort_keys=True), record)
        if key not in self._probes:
            self._probes[key] = self.run(self.handle, self.seeds, policy, max_steps=self.turn_limit, record=record)
        return self._probes[key]

    def oracle(self) -> list[dict]:
        return self.probe(ORACLE, record=True)

    def baselines(self) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        for spec in self.config.baseline_policies:
            name = spec["kind"]
            while name in out:
                name += "'"
            out[name] = self.probe(spec)
        return out

    def fresh(self, handle: ProgramHandle | None = None) -> dict[str, list[dict]]:
        """Oracle and replay-baseline episodes played first thing in a fresh worker (cached):
        ``handle`` if given (it must not have played yet), else a new one."""
        if not self.fresh_records:
            self.fresh_handle = handle or self.open_handle()
            self.fresh_records = {
                "oracle": self.run(self.fresh_handle, self.seeds, ORACLE, max_steps=self.turn_limit, record=True),
                "random_words": self.run(self.fresh_handle, self.seeds, REPLAY_BASELINE, max_steps=self.turn_limit),
            }
        return self.fresh_records

    def replay(self, handle: ProgramHandle, seed: int, policy: dict) -> dict:
        """One episode again, recorded, to quote its actions and observations in a message."""
        return self.run(handle, [seed], policy, max_steps=self.turn_limit, record=True)[0]


def failing_action(ctx: Context, record: dict, policy: dict) -> str | None:
    """The action a baseline sent at the turn its episode failed, or None if unknown.

    The worker records a step only once it returns, so the failing action is rebuilt here:
    the episode is replayed recorded up to the failure, and the policy, seeded exactly as in
    the worker, is fed the same observations. (The oracle's action depends on ``solution()``
    in a state the host cannot see, so it is not rebuilt.)
    """
    turn = record.get("error_turn") or 0
    if not turn or policy["kind"] == "oracle":
        return None
    transcript = ctx.replay(ctx.handle, record["seed"], policy).get("transcript") or []
    if len(transcript) < turn:
        return None
    agent = probes.make_policy(policy, record["seed"])
    agent.begin(transcript[0]["obs"])
    action = None
    for t in range(turn):
        action = agent.act(transcript[t]["obs"], t, None)
    return action


def _episode_error(record: dict, action: str | None = None) -> str:
    where = f"turn {record.get('error_turn')}" if record.get("error_turn") else "reset"
    text = describe_error(record["error"])
    if action is not None:
        return f"{where}, action {excerpt(action)}: {text}"
    return f"{where}: {text}"


# ----------------------------------------------------------------------------- 1. static


def _class_members(node: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: frozenset) -> set[str]:
    names: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            names.add(stmt.target.id)
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes and base.id not in seen:
            names |= _class_members(classes[base.id], classes, seen | {base.id})
    return names


def _default_difficulty(node: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> str | None:
    """The literal default of the ``difficulty`` parameter of the class's ``__init__`` (own or
    inherited from a program class), if there is one."""
    seen = set()
    while node is not None and node.name not in seen:
        seen.add(node.name)
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                args = stmt.args
                positional = args.posonlyargs + args.args
                pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
                pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
                for arg, default in pairs:
                    if arg.arg == "difficulty" and isinstance(default, ast.Constant) and isinstance(default.value, str):
                        return default.value
                return None
        bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
        node = classes[bases[0]] if bases else None
    return None


def check_static(ctx: Context) -> Outcome:
    """Parses, fits the size limit, passes the sandbox policy, one ``*Env`` class with the required methods."""
    source = ctx.source
    if not isinstance(source, str):
        return Outcome(False, f"the program must be Python source text, got {type(source).__name__}")
    if not source.strip():
        return Outcome(False, "the program is empty")
    try:
        compiled = compile_program(source)
    except PolicyViolation as exc:
        return Outcome(False, f"the program does not compile under the sandbox policy:\n{exc.message}",
                       {"lineno": exc.lineno})
    tree = ast.parse(source)
    classes = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, ast.ClassDef)}
    env_classes = [c for name, c in classes.items() if name.endswith(ENV_CLASS_SUFFIX) and name != ENV_CLASS_SUFFIX]
    bases_used = {b.id for c in env_classes for b in c.bases if isinstance(b, ast.Name)}
    leaves = [c for c in env_classes if c.name not in bases_used]
    if not leaves:
        return Outcome(False, f"no environment class: define exactly one module-level class whose name ends in "
                              f"'{ENV_CLASS_SUFFIX}' (e.g. `class MazeEnv:`)")
    if len(leaves) > 1:
        listed = ", ".join(f"{c.name} (line {c.lineno})" for c in leaves)
        return Outcome(False, f"several environment classes: {listed}; keep exactly one class whose name ends in "
                              f"'{ENV_CLASS_SUFFIX}' (rename helper classes)", {"classes": [c.name for c in leaves]})
    env = leaves[0]
    members = _class_members(env, classes, frozenset({env.name}))
    missing = [m for m in REQUIRED_METHODS if m not in members]
    ctx.details["class_name"] = env.name
    if missing:
        needed = ", ".join(f"{m}()" for m in REQUIRED_METHODS)
        what = " and ".join(f"{m}()" for m in missing)
        extra = (" solution() must return the winning answer for the current state (the validator answers "
                 "\\boxed{<solution()>} to prove the game is solvable).") if "solution" in missing else ""
        return Outcome(False, f"{env.name} (line {env.lineno}) does not define {what}; every environment class "
                              f"needs {needed}.{extra}", {"class_name": env.name, "missing": missing})
    ctx.class_name = env.name
    ctx.mentions_difficulty = any(
        (isinstance(n, ast.arg) and n.arg == "difficulty") or (isinstance(n, ast.Name) and n.id == "difficulty")
        or (isinstance(n, ast.Attribute) and n.attr == "difficulty")
        or (isinstance(n, ast.Constant) and n.value == "difficulty")
        for n in ast.walk(tree)
    )
    ctx.default_difficulty = _default_difficulty(env, classes)
    docstring = ast.get_docstring(env) or ast.get_docstring(tree)
    ctx.details["docstring"] = docstring
    message = f"{env.name} (line {env.lineno}) defines {', '.join(REQUIRED_METHODS)}; the sandbox policy accepts it"
    return Outcome(True, message, {"class_name": env.name, "lineno": env.lineno, "warnings": compiled.warnings} if
                   compiled.warnings else {"class_name": env.name, "lineno": env.lineno})


# ----------------------------------------------------------------------------- 2. load / reset


def check_load(ctx: Context) -> Outcome:
    """Instantiates the class and resets it on every validation seed within the deadlines."""
    try:
        ctx.handle = ctx.open_handle()
    except SandboxError as exc:
        return Outcome(False, f"loading the program failed: {describe_error(exc)}",
                       {"kind": exc.kind, "lineno": exc.lineno})
    info = ctx.handle.info
    ctx.class_name = info.get("class_name") or ctx.class_name
    ctx.max_turns = info.get("max_turns") or DEFAULT_MAX_TURNS
    ctx.details.update(class_name=ctx.class_name, max_turns=ctx.max_turns, seeds=len(ctx.seeds))
    records = ctx.run(ctx.handle, ctx.seeds, {"kind": "actions", "actions": []}, max_steps=0, what="reset")
    ctx.reset_records = records
    problems = []
    for rec in records:
        seed = rec["seed"]
        if rec.get("error"):
            problems.append(Problem(str(rec["error"].get("message")), f"seed {seed}", describe_error(rec["error"])))
        elif not (rec.get("obs0") or "").strip():
            problems.append(Problem("empty", f"seed {seed}",
                                    f"reset(seed={seed}) returned an empty observation; it must describe the task"))
        elif not (rec.get("solution0") or "").strip():
            problems.append(Problem("nosolution", f"seed {seed}",
                                    f"solution() returned {excerpt(rec.get('solution0'))} right after "
                                    f"reset(seed={seed}); it must return the winning answer"))
    if problems:
        failed = len({p.where for p in problems})
        headline = f"reset failed on {failed} of {len(records)} seeds:"
        return Outcome(False, format_problems(headline, problems, "seed(s)"),
                       {"failed_seeds": [int(p.where.split()[-1]) for p in problems]})
    first = records[0]
    ctx.details.update(first_observation=first.get("obs0"), hint=first.get("hint0"))
    return Outcome(True, f"loaded {ctx.class_name} (max_turns {ctx.max_turns}) and reset it on {len(records)} seeds",
                   {"max_turns": ctx.max_turns, "program_info": info})


# ----------------------------------------------------------------------------- 3. contract


def _reward_problems(records: list[dict], label: str) -> list[Problem]:
    problems = []
    for rec in records:
        for turn, reward in enumerate(rec.get("rewards") or [], 1):
            if not (isinstance(reward, (int, float)) and math.isfinite(reward) and -1.0 <= reward <= 1.0):
                problems.append(Problem(f"reward:{reward}", f"{label}, seed {rec['seed']}, turn {turn}",
                                        f"step() returned reward {reward!r}; rewards must be finite and within "
                                        f"[-1, 1] (a win gives 1.0)"))
                break
    return problems


def check_contract(ctx: Context) -> Outcome:
    """``step`` survives fuzzed text and every probe policy, returning a well-typed 5-tuple.

    Types, finiteness and JSON-compatible ``info`` are enforced in the worker (a strict
    handle refuses non-JSON ``info``); the reward range is checked here.
    """
    strict = ctx.open_handle(strict=True)
    if ctx.config.enabled("determinism"):
        # This worker is still fresh: play the episodes the determinism check compares with the
        # main worker's now (one worker start less; a strict worker returns the same data for
        # JSON-compatible info, and the episodes it refuses are skipped by that check).
        ctx.fresh(strict)
    first = ctx.reset_records[0]
    texts = list(fuzz_corpus(ctx.config.fuzz_examples, ctx.config.fuzz_seed))
    texts += program_fuzz(first.get("obs0") or "", first.get("solution0"))
    problems: list[Problem] = []
    fuzz_records = []
    position, episodes = 0, 0
    # Play the inputs in order, as many per episode as the episode lasts: each episode's
    # first input meets a fresh task, the later ones meet the states earlier inputs left.
    while position < len(texts) and episodes < len(texts):
        seed = ctx.seeds[episodes % len(ctx.seeds)]
        episodes += 1
        chunk = texts[position:position + ctx.turn_limit]
        try:
            rec = ctx.run(strict, [seed], {"kind": "actions", "actions": chunk}, max_steps=len(chunk),
                          what="fuzzing step()")[0]
        except Abort as abort:
            turn = (abort.details or {}).get("turn")
            if turn:  # name the input the program hung or crashed on
                abort.message += f"\n(the input was {excerpt(chunk[turn - 1])})"
            raise
        fuzz_records.append(rec)
        played = rec.get("turns") or 0
        if rec.get("error"):
            turn = rec.get("error_turn") or 0
            problems.append(Problem(str(rec["error"].get("message")), f"fuzz input, seed {seed}",
                                    _episode_error(rec, chunk[turn - 1] if turn else None)))
            if not turn:
                break  # reset itself broke the contract (e.g. non-JSON info): every episode would
            played += 1  # skip the input that failed
        position += max(1, played)
    problems += _reward_problems(fuzz_records, "fuzz input")
    probe_sets = {"oracle": ctx.oracle(), **ctx.baselines()}
    listed: set[str] = set()
    for name, records in probe_sets.items():
        spec = ORACLE if name == "oracle" else _baseline_spec(ctx, name)
        for rec in records:
            if rec.get("error"):
                key = str(rec["error"].get("message"))
                # Rebuilding the action costs a replay: only for the first case of each problem.
                action = failing_action(ctx, rec, spec) if key not in listed else None
                listed.add(key)
                problems.append(Problem(key, f"policy {name}, seed {rec['seed']}", _episode_error(rec, action)))
        problems += _reward_problems(records, f"policy {name}")
    details = {"fuzz_inputs": len(texts), "fuzz_episodes": len(fuzz_records),
               "probe_episodes": sum(len(r) for r in probe_sets.values()), "problems": len(problems)}
    if problems:
        return Outcome(False, format_problems(
            "step() broke the contract (it must never raise and must return (str, float in [-1, 1], bool, bool, "
            "JSON-compatible dict)):", problems, "input(s)"), details)
    return Outcome(True, f"step() handled {len(texts)} fuzz inputs and {details['probe_episodes']} probe episodes",
                   details)


def _baseline_spec(ctx: Context, name: str) -> dict:
    names = list(ctx.baselines())
    return ctx.config.baseline_policies[names.index(name)]


# ----------------------------------------------------------------------------- 4. termination


def check_termination(ctx: Context) -> Outcome:
    """Every probe episode ends (terminated or truncated) within ``max_turns`` plus the slack."""
    limit = ctx.config.max_turns_limit
    if ctx.max_turns > limit:
        return Outcome(False, f"max_turns is {ctx.max_turns}; validation plays at most {limit} turns per episode, "
                              f"so lower max_turns to {limit} or less", {"max_turns": ctx.max_turns})
    probe_sets = {"oracle": (ORACLE, ctx.oracle())}
    probe_sets.update({name: (_baseline_spec(ctx, name), records) for name, records in ctx.baselines().items()})
    unended = [(name, spec, rec) for name, (spec, records) in probe_sets.items() for rec in records
               if rec.get("error") is None and not rec.get("ended")]
    total = sum(len(records) for _, records in probe_sets.values())
    if not unended:
        return Outcome(True, f"all {total} probe episodes ended within {ctx.turn_limit} turns",
                       {"turn_limit": ctx.turn_limit})
    rule = (f"the episode had not ended after {ctx.turn_limit} turns (max_turns {ctx.max_turns} + slack "
            f"{ctx.config.turn_slack}); step() must return truncated=True once max_turns turns are played")
    problems = [Problem("unended", f"policy {name}, seed {rec['seed']}", rule) for name, _, rec in unended]
    name, spec, rec = unended[0]
    last = (ctx.replay(ctx.handle, rec["seed"], spec).get("transcript") or [{}])[-1]
    problems[0].text += f"\nlast action {excerpt(last.get('action'))} got observation {excerpt(last.get('obs'), 160)}"
    policies = sorted({name for name, _, _ in unended})
    headline = f"{len(unended)} of {total} probe episodes never ended (policies: {', '.join(policies)}):"
    return Outcome(False, format_problems(headline, problems, "episode(s)"),
                   {"unended": len(unended), "turn_limit": ctx.turn_limit})


# ----------------------------------------------------------------------------- 5. determinism


def _first_difference(a: dict, b: dict, *, steps: bool = True) -> tuple[str, str] | None:
    """(kind, description) of how two episodes of the same seed and policy differ, or None.

    ``kind`` is ``task`` (first observation or solution), ``step`` or ``length``; with
    ``steps=False`` only the task is compared.
    """
    seed = a.get("seed")
    if a.get("obs0_sha") != b.get("obs0_sha"):
        return "task", (f"reset(seed={seed}) gave different observations: {excerpt(a.get('obs0'), 120)} vs "
                        f"{excerpt(b.get('obs0'), 120)}")
    if a.get("solution0") != b.get("solution0"):
        return "task", (f"solution() right after reset(seed={seed}) gave {excerpt(a.get('solution0'))} vs "
                        f"{excerpt(b.get('solution0'))}")
    if not steps or (a.get("digest") == b.get("digest") and a.get("turns") == b.get("turns")):
        return None
    for turn, (sa, sb) in enumerate(zip((a.get("transcript") or [])[1:], (b.get("transcript") or [])[1:]), 1):
        if sa == sb:
            continue
        if sa.get("action") != sb.get("action"):
            return "step", (f"turn {turn}: the same policy chose different actions ({excerpt(sa.get('action'))} vs "
                            f"{excerpt(sb.get('action'))}), so solution() or the observation differed")
        return "step", (f"turn {turn}, action {excerpt(sa.get('action'))}: step() returned "
                        f"{excerpt(sa.get('obs'), 100)} (reward {sa.get('reward')}) vs {excerpt(sb.get('obs'), 100)} "
                        f"(reward {sb.get('reward')})")
    if a.get("turns") != b.get("turns"):
        return "length", f"the episode lasted {a.get('turns')} vs {b.get('turns')} turns"
    return "step", "the step results (observations, rewards or info) differed"


def check_determinism(ctx: Context) -> Outcome:
    """The same seed gives the same task and the same step results, again in the same worker
    (after other episodes ran) and in a fresh worker."""
    seeds = ctx.seeds
    problems: list[Problem] = []
    seen: set[tuple] = set()

    def note(seed: int, label: str, policy: str, difference: tuple[str, str]) -> None:
        kind, text = difference
        if (seed, label, kind) not in seen:  # one report per seed and cause, whatever the policy
            seen.add((seed, label, kind))
            problems.append(Problem(f"{label}:{kind}", f"seed {seed}, {label}, policy {policy}", text))

    for reset_rec, oracle_rec in zip(ctx.reset_records, ctx.oracle()):
        difference = _first_difference(reset_rec, oracle_rec, steps=False)
        if difference:
            note(reset_rec["seed"], "reset again in the same worker", "oracle", difference)
    fresh = ctx.fresh()
    again = ctx.run(ctx.handle, seeds, ORACLE, max_steps=ctx.turn_limit, record=True, staged=False)
    comparisons = [
        ("a second run in the same worker", ORACLE, ctx.oracle(), again, ctx.handle),
        ("a fresh worker", ORACLE, ctx.oracle(), fresh["oracle"], ctx.fresh_handle),
        ("a fresh worker", REPLAY_BASELINE, ctx.probe(REPLAY_BASELINE), fresh["random_words"], ctx.fresh_handle),
    ]
    for label, policy, first, second, handle in comparisons:
        for a, b in zip(first, second):
            if a.get("error") or b.get("error"):
                continue  # the contract check reports failing episodes
            difference = _first_difference(a, b)
            if difference and not a.get("transcript"):  # locate the difference in recorded replays
                difference = (_first_difference(ctx.replay(ctx.handle, a["seed"], policy),
                                                ctx.replay(handle, a["seed"], policy))
                              or ("step", "the step results differed once but matched when replayed: they vary "
                                          "from run to run"))
            if difference:
                note(a["seed"], label, policy["kind"], difference)
    if problems:
        return Outcome(False, format_problems(
            "the same seed did not give the same episode (draw every random choice from a generator seeded in "
            "reset(seed), never at import or in __init__, and reset all state in reset()):", problems, "seed(s)"),
            {"mismatches": len(problems)})
    return Outcome(True, f"{len(seeds)} seeds replayed identically in the same worker and in a fresh one")


# ----------------------------------------------------------------------------- 6. diversity


def check_diversity(ctx: Context) -> Outcome:
    """Different seeds pose different tasks.

    A task is the first observation, the first solution *and* the privileged policy's
    whole episode: games with hidden state (a secret number, a hidden code) legitimately
    open every seed with the same screen, but the winning play differs with the secret.
    """
    records = ctx.reset_records
    oracle_digest = {rec["seed"]: rec.get("digest") for rec in ctx.oracle()}
    tasks: dict[tuple, list[int]] = {}
    for rec in records:
        key = (rec.get("obs0_sha"), rec.get("solution0"), oracle_digest.get(rec["seed"]))
        tasks.setdefault(key, []).append(rec["seed"])
    distinct = len(tasks)
    needed = max(2, math.ceil(ctx.config.min_distinct_tasks * len(records))) if len(records) > 1 else 1
    details = {"distinct_tasks": distinct, "seeds": len(records),
               "distinct_observations": len({r.get("obs0_sha") for r in records}),
               "distinct_solutions": len({r.get("solution0") for r in records})}
    if distinct >= needed:
        return Outcome(True, f"{distinct} distinct tasks over {len(records)} seeds", details)
    biggest = max(tasks.values(), key=len)
    example = next(r for r in records if r["seed"] == biggest[0])
    return Outcome(False, (
        f"only {distinct} distinct task(s) over {len(records)} seeds (at least {needed} needed): seeds "
        f"{', '.join(map(str, biggest[:8]))}{'...' if len(biggest) > 8 else ''} all gave the observation "
        f"{excerpt(example.get('obs0'), 120)} with solution {excerpt(example.get('solution0'))}, and the "
        f"privileged policy played them identically; reset(seed) must draw a new task from its seed"), details)


# ----------------------------------------------------------------------------- 7. solvability


def _oracle_failure(rec: dict) -> tuple[str, str]:
    """(kind, description) of an episode the privileged policy did not win."""
    if rec.get("error"):
        return "error:" + str(rec["error"].get("message")), "the episode failed at " + _episode_error(rec)
    transcript = rec.get("transcript") or []
    last = transcript[-1] if len(transcript) > 1 else {}
    rewards = rec.get("rewards") or []
    tail = f"; last action {excerpt(last.get('action'))} got {excerpt(last.get('obs'), 120)}" if last else ""
    if not rec.get("ended"):
        return "unended", (f"answering \\boxed{{<solution()>}} for {rec.get('turns')} turns never ended the "
                           f"episode{tail}")
    if not rec.get("terminated"):
        return "truncated", (f"the episode was truncated after {rec.get('turns')} turn(s) without a win (rewards "
                             f"{rewards}): step() does not accept what solution() returns{tail}")
    if not rewards or rewards[-1] <= 0:
        return "lost", (f"the episode terminated at turn {rec.get('turns')} with reward "
                        f"{rewards[-1] if rewards else None}: answering solution() loses{tail}")
    return "not-max", (f"the episode terminated with final reward {rewards[-1]}, below the episode's best reward "
                       f"{max(rewards)}; a win must end with the highest reward{tail}")


def check_solvability(ctx: Context) -> Outcome:
    """The privileged policy (``\\boxed{<solution()>}``, re-read every turn) wins on every seed."""
    records = ctx.oracle()
    wins = [r for r in records if won(r)]
    turns = [r.get("turns") or 0 for r in wins]
    if turns:
        ctx.details["oracle_turns"] = statistics.median(turns)
        ctx.details["multi_turn"] = sum(t > 1 for t in turns) > len(records) / 2
    failures = []
    for rec in records:
        if not won(rec):
            kind, text = _oracle_failure(rec)
            failures.append(Problem(kind, f"seed {rec['seed']}", text))
    details = {"wins": len(wins), "seeds": len(records), "oracle_turns": ctx.details.get("oracle_turns")}
    if failures:
        return Outcome(False, format_problems(
            f"the privileged policy (answering \\boxed{{<solution()>}} each turn) won only {len(wins)} of "
            f"{len(records)} seeds:", failures, "seed(s)"), details)
    return Outcome(True, f"the privileged policy won all {len(records)} seeds (median {ctx.details['oracle_turns']:g} "
                         f"turn(s))", details)


# ----------------------------------------------------------------------------- 8. non-triviality


def check_non_triviality(ctx: Context) -> Outcome:
    """Cheap baselines win on at most ``max_baseline_win_rate`` of the seeds each."""
    threshold = ctx.config.max_baseline_win_rate
    rates = {}
    problems = []
    for name, records in ctx.baselines().items():
        winners = [r for r in records if won(r)]
        rates[name] = round(len(winners) / len(records), 4) if records else 0.0
        if rates[name] > threshold:
            replay = ctx.replay(ctx.handle, winners[0]["seed"], _baseline_spec(ctx, name))
            actions = [s.get("action") for s in (replay.get("transcript") or [])[1:]]
            problems.append(Problem(name, f"baseline {policy_label(_baseline_spec(ctx, name))}", (
                f"won {len(winners)} of {len(records)} seeds ({rates[name]:.0%} > {threshold:.0%}), e.g. seed "
                f"{winners[0]['seed']} with {', '.join(excerpt(a, 40) for a in actions[-3:])}")))
    ctx.details["baseline_win_rates"] = rates
    if problems:
        return Outcome(False, format_problems(
            "the game is too easy to win without solving it (use a larger answer space, exact answers, fewer "
            "attempts):", problems), {"baseline_win_rates": rates})
    worst = max(rates.items(), key=lambda kv: kv[1]) if rates else ("none", 0.0)
    return Outcome(True, f"baselines win at most {worst[1]:.0%} ({worst[0]}) of seeds; the limit is {threshold:.0%}",
                   {"baseline_win_rates": rates})


# ----------------------------------------------------------------------------- 9. hint


def _leaks(hint: str, solution: str | None) -> bool:
    return bool(solution and solution.strip() and _boundary_pattern(solution.strip()).search(hint))


def check_hint(ctx: Context) -> Outcome:
    """A given hint, and every ``hint()`` result: non-empty, bounded, never the solution verbatim.

    A given hint applies to every episode, so it is compared with every seed's solution; a
    per-episode ``hint()`` is compared with its own episode's solution.
    """
    limit = ctx.config.hint_max_chars
    problems = []
    program_hints = [(r["seed"], r.get("hint0"), r.get("solution0")) for r in ctx.reset_records
                     if r.get("hint0") is not None]
    has_method = bool(ctx.handle.info.get("has_hint"))
    if ctx.hint is None and not has_method:
        return Outcome(True, "no hint given and no hint() method: nothing to check", {"hint": None})

    def inspect(text: Any, where: str, solutions: list[tuple[int, str | None]]) -> None:
        if not isinstance(text, str):
            problems.append(Problem("type", where, f"the hint must be text, got {type(text).__name__}"))
            return
        if not text.strip():
            problems.append(Problem("empty", where, "the hint is empty"))
            return
        if len(text) > limit:
            problems.append(Problem("long", where, f"the hint is {len(text)} characters long; the limit is {limit}"))
        for seed, solution in solutions:
            if _leaks(text, solution):
                problems.append(Problem("leak", where, (
                    f"the hint {excerpt(text, 120)} contains the solution of seed {seed} ({excerpt(solution)}) "
                    f"verbatim; a hint must point to the approach, never give the answer")))
                break

    if ctx.hint is not None:
        inspect(ctx.hint, "the given hint", [(r["seed"], r.get("solution0")) for r in ctx.reset_records])
    for seed, text, solution in program_hints:
        inspect(text, f"hint() for seed {seed}", [(seed, solution)])
    if has_method and not program_hints:
        problems.append(Problem("none", "hint()", "hint() is defined but returned None on every seed"))
    details = {"given": ctx.hint is not None, "method": has_method}
    if problems:
        return Outcome(False, format_problems("the hint is unusable:", problems, "seed(s)"), details)
    checked = (["the given hint"] if ctx.hint is not None else []) + ([f"hint() on {len(program_hints)} seeds"]
                                                                       if program_hints else [])
    return Outcome(True, f"{' and '.join(checked)}: non-empty, at most {limit} characters, no solution leaked", details)


# ----------------------------------------------------------------------------- 10. gymnasium

#: ``warnings.catch_warnings`` swaps process-global state: one check_env at a time.
_GYM_LOCK = threading.Lock()

_GYM_ADVICE = {
    "truncates after 1 step": "a single wrong action must not end the episode with truncated=True: give the player "
                              "more than one turn, or end a lost game with terminated=True",
    "non-deterministic": "reset(seed) must pose the same task for the same seed",
    "not equivalent for the same seed and action": "step() must return the same result for the same seed and action",
}


def check_gymnasium(ctx: Context) -> Outcome:
    """Gymnasium's own ``check_env`` passes on the program wrapped as a :class:`SpadeEnv`."""
    from gymnasium.utils.env_checker import check_env

    from spade_gym.env.spade_env import SpadeEnv

    kwargs = dict(ctx.config.program_kwargs)
    try:
        env = SpadeEnv(ctx.source, limits=ctx.config.limits, **kwargs)
    except SandboxError as exc:
        return Outcome(False, f"wrapping the program as a gymnasium env failed: {describe_error(exc)}")
    try:
        with _GYM_LOCK, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=True)
    except Exception as exc:  # check_env raises AssertionError or gymnasium errors
        text = str(exc) or type(exc).__name__
        advice = next((a for k, a in _GYM_ADVICE.items() if k in text), "")
        return Outcome(False, f"gymnasium's check_env failed: {text}" + (f"\n({advice})" if advice else ""))
    finally:
        env.close()
    notes = sorted({str(w.message) for w in caught})
    message = "gymnasium's check_env passed" + (f" with {len(notes)} warning(s)" if notes else "")
    return Outcome(True, message, {"warnings": notes} if notes else None)


# ----------------------------------------------------------------------------- 11. novelty


def check_novelty(ctx: Context) -> Outcome:
    """Not a copy (same normalized AST, or structurally near-identical) of an env in the target suite."""
    fp = fingerprints.fingerprint(ctx.source)
    ctx.details["fingerprint"] = fp.exact[:16]
    if ctx.suite is None:
        return Outcome(True, "no target suite given: not compared", {"fingerprint": fp.exact[:16]})
    from spade_gym.registry import Suite

    suite = ctx.suite if isinstance(ctx.suite, Suite) else Suite(ctx.suite)
    entries = suite.entries()
    match = fingerprints.nearest(ctx.source, entries)
    details = {"fingerprint": fp.exact[:16], "compared": len(entries)}
    if match is not None:
        details.update(nearest=match.env_id, similarity=round(match.similarity, 4))
    threshold = ctx.config.novelty_threshold
    if match is not None and (match.exact or match.similarity >= threshold):
        why = ("the same code up to names, strings and docstrings" if match.exact
               else f"structural similarity {match.similarity:.2f} >= {threshold:.2f}")
        return Outcome(False, f"a copy of {match.env_id} already in suite {suite.path} ({why}); design a "
                              f"different game",
                       details)
    nearest_text = f" (closest: {match.env_id}, similarity {match.similarity:.2f})" if match else ""
    return Outcome(True, f"differs from all {len(entries)} environments in the suite{nearest_text}", details)


# ----------------------------------------------------------------------------- 12. cost


def check_cost(ctx: Context) -> Outcome:
    """Median ``reset``/``step`` wall time (host round trip included) within the budget."""
    budget = ctx.config.cost_budget_ms
    handle = ctx.handle
    reset_ms, step_ms = [], []
    for i in range(ctx.config.cost_samples):
        seed = ctx.seeds[i % len(ctx.seeds)]
        try:
            start = time.perf_counter()
            handle.reset(seed=seed)
            reset_ms.append((time.perf_counter() - start) * 1000)
            action = probes.boxed(handle.solution()) if i % 2 == 0 else "\\boxed{0}"
            start = time.perf_counter()
            handle.step(action)
            step_ms.append((time.perf_counter() - start) * 1000)
        except SandboxError as exc:
            if exc.kind in FATAL_KINDS:
                raise Abort(f"timing reset/step on seed {seed}: {describe_error(exc)}", {"kind": exc.kind}) from None
            return Outcome(False, f"timing reset/step on seed {seed} failed: {describe_error(exc)}")
    reset_median, step_median = statistics.median(reset_ms), statistics.median(step_ms)
    details = {"reset_ms": round(reset_median, 3), "step_ms": round(step_median, 3), "budget_ms": budget}
    slow = [f"{name}() takes {value:.1f} ms (median of {len(reset_ms)})" for name, value in
            (("reset", reset_median), ("step", step_median)) if value > budget]
    if slow:
        return Outcome(False, f"{' and '.join(slow)}; the budget is {budget:g} ms per call: precompute less, "
                              f"avoid brute-force search in reset()/step()", details)
    return Outcome(True, f"median reset {reset_median:.2f} ms, step {step_median:.2f} ms (budget {budget:g} ms)",
                   details)


# ----------------------------------------------------------------------------- 13. difficulty


def _level_episodes(ctx: Context, level: str, seeds: list[int]) -> tuple[list[dict], list[list[dict]]] | None:
    """Oracle and baseline episodes at one difficulty level; None if ``difficulty`` is dropped.

    The level the program defaults to is the main worker's, whose episodes are already known.
    """
    if level == ctx.default_difficulty and "difficulty" not in ctx.config.program_kwargs:
        return ctx.oracle()[: len(seeds)], [records[: len(seeds)] for records in ctx.baselines().values()]
    handle = ctx.open_handle(kwargs={**ctx.config.program_kwargs, "difficulty": level})
    if "difficulty" in handle.info.get("dropped_kwargs", []):
        return None
    # A level may size its own turn budget (harder levels, more turns): probe it with that.
    level_turns = handle.info.get("max_turns") or ctx.max_turns
    turn_limit = min(level_turns, ctx.config.max_turns_limit) + ctx.config.turn_slack
    oracle = ctx.run(handle, seeds, ORACLE, max_steps=turn_limit, record=True,
                     what=f"difficulty={level!r}, policy oracle")
    baselines = [ctx.run(handle, seeds, spec, max_steps=turn_limit, staged=False,
                         what=f"difficulty={level!r}, policy {policy_label(spec)}")
                 for spec in ctx.config.baseline_policies]
    return oracle, baselines


def check_difficulty(ctx: Context) -> Outcome:
    """If the program has a ``difficulty`` knob, every level loads, is solvable and non-trivial,
    and the levels pose different tasks.

    Baseline wins are pooled over the baselines of a level: with a few seeds per level, one
    lucky guess of one baseline would otherwise decide the verdict.
    """
    ctx.details["difficulty_levels"] = []
    if not ctx.mentions_difficulty:
        return Outcome(True, "no difficulty knob (the program never mentions `difficulty`)", {"levels": []})
    seeds = ctx.seeds[: ctx.config.difficulty_seeds]
    threshold = ctx.config.max_baseline_win_rate
    problems, passed, observations = [], [], {}
    for level in ctx.config.difficulty_levels:
        try:
            episodes = _level_episodes(ctx, level, seeds)
        except SandboxError as exc:
            problems.append(Problem(level, f"difficulty={level!r}", f"loading failed: {describe_error(exc)}"))
            continue
        if episodes is None:
            return Outcome(True, f"no difficulty knob ({ctx.class_name}.__init__ takes no `difficulty` keyword)",
                           {"levels": []})
        oracle, baselines = episodes
        observations[level] = [r.get("obs0_sha") for r in oracle]
        lost = [r for r in oracle if not won(r)]
        if lost:
            problems.append(Problem(level, f"difficulty={level!r}, seed {lost[0]['seed']}",
                                    f"the privileged policy lost {len(lost)} of {len(seeds)} seeds: "
                                    f"{_oracle_failure(lost[0])[1]}"))
            continue
        wins = sum(won(r) for records in baselines for r in records)
        total = sum(len(records) for records in baselines)
        if total and wins / total > threshold:
            problems.append(Problem(level, f"difficulty={level!r}", (
                f"baselines won {wins} of {total} episodes ({wins / total:.0%} > {threshold:.0%})")))
            continue
        passed.append(level)
    if len(observations) > 1 and all(len(set(column)) == 1 for column in zip(*observations.values())):
        problems.append(Problem("same", "all levels", "every level posed the same task for the same seed: the "
                                                       "difficulty keyword has no effect"))
    details = {"levels": passed}
    if problems:
        return Outcome(False, format_problems("the difficulty knob is broken:", problems), details)
    ctx.details["difficulty_levels"] = passed
    return Outcome(True, f"levels {', '.join(passed)} load, are solvable and non-trivial, and differ", details)


#: Check name -> function, in run order (see ``config.CHECK_NAMES``).
CHECKS: dict[str, Callable[[Context], Outcome]] = {
    "static": check_static,
    "load": check_load,
    "contract": check_contract,
    "termination": check_termination,
    "determinism": check_determinism,
    "diversity": check_diversity,
    "solvability": check_solvability,
    "non_triviality": check_non_triviality,
    "hint": check_hint,
    "gymnasium": check_gymnasium,
    "novelty": check_novelty,
    "cost": check_cost,
    "difficulty": check_difficulty,
}
