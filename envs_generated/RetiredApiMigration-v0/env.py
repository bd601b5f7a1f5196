"""Retired API Migration: total an order through a partner API that has moved on. The v1 endpoint answers 410 Gone and names its successor, v2 wants an account id instead of an e-mail and a bearer token that expires, and v2 pages its line items behind a cursor. Each error message carries what is needed to recover."""
import json
import random

SKUS = ["bolt-m6", "hinge-35", "seal-ring", "gasket-xl", "spring-02", "valve-3w", "clamp-50", "filter-hx", "nozzle-8", "pin-12"]
DOMAINS = ["acme.test", "globex.test", "initech.test", "umbrella.test", "hooli.test"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class RetiredApiMigrationEnv(ToolUseBaseEnv):
    PAGE = 3
    # difficulty -> (line items on the order, token lifetime in v2 calls)
    LEVELS = {"easy": (3, 9), "medium": (5, 9), "hard": (8, 2)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_items, self.token_life = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        email = "%s@%s" % (rng.choice(["ops", "buyer", "procure", "stores", "maint"]) + str(rng.randint(1, 99)), rng.choice(DOMAINS))
        account = "acc_%06d" % rng.randint(0, 999999)
        order = "PO-%05d" % rng.randint(0, 99999)
        items = [{"sku": rng.choice(SKUS), "qty": rng.randint(1, 50), "unit_cents": rng.randint(35, 4999)} for _ in range(self.n_items)]
        client = "cli_" + "".join(rng.choice("abcdef0123456789") for _ in range(8))
        self._state = {"email": email, "account": account, "order": order, "items": items, "client": client,
                       "token": None, "uses": 0, "tok_seq": rng.randint(1000, 9000), "pages_read": set(), "cursors": {}}
        for p in range(1, (self.n_items + self.PAGE - 1) // self.PAGE):
            self._state["cursors"]["c_%s_%d" % ("".join(rng.choice("xyzw") for _ in range(4)), p)] = p
        s = {"type": "string"}
        self._tools = {
            "get_order_v1": {"description": "Legacy order endpoint (by customer e-mail and order number).",
                             "parameters": _obj({"email": s, "order_id": s})},
            "lookup_account": {"description": "Resolve a customer e-mail to its account id.", "parameters": _obj({"email": s})},
            "auth_token": {"description": "Issue a bearer token for an API client.", "parameters": _obj({"client_id": s})},
            "get_order_v2": {"description": "Order line items by account id, a page of at most 3 items per call; pass next_cursor to continue.",
                             "parameters": _obj({"account_id": s, "order_id": s, "token": s, "cursor": dict(s, description="optional")},
                                                ["account_id", "order_id", "token"])},
            "get_status_page": {"description": "Service status of the partner API.", "parameters": _obj({})},
        }
        pages = (self.n_items + self.PAGE - 1) // self.PAGE
        cursors = sorted(self._state["cursors"], key=lambda c: self._state["cursors"][c])
        plan = [("get_order_v1", {"email": email, "order_id": order}), ("lookup_account", {"email": email})]
        tok = self._state["tok_seq"]
        uses = self.token_life
        for p in range(pages):
            if uses >= self.token_life:
                plan.append(("auth_token", {"client_id": client}))
                tok += 1
                uses = 0
            args = {"account_id": account, "order_id": order, "token": "tok_%d" % tok}
            if p:
                args["cursor"] = cursors[p - 1]
            plan.append(("get_order_v2", args))
            uses += 1
        self._plan = plan
        total = sum(i["qty"] * i["unit_cents"] for i in items)
        self._expected_answer = "%d.%02d" % (total // 100, total % 100)
        self._pages = pages
        task = (f"Find the total value (sum of quantity x unit price) of order {order} placed by {email}, via the partner API "
                f"(your API client id is {client}). Answer in EUR with two decimals: <answer>AMOUNT</answer>.")
        self._fact = "The order has " + ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")[self.n_items] + " line items."
        return task, {}

    def tool_get_order_v1(self, email="", order_id=""):
        return ("410 Gone: /v1/orders was retired. Use get_order_v2, which identifies customers by account_id "
                "(resolve e-mails with lookup_account) and requires a bearer token from auth_token.")

    def tool_lookup_account(self, email=""):
        if str(email).strip().lower() != self._state["email"]:
            return "404: no account for that e-mail."
        return json.dumps({"email": self._state["email"], "account_id": self._state["account"]})

    def tool_auth_token(self, client_id=""):
        st = self._state
        if str(client_id).strip() != st["client"]:
            return "401: unknown client id."
        st["tok_seq"] += 1
        st["token"] = "tok_%d" % st["tok_seq"]
        st["uses"] = 0
        return json.dumps({"access_token": st["token"], "expires_after_calls": self.token_life})

    def tool_get_order_v2(self, account_id="", order_id="", token="", cursor=""):
        st = self._state
        if st["token"] is None or token != st["token"]:
            return "401 Unauthorized: missing or unknown bearer token; call auth_token."
        if st["uses"] >= self.token_life:
            return "401 Unauthorized: token expired; request a new one with auth_token."
        if account_id != st["account"]:
            return "400 Bad Request: 'account_id' must be an account id such as acc_123456 (not an e-mail)."
        if str(order_id).strip().upper() != st["order"]:
            return "404: order not found for this account."
        st["uses"] += 1
        page = 0
        if cursor:
            if cursor not in st["cursors"]:
                return "400 Bad Request: invalid cursor."
            page = st["cursors"][cursor]
        chunk = st["items"][page * self.PAGE:(page + 1) * self.PAGE]
        st["pages_read"].add(page)
        nxt = [c for c, p in st["cursors"].items() if p == page + 1]
        return json.dumps({"order_id": st["order"], "items": [{"sku": i["sku"], "qty": i["qty"],
                                                             "unit_price": "%d.%02d" % (i["unit_cents"] // 100, i["unit_cents"] % 100)} for i in chunk],
                           "next_cursor": nxt[0] if nxt else None})

    def tool_get_status_page(self):
        return "All systems operational. Note: API v1 was retired; see the v2 migration guide."

    def _check_answer(self, answer):
        try:
            value = float(str(answer).replace("EUR", "").replace(",", "").strip())
        except ValueError:
            return False
        return len(self._state["pages_read"]) == self._pages and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("Error responses say exactly what changed: v2 wants an account id (resolve the e-mail first) and a bearer token. "
                "Items come a few per page; keep following next_cursor until it is null. ")
        if self.token_life < 5:
            text += "Tokens expire after a couple of calls: request a fresh one when told it expired."
        return text
