"""Library Interloan: a patron wants a title their home branch does not hold. Look up the patron and the title, clear any blocking fines, request a copy from the branch holding the most available copies of the right edition, and book a pickup slot. The pickup code is issued only at the end of that chain."""
import json
import random

TITLES = ["The Salt Road", "Glass Orchards", "A Map of Small Winters", "The Cartographer's Daughter", "Lanterns Over Kyoto",
          "Quiet Engines", "The Tidewater Accord", "Seven Bridges North", "Paper Comets", "The Last Apiary"]
BRANCHES = ["Central", "Riverside", "Hillcrest", "Old Town", "Parkview", "Harbour", "Westfield", "Elm Street"]
NAMES = ["Mira Castell", "Tomas Reyes", "Yuki Adler", "Priya Nair", "Owen Brandt", "Leila Haddad", "Sven Olsen", "Nadia Petrov"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class LibraryInterloanEnv(ToolUseBaseEnv):
    # difficulty -> (editions of the title, holding branches per edition, patron owes fines)
    LEVELS = {"easy": (1, 3, False), "medium": (2, 4, False), "hard": (3, 5, True)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_editions, self.n_branches, self.fines = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        title = rng.choice(TITLES)
        patron_name = rng.choice(NAMES)
        card = "%010d" % rng.randint(0, 10 ** 10 - 1)
        home = rng.choice(BRANCHES)
        years = sorted(rng.sample(range(1988, 2025), self.n_editions))
        editions = {}
        for y in years:
            isbn = "978" + "".join(str(rng.randint(0, 9)) for _ in range(10))
            holders = rng.sample([b for b in BRANCHES if b != home], self.n_branches)
            counts = rng.sample(range(0, 7), self.n_branches)
            editions[isbn] = {"year": y, "copies": dict(zip(holders, counts))}
        want_year = rng.choice(years)
        isbn = [i for i, e in editions.items() if e["year"] == want_year][0]
        copies = editions[isbn]["copies"]
        source = max(copies, key=lambda b: copies[b])
        fine = rng.randint(150, 2400) if self.fines else 0
        pid = "P%05d" % rng.randint(0, 99999)
        day = "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        self._state = {"patron": {"card": card, "id": pid, "name": patron_name, "home": home, "fine_cents": fine},
                       "title": title, "editions": editions, "requests": {}, "seq": rng.randint(300, 900),
                       "pickups": {}, "codes": {b: "%s-%04d" % (b[:2].upper(), rng.randint(0, 9999)) for b in BRANCHES}}
        s = {"type": "string"}
        self._tools = {
            "get_patron": {"description": "Look up a patron by library card number: id, home branch, outstanding fines.",
                           "parameters": _obj({"card_number": s})},
            "search_catalog": {"description": "Search the catalogue by title: editions (ISBN, year) and available copies per branch.",
                               "parameters": _obj({"title": s})},
            "pay_fines": {"description": "Record a payment against a patron's fines (amount in the currency's decimal form, e.g. 4.50).",
                          "parameters": _obj({"patron_id": s, "amount": {"type": "number"}})},
            "request_transfer": {"description": "Request a copy of an ISBN from a branch to the patron's home branch. Returns a request id.",
                                 "parameters": _obj({"isbn": s, "from_branch": s, "patron_id": s})},
            "schedule_pickup": {"description": "Book a pickup date for a transfer request. Returns the pickup code.",
                                "parameters": _obj({"request_id": s, "date": dict(s, description="YYYY-MM-DD")})},
            "renew_loan": {"description": "Renew a current loan by ISBN for a patron.", "parameters": _obj({"patron_id": s, "isbn": s})},
            "get_opening_hours": {"description": "Opening hours of a branch.", "parameters": _obj({"branch": s})},
        }
        rid = "R%d" % (self._state["seq"] + 1)
        plan = [("get_patron", {"card_number": card}), ("search_catalog", {"title": title})]
        if fine:
            plan.append(("pay_fines", {"patron_id": pid, "amount": fine / 100}))
        plan += [("request_transfer", {"isbn": isbn, "from_branch": source, "patron_id": pid}),
                 ("schedule_pickup", {"request_id": rid, "date": day})]
        self._plan = plan
        self._isbn, self._source, self._day = isbn, source, day
        self._expected_answer = self._code(rid, day)
        task = (f"Patron with library card {card} wants '{title}', the {want_year} edition. Request a copy to their home "
                "branch from the branch that has the MOST available copies of that edition, and schedule the pickup for "
                f"{day}. Answer with the pickup code: <answer>CODE</answer>.")
        self._fact = f"The {want_year} edition is held by {len(copies)} branches, the best-stocked with {copies[source]} copies available."
        return task, {}

    def _code(self, rid, day):
        return self._state["codes"][self._source] + "-" + rid[1:] + day[-2:]

    def tool_get_patron(self, card_number=""):
        p = self._state["patron"]
        if str(card_number).strip() != p["card"]:
            return "Error: no patron with that card number."
        return json.dumps({"patron_id": p["id"], "name": p["name"], "home_branch": p["home"],
                           "fines_due": "%.2f" % (p["fine_cents"] / 100)})

    def tool_search_catalog(self, title=""):
        if str(title).strip().lower() != self._state["title"].lower():
            return "No matching titles."
        rows = []
        for isbn, e in self._state["editions"].items():
            rows.append(f"ISBN {isbn} ({e['year']} edition): " + ", ".join(f"{b} {n} available" for b, n in e["copies"].items()))
        return "\n".join(rows)

    def tool_pay_fines(self, patron_id="", amount=0):
        p = self._state["patron"]
        if patron_id != p["id"]:
            return "Error: unknown patron id."
        try:
            cents = round(float(amount) * 100)
        except (TypeError, ValueError):
            return "Error: amount must be a number."
        if cents <= 0 or cents > p["fine_cents"]:
            return "Error: amount must be positive and no more than the fines due."
        p["fine_cents"] -= cents
        return "Payment recorded. Fines due now %.2f." % (p["fine_cents"] / 100)

    def tool_request_transfer(self, isbn="", from_branch="", patron_id=""):
        p = self._state["patron"]
        if patron_id != p["id"]:
            return "Error: unknown patron id."
        if p["fine_cents"] > 0:
            return "Error: patron account blocked: fines outstanding."
        e = self._state["editions"].get(str(isbn).strip())
        if e is None:
            return "Error: unknown ISBN."
        if e["copies"].get(from_branch, 0) <= 0:
            return f"Error: {from_branch} has no available copy of {isbn}."
        self._state["seq"] += 1
        rid = "R%d" % self._state["seq"]
        e["copies"][from_branch] -= 1
        self._state["requests"][rid] = (str(isbn).strip(), from_branch)
        return f"Transfer request {rid} created: {isbn} from {from_branch} to {p['home']}."

    def tool_schedule_pickup(self, request_id="", date=""):
        req = self._state["requests"].get(request_id)
        if req is None:
            return "Error: unknown request id."
        if len(str(date)) != 10 or str(date)[4] != "-":
            return "Error: date must be YYYY-MM-DD."
        code = self._state["codes"][req[1]] + "-" + request_id[1:] + str(date)[-2:]
        self._state["pickups"][code] = (req, str(date))
        return f"Pickup booked for {date} at {self._state['patron']['home']}. Pickup code {code}."

    def tool_renew_loan(self, patron_id="", isbn=""):
        return "Error: no current loan of that ISBN for this patron."

    def tool_get_opening_hours(self, branch=""):
        return f"{branch}: Mon-Fri 09:00-20:00, Sat 10:00-16:00, closed Sunday."

    def _check_answer(self, answer):
        got = self._state["pickups"].get(str(answer).strip().upper())
        return (got is not None and got[0] == (self._isbn, self._source) and got[1] == self._day
                and str(answer).strip().upper() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Start from the card number: the patron id it returns is needed by every later call. Editions share a title "
                "but not an ISBN: pick the ISBN of the requested year, then the branch with the highest available count. "
                + ("A patron with fines due cannot request transfers until the fines are paid in full. " if self.fines else "")
                + "The pickup code comes from schedule_pickup with the request id.")
