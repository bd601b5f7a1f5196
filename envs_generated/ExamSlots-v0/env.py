"""Exam slots: a school must timetable its exams so that no student sits two exams at once; the list says which
exams share students. Use as few time slots as possible and give the timetable itself (exam -> slot)."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
EXAMS = ["Algebra", "Biology", "Chemistry", "Drama", "Economics", "French", "Geography", "History", "Italian",
         "Japanese", "Latin", "Music", "Physics", "Spanish"]
# difficulty -> (exams, edge probability)
LEVELS = {"easy": (7, 0.35), "medium": (9, 0.4), "hard": (11, 0.42)}


class ExamSlotsEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.exams = []
        self.clash = set()
        self._k = 0
        self._colour = {}
        self.turn = 0
        self.done = False

    def _colourable(self, k):
        n = len(self.exams)
        order = sorted(range(n), key=lambda v: -sum(1 for e in self.clash if v in e))
        colour = {}

        def rec(pos):
            if pos == n:
                return True
            v = order[pos]
            used = set(colour[u] for u in colour if frozenset((u, v)) in self.clash)
            for c in range(1, k + 1):
                if c not in used:
                    colour[v] = c
                    if rec(pos + 1):
                        return True
                    del colour[v]
                if c > max(colour.values(), default=0) + 1:
                    break
            return False

        return dict(colour) if rec(0) else None

    def _greedy(self, order):
        colour = {}
        for v in order:
            used = set(colour[u] for u in colour if frozenset((u, v)) in self.clash)
            colour[v] = min(c for c in range(1, len(self.exams) + 2) if c not in used)
        return max(colour.values())

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, p = LEVELS[self.difficulty]
        for _ in range(200):
            self.exams = rng.sample(EXAMS, n)
            self.clash = set(frozenset((a, b)) for a in range(n) for b in range(a + 1, n) if rng.random() < p)
            k = 1
            while self._colourable(k) is None:
                k += 1
            # the listed order and the most-clashes-first order must both overshoot with the simple greedy
            by_degree = sorted(range(n), key=lambda v: -sum(1 for e in self.clash if v in e))
            if k >= 3 and self._greedy(range(n)) > k and self._greedy(by_degree) > k:
                break
            if k >= 3 and self.difficulty == "easy" and self._greedy(range(n)) > k:
                break
        self._k = k
        self._colour = self._colourable(k)
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        pairs = sorted((min(e), max(e)) for e in self.clash)
        shown = [f"{self.exams[a]}-{self.exams[b]}" for a, b in pairs]
        return ("EXAM SLOTS\n"
                f"Exams: {', '.join(self.exams)}.\n"
                f"These pairs share at least one student and must be in different slots: {', '.join(shown)}.\n"
                "Give a timetable that uses as few slots as possible, numbering slots from 1: EXAM:SLOT pairs "
                f"separated by commas, e.g. \\boxed{{{self.exams[0]}:1, {self.exams[1]}:2, ...}} (every exam once). "
                f"You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        names = {e.lower(): i for i, e in enumerate(self.exams)}
        slot = {}
        msg = None
        if m is None:
            msg = "No timetable found inside \\boxed{...}."
        else:
            for name, s in re.findall(r"([A-Za-z]+)\s*[:=]\s*(\d{1,3})", m.group(1)):
                if name.lower() not in names:
                    msg = f"There is no exam called {name[:20]}."
                    break
                slot[names[name.lower()]] = int(s)
            if msg is None:
                missing = [self.exams[i] for i in range(len(self.exams)) if i not in slot]
                bad = [(a, b) for a, b in (tuple(e) for e in self.clash) if slot.get(a) == slot.get(b)]
                if missing:
                    msg = f"Every exam needs a slot; missing: {', '.join(missing)}."
                elif bad:
                    a, b = bad[0]
                    msg = f"{self.exams[a]} and {self.exams[b]} share students but are both in slot {slot[a]}."
                elif len(set(slot.values())) == self._k:
                    self.done = True
                    return f"Correct: a clash-free timetable in {self._k} slots, the fewest possible. You win!", \
                        1.0, True, False, {}
                else:
                    msg = f"Your timetable is clash-free but uses {len(set(slot.values()))} slots; fewer are possible."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return ", ".join(f"{self.exams[i]}:{self._colour[i]}" for i in range(len(self.exams)))

    def hint(self):
        deg = [(sum(1 for e in self.clash if v in e), v) for v in range(len(self.exams))]
        top = max(deg)[1]
        return (f"Exams that all clash with each other need different slots, which gives a lower bound; look for "
                f"the largest such group. Filling slots exam by exam in list order wastes a slot here. Start from {self.exams[top]} (it clashes most) and backtrack when an exam has no free "
                "slot.")
