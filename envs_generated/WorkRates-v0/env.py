"""Work rates: pipes fill and drains empty a tank at steady rates, and they are switched on and off on a
schedule; say exactly when the tank is first full."""
import random
import re
from fractions import Fraction

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
PIPES = ["the north pipe", "the south pipe", "the rain gutter", "the spring feed", "the pump"]
# difficulty -> (inflows, drains, schedule phases)
LEVELS = {"easy": (2, 0, 2), "medium": (2, 1, 3), "hard": (3, 1, 4)}


class WorkRatesEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.sources = []  # (name, hours to fill alone, +1 fill / -1 drain)
        self.phases = []   # (hours or None for 'until full', set of open source indices)
        self._answer = Fraction(0)
        self.turn = 0
        self.done = False

    def _simulate(self):
        level = Fraction(0)
        time = Fraction(0)
        for hours, open_ in self.phases:
            rate = sum(Fraction(sign, h) for i, (_, h, sign) in enumerate(self.sources) if i in open_)
            if rate > 0 and level + rate * (hours if hours is not None else 10 ** 6) >= 1:
                return time + (1 - level) / rate
            if hours is None:
                return None
            level = max(Fraction(0), level + rate * hours)
            time += hours
        return None

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        ni, nd, nphase = LEVELS[self.difficulty]
        for _ in range(300):
            names = rng.sample(PIPES, ni + nd)
            self.sources = [(names[i], rng.choice([2, 3, 4, 5, 6, 8, 10, 12]), 1) for i in range(ni)]
            self.sources += [(names[ni + i], rng.choice([4, 6, 8, 9, 12, 15]), -1) for i in range(nd)]
            self.phases = []
            for p in range(nphase):
                open_ = set(i for i in range(ni + nd) if rng.random() < 0.6) or {0}
                hours = None if p == nphase - 1 else rng.choice([Fraction(1, 2), 1, Fraction(3, 2), 2])
                self.phases.append((hours, open_))
            t = self._simulate()
            # full only in the last phase, at a time that is not a whole number of hours
            spent = sum(h for h, _ in self.phases[:-1])
            if t is not None and t > spent and t.denominator > 1 and t.denominator <= 60:
                break
        self._answer = t
        self.turn = 0
        self.done = False
        return self._task(), {}

    @staticmethod
    def _hours(h):
        return f"{h.numerator}/{h.denominator}" if isinstance(h, Fraction) and h.denominator > 1 else f"{int(h)}"

    def _task(self):
        rates = []
        for name, h, sign in self.sources:
            verb = "fill the empty tank" if sign > 0 else "empty the full tank"
            rates.append(f"{name} alone would {verb} in {h} hours")
        steps = []
        for k, (hours, open_) in enumerate(self.phases):
            who = " and ".join(self.sources[i][0] for i in sorted(open_))
            when = f"for {self._hours(hours)} hour(s)" if hours is not None else "until the tank is full"
            steps.append(f"  {k + 1}. only {who} {'is' if len(open_) == 1 else 'are'} open, {when}")
        return ("WORK RATES\n"
                "A tank starts empty. " + ("; ".join(rates))[0].upper() + ("; ".join(rates))[1:] + ". Each works at a steady rate, and the level can "
                "never go below empty.\nSchedule:\n" + "\n".join(steps) + "\n"
                "How many hours after the start is the tank first full? Answer as a reduced fraction of hours, e.g. "
                f"\\boxed{{17/4}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        got = None
        if m:
            mm = re.fullmatch(r"\s*(\d{1,6})\s*(?:/\s*(\d{1,6}))?\s*(?:h|hours?)?\s*", m.group(1))
            if mm and (mm.group(2) is None or int(mm.group(2)) > 0):
                got = Fraction(int(mm.group(1)), int(mm.group(2) or 1))
        if got is not None and got == self._answer:
            self.done = True
            return "Correct: that is when the tank is first full. You win!", 1.0, True, False, {}
        msg = "Could not read a fraction like \\boxed{17/4}." if got is None else "That is not when the tank is full."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        a = self._answer
        return f"{a.numerator}/{a.denominator}"

    def hint(self):
        return ("Turn every pipe into a rate in tanks per hour (1/hours, negative for a drain), add the open ones for "
                "each step of the schedule, and keep a running level. The tank fills during the last step, not before "
                "it.")
