"""Reagent recipe: two hidden reagent pairs each form an intermediate, the intermediates combine into the
target compound, and some reagents secretly destroy an intermediate; mix sets of reagents, read what
remains in the flask, and submit the smallest recipe that makes the target before the experiments run out."""

import itertools
import random
import re

import numpy as np

REAGENTS = [
    "Azure", "Brine", "Cinder", "Dusk", "Ember", "Frost", "Gallium", "Hollow", "Ichor", "Jade", "Kelp", "Lye",
    "Marl", "Nitre", "Pitch", "Quartz", "Rust", "Sulfur", "Tallow", "Umber",
]
COMPOUNDS = [
    "Verdite", "Ochrine", "Zephyrine", "Lumenite", "Crimsol", "Glaucite", "Sablite", "Auralith", "Mordane",
    "Pyrrhite", "Celadon", "Vitriane",
]


class ReagentRecipeEnv:
    LEVELS = {
        "easy": {"n": 6, "spoilers": 0, "byproducts": 1, "budget": 7},
        "medium": {"n": 7, "spoilers": 1, "byproducts": 1, "budget": 9},
        "hard": {"n": 7, "spoilers": 2, "byproducts": 2, "budget": 10},
    }

    def __init__(self, max_turns=13, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        cfg = self.LEVELS[self.difficulty]
        self.n = cfg["n"]
        self.n_spoilers = cfg["spoilers"]
        self.n_byproducts = cfg["byproducts"]
        self.budget = cfg["budget"]
        self.max_turns = int(max_turns) if max_turns else self.budget + 3
        self.rng = random.Random()
        self.reagents = []
        self.inter = []
        self.target = ""
        self.pairs = []
        self.spoil = {}
        self.byproducts = []
        self.used = 0
        self.turn = 0
        self.done = False
        self.log = []
        self.last = ""
        self._hyp = None
        self._out = None
        self._alive = None
        self._starts = None
        self._recipes = []
        self._valid = None

    # ------------------------------------------------------------------ chemistry
    def _react(self, mask):
        """What is left in the flask after mixing the reagents in `mask` (bit i = reagent i)."""
        made = []
        for idx, (a, b) in enumerate(self.pairs):
            if mask >> a & 1 and mask >> b & 1:
                spoiled = any(mask >> q & 1 for q, tgt in self.spoil.items() if tgt == idx)
                if not spoiled:
                    made.append(idx)
        products = []
        if made == [0, 1]:
            products.append(self.target)
        else:
            products += [self.inter[i] for i in made]
        for (a, b), name in self.byproducts:
            if mask >> a & 1 and mask >> b & 1:
                products.append(name)
        return products

    def _outcome(self, mask):
        made = 0
        for idx, (a, b) in enumerate(self.pairs):
            if mask >> a & 1 and mask >> b & 1 and not any(mask >> q & 1 for q, t in self.spoil.items() if t == idx):
                made |= 1 << idx
        return made

    def _build_hypotheses(self):
        n = self.n
        masks = np.arange(2 ** n)
        pair_list = list(itertools.combinations(range(n), 2))
        pair_id = {p: k for k, p in enumerate(pair_list)}
        pair_ok = np.array([(masks & ((1 << a) | (1 << b))) == ((1 << a) | (1 << b)) for a, b in pair_list])
        # blocked[q] = the mask contains reagent q; row n = "no destroyer" (never blocked)
        blocked = np.array([((masks >> q) & 1) == 1 for q in range(n)] + [masks < 0])
        rows = []
        for p1 in pair_list:
            rest1 = [r for r in range(n) if r not in p1]
            for p2 in itertools.combinations(rest1, 2):
                rest = [r for r in rest1 if r not in p2]
                recipe = sum(1 << r for r in p1 + p2)
                if self.n_spoilers == 0:
                    spoilers = [(n, n)]
                elif self.n_spoilers == 1:
                    spoilers = [(q, n) for q in rest] + [(n, q) for q in rest]
                else:
                    spoilers = [(q1, q2) for q1 in rest for q2 in rest if q1 != q2]
                for q1, q2 in spoilers:
                    rows.append((recipe, pair_id[p1], pair_id[p2], q1, q2))
        rows.sort()
        arr = np.array(rows)
        ok1 = pair_ok[arr[:, 1]] & ~blocked[arr[:, 3]]
        ok2 = pair_ok[arr[:, 2]] & ~blocked[arr[:, 4]]
        self._out = ok1.astype(np.int8) + 2 * ok2.astype(np.int8)
        starts, recipes = [], []
        for h, row in enumerate(rows):
            if not recipes or recipes[-1] != row[0]:
                starts.append(h)
                recipes.append(row[0])
        self._starts = np.array(starts)
        self._recipes = recipes
        self._alive = np.ones(len(rows), dtype=bool)
        pop = np.zeros(2 ** n, dtype=np.int64)
        for i in range(n):
            pop = pop + ((masks >> i) & 1)
        self._valid = pop >= 2

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n = self.n
        self.reagents = self.rng.sample(REAGENTS, n)
        names = self.rng.sample(COMPOUNDS, 3 + self.n_byproducts)
        self.inter = names[:2]
        self.target = names[2]
        order = list(range(n))
        self.rng.shuffle(order)
        self.pairs = [tuple(sorted(order[0:2])), tuple(sorted(order[2:4]))]
        rest = order[4:]
        self.spoil = {}
        if self.n_spoilers == 1:
            self.spoil[rest[0]] = self.rng.randint(0, 1)
        elif self.n_spoilers == 2:
            self.spoil[rest[0]] = 0
            self.spoil[rest[1]] = 1
        self.byproducts = []
        taken = set(self.pairs)
        for b in range(self.n_byproducts):
            while True:
                pair = tuple(sorted(self.rng.sample(range(n), 2)))
                if pair not in taken:
                    break
            taken.add(pair)
            self.byproducts.append((pair, names[3 + b]))
        self._build_hypotheses()
        self.used = 0
        self.turn = 0
        self.done = False
        self.log = []
        self.last = "The lab is ready. No experiments yet."
        return self._render(), {}

    def _render(self):
        i1, i2 = self.inter
        rules = [
            f"REAGENT LAB  |  Turn {self.turn}/{self.max_turns}  |  Experiments left: {self.budget - self.used}/{self.budget}",
            "",
            f"Base reagents (unlimited supply): {', '.join(self.reagents)}.",
            f"Goal: find the SMALLEST set of base reagents that produces {self.target} when mixed together.",
            "",
            "What the lab notes say:",
            f"  - {i1} forms when one particular PAIR of base reagents is in the mix; {i2} forms from another pair",
            "    (the two pairs share no reagent). Which pairs is unknown.",
            f"  - Whenever {i1} and {i2} form in the same mix they combine completely into {self.target}.",
        ]
        if self.n_spoilers == 1:
            rules.append(f"  - Exactly ONE other base reagent destroys either {i1} or {i2} (not known which) as soon as it forms.")
        elif self.n_spoilers == 2:
            rules.append(f"  - One other base reagent destroys {i1} and a different one destroys {i2} as soon as they form.")
        rules += [
            "  - Some other pairs form harmless by-products that do not interact with anything.",
            "  - A mix reports only what is left in the flask at the end.",
            "",
            f"Last result: {self.last}",
        ]
        if self.log:
            rules.append("Experiment log:")
            rules += [f"  {i + 1}. {mix} -> {res}" for i, (mix, res) in enumerate(self.log)]
        rules += [
            "",
            "Commands (one per turn, inside \\boxed{}):",
            "  \\boxed{mix R1 R2 ...}      mix two or more base reagents and see what remains (uses 1 experiment)",
            f"  \\boxed{{recipe R1 R2 ...}}   submit the smallest set that makes {self.target} (ends the game)",
            "A wrong recipe loses. When the experiments run out you can only submit.",
        ]
        return "\n".join(rules)

    def _parse_reagents(self, words):
        idx = set()
        for w in words:
            found = None
            for i, name in enumerate(self.reagents):
                if name.lower() == w.lower():
                    found = i
            if found is None:
                return None, w
            idx.add(found)
        return idx, None

    def step(self, action):
        try:
            return self._step(action)
        except Exception:
            self.turn += 1
            return "Could not understand that command.\n" + self._render(), 0.0, False, self.turn >= self.max_turns, {}

    def _step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        if m is None:
            self.last = "No command found. Use \\boxed{mix ...} or \\boxed{recipe ...}."
            return self._render(), 0.0, out_of_turns, False, {}
        words = m.group(1).replace(",", " ").replace("+", " ").split()[:30]
        if not words or words[0].lower() not in ("mix", "recipe"):
            self.last = "Unknown command. Use mix R1 R2 ... or recipe R1 R2 ... with reagent names from the list."
            return self._render(), 0.0, out_of_turns, False, {}
        verb = words[0].lower()
        idx, bad = self._parse_reagents(words[1:])
        if idx is None:
            self.last = f"'{bad[:20]}' is not a base reagent. Use names from the list."
            return self._render(), 0.0, out_of_turns, False, {}
        mask = sum(1 << i for i in idx)
        if verb == "recipe":
            self.done = True
            products = self._react(mask)
            names = ", ".join(self.reagents[i] for i in sorted(idx)) or "nothing"
            if self.target in products and len(idx) == 4:
                return (f"Correct! Mixing {names} yields {self.target}, and no smaller set does. You win.",
                        1.0, True, False, {})
            if self.target in products:
                return (f"Mixing {names} does yield {self.target}, but the set is not the smallest one. Game over.",
                        0.0, True, False, {})
            return (f"Mixing {names} leaves {', '.join(products) if products else 'nothing'}, no {self.target}. "
                    "Game over.", 0.0, True, False, {})
        if len(idx) < 2:
            self.last = "A mix needs at least two different base reagents."
            return self._render(), 0.0, out_of_turns, False, {}
        if self.used >= self.budget:
            self.last = "No experiments left: submit your recipe now."
            return self._render(), 0.0, out_of_turns, False, {}
        self.used += 1
        products = self._react(mask)
        outcome = self._outcome(mask)
        self._alive &= self._out[:, mask] == outcome
        res = ", ".join(products) if products else "nothing"
        mix = " + ".join(self.reagents[i] for i in sorted(idx))
        self.log.append((mix, res))
        self.last = f"Experiment {self.used}: {mix} -> {res}."
        return self._render(), 0.0, out_of_turns, False, {}

    def _best_mix(self):
        alive = self._alive
        starts = self._starts
        worst = None
        hyp_worst = None
        for o in range(4):
            hit = (self._out == o) & alive[:, None]
            groups = np.add.reduce(np.logical_or.reduceat(hit, starts, axis=0), axis=0)
            hyps = np.add.reduce(hit, axis=0)
            worst = groups if worst is None else np.maximum(worst, groups)
            hyp_worst = hyps if hyp_worst is None else np.maximum(hyp_worst, hyps)
        score = hyp_worst.astype(np.int64) * 100000 + worst
        score = np.where(self._valid, score, 10 ** 12)
        return int(np.argmin(score))

    def _alive_recipes(self):
        live = np.logical_or.reduceat(self._alive, self._starts)
        return [r for r, a in zip(self._recipes, live) if a]

    def solution(self):
        recipes = self._alive_recipes()
        if len(recipes) <= 1 or self.used >= self.budget:
            mask = sum(1 << r for p in self.pairs for r in p)
            return "recipe " + " ".join(self.reagents[i] for i in range(self.n) if mask >> i & 1)
        mask = self._best_mix()
        return "mix " + " ".join(self.reagents[i] for i in range(self.n) if mask >> i & 1)

    def hint(self):
        i1, i2 = self.inter
        text = (f"Treat each flask as a test of hypotheses. {i1} appears only if its whole pair is present (and its "
                f"destroyer is absent), so removing a group of reagents from a mix that made {i1} tells you whether "
                f"the group held a needed partner. Start from a big mix, then drop halves to locate each pair; "
                f"seeing {self.target} means both intermediates formed. Keep a list of which pairs are still possible.")
        if self.spoil:
            text += (" A missing intermediate in a mix that should contain its pair points to a destroyer: "
                     "find it by removing reagents that cannot be in either pair.")
        a = self.reagents[self.pairs[0][0]]
        text += f" For a head start: {a} is one of the two reagents that form {i1}."
        return text
