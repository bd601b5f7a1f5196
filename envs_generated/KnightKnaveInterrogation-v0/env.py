"""Knights and knaves interrogation: from overheard statements and a few yes/no questions put to the
islanders about each other (knights always tell the truth, knaves always lie), name exactly the knaves."""

import random
import re

NAMES = ["Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gus", "Hana", "Ivo", "Juno", "Kai", "Lena", "Milo", "Nia"]
# difficulty -> (inhabitants, fewest and most assignments the overheard statements may leave open)
LEVELS = {"easy": (6, 6, 12), "medium": (8, 12, 24), "hard": (10, 24, 48)}
# spare questions on top of what a perfect splitter needs
SPARE = {"easy": 1, "medium": 1, "hard": 0}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


def popcount(x):
    return bin(x).count("1")


def is_knave(mask, p):
    return (mask >> p) & 1 == 1


def statement_true(st, mask, n):
    kind, x, y, m = st
    if kind == "knave":
        return is_knave(mask, x)
    if kind == "knight":
        return not is_knave(mask, x)
    if kind == "same":
        return is_knave(mask, x) == is_knave(mask, y)
    if kind == "diff":
        return is_knave(mask, x) != is_knave(mask, y)
    if kind == "one_knave":
        return is_knave(mask, x) or is_knave(mask, y)
    if kind == "both_knights":
        return not is_knave(mask, x) and not is_knave(mask, y)
    if kind == "exactly":
        return popcount(mask) == m
    if kind == "at_least":
        return popcount(mask) >= m
    return popcount(mask) <= m  # at_most


def consistent(speaker, st, mask, n):
    """A knight's statement is true and a knave's is false."""
    return statement_true(st, mask, n) != is_knave(mask, speaker)


def best_pair(hyps, n):
    """The question 'ask a about b' whose two replies split hyps most evenly (None if no pair splits)."""
    cols = [0] * n
    for i, h in enumerate(hyps):
        for p in range(n):
            if (h >> p) & 1:
                cols[p] |= 1 << i
    total = len(hyps)
    best, best_score = None, total
    for a in range(n):
        for b in range(a + 1, n):
            k = popcount(cols[a] ^ cols[b])
            if 0 < k < total:
                score = max(k, total - k)
                if score < best_score:
                    best, best_score = (a, b), score
    return best


def split_same(hyps, a, b):
    same = [h for h in hyps if ((h >> a) & 1) == ((h >> b) & 1)]
    diff = [h for h in hyps if ((h >> a) & 1) != ((h >> b) & 1)]
    return same, diff


def greedy_depth(hyps, n):
    if len(hyps) <= 1:
        return 0
    pair = best_pair(hyps, n)
    if pair is None:
        return 99
    same, diff = split_same(hyps, pair[0], pair[1])
    return 1 + max(greedy_depth(same, n), greedy_depth(diff, n))


class KnightKnaveInterrogationEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n = LEVELS[self.difficulty][0]
        self.names = NAMES[:self.n]
        self.truth = 1
        self.statements = []
        self.hyps = []
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
        n, lo, hi = LEVELS[self.difficulty]
        self.n = n
        while not self.generate(n, lo, hi):
            pass
        self.budget = greedy_depth(self.hyps, n) + SPARE[self.difficulty]
        self.questions_left = self.budget
        self.log = []
        self.turn = 0
        self.done = False
        self.last = "You have not asked anything yet."
        return self.render(), {}

    def random_statement(self, n):
        rng = self.rng
        kind = rng.choice(["knave", "knight", "same", "diff", "diff", "one_knave", "both_knights", "exactly",
                           "at_least", "at_most"])
        people = list(range(n))
        rng.shuffle(people)
        x, y = people[0], people[1]
        m = rng.randint(1, n - 1)
        st = (kind, x, y, m)
        truth = statement_true(st, self.truth, n)
        speakers = [p for p in people[2:] + ([x] if kind in ("exactly", "at_least", "at_most") else [])
                    if is_knave(self.truth, p) != truth]
        if not speakers:
            return None
        return rng.choice(speakers), st

    def generate(self, n, lo, hi):
        rng = self.rng
        self.names = sorted(rng.sample(NAMES, n), key=NAMES.index)
        while True:
            self.truth = rng.randrange(1, (1 << n) - 1)  # at least one knight and one knave
            if n // 3 <= popcount(self.truth) <= n - n // 3:
                break
        hyps = list(range(1 << n))
        statements = []
        for _ in range(300):
            item = self.random_statement(n)
            if item is None:
                continue
            speaker, st = item
            if any(s == speaker for s, _ in statements):
                continue  # everyone speaks at most once
            kept = [h for h in hyps if consistent(speaker, st, h, n)]
            if len(kept) == len(hyps) or len(kept) < lo:
                continue
            hyps = kept
            statements.append((speaker, st))
            complement_free = all(((1 << n) - 1) ^ h not in hyps for h in hyps)
            if len(hyps) <= hi and complement_free:
                self.statements = statements
                self.hyps = hyps
                return True
            if len(statements) >= n:
                return False
        return False

    # ------------------------------------------------------------------ text
    def say(self, speaker, st):
        kind, x, y, m = st
        nm = self.names
        if kind == "knave":
            text = nm[x] + " is a knave."
        elif kind == "knight":
            text = nm[x] + " is a knight."
        elif kind == "same":
            text = nm[x] + " and " + nm[y] + " are the same kind."
        elif kind == "diff":
            text = nm[x] + " and " + nm[y] + " are different kinds."
        elif kind == "one_knave":
            text = "At least one of " + nm[x] + " and " + nm[y] + " is a knave."
        elif kind == "both_knights":
            text = nm[x] + " and " + nm[y] + " are both knights."
        elif kind == "exactly":
            text = f"Exactly {m} of the {self.n} of us {'is a knave' if m == 1 else 'are knaves'}."
        elif kind == "at_least":
            text = f"At least {m} of the {self.n} of us {'is a knave' if m == 1 else 'are knaves'}."
        else:
            text = f"At most {m} of the {self.n} of us {'is a knave' if m == 1 else 'are knaves'}."
        return nm[speaker] + ' says: "' + text + '"'

    def render(self):
        lines = [
            f"Turn {self.turn}/{self.max_turns} | Questions left: {self.questions_left}/{self.budget}",
            "Every inhabitant of this island is either a knight, who always tells the truth, or a knave, who "
            "always lies.",
            f"You meet {self.n} inhabitants: " + ", ".join(self.names) + ".",
            "Before they noticed you, you overheard:",
        ]
        for i, (speaker, st) in enumerate(self.statements):
            lines.append(f"  {i + 1}. " + self.say(speaker, st))
        lines.append("Your questions so far:")
        if not self.log:
            lines.append("  (none)")
        for i, entry in enumerate(self.log):
            lines.append(f"  Q{i + 1}. " + entry)
        lines += [
            "",
            "Last: " + self.last,
            "",
            "Commands (one per turn; names as listed above):",
            "  \\boxed{ask X about Y}  - X tells you whether Y is a knight (reply: 'Y is a knight' or 'Y is a "
            "knave'); costs one question",
            "  \\boxed{ask X if Y and Z are the same kind}  - X answers yes or no; costs one question",
            "  \\boxed{knaves X, Y, ...}  - final answer: name exactly the knaves (\\boxed{knaves none} if there "
            "are none). A wrong final answer ends the game.",
        ]
        return "\n".join(lines)

    # ------------------------------------------------------------------ play
    def find(self, word):
        word = word.strip().lower()
        for i, nm in enumerate(self.names):
            if nm.lower() == word:
                return i
        return -1

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
            return self.finish("Format error: put one command inside \\boxed{...}, e.g. \\boxed{ask X about Y} with "
                               "real names.", 0.0, False)
        cmd = " ".join(match.group(1).replace("?", " ").replace(",", " , ").split()).lower().strip(" .")
        if cmd.startswith("knaves") or cmd.startswith("knave "):
            return self.submit(cmd.split(" ", 1)[1] if " " in cmd else "")
        if cmd.startswith("ask "):
            return self.ask(cmd[4:])
        return self.finish("Unknown command '" + cmd[:40] + "'. Use 'ask X about Y', 'ask X if Y and Z are the "
                           "same kind' or 'knaves X, Y, ...'.", 0.0, False)

    def ask(self, rest):
        if self.questions_left <= 0:
            return self.finish("You have no questions left: submit your answer with 'knaves ...'.", 0.0, False)
        m3 = re.fullmatch(r"(\w+) (?:if|whether) (\w+) and (\w+) are (?:the )?same(?: kind)?", rest)
        m2 = re.fullmatch(r"(\w+) about (\w+)", rest)
        if m3 is None and m2 is None:
            return self.finish("Could not read the question. Use 'ask X about Y' or 'ask X if Y and Z are the same "
                               "kind'.", 0.0, False)
        groups = m3.groups() if m3 is not None else m2.groups()
        ids = [self.find(g) for g in groups]
        if min(ids) < 0:
            bad = groups[ids.index(-1)]
            return self.finish(f"There is nobody called '{bad[:20]}' here. Inhabitants: " + ", ".join(self.names)
                               + ".", 0.0, False)
        asker = ids[0]
        liar = is_knave(self.truth, asker)
        nm = self.names
        if m3 is None:
            target = ids[1]
            fact = not is_knave(self.truth, target)
            reply = fact != liar
            if asker == target:
                said = '"I am a knight."'
            else:
                said = '"' + nm[target] + (' is a knight."' if reply else ' is a knave."')
            self.hyps = [h for h in self.hyps if ((not is_knave(h, target)) != is_knave(h, asker)) == reply]
            entry = f"you asked {nm[asker]} about {nm[target]}. {nm[asker]}: {said}"
        else:
            y, z = ids[1], ids[2]
            fact = is_knave(self.truth, y) == is_knave(self.truth, z)
            reply = fact != liar
            said = '"Yes."' if reply else '"No."'
            self.hyps = [h for h in self.hyps if ((is_knave(h, y) == is_knave(h, z)) != is_knave(h, asker)) == reply]
            entry = f"you asked {nm[asker]} whether {nm[y]} and {nm[z]} are the same kind. {nm[asker]}: {said}"
        self.questions_left -= 1
        self.log.append(entry)
        return self.finish(entry[0].upper() + entry[1:], 0.0, False)

    def submit(self, rest):
        words = [w for w in re.split(r"[\s,;]+", rest) if w and w not in ("and", "are", "is", ":")]
        if words == ["none"]:
            chosen = set()
        else:
            chosen = set()
            for w in words:
                i = self.find(w)
                if i < 0:
                    return self.finish(f"There is nobody called '{w[:20]}' here. Inhabitants: "
                                       + ", ".join(self.names) + ".", 0.0, False)
                chosen.add(i)
        actual = {p for p in range(self.n) if is_knave(self.truth, p)}
        if chosen == actual:
            return self.finish("Correct! You identified exactly the knaves. You win.", 1.0, True)
        wrong = len(chosen ^ actual)
        return self.finish(f"Wrong: you misjudged {wrong} of the {self.n} inhabitants. The game is over.", 0.0, True)

    # ------------------------------------------------------------------ oracle and hint
    def answer_text(self, mask):
        knaves = [self.names[p] for p in range(self.n) if is_knave(mask, p)]
        return "knaves " + (", ".join(knaves) if knaves else "none")

    def solution(self):
        if len(self.hyps) == 1 or self.questions_left <= 0 or not self.hyps:
            return self.answer_text(self.hyps[0] if self.hyps else self.truth)
        pair = best_pair(self.hyps, self.n)
        if pair is None:
            return self.answer_text(self.hyps[0])
        return f"ask {self.names[pair[0]]} about {self.names[pair[1]]}"

    def hint(self):
        n, hyps, nm = self.n, self.hyps, self.names
        facts = []
        for p in range(n):
            kinds = {is_knave(h, p) for h in hyps}
            if len(kinds) == 1:
                facts.append(nm[p] + (" is a knave" if kinds.pop() else " is a knight"))
        for a in range(n):
            for b in range(a + 1, n):
                rel = {is_knave(h, a) == is_knave(h, b) for h in hyps}
                if len(rel) == 1 and len(facts) < 6:
                    facts.append(nm[a] + " and " + nm[b] + (" are the same kind" if rel.pop() else
                                                            " are different kinds"))
        random.Random(self.truth * 7919 + len(hyps)).shuffle(facts)
        text = ("Whatever X is, a reply 'Y is a knight' from X means X and Y are the same kind, and 'Y is a "
                "knave' means they differ, so every answer links two people. Likewise, to 'are Y and Z the same "
                "kind?' a yes from a knight or a no from a knave means they are. Read every overheard statement as "
                "a condition: the speaker is a knight exactly when the claim is true. ")
        text += (f"The overheard statements leave exactly {len(hyps)} possible assignments and you have "
                 f"{self.budget} questions, so each question must split the remaining cases roughly in half.")
        if facts:
            text += " Already forced by what you know: " + "; ".join(facts[:2]) + "."
        return text
