"""What the other seeds did with their tools, as a plan a tool-use script can replay.

The privileged policy's play on the other seeds (the :class:`Prior`, leave-one-out) is read
into a :class:`CallPlan`: at each turn the most common tool, every value each argument took
and where it was written (a :class:`~spade_gym.validation.tool_values.Role`), then the final
answers. :meth:`CallPlan.bindings` re-binds a step's arguments to this episode's values. The
scripts that play it live in :mod:`spade_gym.validation.baselines.tools`; a plan is built once
per Prior (:func:`plan_for`) however many of them share it.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any, NamedTuple

from spade_gym import toolcalls
from spade_gym.validation.baselines.base import Prior
from spade_gym.validation.tool_values import Role, Source, json_kind, name_words, rank_values, result_body, sources

#: Bindings tried per call (on errors).
_COMBOS = 64


def _parse(action: str) -> tuple[str, Any] | None:
    """("call", ToolCall) or ("answer", text) for a privileged action, None for anything else."""
    parsed = toolcalls.parse_action(action)
    if parsed.answer is not None and not parsed.calls:
        return "answer", parsed.answer
    if parsed.calls:
        return "call", parsed.calls[0]
    return None


class PlannedCall(NamedTuple):
    tool: str
    #: Argument name -> the values the other seeds sent at this step.
    arguments: dict[str, list[Any]]
    #: Argument name -> where those values were written.
    roles: dict[str, Role]


class CallPlan:
    """The other seeds' most common tool-use play: at each turn the most common tool (until the
    answer is most common), every value each argument took there and where it was written; the
    other seeds' final answers and where those were written."""

    def __init__(self, prior: Prior):
        plays = [[(obs, _parse(action)) for obs, action in transcript] for transcript in prior.transcripts]
        if not plays:  # a Prior without transcripts: the actions alone, no roles
            plays = [[("", _parse(a)) for a in column] for column in zip(*prior.actions_by_turn)]
        self.steps: list[PlannedCall] = []
        for turn in range(max(map(len, plays), default=0)):
            parsed = [item for play in plays if len(play) > turn for item in [play[turn][1]] if item is not None]
            if not parsed:
                break
            names = Counter("\0answer" if kind == "answer" else value.name for kind, value in parsed)
            modal = names.most_common(1)[0][0]
            if modal == "\0answer":
                break
            step = PlannedCall(modal, {}, {})
            for play in plays:
                item = play[turn][1] if len(play) > turn else None
                if item is None or item[0] != "call" or item[1].name != modal:
                    continue
                call = item[1]
                seen = sources(play[0][0], [(k - 1, result_body(play[k][0])) for k in range(1, turn + 1)])
                for key, value in call.arguments.items():
                    step.arguments.setdefault(key, []).append(value)
                    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                        step.roles.setdefault(key, Role()).learn(value, seen)
            self.steps.append(step)
        self.answers: list[str] = []
        self.answer_role = Role()
        for play in plays:
            finals = [(turn, value) for turn, (_, item) in enumerate(play) if item is not None and item[0] == "answer"
                      for value in [item[1]]]
            if finals:
                turn, answer = finals[-1]
                self.answers.append(answer)
                seen = sources(play[0][0], [(k - 1, result_body(play[k][0])) for k in range(1, turn + 1)])
                self.answer_role.learn(answer, seen)

    def __deepcopy__(self, memo: dict) -> CallPlan:
        # read-only once built: the copies of a job made before it is played (a deadline retry
        # replays from scratch) share it rather than copy every transcript's roles again
        return self

    def retry_on_error(self, index: int) -> bool:
        """Whether an error answering step ``index`` means its arguments were wrong. Not when the
        same tool comes again later in the plan: the privileged play expected it to fail first
        (try, clear the obstacle, try again)."""
        return all(other.tool != self.steps[index].tool for other in self.steps[index + 1:])

    def frequent_answers(self) -> list[str]:
        return [a for a, _ in Counter(self.answers).most_common()]

    @property
    def constant_answer(self) -> str | None:
        return self.answers[0] if len(set(self.answers)) == 1 else None

    def bindings(self, index: int, seen: list[Source]) -> list[dict[str, Any]]:
        """The calls to try for step ``index``, best first: constants as the other seeds sent them,
        every other argument re-bound from ``seen`` (:func:`rank_values`); the combinations in
        order of their total rank."""
        step = self.steps[index]
        fixed: dict[str, Any] = {}
        options: dict[str, list[Any]] = {}
        for name, values in step.arguments.items():
            modal = json.loads(Counter(json.dumps(v, sort_keys=True) for v in values).most_common(1)[0][0])
            kind = json_kind(values)
            if len({json.dumps(v, sort_keys=True) for v in values}) == 1 or kind in ("bool", "other"):
                fixed[name] = modal
                continue
            ranked = rank_values(seen, values, name_words(name), role=step.roles.get(name), kind=kind)
            if ranked:
                options[name] = ranked
            else:  # nothing of its kind to copy: what the other seeds sent most
                fixed[name] = modal
        names = list(options)
        combos = sorted(itertools.product(*(range(len(options[n])) for n in names)), key=lambda c: (sum(c), c))
        out = []
        for combo in combos[:_COMBOS]:
            binding = dict(fixed)
            binding.update({n: options[n][i] for n, i in zip(names, combo)})
            out.append({k: binding[k] for k in step.arguments})
        return out or [fixed]


_PLANS: dict[int, tuple[Prior, CallPlan]] = {}


def plan_for(prior: Prior) -> CallPlan:
    """The plan of ``prior``, built once however many scripts share it (the zoo's baselines of one
    seed get the same Prior)."""
    cached = _PLANS.get(id(prior))
    if cached is not None and cached[0] is prior:
        return cached[1]
    if len(_PLANS) > 256:
        _PLANS.clear()
    plan = CallPlan(prior)
    _PLANS[id(prior)] = (prior, plan)
    return plan


__all__ = ["CallPlan", "PlannedCall", "plan_for"]
