"""Checks that only tool-use programs (``class XEnv(ToolUseBaseEnv)``) get.

The checks every program gets apply to tool-use programs unchanged, because the
privileged policy plays a tool-use program the way its contract says: ``solution()``,
read right after ``reset``, one action (one ``<tool_call>``, then the ``<answer>``) per
turn (:class:`~spade_gym.validation.policies.ToolScript`). So ``solvability`` proves the
solution wins on every probe seed within ``max_turns``; ``determinism`` proves the same
calls on the same seed give the same results, in the same worker and in a fresh one;
``diversity`` and ``distinct_solutions`` prove the task differs across seeds; the
difficulty checks probe every level the same way.

On top of those:

* ``tool_schemas``: every declared tool is a valid OpenAI function schema (the name, a JSON
  Schema object for the parameters), and its ``tool_<name>`` method accepts exactly the
  declared property names (the most common designer bug: ``account`` in the schema,
  ``account_id`` in the method, and every call fails);
* ``tool_calls``: every tool survives being called the way agents get it wrong: arguments
  of the wrong type, missing, unexpected, empty, negative, long, unicode; each call must come
  back as an observation (the base class turns a raised exception into one), never hang,
  crash the worker or break the step contract;
* ``tools_needed``: the final answer submitted with no tool call does not win, the answer
  is not in the task text, and the hint does not give it away: an environment that can be
  won without its tools trains nothing about tools.

Verdicts come from what the host saw: episodes it played itself and schemas it fetched
itself; the method signatures are read from the program text.
"""

from __future__ import annotations

import ast
import json
import math
import random
from typing import Any

from spade_gym import toolcalls
from spade_gym.contract import TOOL_METHOD_PREFIX, TOOL_USE_KIND, environment_class
from spade_gym.errors import SandboxError
from spade_gym.sandbox import ProgramHandle
from spade_gym.sandbox.tooluse import valid_tool_name
from spade_gym.validation.checks import check
from spade_gym.validation.context import Abort, Context, Outcome
from spade_gym.validation.episodes import FATAL_KINDS, Job
from spade_gym.validation.leaks import leaks
from spade_gym.validation.checks.contract import episode_error
from spade_gym.validation.messages import Problem, describe_error, excerpt, format_problems
from spade_gym.validation.policies import Feed, FixedActions

#: JSON Schema types a tool parameter may have (the ones chat APIs accept).
SCHEMA_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
#: Schema keywords whose value must itself be a schema / a dict of schemas / a list of schemas.
_SUBSCHEMA = ("items", "additionalProperties", "not")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAX_SCHEMA_DEPTH = 16
#: Answers shorter than this (normalised) are not searched for in texts: they occur by chance.
MIN_LEAK_CHARS = 2
#: What an agent may send before the answer without calling a tool: nothing, text, a call of a
#: tool that does not exist, a wrong answer. None of these may make the right answer win.
NO_CALL_PRELUDES: tuple[list[str], ...] = (
    [],
    ["I will answer now."],
    ['<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>'],
    ["<answer>0</answer>"],
)


def main_handle(ctx: Context) -> ProgramHandle:
    """The main worker; the fatal ``load`` check, which runs first, opened it."""
    if ctx.handle is None:
        raise Abort("the program was never loaded (the load check did not run)", {"kind": "internal"})
    return ctx.handle


# ----------------------------------------------------------------------------- schemas


def schema_problems(schema: Any, where: str, depth: int = 0) -> list[str]:
    """What is wrong with ``schema`` as a JSON Schema (the subset tool parameters use)."""
    if depth > _MAX_SCHEMA_DEPTH:
        return [f"{where}: nested more than {_MAX_SCHEMA_DEPTH} levels deep"]
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, dict):
        return [f"{where}: a schema must be an object (dict), got {type(schema).__name__}"]
    problems = []
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        unknown = [k for k in kinds if not isinstance(k, str) or k not in SCHEMA_TYPES]
        if unknown or not kinds:
            problems.append(f"{where}: 'type' {excerpt(kind, 40)} is not one of {', '.join(sorted(SCHEMA_TYPES))}")
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        problems.append(f"{where}: 'enum' must be a non-empty list")
    for key in ("description", "title"):
        if key in schema and not isinstance(schema[key], str):
            problems.append(f"{where}: '{key}' must be a string")
    if "required" in schema:
        required = schema["required"]
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            problems.append(f"{where}: 'required' must be a list of property names")
        elif len(set(required)) != len(required):
            problems.append(f"{where}: 'required' lists a name twice")
    for key in _SUBSCHEMA:
        if key in schema:
            problems += schema_problems(schema[key], f"{where}.{key}", depth + 1)
    for key in _SUBSCHEMA_MAPS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, dict):
                problems.append(f"{where}: '{key}' must be an object mapping names to schemas")
                continue
            for name, sub in value.items():
                problems += schema_problems(sub, f"{where}.{key}.{name}", depth + 1)
    for key in _SUBSCHEMA_LISTS:
        if key in schema:
            value = schema[key]
            if not isinstance(value, list) or not value:
                problems.append(f"{where}: '{key}' must be a non-empty list of schemas")
                continue
            for i, sub in enumerate(value):
                problems += schema_problems(sub, f"{where}.{key}[{i}]", depth + 1)
    return problems


def parameters_problems(name: str, parameters: Any) -> list[str]:
    """A tool's ``parameters``: a JSON Schema of type object whose required names are properties."""
    where = f"the parameters of {name!r}"
    if not isinstance(parameters, dict):
        return [f"{where} must be a JSON Schema object, got {type(parameters).__name__}"]
    if parameters.get("type") != "object":
        return [f"{where} must have \"type\": \"object\" (got {excerpt(parameters.get('type'), 30)})"]
    problems = schema_problems(parameters, where)
    properties = parameters.get("properties", {})
    required = parameters.get("required", [])
    if isinstance(properties, dict) and isinstance(required, list):
        missing = [r for r in required if isinstance(r, str) and r not in properties]
        if missing:
            problems.append(f"{where}: 'required' names {', '.join(map(repr, missing))}, which 'properties' "
                            f"does not declare")
    return problems


# ----------------------------------------------------------------------------- methods


def tool_methods(source: str) -> tuple[ast.ClassDef | None, dict[str, ast.FunctionDef]]:
    """The environment class and the ``tool_*`` methods it has (its own first, then those it
    inherits from classes the program defines, in method-resolution order)."""
    tree = ast.parse(source)
    env = environment_class(tree)
    if env is None:
        return None, {}
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    methods: dict[str, ast.FunctionDef] = {}
    order, seen = [env], set()
    while order:
        node = order.pop(0)
        if node.name in seen:
            continue
        seen.add(node.name)
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith(TOOL_METHOD_PREFIX):
                methods.setdefault(stmt.name, stmt)
        order += [classes[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
    return env, methods


def signature_problems(tool: str, method: ast.FunctionDef, parameters: dict) -> list[str]:
    """How ``method`` disagrees with the declared parameters of ``tool``."""
    args = method.args
    positional = args.posonlyargs + args.args
    if positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    with_default = {a.arg for a in positional[len(positional) - len(args.defaults):]} if args.defaults else set()
    with_default |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    names = [a.arg for a in positional + args.kwonlyargs]
    positional_only = {a.arg for a in args.posonlyargs}  # cannot be passed by name
    raw_properties, raw_required = parameters.get("properties"), parameters.get("required")
    properties: dict = raw_properties if isinstance(raw_properties, dict) else {}
    required = set(raw_required) if isinstance(raw_required, list) else set()
    declared = list(properties)
    where = f"{method.name} (line {method.lineno})"
    shown = f"its parameters are ({', '.join(names)}{', **' + args.kwarg.arg if args.kwarg else ''})"
    problems = []
    refused = [p for p in declared if (p not in names or p in positional_only) and args.kwarg is None]
    if refused:
        problems.append(f"{where} does not accept {', '.join(map(repr, refused))}, declared in the schema of "
                        f"{tool!r}; {shown}. Name the parameters exactly as the schema's properties.")
    needed = [n for n in names if n not in with_default and n not in declared]
    if needed:
        problems.append(f"{where} requires {', '.join(map(repr, needed))}, which the schema of {tool!r} does not "
                        f"declare (declared: {', '.join(map(repr, declared)) or 'nothing'}); every call would fail")
    optional = [n for n in names if n not in with_default and n in declared and n not in required]
    if optional:
        problems.append(f"{where} has no default for {', '.join(map(repr, optional))}, which the schema of "
                        f"{tool!r} leaves optional: list it in 'required', or give it a default")
    return problems


@check("tool_schemas", order=25, kinds=(TOOL_USE_KIND,))
def check_tool_schemas(ctx: Context) -> Outcome:
    """Tools are valid OpenAI function schemas and each ``tool_<name>`` accepts exactly the declared names."""
    env, methods = tool_methods(ctx.source)
    handle = main_handle(ctx)
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    counts = []
    for seed in ctx.seeds:
        try:
            handle.reset(seed=seed)
            tools = handle.tools()
        except SandboxError as exc:
            if exc.kind in FATAL_KINDS:
                raise Abort(f"reset(seed={seed}) and get_tools(): {describe_error(exc)}",
                            {"kind": exc.kind, "lineno": exc.lineno, "seed": seed}) from None
            problems.append(Problem("get_tools:" + exc.message, f"seed {seed}",
                                    f"reset() then get_tools() failed: {describe_error(exc)}"))
            continue
        counts.append(len(tools))
        if not tools:
            problems.append(Problem("none", f"seed {seed}", "reset() declared no tools (self._tools is empty)"))
            continue
        for tool in tools:
            function = tool["function"]
            name = function["name"]
            key = json.dumps(function, sort_keys=True, default=str)
            if key in seen:
                continue
            seen[key] = seed
            where = f"tool {name!r}, seed {seed}"
            if not valid_tool_name(name):
                problems.append(Problem(f"name:{name}", where, (
                    f"the name {name!r} is not a valid function name (letters, digits, '_', '.', '-'; at most 64 "
                    f"characters): chat APIs refuse it")))
            for text in parameters_problems(name, function.get("parameters", {})):
                problems.append(Problem(f"schema:{name}:{text}", where, text))
            method = methods.get(TOOL_METHOD_PREFIX + name)
            if method is None:
                line = f" (line {env.lineno})" if env is not None else ""
                problems.append(Problem(f"method:{name}", where, (
                    f"{ctx.class_name}{line} declares the tool {name!r} but defines no method "
                    f"{TOOL_METHOD_PREFIX}{name}(); every call of it answers 'Unknown tool'")))
            elif isinstance(function.get("parameters"), dict):
                for text in signature_problems(name, method, function["parameters"]):
                    problems.append(Problem(f"signature:{name}:{text}", where, text))
    details = {"tools": max(counts) if counts else 0, "distinct_schemas": len(seen)}
    ctx.details["tools"] = details["tools"]
    if problems:
        return Outcome(False, format_problems(
            "the tools do not work as declared (an agent calling them as their schemas say gets errors):",
            problems, "seed(s)"), details)
    return Outcome(True, f"{details['tools']} tool(s), {len(seen)} distinct schema(s) over {len(ctx.seeds)} seeds: "
                         f"valid, and every method accepts exactly its declared parameters", details)


# ----------------------------------------------------------------------------- odd calls

#: Arguments of the wrong JSON type for each declared type.
_WRONG_TYPE: dict[str, Any] = {"string": 12345, "number": "twelve", "integer": "7", "boolean": "yes", "array": "a,b",
               "object": [1, 2], "null": 0}
#: Odd but legal values of each type (what careless agents send).
_ODD_VALUES: dict[str, list[Any]] = {"string": ["", " ", "Ünïcödé 漢字 🙂", "x" * 1000, "../../etc/passwd", "None"],
               "number": [0, -1, -0.5, 1e9, 3.14159], "integer": [0, -1, 10**9, 2**63],
               "boolean": [True, False], "array": [[], [""], list(range(50))], "object": [{}, {"k": "v"}]}


def odd_calls(tools: list[dict], rng: random.Random) -> list[str]:
    """Tool calls an agent might send, for every declared tool (see :data:`_ODD_VALUES`)."""
    calls: list[str] = []
    for tool in tools:
        function = tool["function"]
        name = function["name"]
        raw_parameters = function.get("parameters")
        parameters: dict = raw_parameters if isinstance(raw_parameters, dict) else {}
        raw_properties = parameters.get("properties")
        properties: dict = raw_properties if isinstance(raw_properties, dict) else {}
        types: dict[str, str] = {
            p: (s["type"] if isinstance(s, dict) and isinstance(s.get("type"), str) else "string")
            for p, s in properties.items()}
        typical: dict[str, Any] = {p: rng.choice(_ODD_VALUES.get(t, [""])) for p, t in types.items()}
        calls.append(toolcalls.format_call(name, {}))  # every argument missing
        calls.append(toolcalls.format_call(name, {**typical, "unexpected_argument": 1}))
        for p, t in types.items():
            calls.append(toolcalls.format_call(name, {**typical, p: _WRONG_TYPE.get(t, None)}))
            calls.append(toolcalls.format_call(name, {**typical, p: None}))
            for value in _ODD_VALUES.get(t, []):
                calls.append(toolcalls.format_call(name, {**typical, p: value}))
    calls.append(toolcalls.format_call("no_such_tool", {}))
    calls.append('<tool_call>{"name": "%s", "arguments": [1, 2]}</tool_call>' % (tools[0]["function"]["name"]
                                                                               if tools else "x"))
    calls.append('<tool_call>{"name": "x", "arguments": {"a": NaN, "b": Infinity}}</tool_call>')
    return calls


@check("tool_calls", order=32, kinds=(TOOL_USE_KIND,))
def check_tool_calls(ctx: Context) -> Outcome:
    """Every tool survives calls with wrong, missing, unexpected and odd arguments."""
    seed = ctx.seeds[0]
    handle = main_handle(ctx)
    try:
        handle.reset(seed=seed)
        tools = handle.tools()
    except SandboxError as exc:
        if exc.kind in FATAL_KINDS:
            raise Abort(f"reset(seed={seed}) and get_tools(): {describe_error(exc)}",
                        {"kind": exc.kind, "lineno": exc.lineno, "seed": seed}) from None
        return Outcome(False, f"seed {seed}: reset() then get_tools() failed: {describe_error(exc)}")
    calls = odd_calls(tools, random.Random(f"tool-calls:{ctx.config.fuzz_seed}"))
    queue = list(calls)
    # one shared queue: each episode plays calls until max_turns ends it, the next takes over
    jobs = [Job(ctx.seeds[i % len(ctx.seeds)], "tool_calls", Feed(None, queue)) for i in range(len(calls))]
    try:
        episodes = ctx.play(handle, jobs, max_steps=ctx.turn_limit, what="calling the tools with odd arguments",
                            slots=1)
    except Abort as abort:
        action = (abort.details or {}).get("action")
        if action is not None:
            abort.message += f"\n(the call was {excerpt(action, 160)})"
        raise
    problems = [Problem(str(e.error.message), f"seed {e.seed}", episode_error(e)) for e in episodes
                if e.error is not None]
    for episode in episodes:
        for turn, step in enumerate(episode.steps, 1):
            if step.terminated and step.reward > 0:
                problems.append(Problem("win", f"seed {episode.seed}, turn {turn}", (
                    f"the call {excerpt(step.action, 120)} won (reward {step.reward:g}): a call with made-up "
                    f"arguments must not finish the task")))
    details = {"calls": len(calls), "episodes": len(episodes)}
    if problems:
        return Outcome(False, format_problems("calling the tools with odd arguments broke the environment:",
                                              problems, "call(s)"), details)
    return Outcome(True, f"{len(calls)} calls with wrong, missing and odd arguments all came back as observations",
                   details)


# ----------------------------------------------------------------------------- tools needed


def final_answer(solution: str | None) -> str | None:
    """The content of the last ``<answer>`` of a solution, or None."""
    if not solution:
        return None
    answers = [a for a in toolcalls.solution_actions(solution) if a.startswith(toolcalls.ANSWER_OPEN)]
    if not answers:
        return None
    return answers[-1][len(toolcalls.ANSWER_OPEN):-len(toolcalls.ANSWER_CLOSE)].strip()


@check("tools_needed", order=76, kinds=(TOOL_USE_KIND,))
def check_tools_needed(ctx: Context) -> Outcome:
    """The final answer alone (no tool call) does not win; the task text and the hint do not give it away."""
    oracle = ctx.oracle()
    answers = {e.seed: final_answer(e.solution0) for e in oracle if e.error is None}
    problems: list[Problem] = []
    missing = [seed for seed, answer in answers.items() if answer is None]
    for seed in missing[:1]:
        solution = next(e.solution0 for e in oracle if e.seed == seed)
        problems.append(Problem("no-answer", f"seed {seed}", (
            f"solution() returned {excerpt(solution, 120)}, which has no <answer>...</answer>: it must end with "
            f"the final answer")))
    known = {seed: answer for seed, answer in answers.items() if answer is not None}
    # A constant answer (``done`` after a pure state change) is a protocol word, not a secret:
    # only the answer-alone probe applies to it.
    constant = len(set(known.values())) == 1 and len(known) > 1
    jobs = [Job(seed, "answer_only", FixedActions(random.Random(0), prelude + [toolcalls.format_answer(answer)]))
            for seed, answer in known.items() if toolcalls.ANSWER_CLOSE not in answer
            for prelude in NO_CALL_PRELUDES]
    handle = main_handle(ctx)
    episodes = ctx.play(handle, jobs, max_steps=1 + max(map(len, NO_CALL_PRELUDES)),
                        what="submitting the final answer with no tool call")
    winners = [e for e in episodes if e.won]
    if winners:
        first = winners[0]
        before = f" after {', '.join(map(excerpt, first.actions[:-1]))}" if first.turns > 1 else ""
        problems.append(Problem("answer-alone", f"seed {first.seed}", (
            f"answering {excerpt(first.actions[-1])}{before}, with no tool call, won (in {len(winners)} of "
            f"{len(episodes)} probes): the tools are not needed. Make _check_answer also require the work: the "
            f"calls in self._call_history, or the state in self._state that the task asks for")))
    if not constant:
        by_seed = {e.seed: e for e in oracle}
        in_task = [seed for seed, answer in known.items()
                   if leaks(by_seed[seed].obs0 or "", answer, min_chars=MIN_LEAK_CHARS)]
        if len(in_task) >= max(2, math.ceil(len(known) / 4)):
            seed = in_task[0]
            problems.append(Problem("in-task", f"seed {seed}", (
                f"the answer {excerpt(known[seed])} appears in the task text {excerpt(by_seed[seed].obs0, 160)} "
                f"(on {len(in_task)} of {len(known)} seeds): the agent can copy it without calling a tool")))
        in_tools = []
        for seed, answer in list(known.items())[:4]:
            try:
                handle.reset(seed=seed)
                schemas = json.dumps(handle.tools(), ensure_ascii=False)
            except SandboxError:
                continue  # the tool_schemas check reports failing get_tools()
            if leaks(schemas, answer, min_chars=MIN_LEAK_CHARS):
                in_tools.append(seed)
        if in_tools:
            problems.append(Problem("in-tools", f"seed {in_tools[0]}", (
                f"the answer {excerpt(known[in_tools[0]])} appears in the tool schemas the agent is given (names, "
                f"descriptions, parameters)")))
        hints = [("the given hint", ctx.hint, list(known))] if isinstance(ctx.hint, str) else []
        hints += [(f"hint() for seed {e.seed}", e.hint0, [e.seed]) for e in oracle if isinstance(e.hint0, str)]
        for where, text, seeds in hints:
            leaked = [s for s in seeds if leaks(text, known.get(s), min_chars=MIN_LEAK_CHARS)]
            if leaked:
                problems.append(Problem("hint", where, (
                    f"the hint {excerpt(text, 120)} contains the answer of seed {leaked[0]} "
                    f"({excerpt(known[leaked[0]])}); a hint points to the approach, never the answer")))
                break
    details = {"answer_alone_wins": len(winners), "seeds": len(known), "constant_answer": constant}
    if problems:
        return Outcome(False, format_problems("the tools are not needed to win:", problems, "seed(s)"), details)
    return Outcome(True, f"the final answer alone lost on all {len(episodes)} seeds, and neither the task text nor "
                         f"the hint contains it", details)
