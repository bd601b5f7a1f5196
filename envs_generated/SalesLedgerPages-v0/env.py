"""Sales Ledger Pages: total one product's revenue across regional quarterly ledgers. Only one ledger can be open at a time, each ledger is paged, and refunds appear as negative lines, so the figure must be assembled from every page of every ledger the question covers."""
import json
import random

PRODUCTS = ["Aero Kettle", "Brio Lamp", "Cobalt Drill", "Dune Tent", "Ember Grill", "Fjord Jacket", "Gale Fan", "Halo Speaker"]
REGIONS = ["North", "South", "East", "West", "Central"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class SalesLedgerPagesEnv(ToolUseBaseEnv):
    PAGE = 6
    # difficulty -> (quarters asked about, pages per ledger, refunds present)
    LEVELS = {"easy": (1, 2, False), "medium": (2, 2, False), "hard": (2, 3, True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_quarters, self.n_pages, self.refunds = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        region = rng.choice(REGIONS)
        product = rng.choice(PRODUCTS)
        year = rng.randint(2019, 2026)
        first_q = rng.randint(1, 5 - self.n_quarters)
        quarters = ["%d-Q%d" % (year, q) for q in range(first_q, first_q + self.n_quarters)]
        ledgers = {}
        for r in REGIONS:
            for q in range(1, 5):
                key = (r, "%d-Q%d" % (year, q))
                rows = []
                for i in range(self.PAGE * self.n_pages - rng.randint(0, 2)):
                    p = rng.choice(PRODUCTS)
                    units = rng.randint(1, 40)
                    if self.refunds and rng.random() < 0.15:
                        units = -rng.randint(1, 5)
                    rows.append({"order": "SO-%05d" % rng.randint(0, 99999), "product": p, "units": units,
                                 "price": rng.randint(1500, 25000)})
                ledgers[key] = rows
        for q in quarters:  # make sure the product shows up on more than one page
            rows = ledgers[(region, q)]
            for idx in rng.sample(range(len(rows)), 3):
                rows[idx]["product"] = product
        total = sum(r["units"] * r["price"] for q in quarters for r in ledgers[(region, q)] if r["product"] == product)
        self._state = {"ledgers": ledgers, "open": None, "read": set(), "year": year}
        self._needed = set()
        plan = []
        for q in quarters:
            plan.append(("open_ledger", {"region": region, "quarter": q}))
            rows = ledgers[(region, q)]
            pages = (len(rows) + self.PAGE - 1) // self.PAGE
            for pg in range(1, pages + 1):
                plan.append(("get_page", {"page": pg}))
                if any(r["product"] == product for r in rows[(pg - 1) * self.PAGE: pg * self.PAGE]):
                    self._needed.add((region, q, pg))
            if q != quarters[-1]:
                plan.append(("close_ledger", {}))
        self._plan = plan
        self._expected_answer = "%d.%02d" % (total // 100, total % 100) if total >= 0 else "-%d.%02d" % (-total // 100, -total % 100)
        s = {"type": "string"}
        self._tools = {
            "list_ledgers": {"description": "Ledgers that exist (region and quarter).", "parameters": _obj({})},
            "open_ledger": {"description": "Open the sales ledger of a region for a quarter (e.g. 2024-Q3). Only one ledger may be open.",
                            "parameters": _obj({"region": s, "quarter": s})},
            "get_page": {"description": "Read a page (1-based) of the open ledger: order, product, units, unit price in EUR.",
                         "parameters": _obj({"page": {"type": "integer"}})},
            "close_ledger": {"description": "Close the open ledger.", "parameters": _obj({})},
            "get_product_info": {"description": "Catalogue entry of a product.", "parameters": _obj({"product": s})},
        }
        span = quarters[0] if len(quarters) == 1 else f"{quarters[0]} through {quarters[-1]}"
        task = (f"What was the net revenue of '{product}' in the {region} region for {span}? Revenue of a line is units x unit "
                "price; refunds are lines with negative units and count against it. Answer in EUR with two decimals: "
                "<answer>AMOUNT</answer>.")
        self._fact = "The product has lines on " + ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")[len(self._needed)] + " ledger page(s) in all."
        return task, {}

    def tool_list_ledgers(self):
        return "Regions: " + ", ".join(REGIONS) + "; quarters: " + ", ".join("%d-Q%d" % (self._state["year"], q) for q in range(1, 5))

    def tool_open_ledger(self, region="", quarter=""):
        if self._state["open"] is not None:
            return f"Error: ledger {self._state['open'][0]} {self._state['open'][1]} is still open; close it first."
        key = (str(region).strip().title(), str(quarter).strip().upper())
        if key not in self._state["ledgers"]:
            return "Error: no such ledger."
        self._state["open"] = key
        n = len(self._state["ledgers"][key])
        return f"Opened {key[0]} {key[1]}: {n} lines on {(n + self.PAGE - 1) // self.PAGE} pages."

    def tool_get_page(self, page=1):
        key = self._state["open"]
        if key is None:
            return "Error: no ledger is open."
        rows = self._state["ledgers"][key]
        try:
            page = int(page)
        except (TypeError, ValueError):
            return "Error: page must be an integer."
        chunk = rows[(page - 1) * self.PAGE: page * self.PAGE] if page >= 1 else []
        if not chunk:
            return "Error: page out of range."
        self._state["read"].add((key[0], key[1], page))
        return "\n".join(f"{r['order']} | {r['product']} | units {r['units']} | unit price {r['price'] // 100}.{r['price'] % 100:02d}"
                         for r in chunk)

    def tool_close_ledger(self):
        if self._state["open"] is None:
            return "Error: no ledger is open."
        self._state["open"] = None
        return "Ledger closed."

    def tool_get_product_info(self, product=""):
        return f"{product}: category home & outdoor, launched {2015 + len(str(product)) % 8}."

    def _check_answer(self, answer):
        try:
            value = float(str(answer).replace("EUR", "").replace(",", "").strip())
        except ValueError:
            return False
        return self._needed <= self._state["read"] and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Ledgers are paged and the product appears on several pages: read every page of each quarter's ledger, and "
                "close one ledger before opening the next. Sum units x unit price line by line"
                + (", keeping negative (refund) lines negative." if self.refunds else "."))
