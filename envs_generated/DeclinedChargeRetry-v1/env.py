"""Declined Charge Retry: collect payment for an order by working down the customer's cards on file in their preferred order. Expired cards (the expiry dates on file, against today's date) must be skipped without a charge attempt; the gateway reports transient timeouts (nothing charged, retry the same card) and insufficient funds (move on to the next card); the first card that can pay must pay, and a fallback card that paid becomes the new default."""
import json
import random

BRANDS = ["Visa", "Mastercard", "Amex", "Discover"]
NAMES = ["Ines Duarte", "Kwame Asante", "Lotte Janssen", "Mateo Rossi", "Noor Rahman", "Oskar Nyberg", "Paula Ortiz"]
TODAY = (2026, 6)


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _expired(expiry):
    month, year = expiry.split("/")
    return (int(year), int(month)) < TODAY


class DeclinedChargeRetryEnv(ToolUseBaseEnv):
    # difficulty -> (cards on file, positions the paying card may have, chance a declining card times out first)
    LEVELS = {"easy": (3, (0, 1, 2), 0.0), "medium": (4, (1, 2, 3), 0.0), "hard": (5, (2, 3, 4), 0.35)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_cards, self.positions, self.flaky = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        order = "ORD-%06d" % rng.randint(0, 999999)
        cust = "CUS-%05d" % rng.randint(0, 99999)
        amount = rng.randint(2500, 95000)
        good = rng.choice(self.positions)

        def expiry(dead):
            if dead:  # up to a year and a half back; this month still counts as valid
                back = rng.randint(1, 18)
            else:
                back = -rng.randint(0, 48)
            m = TODAY[0] * 12 + TODAY[1] - 1 - back
            return "%02d/%d" % (m % 12 + 1, m // 12)

        cards = []
        for i in range(self.n_cards):
            kind = "good" if i == good else rng.choice(["expired", "poor"]) if i < good else rng.choice(["expired", "poor", "live"])
            cards.append({"id": "card_%s" % "".join(rng.choice("abcdefghjkmnpqrstuvwxyz0123456789") for _ in range(6)),
                          "brand": rng.choice(BRANDS), "last4": "%04d" % rng.randint(0, 9999), "expiry": expiry(kind == "expired"),
                          "funds": rng.randint(0, amount - 100) if kind == "poor" else amount + rng.randint(1000, 90000),
                          # the gateway times out on the first attempt of some cards; a retry reaches the bank
                          "flaky": rng.random() < (0.5 if kind == "good" else self.flaky if kind == "poor" else 0.0)})
        self._state = {"order": {"id": order, "customer": cust, "amount": amount, "status": "UNPAID"},
                       "customer": {"id": cust, "name": rng.choice(NAMES), "cards": cards}, "attempts": {},
                       "receipts": {}, "paid_with": None, "seq": rng.randint(10 ** 7, 9 * 10 ** 7)}
        self._good = cards[good]["id"]
        self._order = [dict(c) for c in cards]
        s = {"type": "string"}
        self._tools = {
            "get_order": {"description": "Order details: customer id, amount due, payment status.", "parameters": _obj({"order_id": s})},
            "get_customer": {"description": "Customer profile with cards on file in the customer's preferred order (first = default), with expiry dates.",
                             "parameters": _obj({"customer_id": s})},
            "charge_card": {"description": "Charge the order's amount due to a card. Returns a receipt id on success.",
                            "parameters": _obj({"order_id": s, "card_id": s})},
            "refund_charge": {"description": "Refund a successful charge.", "parameters": _obj({"receipt_id": s})},
            "set_default_card": {"description": "Make a card on file the customer's default (moves it to the front).",
                                 "parameters": _obj({"customer_id": s, "card_id": s})},
            "update_billing_address": {"description": "Update the customer's billing address.", "parameters": _obj({"customer_id": s, "address": s})},
        }
        plan = [("get_order", {"order_id": order}), ("get_customer", {"customer_id": cust})]
        for c in cards[: good + 1]:
            if _expired(c["expiry"]):
                continue
            plan += [("charge_card", {"order_id": order, "card_id": c["id"]})] * (2 if c["flaky"] else 1)
        if good:
            plan.append(("set_default_card", {"customer_id": cust, "card_id": self._good}))
        self._plan = plan
        self._expected_answer = "rcpt_%d" % (self._state["seq"] + 1)
        task = (f"Collect payment for order {order}. Today is {TODAY[1]:02d}/{TODAY[0]}. Work down the customer's cards on file in "
                "their preferred order: never submit a card whose expiry month has passed (the gateway fines it), retry a card whose "
                "attempt timed out, and move to the next card only when one is declined. If a card other than the default ends up "
                "paying, make it the customer's new default. Answer with the receipt id of the successful charge: <answer>rcpt_...</answer>.")
        poor = sum(1 for c in cards[:good] if not _expired(c["expiry"]))
        self._fact = f"{poor} card(s) ahead of the one that pays will be declined for insufficient funds."
        return task, {}

    def tool_get_order(self, order_id=""):
        o = self._state["order"]
        if str(order_id).strip().upper() != o["id"]:
            return "Error: order not found."
        return json.dumps({"order_id": o["id"], "customer_id": o["customer"], "amount_due": "%.2f" % (o["amount"] / 100),
                           "status": o["status"]})

    def tool_get_customer(self, customer_id=""):
        c = self._state["customer"]
        if str(customer_id).strip().upper() != c["id"]:
            return "Error: customer not found."
        return json.dumps({"customer_id": c["id"], "name": c["name"],
                           "cards": [{"card_id": k["id"], "brand": k["brand"], "last4": k["last4"], "expiry": k["expiry"]}
                                     for k in c["cards"]]})

    def tool_charge_card(self, order_id="", card_id=""):
        st = self._state
        o = st["order"]
        if str(order_id).strip().upper() != o["id"]:
            return "Error: order not found."
        if o["status"] == "PAID":
            return "Error: order already paid."
        card = [k for k in st["customer"]["cards"] if k["id"] == str(card_id).strip()]
        if not card:
            return "Error: card not on file for this customer."
        card = card[0]
        n = st["attempts"].get(card["id"], 0) + 1
        st["attempts"][card["id"]] = n
        if _expired(card["expiry"]):
            return f"Declined: card expired ({card['expiry']}); an expired-card fee was assessed."
        if card["flaky"] and n == 1:
            return "Error 504: gateway timeout; the charge was NOT made and is safe to retry."
        if card["funds"] < o["amount"]:
            return "Declined: insufficient funds."
        st["seq"] += 1
        rid = "rcpt_%d" % st["seq"]
        st["receipts"][rid] = card["id"]
        o["status"] = "PAID"
        st["paid_with"] = card["id"]
        return f"Approved. Receipt {rid}, {card['brand']} ending {card['last4']}."

    def tool_refund_charge(self, receipt_id=""):
        st = self._state
        if receipt_id not in st["receipts"] or st["order"]["status"] != "PAID":
            return "Error: no such charge to refund."
        st["order"]["status"] = "UNPAID"
        st["paid_with"] = None
        del st["receipts"][receipt_id]
        return f"Refunded {receipt_id}."

    def tool_set_default_card(self, customer_id="", card_id=""):
        c = self._state["customer"]
        if str(customer_id).strip().upper() != c["id"]:
            return "Error: customer not found."
        card = [k for k in c["cards"] if k["id"] == str(card_id).strip()]
        if not card:
            return "Error: card not on file."
        c["cards"].remove(card[0])
        c["cards"].insert(0, card[0])
        return f"{card[0]['brand']} ending {card[0]['last4']} is now the default card."

    def tool_update_billing_address(self, customer_id="", address=""):
        if str(customer_id).strip().upper() != self._state["customer"]["id"]:
            return "Error: customer not found."
        return "Billing address updated."

    def _check_answer(self, answer):
        st = self._state
        a = str(answer).strip()
        ids = [k["id"] for k in self._order]
        ahead = self._order[: ids.index(self._good)]
        behind = self._order[ids.index(self._good) + 1:]
        return (st["paid_with"] == self._good and st["receipts"].get(a) == self._good and a == self._expected_answer
                and st["customer"]["cards"][0]["id"] == self._good
                # an expired card is never tried; a live one is tried, and retried after a timeout
                and all(st["attempts"].get(k["id"], 0) == 0 if _expired(k["expiry"]) else st["attempts"].get(k["id"], 0) >= 1 + k["flaky"]
                        for k in ahead)
                and not any(st["attempts"].get(k["id"]) for k in behind))

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Compare every expiry on file with today's month before charging: a card that expired is skipped, never tried. "
                "Read each gateway reply: a timeout charged nothing, so retry the same card; a decline for funds means the next "
                "card in the profile's order. Stop at the first approval, and make the card that paid the default if it was not.")
