"""``gymnasium`` and ``cost``: the program works as a gymnasium env and within its time budget."""

from __future__ import annotations

import statistics
import threading
import time
import warnings

from spade_gym.errors import SandboxError
from spade_gym.validation.checks import check
from spade_gym.validation.context import Abort, Context, Outcome
from spade_gym.validation.episodes import FATAL_KINDS
from spade_gym.validation.messages import describe_error
from spade_gym.validation.observations import boxed

#: ``warnings.catch_warnings`` swaps process-global state: one check_env at a time.
_GYM_LOCK = threading.Lock()

_GYM_ADVICE = {
    "truncates after 1 step": "a single wrong action must not end the episode with truncated=True: give the player "
                              "more than one turn, or end a lost game with terminated=True",
    "non-deterministic": "reset(seed) must pose the same task for the same seed",
    "not equivalent for the same seed and action": "step() must return the same result for the same seed and action",
}


@check("gymnasium", order=110)
def check_gymnasium(ctx: Context) -> Outcome:
    """Gymnasium's own ``check_env`` passes on the program wrapped as a :class:`SpadeEnv`."""
    outcome, deadline = _check_env(ctx, ctx.config.limits)
    if deadline and not outcome.passed and ctx.retry_deadline("gymnasium's check_env", outcome.message):
        outcome, deadline = _check_env(ctx, ctx.long_limits)  # a call hit its deadline: once more, longer ones
        if deadline and not outcome.passed:
            outcome = outcome._replace(message=outcome.message + "\n(a call hit its deadline, also with "
                                       f"{ctx.config.deadline_retry_factor:g}x longer deadlines)")
    return outcome


def _check_env(ctx: Context, limits) -> tuple[Outcome, bool]:
    """check_env's outcome, and whether a call hit a deadline (its worker had to be killed)."""
    from gymnasium.utils.env_checker import check_env

    from spade_gym.env.spade_env import SpadeEnv

    kwargs = dict(ctx.config.program_kwargs)
    try:
        env = SpadeEnv(ctx.source, limits=limits, **kwargs)
    except SandboxError as exc:
        return Outcome(False, f"wrapping the program as a gymnasium env failed: {describe_error(exc)}"), \
            exc.kind == "timeout"
    try:
        with _GYM_LOCK, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=True)
    except Exception as exc:  # check_env raises AssertionError or gymnasium errors
        text = str(exc) or type(exc).__name__
        advice = next((a for k, a in _GYM_ADVICE.items() if k in text), "")
        killed = env._handle.restarts > 0 or not env._handle.alive
        return Outcome(False, f"gymnasium's check_env failed: {text}" + (f"\n({advice})" if advice else "")), killed
    finally:
        env.close()
    notes = sorted({str(w.message) for w in caught})
    message = "gymnasium's check_env passed" + (f" with {len(notes)} warning(s)" if notes else "")
    return Outcome(True, message, {"warnings": notes} if notes else None), False


@check("cost", order=130)
def check_cost(ctx: Context) -> Outcome:
    """Median ``reset``/``step`` wall time (host round trip included) within the budget."""
    budget = ctx.config.cost_budget_ms
    handle = ctx.main
    reset_ms, step_ms = [], []
    for i in range(ctx.config.cost_samples):
        seed = ctx.seeds[i % len(ctx.seeds)]
        try:
            start = time.perf_counter()
            handle.reset(seed=seed)
            reset_ms.append((time.perf_counter() - start) * 1000)
            action = boxed(handle.solution()) if i % 2 == 0 else "\\boxed{0}"
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
