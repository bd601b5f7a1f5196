"""Switchboard wiring: a panel of switches drives a few bulbs through hidden logic gates; flip switches,
watch the bulbs, and name exactly which switches are wired to the target bulb before the experiment
budget runs out."""

import itertools
import random
import re

import numpy as np


class SwitchboardWiringEnv:
    LEVELS = {
        "easy": {"n": 6, "sizes": (2,), "bulbs": 2, "budget": 7},
        "medium": {"n": 8, "sizes": (2, 3), "bulbs": 3, "budget": 8},
        "hard": {"n": 10, "sizes": (2, 3), "bulbs": 4, "budget": 9},
    }
    GATE_WORDS = {
        "AND": "an AND-type gate: it lights for exactly ONE setting of its input switches",
        "OR": "an OR-type gate: it is dark for exactly ONE setting of its input switches",
        "XOR": "an XOR-type (parity) gate: flipping any one of its input switches always flips it",
    }

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        cfg = self.LEVELS[self.difficulty]
        self.n = cfg["n"]
        self.sizes = cfg["sizes"]
        self.num_bulbs = cfg["bulbs"]
        self.budget = cfg["budget"]
        self.max_turns = int(max_turns) if max_turns else self.budget + 3
        self.rng = random.Random()
        self.turn = 0
        self.used = 0
        self.done = False
        self.switches = [0] * self.n
        self.gates = []
        self.target = 0
        self.history = []
        self.last = ""
        self._answer = ""
        self._hyp_sets = []
        self._table = None
        self._starts = None
        self._alive = None
        self._start_code = 0
        self._ref_bits = ""

    # ------------------------------------------------------------------ model
    def _eval_gate(self, gate, sw):
        kind, inputs, pols, out = gate
        lits = [sw[i] ^ p for i, p in zip(inputs, pols)]
        if kind == "AND":
            v = int(all(lits))
        elif kind == "OR":
            v = int(any(lits))
        else:
            v = sum(lits) % 2
        return v ^ out

    def _random_gate(self, size):
        inputs = sorted(self.rng.sample(range(self.n), size))
        kind = self.rng.choice(["AND", "OR", "XOR"])
        if kind == "XOR":
            pols = [0] * size
            out = self.rng.randint(0, 1)
        else:
            pols = [self.rng.randint(0, 1) for _ in range(size)]
            out = 0
        return (kind, inputs, pols, out)

    def _bulbs(self):
        return [self._eval_gate(g, self.switches) for g in self.gates]

    def _build_hypotheses(self):
        n = self.n
        idx = np.arange(2 ** n)
        configs = ((idx[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
        rows, sets, starts = [], [], []
        count = 0
        for k in self.sizes:
            pats = np.array(list(itertools.product([0, 1], repeat=k)), dtype=bool)
            for subset in itertools.combinations(range(n), k):
                cols = configs[:, list(subset)]
                lits = cols[None, :, :] ^ pats[:, None, :]
                parity = (np.add.reduce(cols.astype(np.int64), axis=1) % 2).astype(bool)
                block = np.concatenate([np.logical_and.reduce(lits, axis=2), np.logical_or.reduce(lits, axis=2), parity[None, :], ~parity[None, :]], axis=0)
                starts.append(count)
                sets.append(subset)
                rows.append(block)
                count += block.shape[0]
        self._table = np.concatenate(rows, axis=0)
        self._starts = np.array(starts)
        self._hyp_sets = sets
        self._alive = np.ones(count, dtype=bool)

    def _keep_reference_consistent(self):
        # The rules promise that the start is a reference setting: flipping any single wired switch from it
        # changes the target bulb. Drop every hypothesis that breaks the promise.
        start = self._code(self.switches)
        col = self._table[:, start]
        bounds = list(self._starts) + [self._table.shape[0]]
        for g, subset in enumerate(self._hyp_sets):
            lo, hi = bounds[g], bounds[g + 1]
            ok = np.ones(hi - lo, dtype=bool)
            for i in subset:
                ok &= self._table[lo:hi, start ^ (1 << i)] != col[lo:hi]
            self._alive[lo:hi] &= ok

    def _code(self, sw):
        return sum(b << i for i, b in enumerate(sw))

    def _observe(self):
        lit = bool(self._bulbs()[self.target])
        col = self._table[:, self._code(self.switches)]
        self._alive &= (col == lit)

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn = 0
        self.used = 0
        self.done = False
        self.history = []
        self.last = "The panel is powered up. No experiments yet."
        self.target = self.rng.randrange(self.num_bulbs)
        self.gates = []
        for b in range(self.num_bulbs):
            size = self.rng.choice(self.sizes) if b == self.target else self.rng.randint(1, 3)
            self.gates.append(self._random_gate(size))
        self.switches = [self.rng.randint(0, 1) for _ in range(self.n)]
        kind, inputs, pols, out = self.gates[self.target]
        if kind != "XOR":
            # start in the target's rare state (AND: its single lit setting, OR: its single dark setting)
            for i, p in zip(inputs, pols):
                self.switches[i] = 1 - p if kind == "AND" else p
        self._answer = "answer " + " ".join(str(i + 1) for i in self.gates[self.target][1])
        self._start_code = self._code(self.switches)
        self._ref_bits = "".join(map(str, self.switches))
        self._build_hypotheses()
        self._keep_reference_consistent()
        self._observe()
        self.history.append(("start", "".join(map(str, self.switches)), self._bulbs()))
        return self._render(), {}

    def _name(self, b):
        return "ABCDEFGH"[b]

    def _render(self):
        n = self.n
        tname = self._name(self.target)
        sizes = " or ".join(str(s) for s in self.sizes)
        lines = [
            f"SWITCHBOARD  |  Turn {self.turn}/{self.max_turns}  |  Experiments left: {self.budget - self.used}/{self.budget}",
            "",
            f"A panel has {n} switches S1..S{n} and {self.num_bulbs} bulbs ({', '.join(self._name(b) for b in range(self.num_bulbs))}).",
            "Each bulb is wired to a few switches through a hidden logic gate (AND, OR or XOR; an input may be wired",
            "inverted, i.e. it counts as 'true' when its switch is OFF). Switches not wired to a bulb have no effect on it.",
            f"TARGET: bulb {tname} is wired to exactly {sizes} switches. Find exactly which ones.",
            f"The panel started in a REFERENCE setting ({self._ref_bits}): from it, flipping any ONE of bulb {tname}'s",
            "wired switches (and nothing else) changes bulb %s. Other bulbs are irrelevant to the question." % tname,
            "",
            "Current switches (S1..S%d): %s" % (n, "  ".join(f"S{i + 1}={'on' if v else 'off'}" for i, v in enumerate(self.switches))),
            "Current bulbs: " + "  ".join(f"{self._name(b)}={'LIT' if v else 'dark'}" for b, v in enumerate(self._bulbs())),
            "",
            f"Last result: {self.last}",
            "",
            f"Experiment log (switch string S1..S{n}, 1=on -> bulbs):",
        ]
        for kind, bits, bulbs in self.history[-16:]:
            lines.append(f"  {kind:>6}: {bits} -> " + " ".join(f"{self._name(b)}={'1' if v else '0'}" for b, v in enumerate(bulbs)))
        lines += [
            "",
            "Commands (one per turn, inside \\boxed{}):",
            "  \\boxed{toggle K}        flip switch SK and look at the bulbs (uses 1 experiment)",
            "  \\boxed{set BITS}        set all switches at once, BITS = %d characters of 0/1 for S1..S%d (uses 1 experiment)" % (n, n),
            f"  \\boxed{{answer I J ...}} final answer: the switch numbers wired to bulb {tname} (ends the game)",
            "A wrong final answer loses. When the experiments run out you can only answer.",
        ]
        return "\n".join(lines)

    def _finish(self, text, reward):
        self.done = True
        return text, reward, True, False, {}

    def step(self, action):
        try:
            return self._step(action)
        except Exception:
            self.turn += 1
            return "Could not understand that command. " + self._render(), 0.0, False, self.turn >= self.max_turns, {}

    def _step(self, action):
        if self.done:
            return "The game is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = str(action)
        m = re.search(r"\\boxed\{([^{}]*)\}", text)
        if m is None:
            self.last = "No command found. Put exactly one command inside \\boxed{...}."
            return self._render(), 0.0, out_of_turns, False, {}
        cmd = m.group(1).strip().lower()[:200]
        words = cmd.replace(",", " ").split()
        if not words:
            self.last = "Empty command. Use toggle, set or answer."
            return self._render(), 0.0, out_of_turns, False, {}
        verb = words[0]
        if verb == "answer":
            nums = re.findall(r"\d+", cmd)
            picked = sorted({int(x) for x in nums if len(x) < 4})
            if not picked:
                self.last = "An answer needs switch numbers, e.g. answer 1 2."
                return self._render(), 0.0, out_of_turns, False, {}
            truth = set(i + 1 for i in self.gates[self.target][1])
            chosen = set(picked)
            if chosen == truth:
                return self._finish(f"Correct! Bulb {self._name(self.target)} is wired to exactly those switches. You win.", 1.0)
            hits = len(chosen & truth)
            return self._finish(
                f"Wrong wiring: {hits} of the {len(chosen)} switches you named are wired to bulb "
                f"{self._name(self.target)}, and the true set has {len(truth)} switches. Game over.", 0.0)
        if verb in ("toggle", "flip", "set"):
            if self.used >= self.budget:
                self.last = "No experiments left: you must answer now."
                return self._render(), 0.0, out_of_turns, False, {}
            if verb == "set":
                bits = "".join(words[1:])
                if len(bits) != self.n or any(c not in "01" for c in bits):
                    self.last = f"set needs exactly {self.n} characters of 0/1 (S1..S{self.n}), e.g. set {'01' * (self.n // 2)}{'0' * (self.n % 2)}."
                    return self._render(), 0.0, out_of_turns, False, {}
                self.switches = [int(c) for c in bits]
                label = "set"
            else:
                if len(words) < 2 or not words[1].lstrip("s").isdigit() or len(words[1]) > 4:
                    self.last = f"toggle needs a switch number 1..{self.n}, e.g. toggle 3."
                    return self._render(), 0.0, out_of_turns, False, {}
                k = int(words[1].lstrip("s"))
                if not 1 <= k <= self.n:
                    self.last = f"There is no switch S{k}; switches are S1..S{self.n}."
                    return self._render(), 0.0, out_of_turns, False, {}
                self.switches[k - 1] ^= 1
                label = f"tog S{k}"
            self.used += 1
            before = self.history[-1][2][self.target]
            now = self._bulbs()
            self._observe()
            self.history.append((label, "".join(map(str, self.switches)), now))
            change = "changed" if now[self.target] != before else "did not change"
            self.last = (f"Experiment {self.used}: bulb {self._name(self.target)} is "
                         f"{'LIT' if now[self.target] else 'dark'} ({change} since the previous setting).")
            return self._render(), 0.0, out_of_turns, False, {}
        self.last = f"Unknown command '{verb[:20]}'. Use toggle K, set BITS or answer I J ..."
        return self._render(), 0.0, out_of_turns, False, {}

    def _best_config(self):
        alive = self._alive
        table = self._table
        live = table & alive[:, None]
        dead = (~table) & alive[:, None]
        any1 = np.logical_or.reduceat(live, self._starts, axis=0)
        any0 = np.logical_or.reduceat(dead, self._starts, axis=0)
        worst = np.maximum(np.add.reduce(any1, axis=0), np.add.reduce(any0, axis=0))
        h1 = np.add.reduce(live, axis=0)
        h0 = np.add.reduce(dead, axis=0)
        score = worst * 100000 + np.maximum(h1, h0)
        # index candidates relative to the starting setting so the search treats every start alike
        order = np.arange(score.shape[0]) ^ self._start_code
        return int(np.argmin(score[order])) ^ self._start_code

    def solution(self):
        alive_sets = [s for s, a in zip(self._hyp_sets, np.logical_or.reduceat(self._alive, self._starts)) if a]
        if len(alive_sets) <= 1 or self.used >= self.budget:
            return self._answer
        code = self._best_config()
        bits = "".join(str((code >> i) & 1) for i in range(self.n))
        return "set " + bits

    def hint(self):
        kind, inputs, pols, out = self.gates[self.target]
        tname = self._name(self.target)
        if kind == "XOR":
            rule = ("flipping a GROUP of switches from the reference changes it exactly when the group holds an ODD "
                    "number of its wired switches (two wired switches cancel out)")
        else:
            rule = ("flipping a GROUP of switches from the reference changes it exactly when the group holds AT LEAST "
                    "ONE of its wired switches")
        return (f"Bulb {tname} is {self.GATE_WORDS[kind]}; it has {len(inputs)} wired switches. Always measure from "
                f"the reference setting (use set to return to it): once a wired switch is flipped, the others may "
                f"stop mattering. From the reference, {rule}. Test halves of the remaining candidates instead of "
                f"one switch at a time, and keep a written list of which switches are still possible.")
