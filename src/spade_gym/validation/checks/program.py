"""``static`` and ``load``: the program is a well-formed environment that starts on every seed."""

from __future__ import annotations

import ast

from spade_gym import syntax
from spade_gym.contract import (
    BASE_CLASS_NAMES,
    DEFAULT_MAX_TURNS,
    ENV_CLASS_SUFFIX,
    REQUIRED_METHODS,
    TOOL_USE_BASE_CLASS,
    TOOL_USE_KIND,
    TOOL_USE_REQUIRED_METHODS,
)
from spade_gym.env.monitor import screen_reveals
from spade_gym.errors import PolicyViolation, SandboxError
from spade_gym.sandbox import compile_program
from spade_gym.validation.baselines.zoo import FixedActions
from spade_gym.validation.checks import check
from spade_gym.validation.context import Context, Outcome
from spade_gym.validation.episodes import Job
from spade_gym.validation.fingerprint import AST_LOCK
from spade_gym.validation.messages import Problem, describe_error, excerpt, format_problems

#: Clock readings: an environment whose behaviour depends on wall time can act one way under
#: the validator's fast probes and another for a slow agent.
CLOCK_CALLS = frozenset({"time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
                         "process_time", "process_time_ns", "thread_time", "thread_time_ns", "now", "utcnow",
                         "today", "localtime", "gmtime", "ctime"})
CLOCK_MODULES = frozenset({"time", "datetime"})


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


def _default_difficulty(node: ast.ClassDef | None, classes: dict[str, ast.ClassDef]) -> str | None:
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


def clock_reads(tree: ast.AST) -> list[int]:
    """Lines where the program reads the clock (``time.time()``, ``datetime.now()``...)."""
    aliases = set(CLOCK_MODULES) | {"date"}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.asname and a.name in CLOCK_MODULES}
        elif isinstance(node, ast.ImportFrom) and node.module in CLOCK_MODULES:
            lines += [node.lineno for a in node.names if a.name in CLOCK_CALLS]
            aliases |= {a.asname or a.name for a in node.names if a.name in ("datetime", "date")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in CLOCK_CALLS:
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in aliases:
                lines.append(node.lineno)
    return sorted(set(lines))


@check("static", order=10, fatal=True)
def check_static(ctx: Context) -> Outcome:
    """Parses, fits the size limit, passes the sandbox policy, one ``*Env`` class with the required methods."""
    with AST_LOCK:  # see fingerprint.AST_LOCK
        return _check_static(ctx)


def _check_static(ctx: Context) -> Outcome:
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
    tree = syntax.parse(source)
    classes = {stmt.name: stmt for stmt in tree.body if isinstance(stmt, ast.ClassDef)}
    env_classes = [c for name, c in classes.items() if name.endswith(ENV_CLASS_SUFFIX) and name not in BASE_CLASS_NAMES]
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
    # a tool-use class inherits step() from ToolUseBaseEnv, which the program does not define
    required = TOOL_USE_REQUIRED_METHODS if ctx.kind == TOOL_USE_KIND else REQUIRED_METHODS
    missing = [m for m in required if m not in members]
    ctx.details["class_name"] = env.name
    if missing:
        needed = ", ".join(f"{m}()" for m in required)
        what = " and ".join(f"{m}()" for m in missing)
        extra = (" solution() must return the winning answer for the current state (the validator answers "
                 "\\boxed{<solution()>} to prove the game is solvable).") if "solution" in missing else ""
        return Outcome(False, f"{env.name} (line {env.lineno}) does not define {what}; every environment class "
                              f"needs {needed}.{extra}", {"class_name": env.name, "missing": missing})
    clock = clock_reads(tree)
    if clock:
        return Outcome(False, f"the program reads the clock (line {', '.join(map(str, clock[:5]))}); an environment "
                              f"must behave the same whatever the time and however slowly the agent plays: draw "
                              f"everything from the seed and the actions", {"lineno": clock[0]})
    ctx.class_name = env.name
    ctx.mentions_difficulty = any(
        (isinstance(n, ast.arg) and n.arg == "difficulty") or (isinstance(n, ast.Name) and n.id == "difficulty")
        or (isinstance(n, ast.Attribute) and n.attr == "difficulty")
        or (isinstance(n, ast.Constant) and n.value == "difficulty")
        for n in ast.walk(tree)
    )
    ctx.default_difficulty = _default_difficulty(env, classes)
    ctx.details["docstring"] = ast.get_docstring(env) or ast.get_docstring(tree)
    defines = ", ".join(required) + (f" (step from {TOOL_USE_BASE_CLASS})" if ctx.kind == TOOL_USE_KIND else "")
    message = f"{env.name} (line {env.lineno}) defines {defines}; the sandbox policy accepts it"
    details = {"class_name": env.name, "lineno": env.lineno}
    if compiled.warnings:
        details["warnings"] = compiled.warnings
    return Outcome(True, message, details)


@check("load", order=20, fatal=True)
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
    jobs = [Job(seed, "reset", FixedActions(None, []), ask_hint=True) for seed in ctx.seeds]
    episodes = ctx.play(ctx.handle, jobs, max_steps=0, what="reset")
    ctx.reset_episodes = episodes
    problems = []
    for episode in episodes:
        seed = episode.seed
        if episode.error is not None:
            problems.append(Problem(str(episode.error.message), f"seed {seed}", describe_error(episode.error)))
        elif not (episode.obs0 or "").strip():
            problems.append(Problem("empty", f"seed {seed}",
                                    f"reset(seed={seed}) returned an empty observation; it must describe the task"))
        elif not (episode.solution0 or "").strip():
            problems.append(Problem("nosolution", f"seed {seed}",
                                    f"solution() returned {excerpt(episode.solution0)} right after "
                                    f"reset(seed={seed}); it must return the winning answer"))
    if problems:
        failed = len({p.where for p in problems})
        headline = f"reset failed on {failed} of {len(episodes)} seeds:"
        return Outcome(False, format_problems(headline, problems, "seed(s)"),
                       {"failed_seeds": [int(p.where.split()[-1]) for p in problems]})
    first = episodes[0]
    # What deployment monitors compare against: how often the task screen itself reveals
    # the answer (a multiple-choice screen lists it among the options on every seed).
    # (every episode has both by now: an empty one was a problem above; ``or ""`` tells the checker)
    revealed = sum(screen_reveals(e.obs0 or "", e.solution0 or "") for e in episodes)
    ctx.details.update(first_observation=first.obs0, hint=first.hint0, screen_reveals=[revealed, len(episodes)])
    return Outcome(True, f"loaded {ctx.class_name} (max_turns {ctx.max_turns}) and reset it on {len(episodes)} seeds",
                   {"max_turns": ctx.max_turns, "program_info": info})
