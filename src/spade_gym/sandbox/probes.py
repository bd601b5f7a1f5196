"""Probe policies: how the validator (and benchmarks) play a program *inside* its worker.

Running whole episodes next to the program costs one round-trip per batch instead
of one per step. The policies only see what an agent would see (the observation
text) plus, for the privileged ``oracle``, the program's ``solution()``.
They are plain functions of the observation and a seeded RNG, so a probe run is
reproducible from its seeds.
"""

from __future__ import annotations

import random
import re

BOX_OPEN = "\\boxed{"

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_BOXED_EXAMPLE = re.compile(r"\\boxed\{([^{}\n]{1,60})\}")

#: A small vocabulary for the random-words baseline: common answer words of text games.
WORDS = tuple(
    """
    yes no true false left right up down north south east west red green blue yellow black
    white one two three four five six seven eight nine ten first last a b c d e x y z alpha
    beta cat dog apple house tree river stone fire water key door box sword gold silver
    open close take drop go wait buy sell move push pull read write start stop help look
    hello world answer none all even odd more less same different guess secret code puzzle
    """.split()
)


def boxed(text: str) -> str:
    return BOX_OPEN + text + "}"


class Policy:
    """One agent strategy; ``act`` is called once per turn."""

    needs_solution = False

    def __init__(self, rng: random.Random):
        self.rng = rng

    def begin(self, observation: str) -> None:  # new episode
        pass

    def act(self, observation: str, turn: int, solution: str | None) -> str:
        raise NotImplementedError


class Oracle(Policy):
    """Answers ``\\boxed{<solution()>}``, re-reading the solution before every turn."""

    needs_solution = True

    def act(self, observation, turn, solution):
        return boxed(solution if solution is not None else "")


class FixedActions(Policy):
    """Plays a given list of actions, one per turn (cycling if the episode runs longer)."""

    def __init__(self, rng, actions):
        super().__init__(rng)
        self.actions = list(actions) or [""]

    def act(self, observation, turn, solution):
        return self.actions[turn % len(self.actions)]


class RandomNumbers(Policy):
    def __init__(self, rng, low=0, high=100):
        super().__init__(rng)
        self.low, self.high = int(low), int(high)

    def act(self, observation, turn, solution):
        return boxed(str(self.rng.randint(self.low, self.high)))


class RandomWords(Policy):
    def act(self, observation, turn, solution):
        return boxed(self.rng.choice(WORDS))


class Empty(Policy):
    def act(self, observation, turn, solution):
        return ""


def observation_candidates(observation: str) -> list[str]:
    """What a lazy agent could copy from the screen: boxed examples first, then tokens."""
    examples = [m.strip() for m in _BOXED_EXAMPLE.findall(observation)]
    examples = [e for e in examples if e and e.lower() not in ("answer", "your answer", "action", "...")]
    if examples:
        return examples
    tokens = _TOKEN.findall(observation[:20_000])
    return tokens or ["0"]


class CopyFromObservation(Policy):
    """Boxes a random candidate copied from the current observation each turn."""

    def act(self, observation, turn, solution):
        return boxed(self.rng.choice(observation_candidates(observation)))


class RepeatOne(Policy):
    """Picks one guess at the start and repeats it every turn."""

    def __init__(self, rng, value=None):
        super().__init__(rng)
        self.fixed = value
        self.guess = value

    def begin(self, observation):
        if self.fixed is None:
            self.guess = self.rng.choice(observation_candidates(observation))

    def act(self, observation, turn, solution):
        return boxed(str(self.guess))


_KINDS = {
    "oracle": Oracle,
    "actions": FixedActions,
    "random_numbers": RandomNumbers,
    "random_words": RandomWords,
    "empty": Empty,
    "copy": CopyFromObservation,
    "repeat": RepeatOne,
}

#: The baseline policies the non-triviality check runs, by name.
BASELINE_POLICIES = ("random_numbers", "random_words", "empty", "copy", "repeat")


def make_policy(spec: dict, episode_seed: int) -> Policy:
    """Build a policy from a JSON spec such as ``{"kind": "random_numbers", "high": 50}``."""
    spec = dict(spec)
    kind = spec.pop("kind", None)
    if kind not in _KINDS:
        raise ValueError(f"unknown probe policy {kind!r}; known: {', '.join(sorted(_KINDS))}")
    policy_seed = spec.pop("seed", 0)
    rng = random.Random(f"{kind}:{policy_seed}:{episode_seed}")
    return _KINDS[kind](rng, **spec)
