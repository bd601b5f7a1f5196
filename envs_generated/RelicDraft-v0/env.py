"""Relic draft: a table of relics is drafted in a fixed snake order by you and scripted rivals, one relic per
pick. Every relic has a kind and a point value, and you score a bonus for each kind you collect two or more
of. Each rival picks by an announced rule (the most points left, its favourite kind, the kind you just took,
or the relic worth most to you), so what you take now decides what they take next. Finish the draft with the
highest score any sequence of your picks could reach."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
KINDS = ["blade", "charm", "tome", "crown"]
LETTERS = "abcdefghijklmnop"
RIVALS = ["Mira", "Oswin"]
# difficulty -> (relics, rivals, rules drawn from)
LEVELS = {
    "easy": (6, 1, ("magpie", "hoarder", "spoiler")),
    "medium": (8, 1, ("magpie", "hoarder", "mirror", "spoiler")),
    "hard": (9, 2, ("magpie", "hoarder", "mirror", "spoiler")),
}


class RelicDraftEnv:
    def __init__(self, max_turns=7, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, self.n_rivals, self.rules = LEVELS[self.difficulty]
        self.picks_each = self.n // (self.n_rivals + 1)
        self.max_turns = max(max_turns, self.picks_each + 3)
        self.rng = random.Random()
        self.relics = []  # (kind, points)
        self.rivals = []  # (rule, favourite kind)
        self.bonus = 5
        self.order = []
        self.target = 0
        self._memo = {}
        self._start()

    def _start(self):
        self.taken = {}  # relic index -> player (0 = you, 1.. = rivals)
        self.pos = 0
        self.turn = 0
        self.done = False
        self.log = []

    # ------------------------------------------------------------------ rules
    def _snake(self):
        players = list(range(self.n_rivals + 1))
        order = []
        for rnd in range(self.picks_each):
            order.extend(players if rnd % 2 == 0 else players[::-1])
        return order

    def _score(self, mine):
        pts = sum(self.relics[i][1] for i in mine)
        kinds = [self.relics[i][0] for i in mine]
        return pts + self.bonus * sum(1 for k in KINDS if kinds.count(k) >= 2)

    def _rival_pick(self, r, taken):
        left = [i for i in range(self.n) if i not in taken]
        rule, fav = self.rivals[r - 1]
        # ties go to the relic listed first (the lowest letter)
        best_points = lambda pool: max(pool, key=lambda i: (self.relics[i][1], -i))
        if rule == "magpie":
            return best_points(left)
        if rule == "hoarder":
            own = [i for i in left if self.relics[i][0] == fav]
            return best_points(own or left)
        if rule == "mirror":
            mine = [i for i in self.order_taken(taken) if taken[i] == 0]
            if mine:
                kind = self.relics[mine[-1]][0]
                same = [i for i in left if self.relics[i][0] == kind]
                if same:
                    return best_points(same)
            return best_points(left)
        # spoiler: the relic that would raise your score the most right now
        mine = [i for i, p in taken.items() if p == 0]
        base = self._score(mine)
        return max(left, key=lambda i: (self._score(mine + [i]) - base, self.relics[i][1], -i))

    @staticmethod
    def order_taken(taken):
        return list(taken)  # dicts keep insertion order: the order relics were taken

    def _advance(self, taken, pos):
        """Let the rivals pick until it is your turn (or the draft ends); returns the new position."""
        while pos < len(self.order) and self.order[pos] != 0:
            taken[self._rival_pick(self.order[pos], taken)] = self.order[pos]
            pos += 1
        return pos

    def _best(self, taken, pos):
        """(best final score you can still reach, a relic to take now on such a plan, pick sequences in all, pick
        sequences reaching the best). Memoised on what the rivals' rules can see: who holds what, and the kind
        you took last."""
        pos = self._advance(taken, pos)
        mine = [i for i, p in taken.items() if p == 0]
        key = (pos, frozenset(taken.items()), self.relics[mine[-1]][0] if mine else None)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        if pos >= len(self.order):
            out = (self._score(mine), None, 1, 1)
        else:
            best, choice, total, hits = -1, None, 0, 0
            for i in range(self.n):
                if i in taken:
                    continue
                t2 = dict(taken)
                t2[i] = 0
                s, _, n_all, n_best = self._best(t2, pos + 1)
                total += n_all
                if s > best:
                    best, choice, hits = s, i, n_best
                elif s == best:
                    hits += n_best
            out = (best, choice, total, hits)
        self._memo[key] = out
        return out

    def _play(self, chooser):
        taken, pos = {}, 0
        while True:
            pos = self._advance(taken, pos)
            if pos >= len(self.order):
                return self._score([i for i, p in taken.items() if p == 0])
            taken[chooser(taken)] = 0
            pos += 1

    def _greedy_gain(self, taken):
        mine = [i for i, p in taken.items() if p == 0]
        left = [i for i in range(self.n) if i not in taken]
        return max(left, key=lambda i: (self._score(mine + [i]), self.relics[i][1], -i))

    def _greedy_points(self, taken):
        left = [i for i in range(self.n) if i not in taken]
        return max(left, key=lambda i: (self.relics[i][1], -i))

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.order = self._snake()
        for _ in range(100):
            self.relics = [(self.rng.choice(KINDS), self.rng.randint(1, 9)) for _ in range(self.n)]
            rules = list(self.rules)
            self.rng.shuffle(rules)
            self.rivals = [(rules[r], self.rng.choice(KINDS)) for r in range(self.n_rivals)]
            self.bonus = self.rng.randint(4, 7)
            self._memo = {}
            best, _, total, hits = self._best({}, 0)
            # the greedy drafters must fall short, and few pick sequences may reach the best score
            if self._play(self._greedy_gain) >= best or self._play(self._greedy_points) >= best:
                continue
            if hits * 16 > total:
                continue
            break
        self.target = best
        self._start()
        self.pos = self._advance(self.taken, 0)
        self._note_rivals(0)
        return self._render("The draft begins."), {}

    def _note_rivals(self, since):
        for i in list(self.taken)[since:]:
            p = self.taken[i]
            if p != 0:
                self.log.append(f"{RIVALS[p - 1]} took {LETTERS[i]}")

    def _rule_text(self, r):
        rule, fav = self.rivals[r]
        if rule == "magpie":
            return "takes the relic with the most points left"
        if rule == "hoarder":
            return f"takes the {fav} with the most points left; when no {fav} is left, the relic with the most points"
        if rule == "mirror":
            return ("takes the relic with the most points of the kind YOU took last; when you have taken nothing yet, "
                    "or none of that kind is left, the relic with the most points")
        return ("takes the relic that would raise YOUR score the most right now (bonus included); among equals, the "
                "one with the most points")

    def _render(self, last):
        lines = ["RELIC DRAFT", "Relics:"]
        for i, (kind, pts) in enumerate(self.relics):
            owner = self.taken.get(i)
            state = "free" if owner is None else ("yours" if owner == 0 else f"taken by {RIVALS[owner - 1]}")
            lines.append(f"  {LETTERS[i]}: {kind}, {pts} points - {state}")
        lines.append("Rivals (rules never change; every tie goes to the relic with the earliest letter):")
        for r in range(self.n_rivals):
            lines.append(f"  {RIVALS[r]}: {self._rule_text(r)}")
        names = ["you"] + RIVALS[:self.n_rivals]
        lines.append("Pick order: " + ", ".join(names[p] for p in self.order))
        mine = [i for i, p in self.taken.items() if p == 0]
        lines.append(f"Your score: relic points plus {self.bonus} for every kind you hold two or more of. Now "
                     f"{self._score(mine)}; target {self.target} (the best any sequence of your picks can reach).")
        lines.append("Take a free relic with \\boxed{c} (its letter).")
        lines.append("Last: " + last)
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The draft is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        body = m.group(1).strip().lower() if m else ""
        if len(body) != 1 or body not in LETTERS[:self.n] or LETTERS.index(body) in self.taken:
            last = "No free relic named (turn lost, still your pick): write its letter, e.g. \\boxed{c}."
        else:
            i = LETTERS.index(body)
            self.taken[i] = 0
            before = len(self.taken)
            self.pos = self._advance(self.taken, self.pos + 1)
            self._note_rivals(before)
            kind, pts = self.relics[i]
            recent = self.log[-(len(self.taken) - before):] if len(self.taken) > before else []
            last = f"You took {body} ({kind}, {pts} points)." + (" Then " + "; ".join(recent) + "." if recent else "")
            mine = [j for j, p in self.taken.items() if p == 0]
            if self.pos >= len(self.order):
                self.done = True
                score = self._score(mine)
                if score >= self.target:
                    return self._render(last + f" Draft over: {score} points, target reached. You win!"), 1.0, True, False, {}
                return self._render(last + f" Draft over: {score} points, below the target."), 0.0, True, False, {}
            best = self._best(dict(self.taken), self.pos)[0]
            if best < self.target:
                self.done = True
                return self._render(last + f" The target is out of reach now (at most {best}). You lose."), \
                    0.0, True, False, {}
        if self.turn >= self.max_turns:
            self.done = True
            return self._render(last + " Out of turns: you lose."), 0.0, True, False, {}
        return self._render(last), 0.0, False, False, {}

    def solution(self):
        if self.done:
            return "a"
        return LETTERS[self._best(dict(self.taken), self.pos)[1]]

    def hint(self):
        # follow a best plan from here to the end of the draft and say which kinds it ends up holding
        taken, pos = dict(self.taken), self.pos
        while True:
            pos = self._advance(taken, pos)
            if pos >= len(self.order):
                break
            taken[self._best(dict(taken), pos)[1]] = 0
            pos += 1
        held = [self.relics[i][0] for i, p in taken.items() if p == 0]
        words = ["no", "one", "two", "three", "four", "five", "six"]
        kinds = ", ".join(f"{words[held.count(k)]} {k}{'s' if held.count(k) > 1 else ''}"
                          for k in KINDS if held.count(k))
        return (f"The best plan ends holding {kinds}. Play the draft forward in your head: after each pick you "
                "consider, work out exactly what every rival takes before your next pick, and take first the relics "
                "some rival is about to grab.")
