"""Divisor questions: a secret whole number lies in a known range; you may only ask yes/no questions of a few
fixed kinds (is it divisible by k? does it end in digit d? is its digit sum even? is it a perfect square?),
never 'is it bigger than'. Pin the number down within the question budget, then name it."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (largest number, slack questions beyond what a careful asker needs)
LEVELS = {"easy": (30, 2), "medium": (60, 1), "hard": (100, 1)}


def digit_sum(n):
    return sum(int(c) for c in str(n))


class DivisorQuestionsEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.top, self.slack = LEVELS[self.difficulty]
        # the question budget is set per secret (see reset); the turn limit only has to cover the longest one
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns >= 12 else 12
        self.rng = random.Random()
        self.secret = 1
        self.pool = []
        self.asked = []  # (question text, answer bool)
        self.budget = 0
        self.turn = 0
        self.done = False
        self.last = ""

    def _questions(self):
        qs = [(f"divisible by {k}", ("div", k)) for k in range(2, 12)]
        qs += [(f"ends in {d}", ("end", d)) for d in range(10)]
        qs += [("digit sum even", ("dsum", 0)), ("perfect square", ("square", 0))]
        return qs

    @staticmethod
    def _truth(q, n):
        kind, k = q
        if kind == "div":
            return n % k == 0
        if kind == "end":
            return n % 10 == k
        if kind == "dsum":
            return digit_sum(n) % 2 == 0
        return int(n ** 0.5) ** 2 == n

    def _parse_question(self, text):
        t = text.lower()
        m = re.search(r"divisible by (\d{1,2})\b", t)
        if m and 2 <= int(m.group(1)) <= 11:
            return ("div", int(m.group(1)))
        m = re.search(r"ends? (?:in|with) (\d)\b", t)
        if m:
            return ("end", int(m.group(1)))
        if "digit sum" in t and "even" in t:
            return ("dsum", 0)
        if "square" in t:
            return ("square", 0)
        return None

    def _pool(self):
        """The numbers the allowed questions can tell apart from every other number in the range: only they
        are ever the secret, and the screen lists them."""
        sig = {}
        for n in range(1, self.top + 1):
            sig.setdefault(tuple(self._truth(q, n) for _, q in self._questions()), []).append(n)
        return sorted(group[0] for group in sig.values() if len(group) == 1)

    def _candidates(self):
        return [n for n in self.pool if all(self._truth(q, n) == a for _, q, a in self.asked)]

    def _best_question(self, cands):
        best, best_score = None, None
        for text, q in self._questions():
            yes = sum(1 for n in cands if self._truth(q, n))
            score = max(yes, len(cands) - yes)
            if best_score is None or score < best_score:
                best, best_score = (text, q), score
        return best

    def _plan_length(self, secret):
        """Questions the careful asker needs for this secret before only one number is left."""
        cands = list(self.pool)
        asked = 0
        while len(cands) > 1 and asked < 20:
            text, q = self._best_question(cands)
            a = self._truth(q, secret)
            cands = [n for n in cands if self._truth(q, n) == a]
            asked += 1
        return asked

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        if not self.pool:
            self.pool = self._pool()
        self.secret = self.rng.choice(self.pool)
        self.budget = min(self._plan_length(self.secret) + self.slack, self.max_turns - 1)
        self.asked = []
        self.turn = 0
        self.done = False
        self.last = "Ask your first question."
        return self._render(), {}

    def _render(self):
        lines = [f"DIVISOR QUESTIONS | questions left: {self.budget - len(self.asked)}",
                 "The secret number is one of: " + " ".join(map(str, self.pool)),
                 "Allowed questions (yes/no): 'divisible by K' (K from 2 to 11), 'ends in D' (a last digit), "
                 "'digit sum even', 'perfect square'. Nothing else, in particular no 'bigger than' questions.",
                 "Answers so far: " + ("; ".join(f"{t}? {'yes' if a else 'no'}" for t, _, a in self.asked)
                                       if self.asked else "none"),
                 f"Last: {self.last}",
                 "Send \\boxed{ask divisible by 3} (or another allowed question), or \\boxed{answer N} to name the "
                 "number - one answer only, it ends the game."]
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:5000])
        body = m.group(1).strip().lower() if m else ""
        am = re.fullmatch(r"(?:answer|guess)?\s*(\d{1,4})", body)
        if am:
            self.done = True
            if int(am.group(1)) == self.secret:
                self.last = f"Yes, the number is {self.secret}. You win!"
                return self._render(), 1.0, True, False, {}
            self.last = f"No, the number was {self.secret}. You lose."
            return self._render(), 0.0, True, False, {}
        q = self._parse_question(body) if body.startswith("ask") or body else None
        if q is None:
            self.last = "That is not an allowed question (turn lost)."
        elif len(self.asked) >= self.budget:
            self.last = "No questions left: give \\boxed{answer N}."
        else:
            text = next(t for t, qq in self._questions() if qq == q)
            a = self._truth(q, self.secret)
            self.asked.append((text, q, a))
            self.last = f"{text}? {'yes' if a else 'no'}."
        if self.turn >= self.max_turns:
            self.done = True
            self.last += " Out of turns: you lose."
            return self._render(), 0.0, True, False, {}
        return self._render(), 0.0, False, False, {}

    def solution(self):
        cands = self._candidates()
        if len(cands) <= 1 or len(self.asked) >= self.budget:
            return f"answer {cands[0] if cands else self.secret}"
        text, _ = self._best_question(cands)
        return f"ask {text}"

    def hint(self):
        return (f"You have {self.budget} questions for {len(self.pool)} numbers, so every question must split the numbers "
                "still possible roughly in half. Keep the list of candidates written down and pick the question "
                "whose yes-group and no-group are closest in size; asking for one last digit at a time wastes "
                "questions.")
