"""Caravan ledger: haul goods between market towns with seeded prices, road tolls and travel days, and
grow your purse to a gold target before the trading season ends."""

import random
import re

TOWN_NAMES = ("ashford", "brightwater", "coldmere", "dunmore", "eastholm", "fairhaven", "greystone",
              "highbridge", "ironvale", "juniper")
GOODS = ("grain", "salt", "wool", "copper")


class CaravanLedgerEnv:
    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.cfg = {
            "easy": {"towns": 4, "goods": 2, "days": (6, 8), "wright": False, "share": 0.80, "legs": 4},
            "medium": {"towns": 5, "goods": 3, "days": (8, 10), "wright": True, "share": 0.92, "legs": 5},
            "hard": {"towns": 6, "goods": 3, "days": (9, 11), "wright": True, "share": 0.97, "legs": 6},
        }[self.difficulty]
        self.rng = random.Random()
        self.towns = []
        self.goods = []
        self.buy = {}
        self.sell = {}
        self.days = {}
        self.toll = {}
        self.wright = -1
        self.wright_cost = 0
        self.wright_bonus = 0
        self.capacity = 0
        self.start_gold = 0
        self.start_town = 0
        self.upgraded = False
        self.gold = 0
        self.town = 0
        self.day = 0
        self.season = 0
        self.target = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ model
    def _options(self, town, day, gold, upgraded):
        """Every action from a state: (command, new_town, new_day, new_gold, new_upgraded)."""
        cap = self.capacity + (self.wright_bonus if upgraded else 0)
        out = []
        if town == self.wright and not upgraded and gold >= self.wright_cost and day + 1 <= self.season:
            out.append(("upgrade", town, day + 1, gold - self.wright_cost, True))
        for dest in range(len(self.towns)):
            if dest == town:
                continue
            arrive = day + self.days[(town, dest)]
            toll = self.toll[(town, dest)]
            if arrive > self.season or gold < toll:
                continue
            out.append(("go " + self.towns[dest], dest, arrive, gold - toll, upgraded))
            for g in range(len(self.goods)):
                price = self.buy[(town, g)]
                if price <= 0:
                    continue
                qty = min(cap, (gold - toll) // price)
                if qty <= 0:
                    continue
                new_gold = gold - toll - qty * price + qty * self.sell[(dest, g)]
                out.append((f"haul {self.goods[g]} to {self.towns[dest]}", dest, arrive, new_gold, upgraded))
        return out

    def _plan_from(self, town, day, gold, upgraded):
        """Forward DP over (town, day, upgraded) keeping the most gold (more gold never hurts, so this is
        exact): returns (best reachable gold, first command of a best plan, number of commands)."""
        best = {(town, day, upgraded): (gold, None, 0)}
        top = (gold, None, 0)
        for d in range(day, self.season + 1):
            keys = sorted(k for k in best if k[1] == d)
            for key in keys:
                g, first, n = best[key]
                if g > top[0]:
                    top = (g, first, n)
                for cmd, nt, nd, ng, nu in self._options(key[0], d, g, key[2]):
                    nk = (nt, nd, nu)
                    f = first if first is not None else cmd
                    if nk not in best or ng > best[nk][0]:
                        best[nk] = (ng, f, n + 1)
        return top

    def _greedy(self):
        """A myopic trader: always the action with the best gold gain per day."""
        town, day, gold, up = self.start_town, 0, self.start_gold, False
        while True:
            opts = [o for o in self._options(town, day, gold, up) if o[0] != "upgrade"]
            if not opts:
                return gold
            o = max(opts, key=lambda o: ((o[3] - gold) / (o[2] - day), o[0]))
            if o[3] <= gold:
                return gold
            town, day, gold, up = o[1], o[2], o[3], o[4]

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        cfg = self.cfg
        for _ in range(300):
            if self._generate(cfg):
                break
        self.turn = 0
        self.done = False
        self.last = f"Your wagon stands in {self.towns[self.town].title()}. The season begins."
        return self._observation(), {}

    def _generate(self, cfg):
        rng = self.rng
        n = cfg["towns"]
        self.towns = rng.sample(TOWN_NAMES, n)
        self.goods = sorted(rng.sample(GOODS, cfg["goods"]))
        pos = [(rng.uniform(0, 10), rng.uniform(0, 10)) for _ in range(n)]
        self.days, self.toll = {}, {}
        for a in range(n):
            for b in range(a + 1, n):
                dist = ((pos[a][0] - pos[b][0]) ** 2 + (pos[a][1] - pos[b][1]) ** 2) ** 0.5
                days = max(1, min(3, int(dist / 3.5) + 1))
                toll = rng.randint(0, 4)
                self.days[(a, b)] = self.days[(b, a)] = days
                self.toll[(a, b)] = self.toll[(b, a)] = toll
        self.buy, self.sell = {}, {}
        for g in range(len(self.goods)):
            base = rng.randint(5, 14)
            for t in range(n):
                local = max(2, int(round(base * rng.uniform(0.55, 1.6))))
                self.sell[(t, g)] = max(1, int(local * 0.85))
                self.buy[(t, g)] = local if rng.random() < 0.65 else 0
        self.capacity = rng.randint(8, 14)
        self.start_gold = rng.randint(30, 60)
        self.start_town = rng.randrange(n)
        self.season = rng.randint(*cfg["days"])
        if cfg["wright"]:
            self.wright = rng.randrange(n)
            self.wright_bonus = rng.randint(4, 8)
            self.wright_cost = rng.randint(25, 50)
        else:
            self.wright, self.wright_bonus, self.wright_cost = -1, 0, 0
        self.gold, self.town, self.day, self.upgraded = self.start_gold, self.start_town, 0, False
        best, first, length = self._plan_from(self.start_town, 0, self.start_gold, False)
        gain = best - self.start_gold
        if first is None or gain < 40 or length < cfg["legs"]:
            return False
        self.target = self.start_gold + int(gain * cfg["share"])
        if self.target > best:
            self.target = best
        greedy = self._greedy()
        if greedy >= self.target:
            return False
        return True

    def _observation(self):
        header = "town".ljust(12) + "".join(g.ljust(14) for g in self.goods)
        rows = []
        for t in range(len(self.towns)):
            cells = []
            for g in range(len(self.goods)):
                b = self.buy[(t, g)]
                cells.append((f"{b}/{self.sell[(t, g)]}" if b else f"-/{self.sell[(t, g)]}").ljust(14))
            mark = " (wagonwright)" if t == self.wright else ""
            rows.append(self.towns[t].ljust(12) + "".join(cells) + mark)
        roads = []
        for a in range(len(self.towns)):
            for b in range(a + 1, len(self.towns)):
                roads.append(f"{self.towns[a]}-{self.towns[b]}: {self.days[(a, b)]}d toll {self.toll[(a, b)]}")
        cap = self.capacity + (self.wright_bonus if self.upgraded else 0)
        wright_text = ""
        if self.wright >= 0:
            state = "done" if self.upgraded else "available once"
            wright_text = (f"upgrade: only in {self.towns[self.wright]}; costs {self.wright_cost} gold and 1 day, "
                           f"adds {self.wright_bonus} wagon capacity for good ({state}).\n")
        return (
            f"Turn {self.turn}/{self.max_turns} | Day {self.day}/{self.season} | Gold: {self.gold}/{self.target} | "
            f"Town: {self.towns[self.town]} | Wagon capacity: {cap}\n"
            f"Goal: hold at least {self.target} gold by the end of day {self.season}.\n"
            "Prices (buy here / sell here per unit; '-' = not sold here):\n"
            f"{header}\n" + "\n".join(rows) + "\n"
            "Roads (days, toll paid on departure): " + "; ".join(roads) + "\n"
            f"Last: {self.last}\n"
            "Commands (one per turn):\n"
            "haul GOOD to TOWN: buy as many units of GOOD here as your wagon and purse allow (after the toll), "
            "travel, and sell them all on arrival.\n"
            "go TOWN: travel with an empty wagon.\n" + wright_text +
            "Reply with one command inside \\boxed{}, e.g. \\boxed{haul GOOD to TOWN} with real names."
        )

    def _parse(self, action):
        text = str(action)[:4000]
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        if not found:
            return None
        words = re.findall(r"[a-z]+", found[-1].lower())
        if not words:
            return ""
        towns = [w for w in words if w in self.towns]
        goods = [w for w in words if w in self.goods]
        if words[0] == "upgrade" and len(words) == 1:
            return "upgrade"
        if words[0] == "go" and len(towns) == 1 and not goods:
            return "go " + towns[0]
        if words[0] == "haul" and len(towns) == 1 and len(goods) == 1:
            return f"haul {goods[0]} to {towns[0]}"
        return ""

    def step(self, action):
        if self.done:
            return "The season is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        cmd = self._parse(action)
        if cmd is None:
            self.last = ("No command found. Put one command inside \\boxed{}, e.g. \\boxed{go TOWN} with a real "
                         "town name.")
        elif cmd == "":
            self.last = "Could not read that. Use haul GOOD to TOWN, go TOWN or upgrade, with names from the tables."
        else:
            opts = {o[0]: o for o in self._options(self.town, self.day, self.gold, self.upgraded)}
            if cmd not in opts:
                self.last = self._why_not(cmd) + " Nothing happened."
            else:
                _, nt, nd, ng, nu = opts[cmd]
                self.last = self._describe(cmd, nt, nd, ng)
                self.town, self.day, self.gold, self.upgraded = nt, nd, ng, nu
                if self.gold >= self.target:
                    self.done = True
                    self.last += f" Your purse holds {self.gold} gold: target reached, you win!"
                    return self._observation(), 1.0, True, False, {}
                if not self._options(self.town, self.day, self.gold, self.upgraded):
                    self.done = True
                    self.last += (f" No further trip fits in the season (day {self.day}/{self.season}); you end "
                                  f"with {self.gold} gold, short of {self.target}. You lose.")
                    return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def _why_not(self, cmd):
        if cmd == "upgrade":
            if self.wright < 0:
                return "There is no wagonwright this season."
            if self.upgraded:
                return "Your wagon is already upgraded."
            if self.town != self.wright:
                return f"The wagonwright works only in {self.towns[self.wright]}."
            if self.gold < self.wright_cost:
                return f"The upgrade costs {self.wright_cost} gold; you have {self.gold}."
            return "The upgrade would end after the season."
        dest = self.towns.index(cmd.split()[-1])
        if dest == self.town:
            return f"You are already in {self.towns[dest]}."
        if self.day + self.days[(self.town, dest)] > self.season:
            return f"That road takes {self.days[(self.town, dest)]} day(s): you would arrive after the season."
        if self.gold < self.toll[(self.town, dest)]:
            return "You cannot pay the toll."
        g = self.goods.index(cmd.split()[1])
        if self.buy[(self.town, g)] <= 0:
            return f"{self.towns[self.town].title()} does not sell {self.goods[g]}."
        return f"You cannot afford a single unit of {self.goods[g]} after the toll."

    def _describe(self, cmd, nt, nd, ng):
        if cmd == "upgrade":
            return f"The wagonwright enlarges your wagon by {self.wright_bonus} units (day {nd})."
        dest = self.towns[nt]
        toll = self.toll[(self.town, nt)]
        if cmd.startswith("go"):
            return f"You travel empty to {dest} (toll {toll}), arriving on day {nd}."
        g = self.goods.index(cmd.split()[1])
        cap = self.capacity + (self.wright_bonus if self.upgraded else 0)
        qty = min(cap, (self.gold - toll) // self.buy[(self.town, g)])
        return (f"You buy {qty} {self.goods[g]} at {self.buy[(self.town, g)]}, pay toll {toll}, reach {dest} on day "
                f"{nd} and sell at {self.sell[(nt, g)]}: gold {self.gold} -> {ng}.")

    def solution(self):
        best, first, _ = self._plan_from(self.town, self.day, self.gold, self.upgraded)
        if first is None:
            opts = self._options(self.town, self.day, self.gold, self.upgraded)
            return opts[0][0] if opts else "go " + self.towns[(self.town + 1) % len(self.towns)]
        return first

    def hint(self):
        best, first, _ = self._plan_from(self.town, self.day, self.gold, self.upgraded)
        greedy_note = ("Grabbing the largest profit per day at every stop falls short: " if self.day == 0 else "")
        up = ""
        if self.wright >= 0 and not self.upgraded:
            up = (f" Weigh the wagonwright: {self.wright_cost} gold and a day buy {self.wright_bonus} extra units "
                  "on every later haul, which only pays off once your purse can fill the bigger wagon.")
        return (f"{greedy_note}plan the whole season. While your purse, not the wagon, limits how much you can buy, "
                "profit compounds, so early legs should make your gold grow fastest. Count the "
                "days so that the last haul lands exactly at the season's end, and prefer round trips where both "
                f"directions carry a profitable good. The best possible season ends with about {best} gold." + up)

    def _legal_commands(self):
        return [o[0] for o in self._options(self.town, self.day, self.gold, self.upgraded)]
