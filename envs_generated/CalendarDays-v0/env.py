"""Calendar days: from one known weekday, work out the weekdays of two other dates, possibly in other years,
with the Gregorian leap-year rule (every 4th year, but not centuries unless divisible by 400)."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
# difficulty -> (largest year distance, allow century years)
LEVELS = {"easy": (0, False), "medium": (3, False), "hard": (40, True)}


def leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def month_len(y, m):
    return [31, 29 if leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m]


def ordinal(y, m, d):
    """Days since 1 January of year 1 (proleptic Gregorian), computed by counting."""
    days = (y - 1) * 365 + (y - 1) // 4 - (y - 1) // 100 + (y - 1) // 400
    for k in range(m):
        days += month_len(y, k)
    return days + d - 1


class CalendarDaysEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.known = None
        self.asked = []
        self._answer = ""
        self.turn = 0
        self.done = False

    def _date(self, base_year, spread, century):
        rng = self.rng
        y = base_year + rng.randint(-spread, spread)
        m = rng.randrange(12)
        # favour the end of February and early March, where leap years bite
        if rng.random() < 0.3:
            m = rng.choice([1, 2])
        d = rng.randint(1, month_len(y, m))
        return (y, m, d)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        spread, century = LEVELS[self.difficulty]
        base = rng.choice([1900, 2000, 2100]) + rng.randint(-30, 30) if century else rng.randint(1950, 2090)
        for _ in range(100):
            self.known = self._date(base, 0, century)
            self.asked = [self._date(base, spread, century) for _ in range(2)]
            k = ordinal(*self.known)
            offsets = [ordinal(*a) - k for a in self.asked]
            # a leap day must lie between the known date and at least one asked date on medium and hard
            crosses = any(self._crosses_leap_day(self.known, a) for a in self.asked)
            if all(o != 0 for o in offsets) and (crosses or self.difficulty == "easy") and \
                    self.asked[0] != self.asked[1]:
                break
        kw = ordinal(*self.known) % 7
        self.known_day = DAYS[kw]
        self._answer = ", ".join(DAYS[ordinal(*a) % 7] for a in self.asked)
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _crosses_leap_day(self, a, b):
        lo, hi = sorted([ordinal(*a), ordinal(*b)])
        for y in range(min(a[0], b[0]), max(a[0], b[0]) + 1):
            if leap(y) and lo <= ordinal(y, 1, 29) <= hi:
                return True
        return False

    @staticmethod
    def _text(date):
        y, m, d = date
        return f"{d} {MONTHS[m]} {y}"

    def _task(self):
        a, b = self.asked
        return ("CALENDAR DAYS\n"
                f"{self._text(self.known)} was a {self.known_day}.\n"
                f"On which weekdays do {self._text(a)} and {self._text(b)} fall? Use the Gregorian calendar: a year "
                "divisible by 4 is a leap year (29 February), except years divisible by 100, which are leap years "
                "only when divisible by 400.\n"
                f"Answer both, in that order, e.g. \\boxed{{Monday, Friday}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        got = [p.strip().capitalize() for p in re.split(r"[,;]| and ", m.group(1)) if p.strip()] if m else []
        if ", ".join(got) == self._answer:
            self.done = True
            return "Correct: both weekdays are right. You win!", 1.0, True, False, {}
        msg = "No answer found." if not m else "Not both weekdays are right."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        a = self.asked[0]
        lo, hi = sorted([ordinal(*a), ordinal(*self.known)])
        leaps = sum(1 for y in range(min(a[0], self.known[0]), max(a[0], self.known[0]) + 1)
                    if leap(y) and lo <= ordinal(y, 1, 29) <= hi)
        return (f"Count days between the dates and reduce modulo 7: each whole year shifts the weekday by 1, plus 1 "
                f"for every 29 February crossed. Between the known date and the first asked date lie {leaps} such "
                "leap day(s).")
