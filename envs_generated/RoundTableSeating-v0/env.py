"""Round-table seating: people sit evenly around a circular table; from clues about neighbours, opposite
seats, distances and clockwise order (one arrangement up to rotation), say who sits where relative to whom."""

import random
import re

NAMES = ["Arlo", "Bette", "Cyrus", "Delia", "Emil", "Flora", "Gideon", "Hazel", "Iris", "Jasper", "Kenji", "Lotte",
         "Magnus", "Nadia"]
# difficulty -> number of people (even, so that every seat has an opposite one)
LEVELS = {"easy": 6, "medium": 8, "hard": 10}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


def holds(clue, seat, n):
    """rel = how many seats clockwise (to the left) one must go from the first person to reach the second."""
    kind, a, b, c = clue
    rel = (seat[b] - seat[a]) % n
    if kind == "left1":
        return rel == 1
    if kind == "right1":
        return rel == n - 1
    if kind == "left2":
        return rel == 2
    if kind == "next":
        return rel in (1, n - 1)
    if kind == "notnext":
        return rel not in (1, n - 1)
    if kind == "opp":
        return rel == n // 2
    if kind == "notopp":
        return rel != n // 2
    if kind == "between":
        return min(rel, n - rel) - 1 == c
    return rel < (seat[c] - seat[a]) % n  # "before": clockwise from a, b comes before c


def people_of(clue):
    kind, a, b, c = clue
    return (a, b, c) if kind == "before" else (a, b)


def rel_mask(kind, c, n):
    """Bitmask over rel = 0..n-1 (clockwise steps from the first person to the second) allowed by a 2-person clue."""
    mask = 0
    for rel in range(1, n):
        if holds((kind, 0, 1, c), [0, rel], n):
            mask |= 1 << rel
    return mask


def count_arrangements(n, clues, limit=2):
    return len(arrangements(n, clues, limit))


def arrangements(n, clues, limit=2):
    """Exhaustive search with person 0 fixed in seat 0 (rotations are the same arrangement); each person only
    tries the free seats that every clue linking them to already seated people allows. Returns up to `limit`
    seatings (lists seat[p])."""
    full = (1 << n) - 1
    links = [set() for _ in range(n)]
    for clue in clues:
        ps = people_of(clue)
        for p in ps:
            links[p].update(ps)
    order = [0]
    rest = set(range(1, n))
    while rest:
        placed = set(order)
        nxt = max(sorted(rest), key=lambda p: len(links[p] & placed))
        order.append(nxt)
        rest.discard(nxt)
    position = {p: i for i, p in enumerate(order)}
    pair_rules = [[] for _ in range(n)]   # per step: (other person, allowed offsets from the other's seat)
    triple_rules = [[] for _ in range(n)]  # per step: 'before' clues completed at that step
    for clue in clues:
        kind, a, b, c = clue
        if kind == "before":
            last = max(position[a], position[b], position[c])
            triple_rules[last].append((a, b, c))
            continue
        mask = rel_mask(kind, c, n)
        reverse = 0
        for rel in range(n):
            if (mask >> rel) & 1:
                reverse |= 1 << ((n - rel) % n)
        if position[a] < position[b]:
            pair_rules[position[b]].append((a, mask))
        else:
            pair_rules[position[a]].append((b, reverse))
    seat = [-1] * n
    seat[0] = 0
    found = []

    def place(i, free):
        if i == n:
            found.append(list(seat))
            return
        allowed = free
        for other, mask in pair_rules[i]:
            k = seat[other]
            allowed &= ((mask << k) | (mask >> (n - k))) & full
            if not allowed:
                return
        p = order[i]
        while allowed:
            bit = allowed & -allowed
            allowed ^= bit
            seat[p] = bit.bit_length() - 1
            ok = True
            for a, b, c in triple_rules[i]:
                sa = seat[a]
                if (seat[b] - sa) % n >= (seat[c] - sa) % n:
                    ok = False
                    break
            if ok:
                place(i + 1, free ^ bit)
                if len(found) >= limit:
                    break
        seat[p] = -1

    place(1, full ^ 1)
    return found


class RoundTableSeatingEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n = LEVELS[self.difficulty]
        self.names = NAMES[:self.n]
        self.seat = list(range(self.n))
        self.clues = []
        self.ask_opp = 0
        self.ask_left = 1
        self.turn = 0
        self.done = False
        self.rng = random.Random()

    # ------------------------------------------------------------------ generation
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.n = LEVELS[self.difficulty]
        while not self.generate():
            pass
        self.turn = 0
        self.done = False
        return self.render(""), {}

    def random_clue(self):
        rng, n, seat = self.rng, self.n, self.seat
        kind = rng.choice(["left1", "right1", "left2", "next", "notnext", "opp", "notopp", "between", "between",
                           "before", "before"])
        a, b, c = rng.sample(range(n), 3)
        rel = (seat[b] - seat[a]) % n
        if kind == "between":
            gap = min(rel, n - rel) - 1
            return ("between", a, b, gap) if gap >= 1 and a < b else None
        if kind == "before":
            if rel > (seat[c] - seat[a]) % n:
                b, c = c, b
            return ("before", a, b, c)
        clue = (kind, a, b, 0)
        if kind in ("next", "notnext", "opp", "notopp") and a > b:
            return None
        return clue if holds(clue, seat, n) else None

    def generate(self):
        rng, n = self.rng, self.n
        self.names = rng.sample(NAMES, n)
        self.seat = list(range(n))
        rng.shuffle(self.seat)  # seat[p] = seat number of person p, numbered clockwise
        base = [(s - self.seat[0]) % n for s in self.seat]  # the answer with person 0 in seat 0
        clues = []
        early_sols = sols = None  # once few arrangements remain, keep them all and filter instead of searching
        early = 0
        for _ in range(400):
            clue = self.random_clue()
            if clue is None or clue in clues:
                continue
            if sols is not None:
                kept = [s for s in sols if holds(clue, s, n)]
                if len(kept) == len(sols):
                    continue  # redundant given the clues so far
                sols = kept
                clues.append(clue)
                if len(sols) == 1:
                    break
                continue
            clues.append(clue)
            if len(clues) >= n - 3:
                found = arrangements(n, clues, 200)
                if len(found) < 200:
                    early_sols = sols = found
                    early = len(clues)
                    if len(sols) == 1:
                        break
        else:
            return False
        if sols != [base]:
            return False
        # drop clues that turned out redundant: late ones by filtering the stored arrangements of the early
        # clues, then a few early ones by a fresh search
        late = clues[early:]
        order = list(range(len(late)))
        rng.shuffle(order)
        for i in order:
            rest = [c for c in late if c is not None and c != late[i]]
            if sum(1 for s in early_sols if all(holds(c, s, n) for c in rest)) == 1:
                late[i] = None
        keep = clues[:early] + [c for c in late if c is not None]
        tries = list(range(early))
        rng.shuffle(tries)
        for i in tries[:4]:
            rest = [c for c in keep if c != clues[i]]
            if count_arrangements(n, rest) == 1:
                keep = rest
        # the two questions must not be answered by a single clue
        by_seat = {s: p for p, s in enumerate(self.seat)}
        options = []
        for p in range(n):
            for q in range(n):
                opp = by_seat[(self.seat[p] + n // 2) % n]
                left2 = by_seat[(self.seat[q] + 2) % n]
                if p == q or opp == left2:
                    continue
                direct = any((c[0] == "opp" or (c[0] == "between" and c[3] == n // 2 - 1))
                             and {c[1], c[2]} == {p, opp} for c in keep)
                direct = direct or any(c[0] == "left2" and (c[1], c[2]) == (q, left2) for c in keep)
                if not direct:
                    options.append((p, q))
        if not options:
            return False
        self.ask_opp, self.ask_left = rng.choice(options)
        rng.shuffle(keep)
        self.clues = keep
        return True

    # ------------------------------------------------------------------ text
    def sentence(self, clue):
        kind, a, b, c = clue
        nm = self.names
        if kind == "left1":
            return f"{nm[b]} sits immediately to the left of {nm[a]}."
        if kind == "right1":
            return f"{nm[b]} sits immediately to the right of {nm[a]}."
        if kind == "left2":
            return f"{nm[b]} sits two seats to the left of {nm[a]}."
        if kind == "next":
            return f"{nm[a]} and {nm[b]} sit next to each other."
        if kind == "notnext":
            return f"{nm[a]} and {nm[b]} do not sit next to each other."
        if kind == "opp":
            return f"{nm[a]} sits directly opposite {nm[b]}."
        if kind == "notopp":
            return f"{nm[a]} does not sit directly opposite {nm[b]}."
        if kind == "between":
            return (f"Going the shorter way round, exactly {c} {'person sits' if c == 1 else 'people sit'} between "
                    f"{nm[a]} and {nm[b]}.")
        return f"Going clockwise (to the left) from {nm[a]}, you reach {nm[b]} before {nm[c]}."

    def render(self, feedback):
        n = self.n
        lines = [
            f"Attempt {self.turn}/{self.max_turns}",
            f"{n} people sit evenly spaced around a round table, all facing the centre: "
            + ", ".join(sorted(self.names)) + ".",
            "Conventions: 'to the left of X' means clockwise from X as seen from above, so 'immediately to the "
            "left' is the next seat clockwise and 'two seats to the left' is two seats clockwise; 'to the right' "
            f"is counter-clockwise. 'Directly opposite' means {n // 2} seats away.",
            "Clues (they fix the arrangement up to rotating the whole table):",
        ]
        for i, clue in enumerate(self.clues):
            lines.append(f"  {i + 1}. " + self.sentence(clue))
        lines += [
            "",
            f"Question: who sits directly opposite {self.names[self.ask_opp]}, and who sits two seats to the left "
            f"of {self.names[self.ask_left]}?",
            "Answer with two names in that order, e.g. \\boxed{opposite name, left name}. "
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

    def answers(self):
        n = self.n
        by_seat = {s: p for p, s in enumerate(self.seat)}
        return (by_seat[(self.seat[self.ask_opp] + n // 2) % n], by_seat[(self.seat[self.ask_left] + 2) % n])

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
            return self.finish(f"'{unknown[0][:30]}' is not at the table; the people are: "
                               + ", ".join(sorted(self.names)) + ".", 0.0, False)
        if len(words) != 2:
            return self.finish(f"Give exactly two names (you gave {len(words)}).", 0.0, False)
        opp, left2 = self.answers()
        notes = []
        first, second = lookup[words[0]], lookup[words[1]]
        if first != opp:
            if first == self.ask_opp:
                notes.append(f"the first answer cannot be {self.names[first]} themself")
            else:
                rel = (self.seat[first] - self.seat[self.ask_opp]) % self.n
                notes.append(f"the first answer is wrong: {self.names[first]} sits "
                             f"{'left' if rel < self.n // 2 else 'right'} of the seat opposite "
                             f"{self.names[self.ask_opp]}, going the shorter way")
        if second != left2:
            if second == self.ask_left:
                notes.append(f"the second answer cannot be {self.names[second]} themself")
            else:
                rel = (self.seat[second] - self.seat[left2]) % self.n
                notes.append(f"the second answer is wrong: {self.names[second]} sits "
                             f"{'further to the left' if rel < self.n // 2 else 'less far to the left'} than the "
                             f"seat two to the left of {self.names[self.ask_left]}, going the shorter way")
        if not notes:
            return self.finish("Correct! Both answers are right. You win.", 1.0, True)
        return self.finish("Not quite: " + "; ".join(notes) + ".", 0.0, False)

    # ------------------------------------------------------------------ oracle and hint
    def solution(self):
        opp, left2 = self.answers()
        return self.names[opp] + ", " + self.names[left2]

    def hint(self):
        n = self.n
        opp, left2 = self.answers()
        anchor = max(range(n), key=lambda p: (sum(1 for c in self.clues if p in people_of(c)), -p))
        facts = []
        for p in range(n):
            if p == anchor or p in (opp, left2) or {p, anchor} in ({self.ask_opp, opp}, {self.ask_left, left2}):
                continue
            rel = (self.seat[p] - self.seat[anchor]) % n
            if any(c[0] in ("left1", "right1", "left2", "opp") and {c[1], c[2]} == {anchor, p} for c in self.clues):
                continue  # already stated outright
            if rel == n // 2:
                facts.append(f"{self.names[p]} ends up directly opposite {self.names[anchor]}")
            elif rel < n // 2:
                facts.append(f"{self.names[p]} ends up {rel} seat{'s' if rel > 1 else ''} to the left of "
                             f"{self.names[anchor]}")
            else:
                facts.append(f"{self.names[p]} ends up {n - rel} seat{'s' if n - rel > 1 else ''} to the right of "
                             f"{self.names[anchor]}")
        random.Random(self.seat[0] * 31 + n).shuffle(facts)
        text = (f"Number the seats 0 to {n - 1} clockwise and put {self.names[anchor]}, who appears in the most "
                "clues, in seat 0; rotations do not matter. Place people tied by exact clues (immediately left or "
                "right, two to the left, opposite, exactly k between) first, then use the 'not' and 'before' clues "
                "to choose between the remaining cases.")
        if facts:
            text += " Intermediate results to aim for: " + "; ".join(facts[:2]) + "."
        return text
