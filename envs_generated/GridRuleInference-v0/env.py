"""Grid Rule Inference: ARC-style puzzles where example input/output grids of symbols share one hidden transformation (a rotation or reflection, a one-to-one recolouring, and on hard a wrap-around shift); infer it and write out the transformed test grid row by row."""
import random
import re

SYMBOLS = "#ox+*@=%"
GEOMS = ["identity", "rot90", "rot180", "rot270", "flip_lr", "flip_ud", "transpose", "anti_transpose"]
GEOM_TEXT = {
    "identity": "no rotation or reflection",
    "rot90": "a quarter turn clockwise",
    "rot180": "a half turn",
    "rot270": "a quarter turn counter-clockwise",
    "flip_lr": "a mirror image left-to-right",
    "flip_ud": "an upside-down flip",
    "transpose": "a reflection across the main diagonal (rows become columns)",
    "anti_transpose": "a reflection across the anti-diagonal",
}


def _geom(g, grid):
    h, w = len(grid), len(grid[0])
    if g == "identity":
        return list(grid)
    if g == "rot90":
        return ["".join(grid[h - 1 - c][r] for c in range(h)) for r in range(w)]
    if g == "rot180":
        return [row[::-1] for row in grid[::-1]]
    if g == "rot270":
        return ["".join(grid[c][w - 1 - r] for c in range(h)) for r in range(w)]
    if g == "flip_lr":
        return [row[::-1] for row in grid]
    if g == "flip_ud":
        return list(grid[::-1])
    if g == "transpose":
        return ["".join(grid[c][r] for c in range(h)) for r in range(w)]
    return ["".join(grid[h - 1 - c][w - 1 - r] for c in range(h)) for r in range(w)]


def _shift(grid, dr, dc):
    h, w = len(grid), len(grid[0])
    return ["".join(grid[(r - dr) % h][(c - dc) % w] for c in range(w)) for r in range(h)]


def _recolour(grid, mapping):
    return ["".join(mapping.get(ch, ch) for ch in row) for row in grid]


class GridRuleInferenceEnv:
    # difficulty -> (rows range, cols range, examples, use shift)
    LEVELS = {
        "easy": ((3, 4), (3, 4), 3, False),
        "medium": ((4, 5), (4, 5), 3, False),
        "hard": ((5, 6), (5, 6), 3, True),
    }

    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.rows, self.cols, self.n_examples, self.use_shift = self.LEVELS[self.difficulty]
        self.rng = random.Random()
        self.geom = "identity"
        self.mapping = {}
        self.offset = (0, 0)
        self.examples = []
        self.test = []
        self.turn = 0
        self.done = False
        self.tries = []
        self._answer = []

    def _apply(self, grid, geom, mapping, offset):
        out = _geom(geom, grid)
        if offset != (0, 0):
            out = _shift(out, offset[0], offset[1])
        return _recolour(out, mapping)

    def _random_grid(self, h, w, palette):
        density = self.rng.uniform(0.45, 0.7)
        return ["".join(self.rng.choice(palette) if self.rng.random() < density else "." for _ in range(w))
                for _ in range(h)]

    def _draw_rule(self, palette):
        r = self.rng
        level = self.difficulty
        geom = r.choice(GEOMS[1:])
        recolour = True
        if level == "easy":
            if r.random() < 0.5:
                recolour = False
            else:
                geom = "identity"
        mapping = {}
        if recolour:
            moved = r.sample(palette, r.choice([2, 3]) if level != "easy" else 2)
            if len(moved) == 2:
                mapping = {moved[0]: moved[1], moved[1]: moved[0]}
            else:
                mapping = {moved[0]: moved[1], moved[1]: moved[2], moved[2]: moved[0]}
            if level != "easy" and r.random() < 0.4:
                extra = [s for s in palette if s not in mapping]
                if extra:
                    mapping["."] = extra[0]
                    mapping[extra[0]] = "."
        offset = (0, 0)
        if self.use_shift:
            offset = (r.randint(0, 3), r.randint(0, 3))
            if offset == (0, 0):
                offset = (1, 2)
        return geom, mapping, offset

    def _consistent_outputs(self):
        """Test outputs of every rule in the announced class that reproduces all examples."""
        outs = set()
        for g in GEOMS:
            first = _geom(g, self.examples[0][0])
            h, w = len(first), len(first[0])
            if (h, w) != (len(self.examples[0][1]), len(self.examples[0][1][0])):
                continue
            shifts = [(dr, dc) for dr in range(h) for dc in range(w)] if self.use_shift else [(0, 0)]
            for dr, dc in shifts:
                mapping = {}
                back = {}
                ok = True
                for grid_in, grid_out in self.examples:
                    moved = _geom(g, grid_in)
                    if len(moved) != len(grid_out) or len(moved[0]) != len(grid_out[0]):
                        ok = False
                        break
                    moved = _shift(moved, dr, dc) if (dr or dc) else moved
                    for row_a, row_b in zip(moved, grid_out):
                        for a, b in zip(row_a, row_b):
                            if mapping.setdefault(a, b) != b or back.setdefault(b, a) != a:
                                ok = False
                                break
                        if not ok:
                            break
                    if not ok:
                        break
                if ok:
                    outs.add("/".join(self._apply(self.test, g, mapping, (dr, dc))))
        return outs

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(40):
            h = self.rng.randint(*self.rows)
            w = self.rng.randint(*self.cols)
            palette = self.rng.sample(SYMBOLS, self.rng.randint(3, 4))
            self.geom, self.mapping, self.offset = self._draw_rule(palette)
            self.examples = []
            for _ in range(self.n_examples):
                grid = self._random_grid(h, w, palette)
                self.examples.append((grid, self._apply(grid, self.geom, self.mapping, self.offset)))
            self.test = self._random_grid(h, w, palette)
            self._answer = self._apply(self.test, self.geom, self.mapping, self.offset)
            seen = set("".join(g for grid, _ in self.examples for g in grid))
            if not set("".join(self.test)) <= seen or self._answer == self.test:
                continue
            if self._consistent_outputs() == {"/".join(self._answer)}:
                break
        self.turn = 0
        self.done = False
        self.tries = []
        return self._render("Infer the transformation and apply it to the test grid."), {}

    def _grid_lines(self, grid, indent="    "):
        return [indent + row for row in grid]

    def _render(self, last):
        parts = "a rotation or reflection (possibly none), then a one-to-one relabeling of symbols (possibly none; '.' may be relabeled too)"
        if self.use_shift:
            parts = ("a rotation or reflection (possibly none), then a cyclic shift of rows and columns with "
                     "wrap-around (possibly none), then a one-to-one relabeling of symbols (possibly none; '.' may "
                     "be relabeled too)")
        lines = [
            f"GRID RULE INFERENCE | Attempt {self.turn}/{self.max_turns} | Difficulty: {self.difficulty}",
            f"Every example output below was made from its input by the same hidden transformation: {parts}.",
        ]
        for i, (gi, go) in enumerate(self.examples, 1):
            lines.append(f"Example {i} input ({len(gi)}x{len(gi[0])}):")
            lines.extend(self._grid_lines(gi))
            lines.append(f"Example {i} output ({len(go)}x{len(go[0])}):")
            lines.extend(self._grid_lines(go))
        lines.append(f"Test input ({len(self.test)}x{len(self.test[0])}):")
        lines.extend(self._grid_lines(self.test))
        lines.append("Task: apply the same transformation to the test input. Write the output grid's rows from top "
                     "to bottom, separated by '/', inside \\boxed{} - e.g. a 2x3 grid as \\boxed{row1/row2} where "
                     "each row is 3 symbols.")
        if self.tries:
            lines.append("Your attempts: " + "; ".join(self.tries))
        lines.append(f"Last result: {last}")
        lines.append(f"Attempts left: {self.max_turns - self.turn}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = re.search(r"\\boxed\{([^{}]*)\}", str(action))
        msg = ""
        if m is None:
            msg = "No answer found: put the output rows inside \\boxed{}, separated by '/'."
            self.tries.append("(invalid)")
        else:
            rows = [r for r in re.split(r"[/\s,;|]+", m.group(1).strip()) if r]
            want_h, want_w = len(self._answer), len(self._answer[0])
            if not rows:
                msg = "Empty answer: write the rows of the output grid separated by '/'."
                self.tries.append("(empty)")
            elif rows == self._answer:
                self.done = True
                self.tries.append("correct")
                return self._render("Correct: every cell matches. You found the rule!"), 1.0, True, False, {}
            elif len(rows) != want_h or any(len(r) != want_w for r in rows):
                shape = f"{len(rows)} row(s) of lengths {sorted(set(len(r) for r in rows))[:6]}"
                msg = (f"Wrong shape: you sent {shape}. Think about what the transformation does to the grid's "
                       f"shape (a {len(self.test)}x{len(self.test[0])} test input).")
                self.tries.append("wrong shape")
            else:
                bad_rows = [i + 1 for i in range(want_h) if rows[i] != self._answer[i]]
                bad_cells = sum(1 for i in range(want_h) for j in range(want_w) if rows[i][j] != self._answer[i][j])
                msg = (f"Not quite: {bad_cells} of {want_h * want_w} cells are wrong, in row(s) "
                       f"{', '.join(str(b) for b in bad_rows)}.")
                self.tries.append(f"{bad_cells} cells wrong")
        if out:
            self.done = True
            msg += " No attempts left."
        return self._render(msg), 0.0, out, False, {}

    def solution(self):
        return "/".join(self._answer)

    def hint(self):
        text = f"The geometric part is {GEOM_TEXT[self.geom]}."
        if self.offset != (0, 0):
            text += " After it the grid is also shifted cyclically (wrap-around); find the shift from one example."
        if self.mapping:
            text += (f" Then {len([k for k in self.mapping if self.mapping[k] != k])} symbols are relabeled: compare "
                     "cells that correspond after the geometric step to read the relabeling table.")
        else:
            text += " No symbol is relabeled."
        return text
