"""Learned baselines that play over many turns: an opponent model and a fixed probe plan.

* ``opponent`` (:class:`OpponentModel`) reads, from the privileged policy's episodes on other
  seeds, where the feedback shows an opponent's move and what the privileged policy played against
  each move; on a fresh seed it predicts the opponent's next move from the moves shown so far (a
  cycle finder, n-gram, reply-to-my-move and my-favourite predictors, the most accurate lately)
  and plays that reply.
* ``probe_plan`` (:class:`ProbePlan`) plays the fixed plan the training probes played, then
  answers what the plan's feedback spelled at the answer's places on training seeds, or the
  answer of a training seed whose feedback to the plan was the same.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from spade_gym.validation.baselines.base import Baseline, Prior, Transcript
from spade_gym.validation.feedback_model import fingerprint, new_part, unbox, units
from spade_gym.validation.learned_probes import PLAN_PROBE, cached, probes_of
from spade_gym.validation.observations import boxed

# ----------------------------------------------------------------------------- opponent model


def _move(action: str) -> str | None:
    """The one-unit move an action plays (``\\boxed{rock}`` -> ``rock``), else None."""
    found = units(unbox(action) or action)
    return found[0] if len(found) == 1 else None


#: Where the opponent's move or a plan's clue is read: what is new against the task screen, what
#: is new against the previous observation, the whole observation (ties go to the first: what is
#: new against the previous observation misses a clue that repeats the one before).
_SOURCES = ("s", "p", "o")
#: Where a move is read: a new record line (``p``: the line-wise comparison keeps a line that
#: repeats the previous round's moves), the whole feedback (``o``: a bare reply, a "Last:" line).
_MOVE_SOURCES = ("p", "o")


class _Reading:
    """How the opponent's move is read off a step's feedback: the ``k``-th move word from the start
    or the end of one :data:`_SOURCES` form of it; ``reply`` maps the opponent's move to the
    privileged policy's."""

    def __init__(self, source: str, anchor: str, k: int, moves: frozenset[str], reply: dict[str, str]):
        self.source, self.anchor, self.k, self.moves, self.reply = source, anchor, k, moves, reply

    def read(self, screen: str, previous: str, observation: str) -> str | None:
        return self.pick(_moves_seen(self.source, screen, previous, observation, self.moves))

    def pick(self, seen: Sequence[str]) -> str | None:
        if self.k >= len(seen):
            return None
        return seen[self.k] if self.anchor == "start" else seen[-1 - self.k]


def _moves_seen(source: str, screen: str, previous: str, observation: str, moves: frozenset[str]) -> list[str]:
    """The move words of one :data:`_SOURCES` form of a step's feedback, in order."""
    text = (new_part(previous, observation) if source == "p" else
            new_part(screen, observation) if source == "s" else units(observation))
    return [u for u in text if u in moves]


_Rows = tuple[dict[str, str], list[tuple[str, str, str, str]]]


def _move_rows(episodes: Sequence[Transcript]) -> _Rows | None:
    """The privileged policy's moves where they are a few one-word moves (two to eight, each played
    four times on average, in episodes of three turns or more): each move's action text, and per
    step (own move, task screen, previous observation, observation); else None."""
    long = [t for t in episodes if len(t.actions) >= 3]
    if len(long) < 3:
        return None
    texts: dict[str, str] = {}
    rows: list[tuple[str, str, str, str]] = []
    for t in long:
        previous = t.obs0
        for action, obs in zip(t.actions, t.observations):
            move = _move(action)
            if move is None:
                return None
            texts.setdefault(move, action)
            rows.append((move, t.obs0, previous, obs))
            previous = obs
    if not 2 <= len(texts) <= 8 or len(rows) < 4 * len(texts):
        return None
    return texts, rows


_OPPONENTS: dict[tuple, object] = {}
_PLANS: dict[tuple, object] = {}


def learn_opponent(episodes: Sequence[Transcript]) -> tuple[_Reading, dict[str, str], str] | None:
    """From the privileged episodes of other seeds: the moves (:func:`_move_rows`), the place in the
    feedback where the opponent's move shows, and the privileged policy's reply to each opponent move
    (at least 70% of its replies the same); None where no such reading exists."""
    return cached(_OPPONENTS, fingerprint(episodes),
                   lambda: _learn_opponent(episodes))


def _learn_opponent(episodes: Sequence[Transcript]) -> tuple[_Reading, dict[str, str], str] | None:
    found = _move_rows(episodes)
    if found is None:
        return None
    texts, rows = found
    long = [t for t in episodes if len(t.actions) >= 3]
    moves = frozenset(texts)
    best: tuple[float, _Reading] | None = None
    seen = {source: [_moves_seen(source, screen, prev, obs, moves) for _, screen, prev, obs in rows]
            for source in _MOVE_SOURCES}
    for source, anchor, k in itertools.product(_MOVE_SOURCES, ("start", "end"), range(3)):
        reading = _Reading(source, anchor, k, moves, {})
        read = [(reading.pick(found), own) for found, (own, *_) in zip(seen[source], rows)]
        pairs = [(theirs, own) for theirs, own in read if theirs is not None]
        if len(pairs) < 0.7 * len(rows) or sum(t != o for t, o in pairs) < 0.3 * len(pairs):
            continue  # not read on most steps, or only the agent's own move echoed
        table: dict[str, Counter] = defaultdict(Counter)
        for theirs, own in pairs:
            table[theirs][own] += 1
        if len(table) < 2:
            continue
        purity = sum(c.most_common(1)[0][1] for c in table.values()) / len(pairs)
        if purity >= 0.7 and (best is None or purity * len(pairs) > best[0]):
            reading.reply = {m: c.most_common(1)[0][0] for m, c in table.items()}
            best = (purity * len(pairs), reading)
    if best is None:
        return None
    first = Counter(_move(t.actions[0]) for t in long).most_common(1)[0][0] or next(iter(moves))
    return best[1], texts, first


#: Context predictors of the opponent's next move: each maps the history of (own, theirs) pairs
#: to the context whose last continuation it predicts from.
_CONTEXTS: dict[str, Callable[[list[tuple[str, str]], int], tuple | None]] = {
    "theirs-1": lambda h, t: tuple(p[1] for p in h[t - 1:t]) if t >= 1 else None,
    "theirs-2": lambda h, t: tuple(p[1] for p in h[t - 2:t]) if t >= 2 else None,
    "theirs-3": lambda h, t: tuple(p[1] for p in h[t - 3:t]) if t >= 3 else None,
    "theirs-4": lambda h, t: tuple(p[1] for p in h[t - 4:t]) if t >= 4 else None,
    "mine-1": lambda h, t: tuple(p[0] for p in h[t - 1:t]) if t >= 1 else None,
    "mine-2": lambda h, t: tuple(p[0] for p in h[t - 2:t]) if t >= 2 else None,
    "both-1": lambda h, t: tuple(h[t - 1:t]) if t >= 1 else None,
    "my-favourite": lambda h, t: (_favourite([p[0] for p in h[:t]]),) if t >= 1 else None,
    "any": lambda h, t: (),
}
#: Every predictor, the cycle first (on equal scores the earlier one is followed).
_PREDICTORS = ("period", *_CONTEXTS)


def _favourite(moves: list[str]) -> str:
    counts = Counter(moves)
    top = max(counts.values())
    return next(m for m in reversed(moves) if counts[m] == top)


#: Longest cycle the ``period`` predictor looks for.
MAX_PERIOD = 8
#: How much a predictor's past hits count against its recent ones (an opponent's habit shows after
#: a few rounds; the predictor that fits it then must win over ones that were lucky early).
SCORE_DECAY = 0.75


def _period(history: list[tuple[str, str]]) -> str | None:
    """The opponent's move if its moves so far repeat with the shortest period (up to
    :data:`MAX_PERIOD`) that fits every move, seen at least twice over."""
    theirs = [p[1] for p in history]
    for period in range(1, MAX_PERIOD + 1):
        if len(theirs) >= period + 2 and all(theirs[i] == theirs[i - period] for i in range(period, len(theirs))):
            return theirs[len(theirs) - period]
    return None


def _predict(history: list[tuple[str, str]], name: str) -> str | None:
    """The opponent's move after ``history`` by one predictor: the repeating cycle (``period``), or
    what followed the same context most often before (the latest on a tie)."""
    if name == "period":
        return _period(history)
    t = len(history)
    context = _CONTEXTS[name](history, t)
    if context is None:
        return None
    follows: Counter = Counter()
    last: dict[str, int] = {}
    for i in range(t):
        if _CONTEXTS[name](history, i) == context:
            follows[history[i][1]] += 1
            last[history[i][1]] = i
    if not follows:
        return None
    return max(follows, key=lambda m: (follows[m], last[m]))


class OpponentModel(Baseline):
    """*opponent*: predicts the opponent's next move from the moves its feedback showed so far (the
    most accurate lately of a cycle finder and n-gram, reply-to-my-move and my-favourite-move
    predictors), and plays the move the privileged policy played against that move on other seeds."""

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        learned = learn_opponent(prior.episodes)
        # nothing learned: the episode is lost right after the reset (every seed counts in the rate)
        self.idle = learned is None
        if learned is not None:
            self.reading, self.texts, self.first = learned

    def begin(self, observation):
        if self.idle:
            self.exhausted = True
        self.task = self.screen = observation
        self.history: list[tuple[str, str]] = []
        self.mine: str | None = None
        self.score: dict[str, float] = dict.fromkeys(_PREDICTORS, 0.0)
        self.pending: dict[str, str | None] = {}

    def act(self, observation, turn, solution):
        if self.idle:  # nothing learned (an agent that ignores ``exhausted``)
            return ""
        if self.mine is not None:
            theirs = self.reading.read(self.task, self.screen, observation)
            if theirs is not None:
                for name, guess in self.pending.items():
                    self.score[name] = SCORE_DECAY * self.score[name] + (guess == theirs)
                self.history.append((self.mine, theirs))
        self.screen = observation
        self.pending = {name: _predict(self.history, name) for name in _PREDICTORS}
        ranked = sorted(_PREDICTORS, key=lambda name: -self.score[name])  # stable: earlier predictors first
        prediction = next((self.pending[name] for name in ranked if self.pending[name] is not None), None)
        move = self.reading.reply.get(prediction, self.first) if prediction is not None else self.first
        self.mine = move
        return self.texts.get(move, boxed(move))


# ----------------------------------------------------------------------------- fixed probe plan


_RUN = re.compile(r"\d+|[^\W\d_]+|[^\w]+|_+")


class _PlanAnswers:
    """What the feedback to the fixed plan says about the answer, learned from training seeds: the
    final answer's template (its runs of letters, digits and the rest) with the places that vary
    (a run, or each digit of a fixed-length digit run), each place's *copy rule* (the k-th word or
    number of the feedback to plan step i held that place's value on >= 90% of training seeds),
    and the answers of training seeds by their feedback (a table an agent memorises when the
    answers are few)."""

    def __init__(self, pairs: list[tuple[list[dict[str, tuple[str, ...]]], str]]):
        self.table = {_key(responses): answer for responses, answer in pairs}
        runs = [_RUN.findall(answer) for _, answer in pairs]
        responses = [r for r, _ in pairs]
        self.template: list[str] | None = None
        #: (run, digit or None) -> (plan step, source, anchor, k); None where some place has no rule
        self.rules: dict[tuple[int, int | None], tuple[int, str, str, int]] | None = None
        self.upper: dict[int, bool] = {}
        if len({len(r) for r in runs}) != 1:
            return
        self.template = list(runs[0])
        rules: dict[tuple[int, int | None], tuple[int, str, str, int]] = {}
        for j in range(len(self.template)):
            values = [r[j].casefold() for r in runs]
            if len(set(values)) == 1:
                continue
            self.upper[j] = all(r[j].isupper() for r in runs)
            rule = self._copy_rule(responses, values)
            if rule is not None:
                rules[(j, None)] = rule
                continue
            lengths = {len(v) for v in values}
            if all(v.isdigit() for v in values) and len(lengths) == 1 and next(iter(lengths)) > 1:
                digits = [self._copy_rule(responses, [v[c] for v in values]) for c in range(len(values[0]))]
                if all(d is not None for d in digits):
                    rules.update({(j, c): d for c, d in enumerate(digits) if d is not None})
                    continue
            return  # a place no feedback spells: no answer is built
        self.rules = rules or None

    def _copy_rule(self, responses: list[list[dict[str, tuple[str, ...]]]],
                   values: list[str]) -> tuple[int, str, str, int] | None:
        if not hasattr(self, "_words"):  # each plan step's words per source, once for every place
            steps = min(len(r) for r in responses)
            self._words = {(i, source): [_words(r[i][source]) for r in responses]
                           for i, source in itertools.product(range(steps), _SOURCES)}
        best = None
        for (i, source), words in self._words.items():
            hits: Counter = Counter()
            for w, v in zip(words, values):
                hits.update(("start", k) for k, u in enumerate(w[:8]) if u == v)
                hits.update(("end", k) for k, u in enumerate(w[::-1][:8]) if u == v)
            for (anchor, k), n in hits.items():
                if n >= max(3, 0.9 * len(values)) and (best is None or (n, -k) > best[0]):
                    best = ((n, -k), (i, source, anchor, k))
        return best[1] if best else None

    @property
    def usable(self) -> bool:
        return self.rules is not None or len(set(self.table.values())) < len(self.table)

    def answers(self, responses: list[dict[str, tuple[str, ...]]]) -> list[str]:
        out = []
        if self.template is not None and self.rules is not None:
            built = list(self.template)
            digits: dict[int, list[str]] = {}
            places = sorted(self.rules.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))
            for (j, c), (i, source, anchor, k) in places:
                words = _words(responses[i][source]) if i < len(responses) else []
                if k >= len(words):
                    break
                value = words[k] if anchor == "start" else words[-1 - k]
                if c is None:
                    built[j] = value.upper() if self.upper.get(j) else value
                else:
                    digits.setdefault(j, list(built[j]))[c] = value[:1]
            else:
                for j, chars in digits.items():
                    built[j] = "".join(chars)
                out.append("".join(built))
        if _key(responses) in self.table:
            out.append(self.table[_key(responses)])
        return list(dict.fromkeys(out))


class ProbePlan(Baseline):
    """*probe plan*: plays the fixed plan the training probes played (the privileged policy's usual
    probing moves), then answers what its feedback spells at the answer's places on training seeds,
    or the answer of a training seed whose feedback to the plan was the same; then stops."""

    def __init__(self, rng, prior: Prior):
        super().__init__(rng)
        finals = {t.seed: t.actions[-1] for t in prior.episodes if t.won and t.actions}
        pairs, plan = [], None
        for t in probes_of(prior, PLAN_PROBE):
            if t.seed in finals and t.observations:
                plan = plan or t.actions
                pairs.append((_responses(t.obs0, t.observations), finals[t.seed]))
        self.plan = plan or []
        probes = probes_of(prior, PLAN_PROBE)
        self.model = (cached(_PLANS, (fingerprint(probes), fingerprint(prior.episodes)),
                              lambda: _PlanAnswers(pairs)) if len(pairs) >= 3 else None)
        # nothing learned: the episode is lost right after the reset (every seed counts in the rate)
        self.idle = self.model is None or not self.model.usable
        self.boxed = bool(finals) and all(unbox(a) is not None for a in finals.values())

    def begin(self, observation):
        if self.idle:
            self.exhausted = True
        self.seen = [observation]
        self.queue: list[str] | None = None

    def act(self, observation, turn, solution):
        if self.idle or self.model is None:  # nothing learned (an agent that ignores ``exhausted``)
            return ""
        if turn > 0:
            self.seen.append(observation)
        if turn < len(self.plan):
            return self.plan[turn]
        if self.queue is None:
            self.queue = self.model.answers(_responses(self.seen[0], self.seen[1:len(self.plan) + 1]))
        if len(self.queue) <= 1:
            self.exhausted = True
        return self.queue.pop(0) if self.queue else ""


def _responses(obs0: str, observations: Sequence[str]) -> list[dict[str, tuple[str, ...]]]:
    """Each plan step's feedback in every :data:`_SOURCES` form."""
    out, previous = [], obs0
    for obs in observations:
        out.append({"p": new_part(previous, obs), "s": new_part(obs0, obs), "o": units(obs)})
        previous = obs
    return out


def _key(responses: list[dict[str, tuple[str, ...]]]) -> tuple:
    return tuple(r["s"] for r in responses)


def _words(part: Sequence[str]) -> list[str]:
    return [u for u in part if u[:1].isalnum()]


__all__ = ["OpponentModel", "ProbePlan", "learn_opponent"]
