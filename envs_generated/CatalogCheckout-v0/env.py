"""Catalog Checkout: buy what a shopping brief asks for: search the catalogue, pick the item that meets the brief's criteria and is actually in stock, build a cart, apply the coupon once the cart qualifies, choose shipping and check out. Later steps depend on ids and totals the earlier steps return."""
import json
import random

TYPES = {"headphones": ["Aria", "Bolt", "Crest", "Drift", "Echo"], "backpack": ["Atlas", "Bison", "Cairn", "Dune", "Everest"],
         "kettle": ["Aqua", "Brew", "Copper", "Delta", "Ember"], "desk lamp": ["Arc", "Beam", "Cove", "Dawn", "Edge"],
         "water bottle": ["Alp", "Brook", "Cove", "Dew", "Eddy"]}
SHIPPING = {"standard": 495, "express": 1295}


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _eur(c):
    return "%d.%02d" % (c // 100, c % 100)


class CatalogCheckoutEnv(ToolUseBaseEnv):
    # difficulty -> (item types in the brief, coupon, shipping)
    LEVELS = {"easy": (1, False, "standard"), "medium": (1, True, "standard"), "hard": (2, True, "express")}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_types, self.coupon, self.shipping = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        catalog = {}
        for t, names in TYPES.items():
            for n, price in zip(names, rng.sample(range(1500, 14000), len(names))):  # distinct prices: one cheapest
                sku = "%s-%03d" % (t[:3].upper(), rng.randint(0, 999))
                while sku in catalog:
                    sku = "%s-%03d" % (t[:3].upper(), rng.randint(0, 999))
                catalog[sku] = {"type": t, "name": f"{n} {t}", "price": price,
                                "rating": rng.randint(30, 50) / 10, "stock": rng.choice([0, 0, 1, 3, 8, 20])}
        wanted = rng.sample(list(TYPES), self.n_types)
        floor = rng.choice([3.6, 3.8, 4.0, 4.2, 4.4])
        centre = "CC-%04d" % rng.randint(0, 9999)
        picks = []
        for t in wanted:
            qty = rng.randint(1, 3)
            items = [s for s, v in catalog.items() if v["type"] == t]
            # the cheapest item overall is sold out or poorly rated, so the criteria matter
            items.sort(key=lambda s: catalog[s]["price"])
            catalog[items[0]]["stock"] = 0 if rng.random() < 0.5 else catalog[items[0]]["stock"]
            if catalog[items[0]]["stock"] > 0:
                catalog[items[0]]["rating"] = round(floor - 0.3, 1)
            ok = [s for s in items if catalog[s]["rating"] >= floor and catalog[s]["stock"] >= qty]
            if not ok:
                s = items[-1]
                catalog[s]["rating"], catalog[s]["stock"] = 4.8, qty + 2
                ok = [s]
            picks.append((t, ok[0], qty))
        subtotal = sum(catalog[s]["price"] * q for _, s, q in picks)
        code = "SAVE%d" % rng.choice([10, 15, 20])
        threshold = max(1000, (subtotal // 1000) * 1000 - rng.randint(0, 2) * 1000)
        pct = int(code[4:])
        self._state = {"catalog": catalog, "carts": {}, "seq": rng.randint(100, 900), "orders": {}, "centre": centre,
                       "coupon": (code, threshold, pct), "order_seq": rng.randint(10 ** 6, 9 * 10 ** 6)}
        s = {"type": "string"}
        self._tools = {
            "search_catalog": {"description": "Search products by type: sku, name, price (EUR), rating.", "parameters": _obj({"query": s})},
            "check_stock": {"description": "Units in stock for a sku.", "parameters": _obj({"sku": s})},
            "create_cart": {"description": "Create an empty cart; returns its id.", "parameters": _obj({})},
            "add_to_cart": {"description": "Add units of a sku to a cart (must be in stock).",
                            "parameters": _obj({"cart_id": s, "sku": s, "quantity": {"type": "integer"}})},
            "apply_coupon": {"description": "Apply a coupon code to a cart (the cart must meet its minimum subtotal).",
                             "parameters": _obj({"cart_id": s, "code": s})},
            "set_shipping": {"description": "Choose the shipping method of a cart.",
                             "parameters": _obj({"cart_id": s, "method": {"type": "string", "enum": list(SHIPPING)}})},
            "checkout": {"description": "Place the order for a cart, billed to a cost centre; returns the order number and the amount charged.",
                         "parameters": _obj({"cart_id": s, "cost_centre": s})},
            "get_reviews": {"description": "Recent reviews of a sku.", "parameters": _obj({"sku": s})},
        }
        cart = "cart-%d" % (self._state["seq"] + 1)
        plan = []
        for t, sku, q in picks:
            plan += [("search_catalog", {"query": t}), ("check_stock", {"sku": sku})]
        plan.append(("create_cart", {}))
        plan += [("add_to_cart", {"cart_id": cart, "sku": sku, "quantity": q}) for _, sku, q in picks]
        total = subtotal
        if self.coupon:
            plan.append(("apply_coupon", {"cart_id": cart, "code": code}))
            total -= subtotal * pct // 100
        plan += [("set_shipping", {"cart_id": cart, "method": self.shipping}), ("checkout", {"cart_id": cart, "cost_centre": centre})]
        total += SHIPPING[self.shipping]
        self._plan = plan
        self._picks = sorted((sku, q) for _, sku, q in picks)
        self._expected_answer = _eur(total)
        brief = " and ".join(f"{q} x the cheapest {t} rated {floor} or better that has {q} in stock" for t, _, q in picks)
        extra = f" Use coupon {code} (minimum subtotal {_eur(threshold)} EUR)." if self.coupon else ""
        task = (f"Shopping brief: buy {brief}, in one order with {self.shipping} shipping, billed to cost centre {centre}.{extra} Answer with the amount charged "
                "at checkout in EUR with two decimals: <answer>AMOUNT</answer>.")
        self._fact = "For every requested type the cheapest listing does not qualify (sold out or rated too low)."
        return task, {}

    def tool_search_catalog(self, query=""):
        q = str(query).strip().lower()
        rows = [f"{s}: {v['name']}, EUR {_eur(v['price'])}, rating {v['rating']}" for s, v in self._state["catalog"].items()
                if q and (q in v["type"] or q in v["name"].lower())]
        return "\n".join(rows) if rows else "No products found."

    def tool_check_stock(self, sku=""):
        v = self._state["catalog"].get(str(sku).strip().upper())
        return f"{sku}: {v['stock']} in stock." if v else "Error: unknown sku."

    def tool_create_cart(self):
        self._state["seq"] += 1
        cid = "cart-%d" % self._state["seq"]
        self._state["carts"][cid] = {"items": {}, "coupon": None, "shipping": None, "closed": False}
        return f"Created {cid}."

    def _cart(self, cart_id):
        c = self._state["carts"].get(str(cart_id).strip())
        return c if c is not None and not c["closed"] else None

    def _subtotal(self, c):
        return sum(self._state["catalog"][s]["price"] * q for s, q in c["items"].items())

    def tool_add_to_cart(self, cart_id="", sku="", quantity=1):
        c = self._cart(cart_id)
        if c is None:
            return "Error: no open cart with that id."
        v = self._state["catalog"].get(str(sku).strip().upper())
        if v is None:
            return "Error: unknown sku."
        if not isinstance(quantity, int) or quantity < 1:
            return "Error: quantity must be a positive integer."
        if v["stock"] < c["items"].get(str(sku).strip().upper(), 0) + quantity:
            return f"Error: only {v['stock']} of {sku} in stock."
        c["items"][str(sku).strip().upper()] = c["items"].get(str(sku).strip().upper(), 0) + quantity
        return f"Added {quantity} x {v['name']}. Subtotal EUR {_eur(self._subtotal(c))}."

    def tool_apply_coupon(self, cart_id="", code=""):
        c = self._cart(cart_id)
        if c is None:
            return "Error: no open cart with that id."
        want, threshold, pct = self._state["coupon"]
        if str(code).strip().upper() != want:
            return "Error: invalid coupon code."
        if self._subtotal(c) < threshold:
            return f"Error: the cart subtotal is below the coupon minimum of EUR {_eur(threshold)}."
        c["coupon"] = pct
        return f"Coupon applied: {pct}% off the subtotal."

    def tool_set_shipping(self, cart_id="", method=""):
        c = self._cart(cart_id)
        if c is None:
            return "Error: no open cart with that id."
        if method not in SHIPPING:
            return "Error: unknown shipping method."
        c["shipping"] = method
        return f"Shipping: {method} (EUR {_eur(SHIPPING[method])})."

    def tool_checkout(self, cart_id="", cost_centre=""):
        c = self._cart(cart_id)
        if c is None:
            return "Error: no open cart with that id."
        if str(cost_centre).strip().upper() != self._state["centre"]:
            return "Error: unknown cost centre."
        if not c["items"]:
            return "Error: the cart is empty."
        if c["shipping"] is None:
            return "Error: choose a shipping method first."
        sub = self._subtotal(c)
        total = sub - (sub * c["coupon"] // 100 if c["coupon"] else 0) + SHIPPING[c["shipping"]]
        for s, q in c["items"].items():
            self._state["catalog"][s]["stock"] -= q
        c["closed"] = True
        self._state["order_seq"] += 1
        self._state["orders"]["ORD%d" % self._state["order_seq"]] = (sorted(c["items"].items()), c["coupon"], c["shipping"], total)
        return f"Order ORD{self._state['order_seq']} placed. Charged EUR {_eur(total)}."

    def tool_get_reviews(self, sku=""):
        v = self._state["catalog"].get(str(sku).strip().upper())
        return f"{sku}: 'does the job', 'sturdy', 'arrived quickly'." if v else "Error: unknown sku."

    def _check_answer(self, answer):
        want = (self._picks, int(self._state["coupon"][0][4:]) if self.coupon else None, self.shipping)
        placed = [o for o in self._state["orders"].values() if (o[0], o[1], o[2]) == want]
        try:
            value = float(str(answer).replace("EUR", "").replace(",", "").strip())
        except ValueError:
            return False
        return len(self._state["orders"]) == 1 and bool(placed) and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("Search by the product type, discard items rated below the brief's minimum, and check stock for the cheapest "
                "remaining one (the listing shows no stock); if it is short, try the next cheapest. ")
        if self.coupon:
            text += "Add every item before applying the coupon: it checks the subtotal at the moment you apply it. "
        return text + "Shipping must be chosen before checkout; place a single order."
