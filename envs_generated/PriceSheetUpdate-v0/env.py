"""Price Sheet Update: apply a pricing memo to a protected spreadsheet. The sheet must be unprotected with the password from its properties, the rows of the affected category found and repriced one cell at a time, and the totals recalculated before the inventory value can be read."""
import json
import random

CATEGORIES = ["cables", "adapters", "batteries", "chargers", "cases", "stands", "filters", "bulbs"]
ADJ = ["Slim", "Pro", "Eco", "Max", "Mini", "Dual", "Flex", "Prime"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _cents(text):
    return round(float(text) * 100)


class PriceSheetUpdateEnv(ToolUseBaseEnv):
    # difficulty -> (rows in the sheet, categories the memo changes, sheet protected)
    LEVELS = {"easy": (8, 1, False), "medium": (12, 1, True), "hard": (16, 2, True)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_rows, self.n_changes, self.protected = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        cats = rng.sample(CATEGORIES, 4)
        changed = cats[: self.n_changes]
        rows = []
        for i in range(self.n_rows):
            cat = cats[i % 4] if i < 4 else rng.choice(cats)
            rows.append({"sku": "SKU-%04d" % rng.randint(0, 9999), "name": f"{rng.choice(ADJ)} {cat[:-1]}", "category": cat,
                         "price": rng.randint(199, 9999), "qty": rng.randint(1, 80)})
        keep = 3 if self.n_changes == 1 else 2  # rows per changed category: keeps the edit list within the turn budget
        for cat in changed:
            idx = [i for i, r in enumerate(rows) if r["category"] == cat]
            for i in idx[keep:]:
                rows[i]["category"] = rng.choice(cats[self.n_changes:])
        pcts = {c: rng.choice([-15, -10, -5, 5, 8, 10, 12, 20]) for c in changed}
        password = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(8))
        self._state = {"rows": rows, "protected": self.protected, "password": password, "dirty": True, "totals": None}
        targets = {}
        for i, r in enumerate(rows):
            if r["category"] in pcts:
                targets[i + 1] = (r["price"] * (100 + pcts[r["category"]]) + 50) // 100
        self._targets = targets
        total = sum((targets.get(i + 1, r["price"])) * r["qty"] for i, r in enumerate(rows))
        s = {"type": "string"}
        self._tools = {
            "get_properties": {"description": "Sheet properties: owner, protection, notes.", "parameters": _obj({})},
            "unprotect_sheet": {"description": "Remove sheet protection.", "parameters": _obj({"password": s})},
            "find_rows": {"description": "Row numbers whose column equals a value (columns: sku, name, category, price, qty).",
                          "parameters": _obj({"column": s, "value": s})},
            "get_row": {"description": "Read a row (1-based).", "parameters": _obj({"row": {"type": "integer"}})},
            "set_cell": {"description": "Write a cell. Prices are decimal strings like '12.99'.",
                         "parameters": _obj({"row": {"type": "integer"}, "column": s, "value": s})},
            "recalculate": {"description": "Recalculate the totals row: units and inventory value (price x qty).", "parameters": _obj({})},
            "export_pdf": {"description": "Export the sheet to PDF.", "parameters": _obj({})},
        }
        plan = []
        if self.protected:
            plan += [("get_properties", {}), ("unprotect_sheet", {"password": password})]
        for cat in changed:
            plan.append(("find_rows", {"column": "category", "value": cat}))
            for row in sorted(t for t in targets if rows[t - 1]["category"] == cat):
                plan.append(("get_row", {"row": row}))
        for row in sorted(targets):
            plan.append(("set_cell", {"row": row, "column": "price", "value": "%d.%02d" % (targets[row] // 100, targets[row] % 100)}))
        plan.append(("recalculate", {}))
        self._plan = plan
        self._expected_answer = "%d.%02d" % (total // 100, total % 100)
        memo = "; ".join(f"{'raise' if p > 0 else 'cut'} every price in category '{c}' by {abs(p)}%" for c, p in pcts.items())
        task = (f"Pricing memo: {memo} (round each new price to the nearest cent, halves up). Apply it to the price sheet, "
                "recalculate, and answer with the sheet's total inventory value with two decimals: <answer>AMOUNT</answer>.")
        self._fact = f"{len(targets)} row(s) change price."
        return task, {}

    def _fmt(self, i, r):
        return f"row {i}: {r['sku']} | {r['name']} | {r['category']} | price {r['price'] // 100}.{r['price'] % 100:02d} | qty {r['qty']}"

    def tool_get_properties(self):
        st = self._state
        note = f"Protected. Owner's note: password is '{st['password']}'." if st["protected"] else "Not protected."
        return f"Sheet 'Price List', {len(st['rows'])} rows. {note}"

    def tool_unprotect_sheet(self, password=""):
        if not self._state["protected"]:
            return "The sheet is not protected."
        if str(password) != self._state["password"]:
            return "Error: wrong password."
        self._state["protected"] = False
        return "Protection removed."

    def tool_find_rows(self, column="", value=""):
        col = str(column).strip().lower()
        if col not in ("sku", "name", "category", "price", "qty"):
            return "Error: unknown column."
        hits = [str(i + 1) for i, r in enumerate(self._state["rows"]) if str(r[col]).lower() == str(value).strip().lower()]
        return "Rows: " + ", ".join(hits) if hits else "No rows match."

    def tool_get_row(self, row=0):
        rows = self._state["rows"]
        if not isinstance(row, int) or not 1 <= row <= len(rows):
            return "Error: row out of range."
        return self._fmt(row, rows[row - 1])

    def tool_set_cell(self, row=0, column="", value=""):
        st = self._state
        if st["protected"]:
            return "Error: the sheet is protected."
        if not isinstance(row, int) or not 1 <= row <= len(st["rows"]):
            return "Error: row out of range."
        col = str(column).strip().lower()
        if col not in ("price", "qty"):
            return "Error: only price and qty cells are editable."
        try:
            new = _cents(value) if col == "price" else int(value)
        except (TypeError, ValueError):
            return "Error: not a number."
        st["rows"][row - 1][col] = new
        st["dirty"] = True
        return f"Row {row} {col} set to {value}."

    def tool_recalculate(self):
        st = self._state
        units = sum(r["qty"] for r in st["rows"])
        value = sum(r["price"] * r["qty"] for r in st["rows"])
        st["dirty"] = False
        st["totals"] = value
        return f"Totals: {units} units, inventory value {value // 100}.{value % 100:02d}."

    def tool_export_pdf(self):
        return "Exported Price List.pdf (stale totals)" if self._state["dirty"] else "Exported Price List.pdf"

    def _check_answer(self, answer):
        st = self._state
        ok = all(st["rows"][row - 1]["price"] == p for row, p in self._targets.items()) and not st["dirty"]
        return ok and str(answer).strip().replace(",", "") == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Find the affected rows by category and read each price before computing its new value. "
        if self.protected:
            text += "Edits are refused while the sheet is protected; the sheet's properties carry the owner's note. "
        return text + "The totals row is stale after any edit until you recalculate."
