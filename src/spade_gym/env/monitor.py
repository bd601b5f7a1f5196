"""Deployment monitors: the program contract, checked on every step the host already sees.

Validation probes a program on a finite set of seeds and inputs, so a program that
knows it is being validated (an answer on the screen only for seeds the validator is
unlikely to draw, or only after many resets; an out-of-range reward only outside
validation; a forged ``info["error"]``) can pass it. Wherever a registered program
runs — ``gym.make``, vector envs, eval, self-play — the host therefore keeps checking
what it sees anyway:

* **rewards**: within :data:`~spade_gym.contract.REWARD_RANGE` as the program sent them
  (the host clamps, and says it did through a host-only ``info`` mark);
* **the episode-end rule**: no step that leaves the episode running pays the win reward
  or more; a truncated step pays nothing positive; a lost episode (``terminated``
  without the win reward) ends with a reward of at least 0;
* **host keys**: the program's ``info`` never carries a key that reads as one the host
  writes (``error``, ``truncated_by``... in any case, spacing or ``program_`` prefix);
* **the task screen**: how often the first observation reveals the episode's solution
  (decoded in any spelling) must not rise significantly above the rate validation
  measured (the card's ``validation.screen_reveals``). A multiple-choice screen names
  its answer among the options on every seed, and validation saw that; a program that
  starts naming it on seeds validation did not draw is caught by the rise.

A violation ends the episode (``truncated=True``, ``info["error"]["kind"] ==
"contract"``) and reports the program to the env's ``on_violation`` callback, which the
registry uses to quarantine it. The step checks are a few comparisons; the screen check
runs once per reset.
"""

from __future__ import annotations

import functools
import math
import random
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from spade_gym.contract import REWARD_RANGE, WIN_REWARD
from spade_gym.sandbox.wire.replies import REWARD_CLAMPED_KEY

#: ``info["error"]["kind"]`` of an episode a monitor ended.
CONTRACT_ERROR_KIND = "contract"
#: Keys whose values the host's consumers act on: a program's own key that reads as one
#: of these is a forgery attempt (``turn`` and friends the host simply overwrites).
VERDICT_KEYS = ("error", "truncated_by", REWARD_CLAMPED_KEY, "quarantined")

#: Screen-reveal rule: at least this many revealing episodes before any verdict, and a
#: Chernoff bound on the chance of the observed count under validation's rate (taken at
#: the upper end of its confidence interval) below :data:`REVEAL_ALPHA`.
MIN_REVEALING_EPISODES = 3
REVEAL_ALPHA = 1e-6
_WILSON_Z = 3.29  # two-sided 99.9%


@dataclass(frozen=True)
class Violation:
    """A contract rule a running program broke, with what the host saw."""

    rule: str
    message: str

    def as_error(self, where: str) -> dict:
        return {"kind": CONTRACT_ERROR_KIND, "where": where, "rule": self.rule,
                "message": f"the program broke the contract ({self.rule}): {self.message}", "lineno": None}


@functools.lru_cache(maxsize=4096)
def _key_form(key: str) -> str:
    text = unicodedata.normalize("NFKC", str(key)).casefold()
    text = "".join(ch for ch in text if ch.isalnum())
    return text.removeprefix("program")


_VERDICT_FORMS = frozenset(_key_form(k) for k in VERDICT_KEYS)


def forged_key(info: dict) -> str | None:
    """The program ``info`` key that imitates a host verdict key, if any. (The host's own
    clamp mark is exempt: the decoder writes it, and renames a program's key of that name
    to ``program_reward_out_of_range``, which does count.)"""
    for key in info:
        if key != REWARD_CLAMPED_KEY and _key_form(key) in _VERDICT_FORMS:
            return str(key)
    return None


def wilson_upper(successes: int, trials: int, z: float = _WILSON_Z) -> float:
    """Upper end of the Wilson score interval (1.0 for no trials)."""
    if trials <= 0:
        return 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = p + z * z / (2 * trials)
    margin = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return min(1.0, (centre + margin) / denominator)


def upper_tail_bound(k: int, n: int, p: float) -> float:
    """Chernoff bound on P(Binomial(n, p) >= k): exp(-n KL(k/n || p)) for k/n > p."""
    if n <= 0 or k <= n * p:
        return 1.0
    if p <= 0.0:
        return 0.0
    q = k / n
    if q >= 1.0:
        return p ** n
    kl = q * math.log(q / p) + (1 - q) * math.log((1 - q) / (1 - p))
    return math.exp(-n * kl)


_BOXED = re.compile(r"\\boxed\{(.*)\}", re.DOTALL)


def screen_reveals(observation: str, solution: str) -> bool:
    """Does a first screen reveal the episode's solution, decoded in any spelling? The one
    measure both validation (the card's baseline) and the monitor use."""
    from spade_gym.decoding import reveals

    boxed = _BOXED.fullmatch(solution.strip())
    return reveals(observation, boxed.group(1) if boxed else solution)


class ScreenTally:
    """Per program (sha256), how many episodes' first screens revealed the solution, in
    this process. Shared by every env of the program, so a program cannot spread its
    leaks over many short-lived envs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, list[int]] = {}

    def add(self, program: str, revealed: bool) -> tuple[int, int]:
        with self._lock:
            counts = self._counts.setdefault(program, [0, 0])
            counts[0] += 1
            counts[1] += int(revealed)
            return counts[0], counts[1]

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()


SCREEN_TALLY = ScreenTally()


def screen_verdict(revealed: int, episodes: int, baseline: tuple[int, int]) -> str | None:
    """Why the deployment reveal count is incompatible with validation's, or None."""
    if revealed < MIN_REVEALING_EPISODES:
        return None
    base_revealed, base_episodes = baseline
    limit = wilson_upper(base_revealed, base_episodes)
    if limit >= 1.0 or upper_tail_bound(revealed, episodes, limit) >= REVEAL_ALPHA:
        return None
    return (f"the first screen revealed the solution in {revealed} of {episodes} episodes here, against "
            f"{base_revealed} of {base_episodes} during validation")


#: Share of resets whose screen is checked. Decoding a screen costs about a millisecond of
#: host CPU (more than the reset itself), so a random eighth of the episodes is counted; the
#: draw is the host's (a program cannot tell which resets are watched), and the statistic
#: only needs its count of watched episodes.
SCREEN_SAMPLE_RATE = 0.125


class ContractMonitor:
    """The checks for one env (one sub-env of a vector env)."""

    def __init__(self, program: str, *, screen_baseline: tuple[int, int] | None = None,
                 on_violation: Callable[[Violation], None] | None = None, tally: ScreenTally = SCREEN_TALLY,
                 screen_sample_rate: float = SCREEN_SAMPLE_RATE):
        self.program = program
        self.screen_baseline = screen_baseline
        self.on_violation = on_violation
        self.tally = tally
        self.screen_sample_rate = screen_sample_rate
        self.violation: Violation | None = None
        self._draw = random.SystemRandom().random

    @property
    def watches_screens(self) -> bool:
        """Does this reset need the solution (fetched privately by the env)? Drawn per reset."""
        return self.screen_baseline is not None and self._draw() < self.screen_sample_rate

    def _report(self, violation: Violation) -> Violation:
        self.violation = violation
        if self.on_violation is not None:
            self.on_violation(violation)
        return violation

    def check_reset(self, observation: str, info: dict, solution: str | None) -> Violation | None:
        key = forged_key(info)
        if key is not None:
            return self._report(Violation("host-key", f"reset() info carries the key {key!r}, which imitates a "
                                                      "key only spade-gym writes"))
        if self.screen_baseline is None or not solution:
            return None
        episodes, revealed = self.tally.add(self.program, screen_reveals(observation, solution))
        why = screen_verdict(revealed, episodes, self.screen_baseline)
        return None if why is None else self._report(Violation("screen-leak", why))

    def check_step(self, reward: float, terminated: bool, truncated: bool, info: dict) -> Violation | None:
        low, high = REWARD_RANGE
        if info:
            if REWARD_CLAMPED_KEY in info:
                raw = info.pop(REWARD_CLAMPED_KEY)
                return self._report(Violation("reward-range", f"step() returned reward {raw}; rewards lie in "
                                                              f"[{low:g}, {high:g}]"))
            key = forged_key(info)
            if key is not None:
                return self._report(Violation("host-key", f"step() info carries the key {key!r}, which imitates "
                                                          "a key only spade-gym writes"))
        if reward >= WIN_REWARD and not terminated:
            state = "truncated" if truncated else "still running"
            return self._report(Violation("win-reward-without-end", (
                f"step() paid {reward:g} with the episode {state}; the win reward ends the episode "
                "(terminated=True), and no other step pays that much")))
        if truncated and not terminated and reward > 0:
            return self._report(Violation("truncated-reward", f"a truncated step paid {reward:g}; a truncated "
                                                              "episode is not won and pays nothing positive"))
        if terminated and reward < 0:
            return self._report(Violation("lost-episode-penalty", (
                f"the episode ended with reward {reward:g}; a lost episode ends with reward 0 (only the win pays, "
                "and losing is not punished below 0)")))
        return None
