"""Ticket Resolution Router: work through a support queue where every ticket needs a different action: refund, replacement, escalation to engineering, or closing as a duplicate. Each action tool checks its own eligibility against the ticket and the order it concerns, so the agent has to read both before choosing."""
import json
import random

PRODUCTS = ["desk lamp", "kettle", "headphones", "router", "blender", "monitor arm", "space heater", "webcam"]
DAMAGE = ["arrived cracked", "box crushed and the item is dented", "screen shattered on arrival"]
BUG = ["app crashes when pairing", "firmware update fails at 80%", "settings reset after every reboot"]
REFUND = ["changed my mind, want my money back", "ordered twice by mistake, refund one please", "no longer needed"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class TicketResolutionRouterEnv(ToolUseBaseEnv):
    # difficulty -> the kinds of tickets in the queue
    LEVELS = {"easy": ("refund", "replace"), "medium": ("refund", "replace", "escalate"),
              "hard": ("refund", "replace", "escalate", "duplicate")}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.kinds = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        kinds = [k for k in self.kinds if k != "duplicate"]
        rng.shuffle(kinds)
        kinds += [k for k in self.kinds if k == "duplicate"]  # a duplicate is always the later (higher-numbered) ticket
        tickets, orders = {}, {}
        tids = sorted(rng.sample(range(10000, 99999), len(kinds)))
        for kind, tid in zip(kinds, tids):
            oid = "O-%06d" % rng.randint(0, 999999)
            product = rng.choice(PRODUCTS)
            orders[oid] = {"product": product, "paid": rng.randint(1500, 25000), "days_since_delivery": rng.randint(1, 25)}
            text = {"refund": rng.choice(REFUND), "replace": f"the {product} {rng.choice(DAMAGE)}",
                    "escalate": f"the {product}: {rng.choice(BUG)}", "duplicate": ""}[kind]
            tickets["T%d" % tid] = {"order": oid, "text": text, "kind": kind, "status": "open", "dup_of": None}
        if "duplicate" in kinds:
            dup = [t for t, v in tickets.items() if v["kind"] == "duplicate"][0]
            orig = rng.choice([t for t, v in tickets.items() if v["kind"] != "duplicate"])
            tickets[dup]["order"] = tickets[orig]["order"]
            tickets[dup]["text"] = tickets[orig]["text"] + " (sent again)"
            tickets[dup]["dup_of"] = orig
        self._state = {"tickets": tickets, "orders": orders, "refunded": 0, "log": [], "salt": rng.randint(1, 10 ** 6)}
        s = {"type": "string"}
        self._tools = {
            "list_open_tickets": {"description": "Open tickets: id and subject line.", "parameters": _obj({})},
            "get_ticket": {"description": "A ticket's full text and the order it concerns.", "parameters": _obj({"ticket_id": s})},
            "get_order": {"description": "An order: product, amount paid, days since delivery.", "parameters": _obj({"order_id": s})},
            "issue_refund": {"description": "Refund an order in full and resolve the ticket. Only for change-of-mind requests within 14 days of delivery.",
                             "parameters": _obj({"ticket_id": s})},
            "ship_replacement": {"description": "Ship a free replacement and resolve the ticket. Only for items damaged in transit.",
                                 "parameters": _obj({"ticket_id": s})},
            "escalate_to_engineering": {"description": "Hand a ticket about a software or firmware fault to engineering.",
                                        "parameters": _obj({"ticket_id": s})},
            "close_as_duplicate": {"description": "Close a ticket as a duplicate of an earlier ticket about the same order.",
                                   "parameters": _obj({"ticket_id": s, "original_id": s})},
            "offer_voucher": {"description": "Offer the customer a discount voucher.", "parameters": _obj({"ticket_id": s})},
        }
        for t in tickets.values():  # a change-of-mind refund must be within the window
            if t["kind"] == "refund":
                orders[t["order"]]["days_since_delivery"] = rng.randint(1, 14)
        ids = sorted(tickets)
        plan = [("list_open_tickets", {})]
        for t in ids:
            plan.append(("get_ticket", {"ticket_id": t}))
        for t in ids:
            kind = tickets[t]["kind"]
            if kind == "refund":
                plan += [("get_order", {"order_id": tickets[t]["order"]}), ("issue_refund", {"ticket_id": t})]
            elif kind == "replace":
                plan.append(("ship_replacement", {"ticket_id": t}))
            elif kind == "escalate":
                plan.append(("escalate_to_engineering", {"ticket_id": t}))
            else:
                plan.append(("close_as_duplicate", {"ticket_id": t, "original_id": tickets[t]["dup_of"]}))
        plan.append(("list_open_tickets", {}))
        self._plan = plan
        refunded = sum(orders[tickets[t]["order"]]["paid"] for t in ids if tickets[t]["kind"] == "refund")
        self._expected_answer = "%d.%02d" % (refunded // 100, refunded % 100)
        task = (f"Clear the {len(ids)}-ticket support queue of shift {rng.randint(100, 999)}: resolve every open ticket with the "
                "action it qualifies for (refund, replacement, engineering escalation, or closing a duplicate). Then answer "
                "with the total amount refunded today in EUR with two decimals: <answer>AMOUNT</answer>.")
        self._fact = "Exactly one ticket qualifies for a refund."
        return task, {}

    def _ticket(self, ticket_id):
        return self._state["tickets"].get(str(ticket_id).strip().upper())

    def tool_list_open_tickets(self):
        rows = [f"{tid}: {t['text'][:40]}" for tid, t in sorted(self._state["tickets"].items()) if t["status"] == "open"]
        return "\n".join(rows) if rows else "No open tickets."

    def tool_get_ticket(self, ticket_id=""):
        t = self._ticket(ticket_id)
        if t is None:
            return "Error: no such ticket."
        return json.dumps({"ticket_id": str(ticket_id).strip().upper(), "order_id": t["order"], "text": t["text"], "status": t["status"]})

    def tool_get_order(self, order_id=""):
        o = self._state["orders"].get(str(order_id).strip().upper())
        if o is None:
            return "Error: no such order."
        return json.dumps({"order_id": str(order_id).strip().upper(), "product": o["product"],
                           "paid": "%d.%02d" % (o["paid"] // 100, o["paid"] % 100), "days_since_delivery": o["days_since_delivery"]})

    def _act(self, ticket_id, kind, message):
        t = self._ticket(ticket_id)
        if t is None:
            return None, "Error: no such ticket."
        if t["status"] != "open":
            return None, f"Error: ticket {ticket_id} is already {t['status']}."
        if t["kind"] != kind:
            return None, f"Error: ticket {str(ticket_id).strip().upper()} does not qualify: {message}"
        return t, ""

    def tool_issue_refund(self, ticket_id=""):
        t, err = self._act(ticket_id, "refund", "refunds are for change-of-mind requests only.")
        if t is None:
            return err
        o = self._state["orders"][t["order"]]
        t["status"] = "refunded"
        self._state["refunded"] += o["paid"]
        return f"Refunded {o['paid'] // 100}.{o['paid'] % 100:02d} EUR; ticket resolved."

    def tool_ship_replacement(self, ticket_id=""):
        t, err = self._act(ticket_id, "replace", "replacements are for transit damage only.")
        if t is None:
            return err
        t["status"] = "replaced"
        return "Replacement shipped; ticket resolved."

    def tool_escalate_to_engineering(self, ticket_id=""):
        t, err = self._act(ticket_id, "escalate", "engineering only takes software or firmware faults.")
        if t is None:
            return err
        t["status"] = "escalated"
        return "Escalated to engineering; ticket moved out of the queue."

    def tool_close_as_duplicate(self, ticket_id="", original_id=""):
        t, err = self._act(ticket_id, "duplicate", "no earlier ticket covers the same order and request.")
        if t is None:
            return err
        if str(original_id).strip().upper() != t["dup_of"]:
            return f"Error: {original_id} is not the earlier ticket about this order."
        t["status"] = "closed-duplicate"
        return "Closed as duplicate."

    def tool_offer_voucher(self, ticket_id=""):
        return "Voucher offered; the ticket stays open." if self._ticket(ticket_id) else "Error: no such ticket."

    def _check_answer(self, answer):
        try:
            value = float(str(answer).replace("EUR", "").replace(",", "").strip())
        except ValueError:
            return False
        done = all(t["status"] != "open" for t in self._state["tickets"].values())
        return done and abs(value * 100 - self._state["refunded"]) < 1 and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("Decide from the ticket text: change of mind -> refund (check the order is within 14 days), transit damage -> "
                "replacement, software/firmware fault -> engineering. ")
        if "duplicate" in self.kinds:
            text += "Two tickets about the same order with the same request: close the later-numbered one as a duplicate of the other. "
        return text + "The refund total is what the refund tool reported."
