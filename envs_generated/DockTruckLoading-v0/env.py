"""Dock truck loading: parcels arrive at a loading dock one at a time, in an order announced in full at the start.
Each turn the current parcel must be committed to a truck for good: an open truck with room, or a new one. Trucks
carry a weight limit, and on the harder levels a fragile parcel closes its truck to heavy parcels loaded after it.
Load every parcel using no more trucks than the best possible plan for this sequence (the program computes it
exactly). The rules that load the first truck with room, the fullest, the emptiest, or only the newest truck all
need an extra truck on every sequence dealt, and so does packing the heaviest parcels first, so the player has to
plan the whole partition ahead."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
# difficulty -> (parcels, capacity choices, fragile parcels, light limit for a truck holding a fragile parcel)
LEVELS = {
    "easy": (7, (10, 11, 12), 1, 3),
    "medium": (8, (11, 12, 13), 2, 3),
    "hard": (9, (12, 13, 14), 3, 3),
}


class DockTruckLoadingEnv:
    def __init__(self, max_turns=10, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n, self.capacities, self.n_fragile, self.light = LEVELS[self.difficulty]
        self.max_turns = max(max_turns, self.n + 3)
        self.rng = random.Random()
        self.weights = []
        self.fragile = []
        self.capacity = 10
        self.target = 0
        self._memo = {}
        self._start()

    def _start(self):
        self.index = 0
        self.trucks = []  # per truck: list of parcel indices, in loading order
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ rules and exact optimum
    def _fits(self, load, closed, i):
        """Whether parcel i may go into a truck with `load` kg aboard (`closed`: a fragile parcel is aboard)."""
        w = self.weights[i]
        return load + w <= self.capacity and not (closed and w > self.light)

    def _state(self, trucks):
        return tuple((sum(self.weights[j] for j in t), any(self.fragile[j] for j in t)) for t in trucks)

    def _best(self, index, state):
        """Fewest trucks that can carry every parcel, given the trucks in `state` (load, closed) after `index`
        parcels are placed. Trucks are interchangeable, so the state is kept sorted."""
        key = (index, tuple(sorted(state)))
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        if index >= self.n:
            best = len(state)
        else:
            w, frag = self.weights[index], self.fragile[index]
            best = self._best(index + 1, state + ((w, frag),))
            seen = set()
            for k, (load, closed) in enumerate(state):
                if (load, closed) in seen or not self._fits(load, closed, index):
                    continue
                seen.add((load, closed))
                nxt = state[:k] + ((load + w, closed or frag),) + state[k + 1:]
                best = min(best, self._best(index + 1, nxt))
        self._memo[key] = best
        return best

    def _greedy(self, rule):
        """Trucks used by an online rule that never looks ahead."""
        loads, closed = [], []
        for i in range(self.n):
            ok = [k for k in range(len(loads)) if self._fits(loads[k], closed[k], i)]
            if rule == "next":
                ok = [k for k in ok if k == len(loads) - 1]
            if not ok:
                loads.append(self.weights[i])
                closed.append(self.fragile[i])
                continue
            if rule == "best":
                k = max(ok, key=lambda t: (loads[t], -t))
            elif rule == "worst":
                k = min(ok, key=lambda t: (loads[t], t))
            else:  # first, next
                k = ok[0]
            loads[k] += self.weights[i]
            closed[k] = closed[k] or self.fragile[i]
        return len(loads)

    def _sorted_plan_wins(self, rule):
        """Whether packing the parcels heaviest first (first or fullest truck with room, weight limit only) and then
        loading them in arrival order by that packing meets the target: the offline rule of thumb."""
        bins = []
        for i in sorted(range(self.n), key=lambda j: (-self.weights[j], j)):
            ok = [b for b in bins if sum(self.weights[j] for j in b) + self.weights[i] <= self.capacity]
            if not ok:
                bins.append([i])
                continue
            b = max(ok, key=lambda b: sum(self.weights[j] for j in b)) if rule == "best" else ok[0]
            b.append(i)
        if len(bins) > self.target:
            return False
        for b in bins:
            closed = False
            for j in sorted(b):
                if closed and self.weights[j] > self.light:
                    return False
                closed = closed or self.fragile[j]
        return True

    def _luck(self, index, state):
        """Chance that loading each parcel into a uniformly random allowed truck (or a new one) meets the target."""
        if self._best(index, state) > self.target:
            return 0.0
        if index >= self.n:
            return 1.0
        w, frag = self.weights[index], self.fragile[index]
        options = [state + ((w, frag),)]
        for k, (load, closed) in enumerate(state):
            if self._fits(load, closed, index):
                options.append(state[:k] + ((load + w, closed or frag),) + state[k + 1:])
        return sum(self._luck(index + 1, s) for s in options) / len(options)

    # ------------------------------------------------------------------ episode
    def _draw(self):
        rng = self.rng
        self.capacity = rng.choice(self.capacities)
        self.weights = [rng.randint(2, self.capacity - 3) for _ in range(self.n)]
        self.fragile = [False] * self.n
        for i in rng.sample(range(self.n - 1), self.n_fragile):
            self.fragile[i] = True

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(600):
            self._draw()
            self._memo = {}
            self.target = self._best(0, ())
            # every look-ahead-free rule must need an extra truck, and loading at random must rarely do as well
            if any(self._greedy(rule) <= self.target for rule in ("first", "best", "next", "worst")):
                continue
            if self._sorted_plan_wins("first") or self._sorted_plan_wins("best"):
                continue
            if self._luck(0, ()) <= 0.08:
                break
        self._start()
        return self._render("The first parcel is on the dock."), {}

    def _render(self, last):
        lines = []
        for i, w in enumerate(self.weights):
            where = next((f"in truck {k + 1}" for k, t in enumerate(self.trucks) if i in t), None)
            if where is None:
                where = "ON THE DOCK NOW" if i == self.index and not self.done else "still to come"
            lines.append(f"  parcel {i + 1}: {w} kg{', FRAGILE' if self.fragile[i] else ''} - {where}")
        trucks = []
        for k, t in enumerate(self.trucks):
            load = sum(self.weights[j] for j in t)
            note = (f"; a fragile parcel is aboard, so it takes nothing over {self.light} kg now"
                    if any(self.fragile[j] for j in t) else "")
            trucks.append(f"  truck {k + 1}: {load}/{self.capacity} kg (parcels "
                          f"{', '.join(str(j + 1) for j in t)}){note}")
        rules = f"Every truck carries at most {self.capacity} kg."
        if self.n_fragile:
            rules += (f" Once a FRAGILE parcel is in a truck, no parcel over {self.light} kg may be loaded into that "
                      "truck after it (parcels loaded before it do not matter).")
        return ("DOCK TRUCK LOADING\nParcels, arriving in this order:\n" + "\n".join(lines) + "\n"
                "Trucks:\n" + ("\n".join(trucks) if trucks else "  none opened yet") + "\n"
                f"{rules} A loaded parcel stays where it is.\n"
                f"Goal: load every parcel using at most {self.target} trucks.\n"
                "Put the parcel on the dock into an open truck with \\boxed{2}, or into a new truck with "
                "\\boxed{new}.\n"
                f"Last: {last}")

    def _lost(self, last):
        self.done = True
        return self._render(last), 0.0, True, False, {}

    def step(self, action):
        if self.done:
            return "Loading is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:20000])
        body = m.group(1).strip().lower() if m else ""
        body = re.sub(r"^truck\s*", "", body)
        i = self.index
        if body in ("new", "new truck", str(len(self.trucks) + 1)):
            k = len(self.trucks)
        elif re.fullmatch(r"\d{1,4}", body) and 1 <= int(body) <= len(self.trucks):
            k = int(body) - 1
        else:
            k = None
        if k is None:
            last = (f"No truck read (turn lost, parcel {i + 1} is still on the dock): write \\boxed{{1}} for truck 1 "
                    "or \\boxed{new}.")
        elif k < len(self.trucks) and not self._fits(*self._state([self.trucks[k]])[0], i):
            last = f"Parcel {i + 1} may not go into truck {k + 1} (turn lost, it is still on the dock)."
        else:
            if k == len(self.trucks):
                self.trucks.append([])
            self.trucks[k].append(i)
            self.index += 1
            last = f"Parcel {i + 1} ({self.weights[i]} kg) loaded into truck {k + 1}."
            best = self._best(self.index, self._state(self.trucks))
            if self.index >= self.n:
                self.done = True
                return self._render(last + f" All parcels loaded in {len(self.trucks)} trucks. You win!"), \
                    1.0, True, False, {}
            if best > self.target:
                return self._lost(last + f" Now at least {best} trucks are needed, more than {self.target}. "
                                         "You lose.")
        if self.turn >= self.max_turns:
            return self._lost(last + " Out of turns: you lose.")
        return self._render(last), 0.0, False, False, {}

    def _plan_move(self, index, trucks):
        """The lowest-numbered truck (or len(trucks) for a new one) that keeps the target reachable."""
        state = self._state(trucks)
        w, frag = self.weights[index], self.fragile[index]
        for k, (load, closed) in enumerate(state):
            if self._fits(load, closed, index):
                nxt = state[:k] + ((load + w, closed or frag),) + state[k + 1:]
                if self._best(index + 1, nxt) <= self.target:
                    return k
        return len(trucks)

    def solution(self):
        if self.done:
            return "\\boxed{new}"
        k = self._plan_move(self.index, self.trucks)
        return "\\boxed{new}" if k == len(self.trucks) else "\\boxed{" + str(k + 1) + "}"

    def hint(self):
        # the truck loads of one best plan from here: a goal to aim for, not the order of moves
        trucks = [list(t) for t in self.trucks]
        for index in range(self.index, self.n):
            k = self._plan_move(index, trucks)
            if k == len(trucks):
                trucks.append([])
            trucks[k].append(index)
        loads = sorted((sum(self.weights[j] for j in t) for t in trucks), reverse=True)
        return (f"A best plan ends with {len(trucks)} trucks loaded to " + ", ".join(f"{x} kg" for x in loads) +
                ". Work out which parcels make up each load before committing the one on the dock; a truck that "
                "has taken a fragile parcel is closed to heavy ones, so load heavy parcels into it before a fragile "
                "one, or keep them elsewhere.")
