"""Flight Rebook Desk: a passenger's flight was cancelled; among the bookings under the surname find the cancelled one on the stated route, pick from an unsorted departure board the earliest flight with a free seat that leaves no earlier than the original departure, hold it, then settle the fare: collect the difference when the new fare is higher, issue a voucher for it when lower, before ticketing. Which flight, which fare tool and which amount all follow from comparing what the tools report."""
import json
import random

FIRST = ["Ada", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaori", "Luis"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Haddad", "Brennan", "Kowalski", "Ferreira"]
AIRPORTS = ["AMS", "BCN", "CPH", "DUB", "FCO", "HEL", "LIS", "MAD", "OSL", "PRG", "VIE", "ZRH"]
CARRIERS = ["SK", "IB", "LX", "TP", "AY", "OS"]
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _hhmm(minutes):
    return "%02d:%02d" % (minutes // 60, minutes % 60)


class FlightRebookDeskEnv(ToolUseBaseEnv):
    # difficulty -> (flights on the route, bookings under the surname, a namesake on the same route, lower fares refunded)
    LEVELS = {"easy": (5, 2, False, False), "medium": (7, 3, False, True), "hard": (9, 4, True, True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_flights, self.n_bookings, self.same_route, self.vouchers = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        origin, dest = rng.sample(AIRPORTS, 2)
        day = "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        surname = rng.choice(LAST)
        scheduled = rng.randrange(7 * 60, 14 * 60, 15)
        paid = rng.randint(110, 260)
        rows = [{"first": f, "route": (origin, dest), "status": "CONFIRMED", "sched": rng.randrange(6 * 60, 22 * 60, 15),
                 "fare": rng.randint(90, 260)} for f in rng.sample(FIRST, self.n_bookings)]
        rows[0].update(status="CANCELLED", sched=scheduled, fare=paid)
        if self.same_route:  # a namesake confirmed on the same route: the status decides, not the route
            rows[1]["route"] = (origin, dest)
        for r in rows[1 + self.same_route:]:
            other = rng.sample(AIRPORTS, 2)
            r["route"] = (other[0], other[1]) if (other[0], other[1]) != (origin, dest) else (dest, origin)
            r["status"] = rng.choice(["CONFIRMED", "CANCELLED"])  # a cancellation elsewhere is someone else's problem
        bookings = {}
        for r in rows:
            ref = "".join(rng.choice(LETTERS) for _ in range(6))
            bookings[ref] = {"passenger": f"{r['first']} {surname}", "origin": r["route"][0], "destination": r["route"][1],
                             "date": day, "status": r["status"], "sched": r["sched"], "fare": r["fare"]}
        target_ref = [ref for ref, b in bookings.items() if b["passenger"].startswith(rows[0]["first"] + " ")][0]
        order = list(bookings)
        rng.shuffle(order)
        # the board: a few flights before the original departure (too early), sold-out ones, then the candidates
        times = sorted(rng.sample(range(scheduled - 180, scheduled + 540, 15), self.n_flights))
        flights = {}
        for t in times:
            fid = rng.choice(CARRIERS) + str(rng.randint(100, 989))
            while fid in flights:
                fid = rng.choice(CARRIERS) + str(rng.randint(100, 989))
            flights[fid] = {"departs": t, "seats": rng.choice([0, 0, 1, 2, 3, 5, 8]), "fare": rng.randint(90, 320),
                            "ticket": "".join(str(rng.randint(0, 9)) for _ in range(13))}
        later = [fid for fid in flights if flights[fid]["departs"] >= scheduled]
        if not any(flights[fid]["seats"] for fid in later):
            flights[later[-1]]["seats"] = rng.randint(1, 4)
        early = [fid for fid in flights if flights[fid]["departs"] < scheduled]
        if early:  # an earlier flight with seats is the tempting wrong pick
            flights[rng.choice(early)]["seats"] = rng.randint(1, 6)
        target = [fid for fid in later if flights[fid]["seats"] > 0][0]
        gap = flights[target]["fare"] - paid
        if not self.vouchers and gap < 0:
            flights[target]["fare"] = paid + rng.choice([0, rng.randint(10, 90)])
            gap = flights[target]["fare"] - paid
        self._state = {"bookings": bookings, "order": order, "flights": flights, "route": (origin, dest, day), "holds": {},
                       "hold_seq": rng.randint(300, 900), "paid": {}, "vouchers": {}, "issued": [], "wrong_answer": False}
        s = {"type": "string"}
        self._tools = {
            "find_booking": {"description": "Bookings under a passenger surname.", "parameters": _obj({"last_name": s})},
            "search_flights": {"description": "Departures on a route and date: flight, departure time, seats left, fare.",
                               "parameters": _obj({"origin": s, "destination": s, "date": dict(s, description="YYYY-MM-DD")})},
            "hold_seat": {"description": "Hold a seat on a flight for a booking; returns a hold id and the fares.",
                          "parameters": _obj({"booking_ref": s, "flight_id": s})},
            "release_hold": {"description": "Release a seat hold.", "parameters": _obj({"hold_id": s})},
            "pay_fare_difference": {"description": "Collect what the passenger owes on a hold (EUR).",
                                    "parameters": _obj({"hold_id": s, "amount": {"type": "integer"}})},
            "issue_voucher": {"description": "Issue a travel voucher for what the airline owes on a hold (EUR).",
                              "parameters": _obj({"hold_id": s, "amount": {"type": "integer"}})},
            "issue_ticket": {"description": "Ticket a hold once its fare is settled; returns the ticket number.",
                             "parameters": _obj({"hold_id": s})},
            "get_weather": {"description": "Current weather at an airport.", "parameters": _obj({"airport": s})},
        }
        hid = "H%d" % (self._state["hold_seq"] + 1)
        plan = [("find_booking", {"last_name": surname}), ("search_flights", {"origin": origin, "destination": dest, "date": day}),
                ("hold_seat", {"booking_ref": target_ref, "flight_id": target})]
        if gap > 0:
            plan.append(("pay_fare_difference", {"hold_id": hid, "amount": gap}))
        elif gap < 0:
            plan.append(("issue_voucher", {"hold_id": hid, "amount": -gap}))
        plan.append(("issue_ticket", {"hold_id": hid}))
        self._plan = plan
        self._target = (target_ref, target, gap)
        self._expected_answer = flights[target]["ticket"]
        settle = ("collect the difference if the new fare is higher, or issue a voucher for it if it is lower" if self.vouchers
                  else "collect the difference if the new fare is higher")
        task = (f"Passenger {surname}'s {origin}->{dest} flight on {day} was cancelled. Rebook them on the earliest flight of that "
                f"route and day that still has a seat and departs no earlier than their original departure time, {settle}, and "
                "ticket it. Answer with the new ticket number: <answer>...</answer>.")
        return task, {}

    def _hold(self, hold_id):
        return self._state["holds"].get(str(hold_id).strip().upper())

    def tool_find_booking(self, last_name=""):
        st = self._state
        rows = [f"{ref}: {b['passenger']}, {b['origin']}->{b['destination']} on {b['date']} departing {_hhmm(b['sched'])}, "
                f"{b['status']}, fare paid EUR {b['fare']}" for ref in st["order"] for b in [st["bookings"][ref]]
                if b["passenger"].split()[-1].lower() == str(last_name).strip().lower()]
        return "\n".join(rows) if rows else f"No booking found for surname '{last_name}'."

    def tool_search_flights(self, origin="", destination="", date=""):
        o, d, day = self._state["route"]
        if (str(origin).upper(), str(destination).upper(), str(date)) != (o, d, day):
            return "No scheduled flights for that route and date."
        # listed by flight number, not by time: finding the earliest is the agent's job
        return "\n".join(f"{fid}: departs {_hhmm(f['departs'])}, seats left {f['seats']}, fare EUR {f['fare']}"
                         for fid, f in sorted(self._state["flights"].items()))

    def tool_hold_seat(self, booking_ref="", flight_id=""):
        st = self._state
        ref = str(booking_ref).strip().upper()
        b = st["bookings"].get(ref)
        if b is None:
            return f"Error: unknown booking reference '{booking_ref}'."
        if b["status"] != "CANCELLED":
            return "Error: this booking is not cancelled; nothing to rebook."
        f = st["flights"].get(str(flight_id).strip().upper())
        if f is None or (b["origin"], b["destination"]) != st["route"][:2]:
            return f"Error: flight '{flight_id}' does not serve this booking's route."
        if f["seats"] <= 0:
            return f"Error: flight {flight_id} is sold out."
        if any(h[0] == ref for h in st["holds"].values()):
            return "Error: this booking already holds a seat; release that hold first."
        st["hold_seq"] += 1
        hid = "H%d" % st["hold_seq"]
        f["seats"] -= 1
        st["holds"][hid] = (ref, str(flight_id).strip().upper())
        return f"Seat held on {str(flight_id).strip().upper()}: hold id {hid}. New fare EUR {f['fare']}; fare paid EUR {b['fare']}."

    def tool_release_hold(self, hold_id=""):
        h = self._hold(hold_id)
        if h is None:
            return f"Error: unknown hold '{hold_id}'."
        if any(t[0] == h for t in self._state["issued"]):
            return "Error: a ticketed hold cannot be released."
        self._state["flights"][h[1]]["seats"] += 1
        del self._state["holds"][str(hold_id).strip().upper()]
        self._state["paid"].pop(str(hold_id).strip().upper(), None)
        return f"Hold {str(hold_id).strip().upper()} released."

    def _gap(self, h):
        return self._state["flights"][h[1]]["fare"] - self._state["bookings"][h[0]]["fare"]

    def tool_pay_fare_difference(self, hold_id="", amount=0):
        h = self._hold(hold_id)
        if h is None:
            return f"Error: unknown hold '{hold_id}'."
        if self._gap(h) <= 0:
            return "Error: the passenger owes nothing on this hold."
        if amount != self._gap(h):
            return f"Error: payment of EUR {amount} does not match the amount due."
        self._state["paid"][str(hold_id).strip().upper()] = amount
        return f"Payment of EUR {amount} received for hold {str(hold_id).strip().upper()}."

    def tool_issue_voucher(self, hold_id="", amount=0):
        h = self._hold(hold_id)
        if h is None:
            return f"Error: unknown hold '{hold_id}'."
        if not isinstance(amount, int) or amount <= 0 or amount > 500:
            return "Error: a voucher is for 1 to 500 EUR."
        if str(hold_id).strip().upper() in self._state["vouchers"]:
            return "Error: a voucher was already issued for this hold."
        # a voucher of the wrong value is issued all the same: the desk owns the arithmetic
        self._state["vouchers"][str(hold_id).strip().upper()] = amount
        return f"Voucher for EUR {amount} issued on hold {str(hold_id).strip().upper()}."

    def tool_issue_ticket(self, hold_id=""):
        h = self._hold(hold_id)
        if h is None:
            return f"Error: unknown hold '{hold_id}'. Hold a seat first."
        if self._gap(h) > 0 and not self._state["paid"].get(str(hold_id).strip().upper()):
            return "Error: fare difference outstanding; collect it before ticketing."
        if any(t[0] == h for t in self._state["issued"]):
            return "Error: this hold is already ticketed."
        f = self._state["flights"][h[1]]
        self._state["issued"].append((h, f["ticket"], str(hold_id).strip().upper()))
        return f"Ticket issued: {f['ticket']} on flight {h[1]} departing {_hhmm(f['departs'])}."

    def tool_get_weather(self, airport=""):
        code = str(airport).upper()
        return f"{code}: {['clear', 'light rain', 'overcast', 'windy'][sum(map(ord, code)) % 4]}, {5 + sum(map(ord, code)) % 20} C"

    def _settled(self):
        ref, fid, gap = self._target
        done = [t for t in self._state["issued"] if t[0] == (ref, fid)]
        if not done:
            return False
        voucher = self._state["vouchers"].get(done[0][2])
        return voucher == -gap if gap < 0 else voucher is None

    def _check_answer(self, answer):
        # one answer per episode: a wrong one is final (no trying every number the results showed)
        if self._state["wrong_answer"]:
            return False
        ok = self._settled() and str(answer).strip() == self._expected_answer
        self._state["wrong_answer"] = not ok
        return ok

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        text = ("Rebook only the booking that is both CANCELLED and on the stated route. The departure board is not sorted by "
                "time: drop flights leaving before the original departure and those with 0 seats, then take the earliest left. "
                "The hold shows both fares; the difference decides what to do: new fare higher means collect exactly the "
                "difference")
        if self.vouchers:
            text += ", lower means issue a voucher for exactly the difference, equal means neither"
        return text + ". Ticket last, with the hold id."
