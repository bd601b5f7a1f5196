"""Ticket Resolution Router: work through a support queue where every ticket needs one action: a refund, a voucher, a replacement, an escalation to engineering, or closing it as a duplicate. The ticket text names the complaint, but the order it concerns decides the remedy (days since delivery, replacement stock), and a refused action counts as a policy breach, so the agent has to read both before choosing."""
import json
import random

PRODUCTS = ["desk lamp", "kettle", "headphones", "router", "blender", "monitor arm", "space heater", "webcam"]
DAMAGE = ["arrived cracked", "box crushed and the item is dented", "screen shattered on arrival"]
BUG = ["app crashes when pairing", "firmware update fails at 80%", "settings reset after every reboot"]
REFUND = ["changed my mind, want my money back", "ordered twice by mistake, refund one please", "no longer needed"]
# the complaint each kind of ticket shows, and the one action policy allows for it
COMPLAINT = {"refund": "mind", "late": "mind", "replace": "damage", "damaged_oos": "damage", "escalate": "bug"}
ACTION = {"refund": "issue_refund", "late": "offer_voucher", "replace": "ship_replacement", "damaged_oos": "issue_refund",
          "escalate": "escalate_to_engineering", "duplicate": "close_as_duplicate"}


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class TicketResolutionRouterEnv(ToolUseBaseEnv):
    # difficulty -> (fewest and most tickets, the kinds a ticket may be, duplicates in the queue)
    LEVELS = {"easy": (3, 4, ("refund", "replace", "escalate"), 0),
              "medium": (3, 5, ("refund", "late", "replace", "damaged_oos", "escalate"), 0),
              "hard": (4, 6, ("refund", "late", "replace", "damaged_oos", "escalate"), 1)}

    def __init__(self, max_turns=28, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.low, self.high, self.kinds, self.dups = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        n = rng.randint(self.low, self.high) - self.dups
        # each ticket's kind is drawn on its own: the sequence of actions differs from task to task
        kinds = [rng.choice(self.kinds) for _ in range(n)]
        if not any(k in ("refund", "damaged_oos") for k in kinds):  # something is always refunded
            kinds[rng.randrange(n)] = rng.choice([k for k in ("refund", "damaged_oos") if k in self.kinds])
        if "late" in self.kinds and not any(k in ("late", "damaged_oos") for k in kinds):
            # at medium and above the order, not the text, decides at least one ticket
            kinds[rng.choice([i for i, k in enumerate(kinds) if k in ("refund", "replace")] or [0])] = \
                rng.choice(["late", "damaged_oos"])
        for _ in range(self.dups):  # a repeat of an earlier ticket, somewhere later in the queue
            kinds.insert(rng.randint(1, len(kinds)), "duplicate")
        tids = sorted(rng.sample(range(10000, 99999), len(kinds)))
        tickets, orders = {}, {}
        for kind, tid in zip(kinds, tids):
            tname = "T%d" % tid
            if kind == "duplicate":
                orig = rng.choice([t for t in sorted(tickets) if tickets[t]["kind"] != "duplicate"])
                tickets[tname] = {"order": tickets[orig]["order"], "text": tickets[orig]["text"] + " (sent again)",
                                  "kind": kind, "status": "open", "dup_of": orig}
                continue
            oid = "O-%06d" % rng.randint(0, 999999)
            while oid in orders:
                oid = "O-%06d" % rng.randint(0, 999999)
            product = rng.choice(PRODUCTS)
            days = rng.randint(15, 40) if kind == "late" else rng.randint(1, 14) if kind == "refund" else rng.randint(1, 30)
            stock = 0 if kind == "damaged_oos" else rng.randint(1, 12)
            orders[oid] = {"product": product, "paid": rng.randint(1500, 25000), "days_since_delivery": days, "stock": stock}
            complaint = COMPLAINT[kind]
            text = {"mind": rng.choice(REFUND), "damage": f"the {product} {rng.choice(DAMAGE)}",
                    "bug": f"the {product}: {rng.choice(BUG)}"}[complaint]
            tickets[tname] = {"order": oid, "text": text, "kind": kind, "status": "open", "dup_of": None}
        self._state = {"tickets": tickets, "orders": orders, "refunded": 0, "breaches": 0, "salt": rng.randint(1, 10 ** 6)}
        s = {"type": "string"}
        self._tools = {
            "list_open_tickets": {"description": "Open tickets: id and subject line.", "parameters": _obj({})},
            "get_ticket": {"description": "A ticket's full text and the order it concerns.", "parameters": _obj({"ticket_id": s})},
            "get_order": {"description": "An order: product, amount paid, days since delivery, replacement units in stock.",
                          "parameters": _obj({"order_id": s})},
            "issue_refund": {"description": "Refund an order in full and resolve the ticket. For change-of-mind requests within "
                                            "14 days of delivery, and for transit damage when no replacement is in stock.",
                             "parameters": _obj({"ticket_id": s})},
            "ship_replacement": {"description": "Ship a free replacement and resolve the ticket. Only for items damaged in "
                                                "transit, while replacement stock lasts.",
                                 "parameters": _obj({"ticket_id": s})},
            "escalate_to_engineering": {"description": "Hand a ticket about a software or firmware fault to engineering.",
                                        "parameters": _obj({"ticket_id": s})},
            "close_as_duplicate": {"description": "Close a ticket as a duplicate of an earlier ticket about the same order.",
                                   "parameters": _obj({"ticket_id": s, "original_id": s})},
            "offer_voucher": {"description": "Resolve a change-of-mind request made more than 14 days after delivery with a "
                                             "discount voucher.",
                              "parameters": _obj({"ticket_id": s})},
        }
        ids = sorted(tickets)
        plan = [("list_open_tickets", {})]
        for t in ids:
            kind = tickets[t]["kind"]
            plan.append(("get_ticket", {"ticket_id": t}))
            if kind == "duplicate":
                plan.append(("close_as_duplicate", {"ticket_id": t, "original_id": tickets[t]["dup_of"]}))
                continue
            if kind == "refund" or (kind != "escalate" and "late" in self.kinds):  # the order decides the remedy
                plan.append(("get_order", {"order_id": tickets[t]["order"]}))
            plan.append((ACTION[kind], {"ticket_id": t}))
        self._plan = plan
        refunded = sum(orders[tickets[t]["order"]]["paid"] for t in ids if ACTION[tickets[t]["kind"]] == "issue_refund")
        self._expected_answer = "%d.%02d" % (refunded // 100, refunded % 100)
        task = (f"Clear the {len(ids)}-ticket support queue of shift {rng.randint(100, 999)}: resolve every open ticket with the "
                "one action it qualifies for (refund, voucher, replacement, engineering escalation, or closing a duplicate). "
                "An action a ticket does not qualify for is refused and logged as a policy breach, and any breach fails the "
                "shift audit. Then answer with the total amount refunded today in EUR with two decimals: <answer>AMOUNT</answer>.")
        self._fact = f"{sum(ACTION[tickets[t]['kind']] == 'issue_refund' for t in ids)} of the {len(ids)} tickets end in a refund."
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
                           "paid": "%d.%02d" % (o["paid"] // 100, o["paid"] % 100), "days_since_delivery": o["days_since_delivery"],
                           "replacement_stock": o["stock"]})

    def _act(self, ticket_id, tool, message):
        t = self._ticket(ticket_id)
        if t is None:
            return None, "Error: no such ticket."
        if t["status"] != "open":
            return None, f"Error: ticket {ticket_id} is already {t['status']}."
        if ACTION[t["kind"]] != tool:
            # a refusal is final: trying each action in turn is what the audit forbids
            self._state["breaches"] += 1
            return None, f"Refused: ticket {str(ticket_id).strip().upper()} does not qualify ({message}). Policy breach logged."
        return t, ""

    def tool_issue_refund(self, ticket_id=""):
        t, err = self._act(ticket_id, "issue_refund", "refunds are for change of mind within 14 days, or damage with no stock")
        if t is None:
            return err
        o = self._state["orders"][t["order"]]
        t["status"] = "refunded"
        self._state["refunded"] += o["paid"]
        return f"Refunded {o['paid'] // 100}.{o['paid'] % 100:02d} EUR; ticket resolved."

    def tool_ship_replacement(self, ticket_id=""):
        t, err = self._act(ticket_id, "ship_replacement", "replacements are for transit damage while stock lasts")
        if t is None:
            return err
        t["status"] = "replaced"
        self._state["orders"][t["order"]]["stock"] -= 1
        return "Replacement shipped; ticket resolved."

    def tool_escalate_to_engineering(self, ticket_id=""):
        t, err = self._act(ticket_id, "escalate_to_engineering", "engineering only takes software or firmware faults")
        if t is None:
            return err
        t["status"] = "escalated"
        return "Escalated to engineering; ticket moved out of the queue."

    def tool_close_as_duplicate(self, ticket_id="", original_id=""):
        t, err = self._act(ticket_id, "close_as_duplicate", "no earlier ticket covers the same order and request")
        if t is None:
            return err
        if str(original_id).strip().upper() != t["dup_of"]:
            return f"Error: {original_id} is not the earlier ticket about this order."
        t["status"] = "closed-duplicate"
        return "Closed as duplicate."

    def tool_offer_voucher(self, ticket_id=""):
        t, err = self._act(ticket_id, "offer_voucher", "vouchers are for change of mind after the 14-day window")
        if t is None:
            return err
        t["status"] = "voucher"
        return "Voucher sent; ticket resolved."

    def _check_answer(self, answer):
        try:
            value = float(str(answer).replace("EUR", "").replace(",", "").strip())
        except ValueError:
            return False
        st = self._state
        done = all(t["status"] != "open" for t in st["tickets"].values()) and st["breaches"] == 0
        return done and abs(value * 100 - st["refunded"]) < 1 and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Decide from the ticket text which complaint it is: change of mind, transit damage, or a software/firmware fault. "
        if "late" in self.kinds:
            text += ("Then let the order decide the remedy before acting: change of mind is refunded only within 14 days of "
                     "delivery (a voucher after that), and damage gets a replacement only while replacement stock lasts "
                     "(otherwise a refund). ")
        if self.dups:
            text += "A ticket repeating an earlier ticket's request about the same order is closed as a duplicate of that earlier one. "
        return text + "Add up every refund the refund tool reported."
