"""Checks that only tool-use programs (``class XEnv(ToolUseBaseEnv)``) get.

The checks every program gets apply to tool-use programs unchanged, because the
privileged policy plays a tool-use program the way its contract says: ``solution()``,
read right after ``reset``, one action (one ``<tool_call>``, then the ``<answer>``) per
turn (:class:`~spade_gym.validation.baselines.zoo.ToolScript`). So ``solvability`` proves the
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
  is not copied from the task text to a win, and the hint does not give it away: an
  environment that can be won without its tools trains nothing about tools. (An answer the
  task states is fine when answering it alone loses: the state change is the task.)

Verdicts come from what the host saw: episodes it played itself and schemas it fetched
itself; the method signatures are read from the program text (the pure helpers live in
:mod:`spade_gym.validation.tool_schemas`).
"""

from __future__ import annotations

import json
import math
import random
import re

from spade_gym import toolcalls
from spade_gym.contract import TOOL_METHOD_PREFIX, TOOL_USE_KIND
from spade_gym.errors import SandboxError
from spade_gym.sandbox import ProgramHandle
from spade_gym.sandbox.language.tooluse import valid_tool_name
from spade_gym.validation.baselines import tools as tool_baselines
from spade_gym.validation.baselines.zoo import Feed, FixedActions
from spade_gym.validation.checks import check, shortcut
from spade_gym.validation.checks.contract import episode_error
from spade_gym.validation.context import Abort, Context, Outcome
from spade_gym.validation.deadlines import DeadlineHit
from spade_gym.validation.episodes import FATAL_KINDS, Job
from spade_gym.validation.leaks import leaks, normalise
from spade_gym.validation.messages import Problem, describe_error, excerpt, format_problems
from spade_gym.validation.tool_schemas import (
    final_answer,
    odd_calls,
    parameters_problems,
    signature_problems,
    tool_methods,
)

# The shortcut check names the fix for each baseline that wins; the tool-use zoo brings its own.
shortcut.REPAIRS.update(tool_baselines.REPAIRS)

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


#: Seeds whose tool schemas are searched for the answer.
SCHEMA_SEEDS = 4
#: Shortest answer (letters and digits) looked for *inside* a longer token of the schemas.
MIN_GLUED_CHARS = 3
_ALNUM = re.compile(r"[0-9a-z]+")


def glued_in_schemas(schemas: dict[int, str], answers: dict[int, str]) -> list[int]:
    """Seeds whose schemas carry their answer glued inside a longer token (``form qxW42vk``), in a
    token no other seed's schemas have: the decoders read digit runs inside tokens, not a code or
    a word between letters. A schema text is the same for every task unless it is made per task,
    so a token only this seed's schemas have, holding this seed's answer, was put there for it
    (an honest per-task enum lists the answer as a whole token, which :func:`leaks` reports)."""
    tokens = {seed: set(_ALNUM.findall(normalise(text))) for seed, text in schemas.items()}
    found = []
    for seed, own in tokens.items():
        answer = "".join(_ALNUM.findall(normalise(answers.get(seed) or "")))
        if len(answer) < MIN_GLUED_CHARS:
            continue
        others = set().union(*(t for s, t in tokens.items() if s != seed))
        if any(answer in token and answer != token for token in own - others):
            found.append(seed)
    return found


def main_handle(ctx: Context) -> ProgramHandle:
    """The main worker; the fatal ``load`` check, which runs first, opened it."""
    if ctx.handle is None:
        raise Abort("the program was never loaded (the load check did not run)", {"kind": "internal"})
    return ctx.handle


def tools_after_reset(ctx: Context, handle: ProgramHandle, seed: int) -> list[dict]:
    """``reset(seed)`` then ``get_tools()``. A deadline hit there is not the program's yet: on a
    busy machine both are called again in a worker with longer deadlines before a check counts it
    (a hit then is an :class:`Abort`); other sandbox errors are raised for the check to judge."""
    what = f"reset(seed={seed}) and get_tools()"

    def attempt() -> list[dict]:
        try:
            handle.reset(seed=seed)
            return handle.tools()
        except SandboxError as exc:
            if exc.kind == "timeout":
                raise DeadlineHit(Abort(f"{what}: {describe_error(exc)}",
                                        {"kind": exc.kind, "lineno": exc.lineno, "seed": seed})) from None
            raise

    return ctx.with_deadline_retry(handle, what, attempt)


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
            tools = tools_after_reset(ctx, handle, seed)
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

@check("tool_calls", order=32, kinds=(TOOL_USE_KIND,))
def check_tool_calls(ctx: Context) -> Outcome:
    """Every tool survives calls with wrong, missing, unexpected and odd arguments."""
    seed = ctx.seeds[0]
    handle = main_handle(ctx)
    try:
        tools = tools_after_reset(ctx, handle, seed)
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
        # An answer the task states is only a shortcut when stating it wins: a state-modification
        # task ("fill the tank to 39 litres, then submit the level") names its answer and still
        # needs the work, which the answer-alone probes above have just shown.
        if winners and len(in_task) >= max(2, math.ceil(len(known) / 4)):
            seed = in_task[0]
            problems.append(Problem("in-task", f"seed {seed}", (
                f"the answer {excerpt(known[seed])} appears in the task text {excerpt(by_seed[seed].obs0, 160)} "
                f"(on {len(in_task)} of {len(known)} seeds): the agent can copy it without calling a tool")))
        in_tools = []
        schema_texts: dict[int, str] = {}
        for seed, answer in list(known.items())[:SCHEMA_SEEDS]:
            try:
                handle.reset(seed=seed)
                schemas = json.dumps(handle.tools(), ensure_ascii=False)
            except SandboxError:
                continue  # the tool_schemas check reports failing get_tools()
            schema_texts[seed] = schemas
            if leaks(schemas, answer, min_chars=MIN_LEAK_CHARS):
                in_tools.append(seed)
        how = ""
        glued = glued_in_schemas(schema_texts, known)
        if not in_tools and len(glued) >= 2:  # (two seeds: one short answer inside a token can be chance)
            in_tools, how = glued, f", glued inside a longer token on {len(glued)} of {len(schema_texts)} seeds"
        if in_tools:
            problems.append(Problem("in-tools", f"seed {in_tools[0]}", (
                f"the answer {excerpt(known[in_tools[0]])} appears in the tool schemas the agent is given (names, "
                f"descriptions, parameters){how}")))
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
