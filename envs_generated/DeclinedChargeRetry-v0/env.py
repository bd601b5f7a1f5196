"""Declined Charge Retry: collect payment for an order when the first attempts fail. The gateway reports transient timeouts (safe to retry), expired cards and insufficient funds; each error says what went wrong, and the customer's profile lists the other cards on file to fall back to, in the customer's preferred order."""
import json
import random

BRANDS = ["Visa", "Mastercard", "Amex", "Discover"]
NAMES = ["Ines Duarte", "Kwame Asante", "Lotte Janssen", "Mateo Rossi", "Noor Rahman", "Oskar Nyberg", "Paula Ortiz"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class DeclinedChargeRetryEnv(ToolUseBaseEnv):
    # difficulty -> (what goes wrong with the default card, fallback cards short of funds)
    LEVELS = {"easy": ("timeout", 0), "medium": ("expired", 0), "hard": ("expired", 1)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.first_failure, self.n_poor = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        order = "ORD-%06d" % rng.randint(0, 999999)
        cust = "CUS-%05d" % rng.randint(0, 99999)
        amount = rng.randint(2500, 95000)
        cards = []
        for i in range(4):
            cards.append({"id": "card_%s" % "".join(rng.choice("abcdefghjkmnpqrstuvwxyz0123456789") for _ in range(6)),
                          "brand": rng.choice(BRANDS), "last4": "%04d" % rng.randint(0, 9999),
                          "expiry": "%02d/%d" % (rng.randint(1, 12), rng.randint(2027, 2031)), "funds": amount + rng.randint(1000, 90000)})
        if self.first_failure == "expired":
            cards[0]["expiry"] = "%02d/%d" % (rng.randint(1, 12), rng.randint(2019, 2025))
        for c in cards[1:1 + self.n_poor]:
            c["funds"] = rng.randint(0, amount - 100)
        self._state = {"order": {"id": order, "customer": cust, "amount": amount, "status": "UNPAID"},
                       "customer": {"id": cust, "name": rng.choice(NAMES), "cards": cards}, "attempts": {},
                       "receipts": {}, "paid_with": None, "seq": rng.randint(10 ** 7, 9 * 10 ** 7)}
        good = cards[0] if self.first_failure == "timeout" else cards[1 + self.n_poor]
        self._good = good["id"]
        self._order = list(cards)
        self._order_ids = [c["id"] for c in cards]
        s = {"type": "string"}
        self._tools = {
            "get_order": {"description": "Order details: customer id, amount due, payment status.", "parameters": _obj({"order_id": s})},
            "get_customer": {"description": "Customer profile with cards on file in the customer's preferred order (first = default).",
                             "parameters": _obj({"customer_id": s})},
            "charge_card": {"description": "Charge the order's amount due to a card. Returns a receipt id on success.",
                            "parameters": _obj({"order_id": s, "card_id": s})},
            "refund_charge": {"description": "Refund a successful charge.", "parameters": _obj({"receipt_id": s})},
            "set_default_card": {"description": "Make a card on file the customer's default (moves it to the front).",
                                 "parameters": _obj({"customer_id": s, "card_id": s})},
            "update_billing_address": {"description": "Update the customer's billing address.", "parameters": _obj({"customer_id": s, "address": s})},
        }
        plan = [("get_order", {"order_id": order}), ("get_customer", {"customer_id": cust})]
        if self.first_failure == "timeout":
            plan += [("charge_card", {"order_id": order, "card_id": good["id"]})] * 2
        else:
            plan += [("charge_card", {"order_id": order, "card_id": c["id"]}) for c in cards[1:2 + self.n_poor]]
            plan.append(("set_default_card", {"customer_id": cust, "card_id": good["id"]}))
        self._plan = plan
        self._expected_answer = "rcpt_%d" % (self._state["seq"] + 1)
        task = (f"Collect payment for order {order}. Use the customer's cards on file in their preferred order, moving to the next "
                "card only when one cannot be charged; if a card other than the default ends up paying, make it the customer's new default. Answer with the receipt id of the successful charge: <answer>rcpt_...</answer>.")
        self._fact = f"The card that pays is number {[c['id'] for c in cards].index(good['id']) + 1} in the customer's preferred order."
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
        if self.first_failure == "timeout" and card is st["customer"]["cards"][0] and n == 1:
            return "Error 504: gateway timeout; the charge was NOT made and is safe to retry."
        if int(card["expiry"].split("/")[1]) < 2026:
            return f"Declined: card expired ({card['expiry']})."
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
        cards = st["customer"]["cards"]
        live_before = [k["id"] for k in self._order[: self._order_ids.index(self._good)] if int(k["expiry"].split("/")[1]) >= 2026]
        return (st["paid_with"] == self._good and st["receipts"].get(a) == self._good and a == self._expected_answer
                and cards[0]["id"] == self._good and all(st["attempts"].get(k) for k in live_before))

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Read each decline: a timeout means nothing was charged and the same card may be retried; an expired card or "
                "insufficient funds means move on to the NEXT card in the profile's order (the expiry dates on file tell you "
                "in advance which cards are dead, but not which are short of funds). Never charge twice after an approval, and "
                "update the default card when a fallback card paid.")
