"""Counterfeit coin on a balance scale: one of N numbered coins is slightly heavier or lighter than the
others, and with a small, fixed number of weighings the player must find it and say which it is."""

import random
import re

# difficulty -> (fewest suspects, most suspects, weighings); with a known genuine coin at hand the
# theoretical limit is (3^w - 1) / 2 suspects
LEVELS = {"easy": (8, 13, 3), "medium": (26, 40, 4), "hard": (85, 121, 5)}

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
ITEM_RE = re.compile(r"(\d{1,4})(?:-(\d{1,4}))?")
ANSWER_RE = re.compile(r"answer\s+(?:coin\s+)?#?(\d{1,4})\s+(heavy|heavier|light|lighter)")


def compress(coins):
    """[1,2,3,4,7,9,10,11] -> '1-4,7,9-11' (runs of three or more become ranges)."""
    coins = sorted(coins)
    parts = []
    i = 0
    while i < len(coins):
        j = i
        while j + 1 < len(coins) and coins[j + 1] == coins[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(str(coins[i]) + "-" + str(coins[j]))
        else:
            parts.extend(str(c) for c in coins[i:j + 1])
        i = j + 1
    return ",".join(parts)


def feasible(u, p, g, r):
    """Can r weighings always finish a state with u unknown coins, p coins already marked
    'only heavy' or 'only light', and g known-genuine coins? (classic 3^r counting bounds)"""
    n = 2 * u + p
    if n <= 1:
        return True
    if r <= 0 or n > 3 ** r:
        return False
    if p == 0:
        if g > 0:
            return True
        return u >= 3 and 2 * u <= 3 ** r - 3
    if u == 0:
        return g > 0
    return g > 0


class CounterfeitCoinScaleEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.n = LEVELS[self.difficulty][0]
        self.total_weighings = LEVELS[self.difficulty][2]
        self.weighings_left = self.total_weighings
        self.fake = 1
        self.fake_dir = 1
        self.certified = []
        self.hyps = set()
        self.log = []
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        lo, hi, w = LEVELS[self.difficulty]
        suspects = self.rng.randint(lo, hi)
        self.n = suspects + self.rng.randint(1, 3)
        self.certified = sorted(self.rng.sample(range(1, self.n + 1), self.n - suspects))
        self.total_weighings = w
        self.weighings_left = w
        self.fake = self.rng.choice([c for c in range(1, self.n + 1) if c not in self.certified])
        self.fake_dir = 1 if self.rng.random() < 0.5 else -1
        self.hyps = set()
        for c in range(1, self.n + 1):
            if c not in self.certified:
                self.hyps.add((c, 1))
                self.hyps.add((c, -1))
        self.log = []
        self.turn = 0
        self.done = False
        self.last = "New game. No weighings yet."
        return self.render(), {}

    def render(self):
        lines = [
            f"Turn {self.turn}/{self.max_turns} | Weighings left: {self.weighings_left}/{self.total_weighings} "
            f"| Coins: {self.n}",
            f"There are {self.n} coins numbered 1 to {self.n}. Exactly one of them is counterfeit: it is either "
            "slightly heavier or slightly lighter than the genuine coins, which all weigh the same. You have a "
            "two-pan balance scale; every weighing reports 'left pan heavier', 'right pan heavier' or 'balanced'.",
            "The mint has certified coin" + ("s " if len(self.certified) > 1 else " ")
            + ", ".join(str(c) for c in self.certified) + " as genuine.",
            "Find the counterfeit coin AND whether it is heavier or lighter. A wrong final answer ends the game.",
            "",
            "Weighings so far:",
        ]
        if not self.log:
            lines.append("  (none)")
        for i, (left, right, result) in enumerate(self.log):
            lines.append(f"  #{i + 1}: left [{compress(left)}] vs right [{compress(right)}] -> {result}")
        lines += [
            "",
            "Last result: " + self.last,
            "",
            "Commands (one per turn):",
            "  \\boxed{weigh 1,2,3 vs 4,5,6}  - weigh two disjoint groups with the SAME number of coins "
            "(ranges like 1-4 are allowed); uses one weighing",
            "  \\boxed{answer C heavy} or \\boxed{answer C light}  - final answer, where C is the coin number",
        ]
        return "\n".join(lines)

    def finish(self, text, reward, terminated):
        self.last = text
        out_of_turns = (not terminated) and self.turn >= self.max_turns
        if terminated or out_of_turns:
            self.done = True
        if out_of_turns:
            self.last = text + " You are out of turns; the game is over."
        return self.render(), reward, terminated or out_of_turns, False, {}  # out of attempts is a loss, not a cut-off

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        text = action if isinstance(action, str) else str(action)
        match = BOX_RE.search(text[:20000])
        if match is None:
            return self.finish("Format error: put one command inside \\boxed{...}, e.g. \\boxed{weigh 1,2 vs 3,4}.",
                               0.0, False)
        cmd = " ".join(match.group(1).lower().split())
        if cmd.startswith("weigh"):
            return self.do_weigh(cmd[5:])
        if cmd.startswith("answer"):
            return self.do_answer(cmd)
        return self.finish("Unknown command '" + cmd[:40] + "'. Use 'weigh <coins> vs <coins>' or "
                           "'answer <coin> heavy|light'.", 0.0, False)

    def parse_pan(self, text):
        coins = []
        for token in re.split(r"[,\s]+", text.strip()):
            if not token:
                continue
            m = ITEM_RE.fullmatch(token)
            if m is None:
                return None, "'" + token[:20] + "' is not a coin number or range"
            a = int(m.group(1))
            b = int(m.group(2)) if m.group(2) else a
            if a > b:
                a, b = b, a
            if a < 1 or b > self.n:
                return None, f"coins are numbered 1 to {self.n}"
            coins.extend(range(a, b + 1))
        if not coins:
            return None, "each pan needs at least one coin"
        if len(set(coins)) != len(coins):
            return None, "a coin is listed twice on the same pan"
        return coins, ""

    def do_weigh(self, rest):
        if self.weighings_left <= 0:
            return self.finish("No weighings left: you must give your final answer now.", 0.0, False)
        sides = re.split(r"\bvs\.?\b|\bversus\b|\bagainst\b", rest)
        if len(sides) != 2:
            return self.finish("Write a weighing as 'weigh <left coins> vs <right coins>'. Nothing was weighed.",
                               0.0, False)
        left, err = self.parse_pan(sides[0])
        if left is None:
            return self.finish("Left pan: " + err + ". Nothing was weighed.", 0.0, False)
        right, err = self.parse_pan(sides[1])
        if right is None:
            return self.finish("Right pan: " + err + ". Nothing was weighed.", 0.0, False)
        if set(left) & set(right):
            return self.finish("A coin cannot be on both pans. Nothing was weighed.", 0.0, False)
        if len(left) != len(right):
            return self.finish(f"The pans must hold the same number of coins (you gave {len(left)} vs "
                               f"{len(right)}). Nothing was weighed.", 0.0, False)
        lset, rset = set(left), set(right)
        outcome = self.outcome_of(self.fake, self.fake_dir, lset, rset)
        self.hyps = {h for h in self.hyps if self.outcome_of(h[0], h[1], lset, rset) == outcome}
        self.weighings_left -= 1
        result = {"L": "left pan heavier", "R": "right pan heavier", "=": "balanced"}[outcome]
        self.log.append((sorted(left), sorted(right), result))
        return self.finish(f"Weighing #{len(self.log)}: {result}.", 0.0, False)

    @staticmethod
    def outcome_of(coin, direction, lset, rset):
        if coin in lset:
            return "L" if direction > 0 else "R"
        if coin in rset:
            return "R" if direction > 0 else "L"
        return "="

    def do_answer(self, cmd):
        m = ANSWER_RE.search(cmd)
        if m is None:
            return self.finish("Write the final answer as 'answer <coin> heavy' or 'answer <coin> light'.",
                               0.0, False)
        coin = int(m.group(1))
        if coin < 1 or coin > self.n:
            return self.finish(f"There is no coin {coin}; coins are numbered 1 to {self.n}.", 0.0, False)
        direction = 1 if m.group(2).startswith("heav") else -1
        if coin == self.fake and direction == self.fake_dir:
            return self.finish(f"Correct! Coin {coin} is the counterfeit. You win.", 1.0, True)
        if coin == self.fake:
            why = "you named the right coin but the wrong weight"
        elif (coin, direction) in self.hyps or (coin, -direction) in self.hyps:
            why = "that coin was still possible, but you guessed: it is genuine"
        else:
            why = "your own weighings had already shown that coin is genuine or cannot be " + m.group(2)
        return self.finish("Wrong: " + why + ". The game is over.", 0.0, True)

    # ------------------------------------------------------------------ oracle
    def classify(self):
        heavy_ok = {c for c, d in self.hyps if d > 0}
        light_ok = {c for c, d in self.hyps if d < 0}
        unknown = sorted(heavy_ok & light_ok)
        only_h = sorted(heavy_ok - light_ok)
        only_l = sorted(light_ok - heavy_ok)
        genuine = [c for c in range(1, self.n + 1) if c not in heavy_ok and c not in light_ok]
        return unknown, only_h, only_l, genuine

    def plan_unknown(self, unknown, genuine, r):
        """Only never-tipped coins are suspects: choose how many go on the pans."""
        u, g = len(unknown), len(genuine)
        t = 3 ** (r - 1)
        best = None
        if g == 0:
            for k in range(1, u // 2 + 1):
                ok = feasible(0, 2 * k, u - 2 * k, r - 1) and feasible(u - 2 * k, 0, 2 * k, r - 1)
                score = (0 if ok else 1, max(2 * k, 2 * (u - 2 * k)), k)
                if best is None or score < best[0]:
                    best = (score, unknown[:k], unknown[k:2 * k])
        else:
            for s in range(1, u + 1):
                u1, u2 = (s + 1) // 2, s // 2
                if u1 - u2 > g:
                    continue
                ok = s <= t and feasible(u - s, 0, g + s, r - 1)
                score = (0 if ok else 1, max(s, 2 * (u - s)), s)
                if best is None or score < best[0]:
                    best = (score, unknown[:u1], unknown[u1:s] + genuine[:u1 - u2])
        return None if best is None else (best[1], best[2])

    def plan_marked(self, only_h, only_l, genuine, r):
        """Suspects are already marked heavy-only or light-only: split them into three outcome buckets."""
        h, l, g = len(only_h), len(only_l), len(genuine)
        n = h + l
        t = 3 ** (r - 1)
        q = (n + 2) // 3
        sizes = []
        for sa in (q, q + 1, q - 1):
            for sb in (q, q - 1, q + 1):
                if 0 <= sa and 0 <= sb and sa + sb <= n and (sa > 0 or sb > 0):
                    sizes.append((sa, sb))
        best = None
        for sa, sb in sizes:
            sc = n - sa - sb
            worst = max(sa, sb, sc)
            for ah in range(max(0, sa - l), min(h, sa) + 1):
                al = sa - ah
                for bh in range(max(0, sb - (l - al)), min(h - ah, sb) + 1):
                    bl = sb - bh
                    diff = (ah + bl) - (bh + al)
                    if abs(diff) > g:
                        continue
                    score = (0 if worst <= t else 1, worst, abs(diff))
                    if best is None or score < best[0]:
                        best = (score, ah, al, bh, bl, diff)
        if best is None:
            return None
        _, ah, al, bh, bl, diff = best
        left = only_h[:ah] + only_l[al:al + bl]
        right = only_h[ah:ah + bh] + only_l[:al]
        if diff > 0:
            right = right + genuine[:diff]
        elif diff < 0:
            left = left + genuine[:-diff]
        if not left or not right:
            return None
        return left, right

    def solution(self):
        if len(self.hyps) == 1 or self.weighings_left <= 0 or not self.hyps:
            coin, d = min(self.hyps) if self.hyps else (1, 1)
            return f"answer {coin} {'heavy' if d > 0 else 'light'}"
        unknown, only_h, only_l, genuine = self.classify()
        r = self.weighings_left
        move = None
        if unknown and not only_h and not only_l:
            move = self.plan_unknown(unknown, genuine, r)
        elif not unknown:
            move = self.plan_marked(only_h, only_l, genuine, r)
        if move is None:  # unusual states only: split the suspects evenly between the pans
            suspects = unknown + only_h + only_l
            half = max(1, len(suspects) // 2)
            move = (suspects[:half], suspects[half:2 * half])
            if len(move[1]) < len(move[0]):
                move = (move[0][:len(move[1])], move[1])
            if not move[0]:
                coin, d = min(self.hyps)
                return f"answer {coin} {'heavy' if d > 0 else 'light'}"
        return "weigh " + compress(move[0]) + " vs " + compress(move[1])

    def hint(self):
        u = self.n - len(self.certified)
        r = self.total_weighings
        t = 3 ** (r - 1)
        low, high = max(1, u - (t - 1) // 2), min(u, t)
        if low == high:
            first = f"The first weighing must put exactly {low} suspect coins on the pans in total. "
        else:
            first = f"The first weighing should put between {low} and {high} suspect coins on the pans in total. "
        return (f"Count cases, not coins: {u} suspects give {2 * u} (coin, heavier-or-lighter) cases and each "
                f"weighing has 3 outcomes, so every outcome may leave at most {t} cases for the remaining "
                f"{r - 1} weighings; a balanced outcome leaves 2 cases per coin kept off the scale. " + first +
                "An odd split is fine: a certified coin evens out the pans. After a tilt, every coin that was off "
                "the scale is genuine, a suspect on the heavy pan can only be heavy and one on the light pan only "
                "light; next, mix such coins across the pans so each outcome keeps about a third of the cases.")
