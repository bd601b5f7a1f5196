"""The shortcut zoo of tool-use programs: no-reasoning scripts that speak tool calls.

A tool-use program ignores ``\\boxed{}``, so the game zoo (:mod:`spade_gym.validation.baselines.zoo`)
cannot win one, however much it gives away. These scripts play the tool-use protocol
(``<tool_call>{json}</tool_call>`` actions, then ``<answer>...</answer>``) and, like the game
zoo, see only what an agent sees — the task text, each tool result, the tool schemas
(``info["tools"]`` in an agent loop) — and what *other* seeds taught them (:class:`Prior`: the
privileged policy's play, leave-one-out):

* ``tool_replay``: the other seeds' most common call sequence, each argument **re-bound** to a
  value of this episode that fills the same role (:class:`CallPlan`): written where the other
  seeds' values were written (the same token of the task, the same key of a JSON result, after
  the same words: ``pid 4321``), one the other seeds used (a closed vocabulary), one next to the
  argument's name, one of their shape or numeric range; constants kept as sent. A call answered
  with an error is retried with the next binding (unless the privileged play calls that tool
  again later: then the error was expected). Then it answers the same way while the episode
  lets it.
* ``tool_sweep``: every tool the schemas expose, once, with arguments copied from the task
  text; then the other seeds' answers (a constant such as ``done`` must need the state change:
  a "call every tool, then answer" run must not win it), then what the results and the schemas
  said — whole results, lines, values, error messages included — then the task's own tokens.
* ``tool_enumerate``: the re-bound calls once, then every answer the episode allows: the other
  seeds' answers by frequency, the values seen, then every integer of the other seeds' range.

Every choice is a function of the observations, the schemas, the :class:`Prior` and a seeded
RNG, so a probe run replays exactly. The baselines are plain :class:`Baseline` subclasses: one that
reads the schemas says ``needs_tools`` and gets them through ``see_tools`` right after
``reset`` (the episode driver asks ``get_tools()`` for it, as an agent loop hands
``info["tools"]`` to a model).

This module holds the three scripts and what the reports say of them; what they read from a
text is :mod:`~spade_gym.validation.tool_values`, what they learn from the other seeds
:mod:`~spade_gym.validation.tool_call_plan` (their public names are importable from here too).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from spade_gym import toolcalls
from spade_gym.sandbox.language.tooluse import check_tool_list
from spade_gym.validation.baselines.base import Baseline, Prior
from spade_gym.validation.observations import as_number
from spade_gym.validation.tool_call_plan import CallPlan, plan_for
from spade_gym.validation.tool_values import _STOPWORDS as _STOPWORDS
from spade_gym.validation.tool_values import ERROR_WORDS as ERROR_WORDS
from spade_gym.validation.tool_values import RESULT_PREFIX as RESULT_PREFIX
from spade_gym.validation.tool_values import (
    TEXT_CHARS,
    Occurrence,
    Role,
    Source,
    is_error,
    name_words,
    norm,
    occurrences,
    rank_values,
    result_body,
    sources,
)
from spade_gym.validation.tool_values import features as features

#: Longest run of integers ``tool_enumerate`` fills in from the other seeds' answers.
_MAX_RANGE = 400


def _answer(value: Any) -> str | None:
    text = str(value).strip()
    return None if not text or toolcalls.ANSWER_CLOSE in text else toolcalls.format_answer(text)


# ----------------------------------------------------------------------------- the scripts


class _ToolScript(Baseline):
    """What the scripts share: the texts seen so far and the answers not yet tried."""

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        self.plan = plan_for(prior)
        # Retries may take as many turns again as the privileged play (capped): an episode allows
        # at least the privileged play, and the spare turns are a guess, as an agent's are.
        self.spare = min(8, max(3, len(self.plan.steps) + 1))

    def begin(self, observation):
        self.task = observation
        self.results: list[tuple[int, str]] = []
        self.extra: list[str] = []  # texts besides the task and the results (schema descriptions)
        self.tried_answers: set[str] = set()
        self.pending: int | None = None  # the plan step of the call just sent
        self.called = False  # whether the last action was a call
        self._answers_for, self._answers = -1, []

    def observe(self, observation: str, turn: int) -> None:
        # what a call returned (the feedback to an answer is the base class's own words)
        if turn > 0 and self.called:
            self.results.append((-1 if self.pending is None else self.pending, result_body(observation)))
        self.called = False

    def act(self, observation, turn, solution):
        self.observe(observation, turn)
        action = self.choose(observation)
        self.called = action.lstrip().startswith(toolcalls.CALL_OPEN)
        return action

    def choose(self, observation: str) -> str:
        raise NotImplementedError

    def seen(self) -> list[Source]:
        return sources(self.task, self.results) + [(("schema",), text) for text in self.extra]

    def next_answer(self, candidates: list[Any]) -> str | None:
        for candidate in candidates:
            action = _answer(candidate)
            if action is not None and action not in self.tried_answers:
                self.tried_answers.add(action)
                return action
        return None

    def next_answer_from(self) -> str | None:
        """The next answer to try; the candidates are read again only when a call brought news."""
        if self._answers_for != len(self.results):
            self._answers_for, self._answers = len(self.results), self.answer_candidates()
        return self.next_answer(self._answers)

    def answer_candidates(self) -> list[Any]:
        """The constant answer of the other seeds first; then values written where the other seeds'
        answers were, of their shape, newest result first; then every other value seen."""
        results = sources(self.task, self.results)[1:]
        newest_first = results[::-1] + [(("schema",), text) for text in self.extra] + [(("task",), self.task)]
        ranked = rank_values(newest_first, self.plan.answers, role=self.plan.answer_role, kind="str", limit=64)
        constant = self.plan.constant_answer
        return ([constant] if constant is not None else []) + ranked

    def stop(self) -> str:
        self.exhausted = True
        return ""


class ToolReplay(_ToolScript):
    """*tool replay*: the other seeds' most common call sequence, arguments re-bound to the values of
    this episode in the same role, retried with the next binding on an error; then the answers."""

    def begin(self, observation):
        super().begin(observation)
        self.step = 0
        self.tried: set[str] = set()
        self.retries = 0

    def choose(self, observation):
        if self.pending is not None:
            retry = (is_error(observation) and self.retries < self.spare and self.plan.retry_on_error(self.pending))
            action = self._call(self.pending) if retry else None
            if action is not None:
                self.retries += 1
                return action
            self.step, self.tried = self.pending + 1, set()
        if self.step < len(self.plan.steps):
            action = self._call(self.step)
            if action is not None:
                return action
            self.step = len(self.plan.steps)
        self.pending = None
        return self.next_answer_from() or self.stop()

    def _call(self, index: int) -> str | None:
        for binding in self.plan.bindings(index, self.seen()):
            action = toolcalls.format_call(self.plan.steps[index].tool, binding)
            if action not in self.tried:
                self.tried.add(action)
                self.pending = index
                return action
        return None


class ToolEnumerate(ToolReplay):
    """*tool enumerate*: the re-bound calls once each, then every answer the episode allows: the other
    seeds' answers by frequency, the values seen, then the integers of the other seeds' range."""

    def __init__(self, rng, prior):
        super().__init__(rng, prior)
        self.spare = 0  # the turns go to answers

    def answer_candidates(self):
        out: list[Any] = self.plan.frequent_answers() + super().answer_candidates()
        numbers = [n for n in (as_number(a) for a in self.plan.answers) if n is not None]
        if self.plan.answers and len(numbers) == len(self.plan.answers) and all(float(n).is_integer() for n in numbers):
            low, high = int(min(numbers)), int(max(numbers))
            if high - low <= _MAX_RANGE:
                out += list(range(low, high + 1))
        return out


def _schema_value(name: str, schema: dict, task: list[Source], used: set[str], known: list[Any],
                  depth: int = 0) -> Any:
    """An argument copied from the task text for a declared parameter (its enum, its type)."""
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        shown = [e for e in enum if isinstance(e, (str, int, float)) and str(e).casefold() in task[0][1].casefold()]
        return (shown or enum)[0]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "boolean":
        return True
    if kind == "object":
        return {}
    if kind == "array":
        items = schema.get("items") if isinstance(schema.get("items"), dict) and depth < 4 else {}
        item = _schema_value(name, items, task, used, known, depth + 1) if items else None
        return [] if item in (None, "") else [item]
    wanted = {"integer": "int", "number": "number"}.get(kind if isinstance(kind, str) else "", "str")
    for value in rank_values(task, known, name_words(name), kind=wanted, limit=32):
        if str(value) not in used:
            used.add(str(value))
            return value
    return 0 if wanted != "str" else ""


class ToolSweep(_ToolScript):
    """*tool sweep*: every tool the schemas expose, once, arguments copied from the task text; then the
    other seeds' answers, then what the results and schemas said (error messages included), then the
    task's tokens."""

    needs_tools = True

    def begin(self, observation):
        super().begin(observation)
        self.calls: list[str] = []

    def see_tools(self, tools: Any) -> None:
        """The episode's schemas (``get_tools()`` right after ``reset``), as an agent gets them."""
        try:
            check_tool_list(tools)  # a worker's reply: its shape is checked here, on the host
        except ValueError:
            return
        known: dict[tuple[str, str], list[Any]] = {}
        for step in self.plan.steps:
            for key, values in step.arguments.items():
                known.setdefault((step.tool, key), []).extend(values)
        task = sources(self.task, [])
        for tool in tools:
            function = tool["function"]
            name = function["name"]
            parameters = function.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            properties = properties if isinstance(properties, dict) else {}
            required = parameters.get("required") if isinstance(parameters, dict) else None
            wanted = [p for p in properties if isinstance(p, str) and (not isinstance(required, list) or p in required)]
            used: set[str] = set()
            arguments = {p: _schema_value(p, properties[p] if isinstance(properties[p], dict) else {}, task, used,
                                          known.get((name, p), [])) for p in wanted}
            try:
                self.calls.append(toolcalls.format_call(name, arguments))
            except (TypeError, ValueError):
                continue
            # what a schema says is on an agent's screen too
            self.extra.append(json.dumps(function, ensure_ascii=False, default=str)[:TEXT_CHARS])

    def choose(self, observation):
        if self.calls:
            return self.calls.pop(0)
        return self.next_answer_from() or self.stop()

    def answer_candidates(self):
        whole: list[str] = []
        for _, text in reversed(self.results):
            body = text.strip()
            if body and len(body) <= 200:
                whole.append(body)
            for marker in ("Error calling ", "Error: ", "error: "):
                if marker in body:  # the message of an error, without its "Error calling x:" head
                    whole.append(body.split(marker, 1)[1].split(": ", 1)[-1].strip())
        # the other seeds' answers that repeat (a constant, a few common ones) first; one-offs last
        counts = Counter(self.plan.answers)
        repeated = [a for a in self.plan.frequent_answers() if counts[a] > 1]
        return repeated + super().answer_candidates() + whole + self.plan.frequent_answers()


#: The tool-use zoo, in the order reports list it.
BY_KIND: dict[str, type[Baseline]] = {"tool_replay": ToolReplay, "tool_sweep": ToolSweep,
                                     "tool_enumerate": ToolEnumerate}

DESCRIPTIONS = {
    "tool_replay": "replays the other seeds' usual calls with arguments re-bound from this task and its results, "
                   "then answers what is written where their answers were",
    "tool_sweep": "calls every tool once with arguments copied from the task, then answers what the results "
                  "(error messages included), the schemas and the task say",
    "tool_enumerate": "makes the usual calls once, then tries every answer the episode allows",
}

#: What the designer should change when one of them wins (read by the shortcut check).
REPAIRS = {
    "tool_replay": "one fixed sequence of calls wins most tasks with arguments copied from the task and the results: "
                   "make the calls depend on what this task's results show (which tool, which record, how many "
                   "calls), and the answer something the agent must work out from the results, not copy",
    "tool_sweep": "calling every tool once with arguments copied from the task, then copying what came back, wins: "
                  "no tool may hand over the answer (no parameterless lookups of it, no answer in error messages "
                  "or schema texts), and a constant answer such as 'done' must need the specific change of state",
    "tool_enumerate": "the answer is found by trying answers until one is accepted (a wrong <answer> does not end a "
                      "tool-use episode): refuse every answer after the first wrong one in _check_answer, or draw "
                      "the answer from a much larger space",
}


__all__ = ["DESCRIPTIONS", "BY_KIND", "REPAIRS", "CallPlan", "Occurrence", "Role", "ToolEnumerate", "ToolReplay",
           "ToolSweep", "is_error", "norm", "occurrences", "plan_for", "rank_values", "result_body", "sources"]
