"""Height ranking from pairwise comparisons: a shuffled list of 'X is taller than Y' facts (some redundant)
fixes only some places in the line-up; work out who holds the two places asked about."""

import random
import re

NAMES = ["Anya", "Basil", "Carmen", "Dario", "Edda", "Felix", "Gwen", "Hector", "Ines", "Jonas", "Kira", "Luca",
         "Maren", "Nils"]
# difficulty -> (people, extra random comparisons, fewest people whose place stays open)
LEVELS = {"easy": (6, 1, 2), "medium": (8, 2, 3), "hard": (10, 3, 4)}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


def ordinal(k):
    if 10 <= k % 100 <= 20:
        return f"{k}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return str(k) + suffix


def closure(n, edges):
    """below[u] = set of people provably shorter than u."""
    below = [set() for _ in range(n)]
    for u, v in edges:
        below[u].add(v)
    changed = True
    while changed:
        changed = False
        for u in range(n):
            extra = set()
            for v in below[u]:
                extra |= below[v]
            if not extra <= below[u]:
                below[u] |= extra
                changed = True
    return below


class TallerThanRankEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n = LEVELS[self.difficulty][0]
        self.names = NAMES[:self.n]
        self.order = list(range(self.n))  # order[r] = person at rank r (0 = tallest)
        self.facts = []
        self.targets = (0, 1)
        self.fixed = []
        self.turn = 0
        self.done = False
        self.rng = random.Random()

    # ------------------------------------------------------------------ generation
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, extra, open_min = LEVELS[self.difficulty]
        self.n = n
        while True:
            self.names = rng.sample(NAMES, n)
            self.order = list(range(n))
            rng.shuffle(self.order)
            interior = list(range(1, n - 1))
            t1 = rng.choice(interior)
            t2 = rng.choice([r for r in range(n) if abs(r - t1) >= 2])
            self.targets = (t1, t2) if rng.random() < 0.5 else (t2, t1)
            edges = set()
            for t in self.targets:
                for r in range(t - 1, -1, -1):
                    edges.add((self.order[r], self.order[rng.randint(r + 1, t)]))
                for r in range(t + 1, n):
                    edges.add((self.order[rng.randint(t, r - 1)], self.order[r]))
            for _ in range(extra):
                a, b = sorted(rng.sample(range(n), 2))
                edges.add((self.order[a], self.order[b]))
            below = closure(n, edges)
            above = [set() for _ in range(n)]
            for u in range(n):
                for v in below[u]:
                    above[v].add(u)
            fixed = [p for p in range(n) if len(above[p]) + len(below[p]) == n - 1]
            if n - len(fixed) < open_min:
                continue
            direct = [p for p in fixed if sum(1 for u, v in edges if p in (u, v)) == n - 1]
            if any(self.order[t] in direct for t in self.targets):
                continue  # a target compared directly with everyone would be a lookup
            break
        self.fixed = fixed
        facts = []
        for u, v in sorted(edges):
            if rng.random() < 0.5:
                facts.append(self.names[u] + " is taller than " + self.names[v] + ".")
            else:
                facts.append(self.names[v] + " is shorter than " + self.names[u] + ".")
        rng.shuffle(facts)
        self.facts = facts
        self.turn = 0
        self.done = False
        return self.render(""), {}

    # ------------------------------------------------------------------ text
    def render(self, feedback):
        n = self.n
        k1, k2 = self.targets[0] + 1, self.targets[1] + 1
        lines = [
            f"Attempt {self.turn}/{self.max_turns}",
            f"{n} people of different heights: " + ", ".join(sorted(self.names)) + ".",
            "Everything that is known about their heights:",
        ]
        for i, fact in enumerate(self.facts):
            lines.append(f"  {i + 1}. {fact}")
        lines += [
            "",
            "Rank 1 is the tallest person. These facts do not fix everyone's rank, but they do fix the two "
            "ranks asked about.",
            f"Question: who is the {ordinal(k1)} tallest, and who is the {ordinal(k2)} tallest?",
            f"Answer with two names in that order, e.g. \\boxed{{{ordinal(k1)} name, {ordinal(k2)} name}}. "
            f"You have {self.max_turns} attempts.",
        ]
        if feedback:
            lines += ["", feedback]
        return "\n".join(lines)

    # ------------------------------------------------------------------ play
    def finish(self, feedback, reward, terminated):
        out_of_turns = (not terminated) and self.turn >= self.max_turns
        if out_of_turns:
            feedback += " No attempts left; the game is over."
        if terminated or out_of_turns:
            self.done = True
        return self.render(feedback), reward, terminated or out_of_turns, False, {}  # out of attempts is a loss, not a cut-off

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        match = BOX_RE.search(text[:20000])
        if match is None:
            return self.finish("Format error: put the two names inside \\boxed{...}, separated by a comma.",
                               0.0, False)
        words = [w for w in re.split(r"[\s,;/]+", match.group(1).lower()) if w and w != "and"]
        lookup = {nm.lower(): i for i, nm in enumerate(self.names)}
        unknown = [w for w in words if w not in lookup]
        if unknown:
            return self.finish(f"'{unknown[0][:30]}' is not one of the people; the names are: "
                               + ", ".join(sorted(self.names)) + ".", 0.0, False)
        if len(words) != 2:
            return self.finish(f"Give exactly two names (you gave {len(words)}).", 0.0, False)
        notes = []
        right = 0
        for which, word, t in (("first", words[0], self.targets[0]), ("second", words[1], self.targets[1])):
            person = lookup[word]
            rank = self.order.index(person)
            if rank == t:
                right += 1
                notes.append(f"your {which} name is right")
            else:
                side = "taller" if rank < t else "shorter"
                notes.append(f"your {which} name is wrong: {self.names[person]} is {side} than the "
                             f"{ordinal(t + 1)} tallest")
        if right == 2:
            return self.finish("Correct! Both places are right. You win.", 1.0, True)
        return self.finish("Not quite: " + "; ".join(notes) + ".", 0.0, False)

    # ------------------------------------------------------------------ oracle and hint
    def solution(self):
        return self.names[self.order[self.targets[0]]] + ", " + self.names[self.order[self.targets[1]]]

    def hint(self):
        n = self.n
        targets = {self.order[t] for t in self.targets}
        others = [p for p in self.fixed if p not in targets]
        text = ("Chain the facts: 'A taller than B' and 'B taller than C' give 'A taller than C'; turn every "
                "'shorter than' into the matching 'taller than' first. Someone is k-th tallest exactly when k-1 "
                "people are provably taller and all the others provably shorter; a person with even one "
                f"incomparable rival has no fixed rank. Here only {len(self.fixed)} of the {n} people have a "
                "fixed rank.")
        if others:
            p = others[0]
            text += (f" For practice, check that {self.names[p]} is provably the "
                     f"{ordinal(self.order.index(p) + 1)} tallest, then count the same way for the others.")
        return text
