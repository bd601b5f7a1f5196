"""Frontier beacon colony: each day assign your settlers to food, wood or stone, or spend the day raising a
building, so that the beacon tower stands before the deadline despite frost, storms and wolves."""

import random
import re

RES = ("food", "wood", "stone")
EVENT_TEXT = {
    "frost": "frost: food gatherers find nothing that day",
    "storm": "storm: wood gatherers find nothing that day",
    "wolves": "wolves: {n} food is lost at the end of that day",
    "vein": "rich vein: stone gatherers find double that day",
    "caravan": "caravan: {n} wood is delivered at the end of that day",
}


class FrontierBeaconColonyEnv:
    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        # days: deadline range; builds: minimum buildings in the reference season; polish: local-search steps
        self.cfg = {
            "easy": {"days": (6, 7), "workers": (3, 3), "events": 1, "huts": 0, "cands": 8, "builds": 1,
                     "polish": 30},
            "medium": {"days": (8, 9), "workers": (3, 3), "events": 2, "huts": 1, "cands": 8, "builds": 2,
                       "polish": 80},
            "hard": {"days": (9, 10), "workers": (3, 4), "events": 3, "huts": 2, "cands": 8, "builds": 2,
                     "polish": 150},
        }[self.difficulty]
        self.rng = random.Random()
        self.deadline = 0
        self.yields = (2, 2, 1)
        self.costs = {}
        self.events = {}
        self.state = None
        self.start_state = None
        self.turn = 0
        self.done = False
        self.last = ""
        self._plan = []
        self._plan_states = []
        self._memo = {}

    # ------------------------------------------------------------------ model
    # state: (day, food, wood, stone, workers, huts, sawmill, quarry); `day` is the day about to be played (1-based)

    def _daily(self, state, split):
        day, food, wood, stone, workers, huts, saw, quarry = state
        ev = self.events.get(day)
        yf, yw, ys = self.yields
        yw += 2 * saw
        ys += 2 * quarry
        if ev and ev[0] == "frost":
            yf = 0
        if ev and ev[0] == "storm":
            yw = 0
        if ev and ev[0] == "vein":
            ys *= 2
        food += split[0] * yf - workers
        wood += split[1] * yw
        stone += split[2] * ys
        return food, wood, stone

    def _end_of_day(self, day, food, wood):
        ev = self.events.get(day)
        if ev and ev[0] == "wolves":
            food -= ev[1]
        if ev and ev[0] == "caravan":
            wood += ev[1]
        return food, wood

    def _apply(self, state, action):
        """Result of an action: (new_state, won) or (None, reason) when it is not allowed or fatal."""
        day, food, wood, stone, workers, huts, saw, quarry = state
        if day > self.deadline:
            return None, "the deadline has passed"
        if action[0] == "assign":
            split = action[1]
            if sum(split) > workers:
                return None, f"you only have {workers} settlers"
            food, wood, stone = self._daily(state, split)
        else:
            name = action[1]
            cw, cs = self.costs[name]
            if name == "hut" and huts >= self.cfg["huts"]:
                return None, "no more huts can be built" if self.cfg["huts"] else "huts are not available here"
            if name == "sawmill" and saw:
                return None, "the sawmill already stands"
            if name == "quarry" and quarry:
                return None, "the quarry already stands"
            if wood < cw or stone < cs:
                return None, f"the {name} needs {cw} wood and {cs} stone; you have {wood} wood and {stone} stone"
            wood -= cw
            stone -= cs
            if name == "beacon":
                return (day, food, wood, stone, workers, huts, saw, quarry), True
            food -= workers
            if name == "hut":
                huts += 1
                workers += 1
            elif name == "sawmill":
                saw = 1
            elif name == "quarry":
                quarry = 1
        food, wood = self._end_of_day(day, food, wood)
        if food < 0:
            return None, "starved"
        return (day + 1, food, wood, stone, workers, huts, saw, quarry), False

    def _actions(self, state):
        workers = state[4]
        acts = [("build", "beacon")]
        for name in ("quarry", "sawmill", "hut"):
            if name != "hut" or self.cfg["huts"]:
                acts.append(("build", name))
        for f in range(workers + 1):
            for w in range(workers - f + 1):
                acts.append(("assign", (f, w, workers - f - w)))
        return acts

    def _wolves(self, day):
        ev = self.events.get(day)
        return ev[1] if ev and ev[0] == "wolves" else 0

    def _text(self, action):
        if action[0] == "build":
            return "build " + action[1]
        f, w, s = action[1]
        return f"assign {f} {w} {s}"

    # ------------------------------------------------------------------ scenario construction
    def _reserve(self, day, workers):
        """Food that must be left after `day` so the colony survives until it can gather food again."""
        need = self._wolves(day)
        d = day + 1
        while d < self.deadline:
            need += workers + self._wolves(d)
            ev = self.events.get(d)
            if not (ev and ev[0] == "frost"):
                break
            d += 1
        return need

    def _construct(self, order, share):
        """A deliberate season: invest as early as possible, feed with the fewest gatherers, then gather
        wood and stone (stone on rich-vein and storm days). Returns (actions, states) or None."""
        state = self.start_state
        actions, states = [], [state]
        pending = list(order)
        while state[0] < self.deadline:
            day, food, wood, stone, workers = state[0], state[1], state[2], state[3], state[4]
            act = None
            if pending:
                cw, cs = self.costs[pending[0]]
                if wood >= cw and stone >= cs and food - workers >= self._reserve(day, workers):
                    act = ("build", pending.pop(0))
            if act is None:
                reserve = self._reserve(day, workers) + (workers if pending else 0)  # stock up for a build day
                f = workers
                for k in range(workers + 1):
                    if self._daily(state, (k, 0, 0))[0] >= reserve:
                        f = k
                        break
                rest = workers - f
                ev = self.events.get(day)
                kind = ev[0] if ev else ""
                if pending:
                    cw, cs = self.costs[pending[0]]
                    lack_w, lack_s = max(0, cw - wood), max(0, cs - stone)
                    if kind == "storm":
                        w = 0
                    elif lack_w and not lack_s:
                        w = rest
                    elif lack_s and not lack_w:
                        w = 0
                    else:
                        w = min(rest, (lack_w + 1) // 2 + 1)
                elif kind in ("storm", "vein"):
                    w = 0
                else:
                    tilt = share + 0.25 * (state[6] - state[7])  # lean on the improved material
                    w = max(0, min(rest, int(rest * tilt + 0.5)))
                act = ("assign", (f, w, rest - w))
            new, won = self._apply(state, act)
            if new is None:
                return None
            actions.append(act)
            states.append(new)
            state = new
        if pending:
            return None
        return actions, states

    def _simulate(self, actions):
        state = self.start_state
        states = [state]
        for act in actions:
            state, won = self._apply(state, act)
            if state is None:
                return None
            states.append(state)
        return states

    def _improve(self, actions, states, tries):
        """Random local changes that gather more of one material without losing any of the other."""
        rng = self.rng
        for _ in range(tries):
            trial = list(actions)
            for _ in range(rng.randint(1, 2)):
                i = rng.randrange(len(trial))
                if trial[i][0] == "build":
                    j = rng.randrange(len(trial))
                    trial[i], trial[j] = trial[j], trial[i]
                else:
                    workers = states[i][4]
                    f = rng.randint(0, workers)
                    w = rng.randint(0, workers - f)
                    trial[i] = ("assign", (f, w, workers - f - w))
            got = self._simulate(trial)
            if got is None:
                continue
            old, new = states[-1], got[-1]
            if new[2] >= old[2] and new[3] >= old[3] and new[2] + 2 * new[3] > old[2] + 2 * old[3]:
                actions, states = trial, got
        return actions, states

    def _plain_possible(self, need_w, need_s):
        """Relaxed test: could any season WITHOUT buildings gather need_w wood and need_s stone?"""
        workers = self.start_state[4]
        yf, yw, ys = self.yields
        days = range(1, self.deadline)
        need_w -= self.start_state[2] + sum(e[1] for e in self.events.values() if e[0] == "caravan")
        need_s -= self.start_state[3]
        eat = workers * (self.deadline - 1) + sum(self._wolves(d) for d in days)
        food_days = max(0, eat - self.start_state[1]) / yf
        veins = sum(1 for d in days if self.events.get(d, ("",))[0] == "vein")
        vein_days = min(veins * workers, max(0, need_s) / (2 * ys))
        stone_days = vein_days + max(0, need_s - vein_days * 2 * ys) / ys
        wood_days = max(0, need_w) / yw
        return food_days + stone_days + wood_days <= workers * (self.deadline - 1)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(300):
            if self._generate():
                break
        self.state = self.start_state
        self.turn = 0
        self.done = False
        self._memo = {}
        self.last = "The settlers unload their carts at the frontier."
        return self._observation(), {}

    def _generate(self):
        rng = self.rng
        cfg = self.cfg
        self.deadline = rng.randint(*cfg["days"])
        self.yields = (rng.choice((2, 3)), 2, 1)
        self.costs = {
            "sawmill": (rng.randint(3, 6), rng.randint(0, 2)),
            "quarry": (rng.randint(4, 7), 0),
            "hut": (rng.randint(4, 7), rng.randint(0, 1)),
            "beacon": (0, 0),
        }
        self.events = {}
        days = rng.sample(range(2, self.deadline), min(cfg["events"], self.deadline - 2))
        for d in days:
            kind = rng.choice(("frost", "storm", "wolves", "vein", "caravan"))
            self.events[d] = (kind, rng.randint(3, 6) if kind == "wolves" else rng.randint(3, 5))
        workers = rng.randint(*cfg["workers"])
        self.start_state = (1, rng.randint(workers + 2, workers * 2 + 3), rng.randint(1, 4), 0, workers, 0, 0, 0)
        options = ["sawmill", "quarry"] + ["hut"] * cfg["huts"]
        for _ in range(cfg["cands"]):
            k = rng.randint(cfg["builds"], len(options))
            got = self._construct(rng.sample(options, k), rng.uniform(0.3, 0.7))
            if got is None:
                continue
            final = got[1][-1]
            if final[2] < 6 or final[3] < 5:
                continue
            if self._plain_possible(final[2], final[3]):
                continue  # the beacon must be out of reach without investing in buildings
            actions, states = self._improve(got[0], got[1], cfg["polish"])
            self.costs["beacon"] = (states[-1][2], states[-1][3])
            self._plan = actions + [("build", "beacon")]
            self._plan_states = states
            return True
        return False

    # ------------------------------------------------------------------ text
    def _observation(self):
        day, food, wood, stone, workers, huts, saw, quarry = self.state
        built = [n for n, v in (("sawmill", saw), ("quarry", quarry)) if v] + (["hut"] * huts)
        yf, yw, ys = self.yields
        cal = []
        for d in sorted(self.events):
            kind, n = self.events[d]
            mark = " (past)" if d < day else ""
            cal.append(f"  day {d}: " + EVENT_TEXT[kind].format(n=n) + mark)
        builds = [f"  sawmill: {self.costs['sawmill'][0]} wood + {self.costs['sawmill'][1]} stone -> each wood "
                  "gatherer brings 2 more wood",
                  f"  quarry: {self.costs['quarry'][0]} wood + {self.costs['quarry'][1]} stone -> each stone "
                  "gatherer brings 2 more stone"]
        if self.cfg["huts"]:
            builds.append(f"  hut: {self.costs['hut'][0]} wood + {self.costs['hut'][1]} stone -> one more settler "
                          f"from the next day (at most {self.cfg['huts']})")
        bw, bs = self.costs["beacon"]
        builds.append(f"  beacon: {bw} wood + {bs} stone -> raising it wins")
        return (
            f"Turn {self.turn}/{self.max_turns} | Day {min(day, self.deadline)}/{self.deadline} | "
            f"Settlers: {workers} | "
            f"Food: {food} | Wood: {wood} | Stone: {stone} | Built: {', '.join(built) if built else 'nothing'}\n"
            f"Goal: raise the beacon on or before day {self.deadline}.\n"
            f"Each settler gathers per day: {yf} food, {yw + 2 * saw} wood or {ys + 2 * quarry} stone. Every "
            "settler eats 1 food at the end of every day (building days too); if food drops below 0 the colony "
            "starves.\n"
            "A build uses the whole day (nobody gathers) and pays its cost at once:\n" + "\n".join(builds) + "\n"
            "Calendar:\n" + ("\n".join(cal) if cal else "  nothing unusual") + "\n"
            f"Last: {self.last}\n"
            "Commands (one per day): assign F W S (settlers on food, wood, stone; the rest idle), or build NAME.\n"
            "Reply with one command inside \\boxed{}, e.g. \\boxed{assign F W S} with numbers or \\boxed{build NAME}."
        )

    def _parse(self, action):
        text = str(action)[:4000]
        found = re.findall(r"\\boxed\{([^{}]*)\}", text)
        if not found:
            return None
        body = found[-1].lower()
        m = re.match(r"\s*build\s+([a-z]+)\s*$", body)
        if m:
            name = m.group(1)
            if name in ("sawmill", "quarry", "hut", "beacon"):
                return ("build", name)
            return ""
        pairs = re.findall(r"(\d{1,3})\s*(food|wood|stone)", body)
        if pairs:
            split = [0, 0, 0]
            for n, r in pairs:
                split[RES.index(r)] += int(n)
            return ("assign", tuple(split))
        m = re.match(r"\s*assign\s+(\d{1,3})\s+(\d{1,3})\s+(\d{1,3})\s*$", body)
        if m:
            return ("assign", (int(m.group(1)), int(m.group(2)), int(m.group(3))))
        return ""

    def step(self, action):
        if self.done:
            return "The season is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        act = self._parse(action)
        if act is None:
            self.last = ("No command found. Put one command inside \\boxed{}, e.g. \\boxed{assign F W S} or "
                         "\\boxed{build NAME}.")
        elif act == "":
            self.last = "Could not read that. Use assign F W S (three numbers) or build sawmill/quarry/hut/beacon."
        else:
            before = self.state
            new, result = self._apply(self.state, act)
            if new is None and result == "starved":
                self.done = True
                self.last = f"Day {before[0]}: {self._text(act)}. Food ran out and the colony starved. You lose."
                return self._observation(), 0.0, True, False, {}
            if new is None:
                self.last = f"Not possible: {result}. The day was not spent."
            elif result is True:
                self.state = new
                self.done = True
                self.last = f"Day {before[0]}: the beacon blazes on the ridge. You win!"
                return self._observation(), 1.0, True, False, {}
            else:
                self.state = new
                self.last = self._report(before, act, new)
                if new[0] > self.deadline:
                    self.done = True
                    self.last += " The deadline has passed without a beacon. You lose."
                    return self._observation(), 0.0, True, False, {}
        out_of_turns = self.turn >= self.max_turns
        if out_of_turns:
            self.done = True
            self.last += " Out of turns."
        return self._observation(), 0.0, out_of_turns, False, {}

    def _report(self, before, act, new):
        day = before[0]
        delta = [new[i] - before[i] for i in (1, 2, 3)]
        text = f"Day {day}: {self._text(act)}. Change: food {delta[0]:+d}, wood {delta[1]:+d}, stone {delta[2]:+d}."
        ev = self.events.get(day)
        if ev:
            text += " Event: " + EVENT_TEXT[ev[0]].format(n=ev[1]) + "."
        return text

    # ------------------------------------------------------------------ oracle
    def _search(self, state, budget):
        """Depth-first search for a winning action sequence; returns the first action or None."""
        bw, bs = self.costs["beacon"]
        nodes = [0]

        def hopeless(s):
            day, food, wood, stone, workers, huts, saw, quarry = s
            left = self.deadline - day  # gathering days before a beacon on the deadline
            if left < 0:
                return True
            gifts = sum(e[1] for d, e in self.events.items() if e[0] == "caravan" and d >= day)
            need_w = max(0, bw - wood - gifts)
            need_s = max(0, bs - stone)
            top_w = (workers + 2) * (self.yields[1] + 2)
            top_s = (workers + 2) * (self.yields[2] + 2) * 2
            return need_w / top_w + need_s / top_s > left + 1e-9

        def dfs(s):
            nodes[0] += 1
            if nodes[0] > budget or s in self._memo or hopeless(s):
                return False
            for act in self._ordered(s):
                new, won = self._apply(s, act)
                if new is None:
                    continue
                if won is True:
                    return act
                if dfs(new):
                    return act
            if nodes[0] <= budget:
                self._memo[s] = False
            return False

        return dfs(state) or None

    def _ordered(self, s):
        acts = self._actions(s)
        bw, bs = self.costs["beacon"]
        lack_w, lack_s = max(0, bw - s[2]), max(0, bs - s[3])

        def key(a):
            if a[0] == "build":
                return (0, a[1])
            f, w, st = a[1]
            return (1, f, -(w * lack_w + st * lack_s * 2), a[1])
        return sorted(acts, key=key)

    def solution(self):
        day = self.state[0]
        i = day - 1
        if 0 <= i < len(self._plan) and i < len(self._plan_states) and self._plan_states[i] == self.state:
            return self._text(self._plan[i])
        if self._apply(self.state, ("build", "beacon"))[1] is True:
            return "build beacon"
        act = self._search(self.state, 4000)
        if act:
            return self._text(act)
        return self._text(("assign", (self.state[4], 0, 0)))

    def hint(self):
        raised = [a[1] for a in self._plan if a[0] == "build" and a[1] != "beacon"]
        bw, bs = self.costs["beacon"]
        order = ", then ".join(raised)
        return (f"The beacon needs {bw} wood and {bs} stone: total the worker-days each material costs before "
                f"choosing. A winning season raises these buildings first, in this order: {order}; each pays for "
                "itself only if it is built early. Feed the colony with as few food gatherers as possible, but stock "
                "up before frost or wolves, and put stone gatherers on any rich-vein day.")

    def _legal_commands(self):
        return [self._text(a) for a in self._actions(self.state)]
