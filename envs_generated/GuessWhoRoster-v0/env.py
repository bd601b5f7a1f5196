"""Guess-Who deduction: one person in a roster of look-alikes is the secret target; ask a tight budget of
yes/no attribute questions (value lists and and/or allowed), eliminate candidates, then name the target."""

import random
import re

ATTRS = {
    "hair": ["black", "brown", "blond", "red", "grey", "white"],
    "eyes": ["blue", "brown", "green", "grey", "hazel"],
    "hat": ["none", "cap", "beret", "hood", "bowler"],
    "glasses": ["yes", "no"],
    "scarf": ["yes", "no"],
    "job": ["baker", "pilot", "nurse", "judge", "tailor", "miner"],
    "town": ["ashford", "brill", "corby", "dunmow", "elgin"],
}
NAMES = ("Abe Ada Alf Amy Ann Bea Ben Bo Cal Cy Dan Dee Dot Ed Eli Eve Fay Fin Gil Gus Hal Ida Ike Ivy Jan Jay "
         "Jo Kai Kit Lea Lev Liv Lou Mae Max Mia Ned Nia Noa Oli Ora Oz Pam Pat Pia Raj Rex Rio Ros Sal Sam Sid "
         "Sue Taj Ted Tia Uma Val Vic Wes Wyn Xia Yan Zoe").split()
# difficulty -> (fewest people, most people, spare questions beyond a perfect halving strategy)
LEVELS = {"easy": (10, 16, 1), "medium": (20, 32, 0), "hard": (40, 64, 0)}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
PART_RE = re.compile(r"(?:(\w+) (?:is|=|has) )?(not )?(\w+)")


def best_split(people, attrs, values):
    """Most even split of `people` by one attribute and a set of its values: (worst side, attr, value list)."""
    total = len(people)
    best = None
    for a in attrs:
        counts = {}
        for p in people:
            counts[p[a]] = counts.get(p[a], 0) + 1
        present = [v for v in values[a] if v in counts]
        if len(present) < 2:
            continue
        k = len(present)
        for mask in range(1, 1 << (k - 1)):  # the top value is always on the 'no' side: no mirrored duplicates
            chosen = [present[i] for i in range(k) if (mask >> i) & 1]
            yes = sum(counts[v] for v in chosen)
            score = (max(yes, total - yes), len(chosen))
            if best is None or score < best[0]:
                best = (score, a, chosen)
    return best


def split_people(people, attr, chosen):
    yes = [p for p in people if p[attr] in chosen]
    no = [p for p in people if p[attr] not in chosen]
    return yes, no


def greedy_depth(people, attrs, values):
    if len(people) <= 1:
        return 0
    best = best_split(people, attrs, values)
    if best is None:
        return 99
    yes, no = split_people(people, best[1], best[2])
    return 1 + max(greedy_depth(yes, attrs, values), greedy_depth(no, attrs, values))


class GuessWhoRosterEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.attrs = list(ATTRS)[:5]
        self.values = {a: list(ATTRS[a]) for a in self.attrs}
        self.people = []
        self.target = {}
        self.candidates = []
        self.budget = 1
        self.questions_left = 1
        self.log = []
        self.turn = 0
        self.done = False
        self.last = ""
        self.rng = random.Random()

    # ------------------------------------------------------------------ generation
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        lo, hi, spare = LEVELS[self.difficulty]
        m = rng.randint(lo, hi)
        while True:
            self.attrs = sorted(rng.sample(list(ATTRS), 5), key=list(ATTRS).index)
            self.values = {}
            size = 1
            for a in self.attrs:
                k = len(ATTRS[a]) if len(ATTRS[a]) == 2 else rng.randint(3, len(ATTRS[a]))
                self.values[a] = sorted(rng.sample(ATTRS[a], k), key=ATTRS[a].index)
                size *= k
            if size >= 3 * m:
                break
        profiles = set()
        while len(profiles) < m:
            profiles.add(tuple(rng.choice(self.values[a]) for a in self.attrs))
        profiles = sorted(profiles)
        rng.shuffle(profiles)
        names = sorted(rng.sample(NAMES, m))
        self.people = []
        for name, prof in zip(names, profiles):
            person = {"name": name}
            for a, v in zip(self.attrs, prof):
                person[a] = v
            self.people.append(person)
        self.target = rng.choice(self.people)
        self.candidates = list(self.people)
        self.budget = greedy_depth(self.people, self.attrs, self.values) + spare
        self.questions_left = self.budget
        self.log = []
        self.turn = 0
        self.done = False
        self.last = "No questions asked yet."
        return self.render(), {}

    # ------------------------------------------------------------------ text
    def render(self):
        widths = {a: max(len(a), max(len(v) for v in self.values[a])) for a in self.attrs}
        header = "  " + "name".ljust(5) + " | " + " | ".join(a.ljust(widths[a]) for a in self.attrs)
        lines = [
            f"Turn {self.turn}/{self.max_turns} | Questions left: {self.questions_left}/{self.budget} | "
            f"People: {len(self.people)}",
            "One person in this roster is the secret target. Ask yes/no questions about the target's attributes "
            "(answers are always truthful), then name the target. A wrong guess ends the game.",
            "",
            header,
            "  " + "-" * (len(header) - 2),
        ]
        for p in self.people:
            lines.append("  " + p["name"].ljust(5) + " | " + " | ".join(p[a].ljust(widths[a]) for a in self.attrs))
        lines += ["", "Your questions so far:"]
        if not self.log:
            lines.append("  (none)")
        for i, entry in enumerate(self.log):
            lines.append(f"  Q{i + 1}. {entry}")
        lines += [
            "",
            "Last: " + self.last,
            "",
            "Commands (one per turn):",
            "  \\boxed{ask ATTRIBUTE is VALUE}  - ATTRIBUTE is one of: " + ", ".join(self.attrs) + "; list several "
            "values with 'or' (" + self.example() + "), negate with 'is not', and join conditions on different "
            "attributes with all 'and' or all 'or'; costs one question",
            "  \\boxed{guess NAME}  - final answer",
        ]
        return "\n".join(lines)

    def example(self):
        """A sample question for the help text that is never the recommended first question."""
        attr = max(self.attrs, key=lambda a: len(self.values[a]))
        vals = self.values[attr]
        best = best_split(self.people, self.attrs, self.values)
        first = (best[1], sorted(best[2])) if best is not None else None
        pair = [vals[-2], vals[-1]]
        if first == (attr, sorted(pair)) or first == (attr, [vals[-1]]) or first == (attr, [vals[-2]]):
            pair = [vals[0], vals[-1]]
        return "ask " + attr + " is " + " or ".join(pair)

    # ------------------------------------------------------------------ play
    def finish(self, text, reward, terminated):
        self.last = text
        out_of_turns = (not terminated) and self.turn >= self.max_turns
        if out_of_turns:
            self.last = text + " You are out of turns; the game is over."
        if terminated or out_of_turns:
            self.done = True
        return self.render(), reward, terminated or out_of_turns, False, {}  # out of attempts is a loss, not a cut-off

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        match = BOX_RE.search(text[:20000])
        if match is None:
            return self.finish("Format error: put one command inside \\boxed{...}, e.g. \\boxed{ask hair is red}.",
                               0.0, False)
        cmd = " ".join(match.group(1).lower().replace("?", " ").split()).strip(" .")
        if cmd.startswith("guess "):
            return self.guess(cmd[6:].strip())
        if cmd.startswith("ask "):
            return self.ask(cmd[4:].strip())
        return self.finish("Unknown command '" + cmd[:40] + "'. Use 'ask <attribute> is <value>' or "
                           "'guess <name>'.", 0.0, False)

    def parse_question(self, text):
        """-> (list of (attr, negated, value), connective) or an error string."""
        has_and = " and " in text
        has_or = " or " in text
        if has_and and has_or:
            return "use either 'and' or 'or' within one question, not both"
        joiner = "and" if has_and else "or"
        parts = [p.strip() for p in text.split(" " + joiner + " ")]
        conds = []
        current = None
        for part in parts:
            m = PART_RE.fullmatch(part)
            if m is None:
                return f"could not read '{part[:30]}'; write conditions like 'hair is red'"
            attr, neg, value = m.group(1), m.group(2) is not None, m.group(3)
            if attr is None:
                attr = current
            if attr is None:
                return f"'{part[:30]}' names no attribute; start with e.g. 'hair is'"
            if attr not in self.values:
                return f"unknown attribute '{attr[:20]}'; attributes: " + ", ".join(self.attrs)
            if value not in self.values[attr]:
                return f"'{value[:20]}' is not a value of {attr}; values: " + ", ".join(self.values[attr])
            current = attr
            conds.append((attr, neg, value))
        return conds, joiner

    @staticmethod
    def holds(person, conds, joiner):
        results = [(person[a] == v) != neg for a, neg, v in conds]
        return all(results) if joiner == "and" else any(results)

    def ask(self, text):
        if self.questions_left <= 0:
            return self.finish("You have no questions left: make your guess with 'guess <name>'.", 0.0, False)
        parsed = self.parse_question(text)
        if isinstance(parsed, str):
            return self.finish("Question not asked: " + parsed + ".", 0.0, False)
        conds, joiner = parsed
        answer = self.holds(self.target, conds, joiner)
        self.candidates = [p for p in self.candidates if self.holds(p, conds, joiner) == answer]
        self.questions_left -= 1
        shown = (" " + joiner + " ").join(a + (" is not " if neg else " is ") + v for a, neg, v in conds)
        entry = f"{shown}? -> {'YES' if answer else 'NO'}"
        self.log.append(entry)
        return self.finish("Answer: " + entry, 0.0, False)

    def guess(self, name):
        for p in self.people:
            if p["name"].lower() == name:
                if p is self.target:
                    return self.finish(f"Correct! The target is {p['name']}. You win.", 1.0, True)
                return self.finish(f"Wrong: {p['name']} is not the target. The game is over.", 0.0, True)
        return self.finish(f"Nobody called '{name[:20]}' is in the roster. Nothing happened.", 0.0, False)

    # ------------------------------------------------------------------ oracle and hint
    def solution(self):
        if len(self.candidates) == 1 or self.questions_left <= 0 or not self.candidates:
            pick = self.candidates[0] if self.candidates else self.target
            return "guess " + pick["name"]
        best = best_split(self.candidates, self.attrs, self.values)
        if best is None:
            return "guess " + self.candidates[0]["name"]
        return "ask " + best[1] + " is " + " or ".join(best[2])

    def hint(self):
        m = len(self.people)
        best = best_split(self.people, self.attrs, self.values)
        text = (f"{m} people and {self.budget} questions: since 2^{self.budget} = {2 ** self.budget}, almost every "
                "answer has to cut the remaining candidates in half, so never ask about a single rare value. "
                "Group values with 'or' (" + self.example() + ") to build an even split, and after every "
                "answer cross out everyone who disagrees and recount the values among the survivors only.")
        if best is not None:
            text += (f" For the first question, {best[1]} can split the roster into {m - best[0][0]} and "
                     f"{best[0][0]} people.")
        return text
