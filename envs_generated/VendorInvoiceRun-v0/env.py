"""Vendor Invoice Run: pay a list of supplier invoices from the operating account. Each invoice's amount and payee account must be read before a transfer can be created, transfers run only once a one-time passcode approves the batch, and an invoice that is already settled must not be paid twice."""
import json
import random

VENDORS = ["Northwind Metals", "Bluebell Catering", "Keystone Logistics", "Orchid Print House", "Harbor Electrics",
           "Summit Office Supply", "Ironbark Timber", "Lumen Cleaning Co", "Quarry Stone Ltd", "Vela Software"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _money(cents):
    return "%d.%02d" % (cents // 100, cents % 100)


class VendorInvoiceRunEnv(ToolUseBaseEnv):
    # difficulty -> (open invoices to pay, already-settled invoices mixed into the list)
    LEVELS = {"easy": (1, 0), "medium": (2, 0), "hard": (2, 1)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_open, self.n_paid = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        vendors = rng.sample(VENDORS, self.n_open + self.n_paid + 2)
        invoices = {}
        for i, v in enumerate(vendors):
            no = "INV-%d" % rng.randint(10000, 99999)
            invoices[no] = {"vendor": v, "account": "NL%02dBANK%08d" % (rng.randint(10, 99), rng.randint(0, 10 ** 8 - 1)),
                            "amount": rng.randint(15000, 480000), "status": "OPEN" if i < self.n_open or i >= self.n_open + self.n_paid else "PAID"}
        listed = list(invoices)[: self.n_open + self.n_paid]
        rng.shuffle(listed)
        balance = rng.randint(2_000_000, 9_000_000)
        self._state = {"invoices": invoices, "balance": balance, "pending": {}, "executed": [], "otp": None,
                       "otp_code": "%06d" % rng.randint(0, 999999), "seq": rng.randint(1000, 8000)}
        s = {"type": "string"}
        self._tools = {
            "get_invoice": {"description": "Read an invoice: payee, payee account, amount (EUR) and status.",
                            "parameters": _obj({"invoice_no": dict(s, description="e.g. INV-12345")})},
            "create_transfer": {"description": "Create a PENDING transfer from the operating account paying one invoice. Returns a transfer id.",
                                "parameters": _obj({"to_account": s, "amount": {"type": "number", "description": "EUR, two decimals"},
                                                    "invoice_no": s})},
            "request_otp": {"description": "Send a one-time passcode for approving the pending batch; returns the passcode.",
                            "parameters": _obj({})},
            "approve_batch": {"description": "Execute every pending transfer; needs the current one-time passcode.",
                              "parameters": _obj({"otp": s})},
            "get_balance": {"description": "Balance of the operating account (EUR).", "parameters": _obj({})},
            "get_exchange_rate": {"description": "Exchange rate from EUR to a currency.", "parameters": _obj({"currency": s})},
        }
        plan = [("get_invoice", {"invoice_no": no}) for no in listed]
        paid = 0
        for no in listed:
            inv = invoices[no]
            if inv["status"] == "OPEN":
                plan.append(("create_transfer", {"to_account": inv["account"], "amount": float(_money(inv["amount"])), "invoice_no": no}))
                paid += inv["amount"]
        plan += [("request_otp", {}), ("approve_batch", {"otp": self._state["otp_code"]})]
        self._plan = plan
        self._expected_answer = _money(balance - paid)
        self._listed = listed
        task = ("Accounts payable run. Pay these supplier invoices from the operating account: " + ", ".join(listed) +
                ". Each transfer must go to the payee account on the invoice for the exact invoice amount; invoices that are "
                "already settled must not be paid again. Approve the batch, then answer with the operating account's balance "
                "afterwards in EUR with two decimals: <answer>AMOUNT</answer>.")
        self._fact = f"{sum(invoices[n]['status'] == 'OPEN' for n in listed)} of the {len(listed)} listed invoices are still open."
        return task, {}

    def tool_get_invoice(self, invoice_no=""):
        inv = self._state["invoices"].get(str(invoice_no).strip().upper())
        if inv is None:
            return f"Error: invoice '{invoice_no}' not found."
        return json.dumps({"invoice_no": str(invoice_no).strip().upper(), "payee": inv["vendor"], "payee_account": inv["account"],
                           "amount_eur": _money(inv["amount"]), "status": inv["status"]})

    def tool_create_transfer(self, to_account="", amount=0, invoice_no=""):
        no = str(invoice_no).strip().upper()
        inv = self._state["invoices"].get(no)
        if inv is None:
            return f"Error: invoice '{invoice_no}' not found."
        if inv["status"] != "OPEN" or no in [p[2] for p in self._state["pending"].values()]:
            return f"Error: invoice {no} is already settled or has a transfer pending."
        if str(to_account).strip().upper() != inv["account"]:
            return f"Error: account {to_account} is not the payee account of {no}."
        try:
            cents = round(float(amount) * 100)
        except (TypeError, ValueError):
            return "Error: amount must be a number."
        if cents != inv["amount"]:
            return f"Error: amount {amount} does not match invoice {no}."
        self._state["seq"] += 1
        tid = "TR%d" % self._state["seq"]
        self._state["pending"][tid] = (inv["account"], cents, no)
        self._state["otp"] = None  # a new transfer invalidates an issued passcode
        return f"Transfer {tid} created (PENDING): EUR {_money(cents)} to {inv['account']} for {no}."

    def tool_request_otp(self):
        if not self._state["pending"]:
            return "Error: no pending transfers to approve."
        self._state["otp"] = self._state["otp_code"]
        return f"One-time passcode for {len(self._state['pending'])} pending transfer(s): {self._state['otp_code']}"

    def tool_approve_batch(self, otp=""):
        if not self._state["pending"]:
            return "Error: no pending transfers."
        if self._state["otp"] is None or str(otp).strip() != self._state["otp"]:
            return "Error: passcode missing, wrong or issued before the last change to the batch."
        for tid, (acct, cents, no) in sorted(self._state["pending"].items()):
            self._state["balance"] -= cents
            self._state["invoices"][no]["status"] = "PAID"
            self._state["executed"].append(no)
        n = len(self._state["pending"])
        self._state["pending"] = {}
        self._state["otp"] = None
        return f"Batch approved: {n} transfer(s) executed."

    def tool_get_balance(self):
        pend = sum(c for _, c, _ in self._state["pending"].values())
        return f"Operating account: EUR {_money(self._state['balance'])} (pending outgoing EUR {_money(pend)})"

    def tool_get_exchange_rate(self, currency=""):
        return f"1 EUR = {1 + (sum(map(ord, str(currency).upper())) % 90) / 100:.4f} {str(currency).upper()}"

    def _check_answer(self, answer):
        done = all(self._state["invoices"][no]["status"] == "PAID" for no in self._listed) and not self._state["pending"]
        try:
            value = float(str(answer).replace("EUR", "").replace(",", "").replace("$", "").strip())
        except ValueError:
            return False
        return done and abs(value - float(self._expected_answer)) < 0.005 and _money(self._state["balance"]) == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        extra = " One of the listed invoices may already be PAID: check each status before creating transfers." if self.n_paid else ""
        return ("Read every invoice first: the task names invoices, not accounts or amounts. Create all transfers BEFORE "
                "requesting the passcode, because a new transfer invalidates an earlier one; then approve and read the "
                "balance (or subtract the amounts yourself)." + extra)
