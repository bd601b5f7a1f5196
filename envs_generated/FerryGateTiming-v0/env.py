"""Ferry gate timing: the harbour gate opens on the first tick its coloured lamps are all lit while the red
lamp is dark. Levers light lamps after stated delays (some through a relay, some with a red side effect), for
stated durations. The ferry docks on a tick nobody knows in advance; from then on the agent pulls one lever or
waits per tick so that the gate opens exactly the stated number of ticks after docking, not a tick earlier."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
LETTERS = "ABCDEFGHJK"
# difficulty -> (required lamps, ticks after docking, levers, red side effects allowed)
LEVELS = {"easy": (2, 3, 4, True), "medium": (2, 4, 5, True), "hard": (3, 4, 7, True)}
LAMPS = ["amber", "blue", "green"]


class FerryGateTimingEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        k = LEVELS[self.difficulty][1]
        # docking comes on tick 1-4, the gate is due k ticks later
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns >= 4 + k else 4 + k
        self.rng = random.Random()
        self.levers = {}
        self.pulls = []
        self.tick = 0
        self.dock = 1
        self.done = False

    # ------------------------------------------------------------------ causal model
    def _lit(self, lamp, t, pulls):
        for name, when in pulls:
            for lp, start, dur in self.levers[name]["effects"]:
                if lp == lamp and when + start <= t < when + start + dur:
                    return True
        return False

    def _opens(self, t, pulls):
        return all(self._lit(lp, t, pulls) for lp in self.lamps) and not self._lit("red", t, pulls)

    def _plan_ok(self, pulls, now, target):
        return self._opens(target, pulls) and not any(self._opens(t, pulls) for t in range(now + 1, target))

    def _plans(self, now, target, done):
        """Every way to finish from tick `now`: one pull per tick, one lever per required lamp not yet
        served by a pull made since docking (earlier pulls are kept in the check)."""
        out = []
        times = range(now, target)
        served = {self.levers[n]["effects"][0][0] for n, t in done if t >= self.dock}
        todo = [lp for lp in self.lamps if lp not in served]

        def rec(i, chosen):
            if i == len(todo):
                pulls = done + chosen
                if self._plan_ok(pulls, now, target):
                    out.append(sorted(chosen, key=lambda p: p[1]))
                return
            for name in sorted(self.levers):
                lamp, d, w = self.levers[name]["effects"][0]
                if lamp != todo[i]:
                    continue
                for t in times:
                    # only a pull whose window covers the due tick can serve its lamp: prune the rest
                    if t + d <= target < t + d + w and all(t != c[1] for c in chosen):
                        rec(i + 1, chosen + [(name, t)])
        rec(0, [])
        return out

    def _reflex(self, k, late):
        """A timing reflex without planning: per tick, pull the first lever of an unserved lamp whose window
        covers the due tick (at the earliest tick it does, or at the last), red side effects avoided."""
        pulls, served = [], set()
        for now in range(k):
            for name in sorted(self.levers):
                lamp, d, w = self.levers[name]["effects"][0]
                red = any(now + st <= k < now + st + du for _, st, du in self.levers[name]["effects"][1:])
                cover = now + d <= k < now + d + w and (not late or now + 1 + d > k)
                if lamp not in served and cover and not red:
                    pulls.append((name, now))
                    served.add(lamp)
                    break
        return self._plan_ok(pulls, 0, k)

    def _make_lever(self, lamp, k, fancy):
        rng = self.rng
        links = [rng.randint(1, k)]
        if rng.random() < 0.5 and links[0] < k:
            links.append(rng.randint(1, k - links[0]))
        dur = rng.randint(1, 4)
        effects = [(lamp, sum(links), dur)]
        if fancy and rng.random() < 0.35:
            effects.append(("red", rng.randint(1, k), rng.randint(1, 2)))
        return {"links": links, "effects": effects}

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        nl, k, nv, fancy = LEVELS[self.difficulty]
        self.lamps = LAMPS[:nl]
        for attempt in range(10 ** 6):
            names = rng.sample(LETTERS, nv)
            self.levers = {}
            for i, name in enumerate(names):
                lamp = self.lamps[i % nl] if i < 2 * nl else rng.choice(self.lamps)
                self.levers[name] = self._make_lever(lamp, k, fancy)
            self.target, self.dock = k, 0
            if attempt < 1500 and (self._reflex(k, False) or self._reflex(k, True)):
                continue  # the cheap rejections first: a reset stays within milliseconds
            plans = self._plans(0, k, [])
            # few winning schedules, and in none of them do all lamps light on the due tick itself: the
            # reflex "pull each lever so its lamp lights exactly on time" never wins, durations matter; nor
            # does pulling whatever covers the due tick as early (or as late) as it can
            late = [p for p in plans if all(t + self.levers[n]["effects"][0][1] == k for n, t in p)]
            if plans and ((len(plans) <= 6 and not late) or attempt >= 2500):
                break
        self.dock = rng.randint(1, 4)
        self.target = self.dock + k
        self.pulls = []
        self.tick = 0
        self.done = False
        lines = []
        for name in sorted(self.levers):
            lv = self.levers[name]
            lamp, start, dur = lv["effects"][0]
            if len(lv["links"]) == 1:
                txt = f"Lever {name}: lights the {lamp.upper()} lamp {start} tick(s) after it is pulled"
            else:
                a, b = lv["links"]
                txt = (f"Lever {name}: energises a relay {a} tick(s) after it is pulled; the relay lights the "
                       f"{lamp.upper()} lamp {b} tick(s) after that")
            txt += f"; the lamp stays lit for {dur} tick(s)."
            for _lamp, st, du in lv["effects"][1:]:
                txt += f" It also lights the RED lamp {st} tick(s) after the pull, for {du} tick(s)."
            lines.append(txt)
        intro = ("FERRY GATE TIMING\n"
                 f"The harbour gate opens on the first tick on which the {', '.join(x.upper() for x in self.lamps)} "
                 "lamps are all lit and the RED lamp is dark. A lamp lit by a pull on tick t with delay d and "
                 "duration w is lit on ticks t+d to t+d+w-1. The levers:\n" + "\n".join(lines) +
                 f"\nThe ferry docks on an unknown tick (1 to 4). The gate must open EXACTLY {k} ticks after the "
                 "tick the ferry docks: opening on any other tick, or not by then, loses. Each turn is one tick: "
                 "reply \\boxed{pull X} to pull lever X now, or \\boxed{wait}.\n" + self._status())
        return intro, {}

    def _status(self):
        lit = [lp for lp in self.lamps + ["red"] if self._lit(lp, self.tick, self.pulls)]
        s = f"Tick {self.tick}. Lit now: {', '.join(lit) if lit else 'nothing'}."
        if self.tick >= self.dock:
            s += f" The ferry docked on tick {self.dock}: the gate must open on tick {self.target}."
        else:
            s += " The ferry has not docked yet."
        return s

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        found = BOX_RE.findall(str(action)[:5000])
        got = re.sub(r"\s+", " ", found[-1]).strip().lower() if found else ""
        m = re.fullmatch(r"pull (?:lever )?([a-z])", got)
        note = ""
        if m and m.group(1).upper() in self.levers:
            self.pulls.append((m.group(1).upper(), self.tick))
            note = f"You pulled lever {m.group(1).upper()}. "
        elif got != "wait":
            note = "Not a lever pull; the tick passes. "
        self.tick += 1
        if self._opens(self.tick, self.pulls):
            self.done = True
            if self.tick == self.target:
                return note + f"Tick {self.tick}: the gate opens right on time. You win!", 1.0, True, False, {}
            return note + f"Tick {self.tick}: the gate opens, but it was due on tick {self.target}. You lose.", \
                0.0, True, False, {}
        if self.tick >= self.target:
            self.done = True
            return note + f"Tick {self.tick}: the gate is still shut. You lose.", 0.0, True, False, {}
        return note + self._status(), 0.0, False, False, {}

    def solution(self):
        if self.tick < self.dock:
            return "wait"
        plans = self._plans(self.tick, self.target, list(self.pulls))
        if plans and plans[0] and plans[0][0][1] == self.tick:
            return f"pull {plans[0][0][0]}"
        return "wait"

    def hint(self):
        return ("Nothing useful can be pulled before the ferry docks. Add up the delays along each lever's path "
                "(relay links included) and list each lamp's lit window for every pull tick; work back from the "
                "due tick so that the last lamp to light starts exactly then while the others are still lit, and "
                "check that no red window covers the due tick and no earlier tick has all lamps lit.")
