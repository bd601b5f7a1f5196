"""Flight Rebook Desk: a passenger's flight was cancelled; find the booking, search the same route for the earliest flight that day with a free seat, hold it, settle any fare difference and issue the new ticket. Each call needs an identifier the previous call returned."""
import json
import random

FIRST = ["Ada", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaori", "Luis"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Haddad", "Brennan", "Kowalski", "Ferreira"]
AIRPORTS = ["AMS", "BCN", "CPH", "DUB", "FCO", "HEL", "LIS", "MAD", "OSL", "PRG", "VIE", "ZRH"]
CARRIERS = ["SK", "IB", "LX", "TP", "AY", "OS"]


def _obj(props, required=None):
    return {"type": "object", "properties": props,
            "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class FlightRebookDeskEnv(ToolUseBaseEnv):
    # difficulty -> (flights on the route, passengers sharing the surname, fare difference owed)
    LEVELS = {"easy": (4, 1, False), "medium": (7, 2, False), "hard": (9, 2, True)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_flights, self.n_namesakes, self.fare_gap = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        origin, dest = rng.sample(AIRPORTS, 2)
        day = "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        surname = rng.choice(LAST)
        firsts = rng.sample(FIRST, self.n_namesakes)
        bookings = {}
        for i, first in enumerate(firsts):
            ref = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(6))
            o, d = (origin, dest) if i == 0 else tuple(rng.sample(AIRPORTS, 2))
            bookings[ref] = {"passenger": f"{first} {surname}", "origin": o, "destination": d, "date": day,
                             "status": "CANCELLED" if i == 0 else "CONFIRMED", "fare": rng.randint(90, 220)}
        target_ref = list(bookings)[0]
        # departures through the day; the earliest ones may be sold out
        hours = sorted(rng.sample(range(6, 22), self.n_flights))
        flights = {}
        for h in hours:
            fid = rng.choice(CARRIERS) + str(rng.randint(100, 989))
            while fid in flights:
                fid = rng.choice(CARRIERS) + str(rng.randint(100, 989))
            flights[fid] = {"departs": "%02d:%02d" % (h, rng.choice([0, 15, 30, 45])), "seats": rng.randint(1, 9),
                            "fare": rng.randint(90, 320), "ticket": "".join(str(rng.randint(0, 9)) for _ in range(13))}
        ids = list(flights)
        sold_out = rng.randint(1, max(1, self.n_flights // 2))
        for fid in ids[:sold_out]:
            flights[fid]["seats"] = 0
        target = ids[sold_out]
        base_fare = bookings[target_ref]["fare"]
        if self.fare_gap:
            flights[target]["fare"] = base_fare + rng.randint(15, 120)
        else:
            flights[target]["fare"] = min(flights[target]["fare"], base_fare)
        self._state = {"bookings": bookings, "flights": flights, "route": (origin, dest, day),
                       "holds": {}, "paid": {}, "issued": [], "hold_seq": rng.randint(100, 899)}
        self._target = target
        self._target_ref = target_ref
        s = {"type": "string"}
        self._tools = {
            "find_booking": {"description": "Look up bookings by passenger surname. Returns booking reference, passenger, route, date, status and fare paid.",
                             "parameters": _obj({"last_name": dict(s, description="Passenger surname")})},
            "search_flights": {"description": "List flights on a route for a date (flight id, departure time, seats left, fare).",
                               "parameters": _obj({"origin": dict(s, description="IATA code"), "destination": dict(s, description="IATA code"),
                                                   "date": dict(s, description="YYYY-MM-DD")})},
            "hold_seat": {"description": "Hold a seat on a flight for a booking. Returns a hold id.",
                          "parameters": _obj({"booking_ref": s, "flight_id": s})},
            "pay_fare_difference": {"description": "Collect the fare difference for a hold (amount in whole euros).",
                                    "parameters": _obj({"hold_id": s, "amount": {"type": "integer"}})},
            "issue_ticket": {"description": "Issue the ticket for a held seat. Returns the 13-digit ticket number.",
                             "parameters": _obj({"hold_id": s})},
            "get_weather": {"description": "Current weather at an airport.", "parameters": _obj({"airport": s})},
            "list_lounges": {"description": "Lounges available at an airport.", "parameters": _obj({"airport": s})},
        }
        self._expected_answer = flights[target]["ticket"]
        hold_id = "H" + str(self._state["hold_seq"] + 1)
        plan = [("find_booking", {"last_name": surname}),
                ("search_flights", {"origin": origin, "destination": dest, "date": day}),
                ("hold_seat", {"booking_ref": target_ref, "flight_id": target})]
        gap = flights[target]["fare"] - base_fare
        if gap > 0:
            plan.append(("pay_fare_difference", {"hold_id": hold_id, "amount": gap}))
        plan.append(("issue_ticket", {"hold_id": hold_id}))
        self._plan = plan
        task = (f"Passenger {firsts[0]} {surname} was on a flight from {origin} to {dest} on {day} that has been cancelled. "
                "Rebook them onto the EARLIEST flight on the same route and date that still has a free seat, settle any fare "
                "difference, and issue the new ticket. Answer with the 13-digit ticket number: <answer>TICKET</answer>.")
        self._fact = f"{sold_out} flight(s) on the route are sold out before the first one with a free seat."
        return task, {}

    # ---------------------------------------------------------------- tools
    def tool_find_booking(self, last_name=""):
        rows = [f"{ref}: {b['passenger']}, {b['origin']}->{b['destination']} on {b['date']}, {b['status']}, fare paid EUR {b['fare']}"
                for ref, b in self._state["bookings"].items() if b["passenger"].split()[-1].lower() == str(last_name).strip().lower()]
        return "\n".join(rows) if rows else f"No booking found for surname '{last_name}'."

    def tool_search_flights(self, origin="", destination="", date=""):
        o, d, day = self._state["route"]
        if (str(origin).upper(), str(destination).upper(), str(date)) != (o, d, day):
            return "No scheduled flights for that route and date."
        return "\n".join(f"{fid}: departs {f['departs']}, seats left {f['seats']}, fare EUR {f['fare']}"
                         for fid, f in self._state["flights"].items())

    def tool_hold_seat(self, booking_ref="", flight_id=""):
        b = self._state["bookings"].get(str(booking_ref).upper())
        if b is None:
            return f"Error: unknown booking reference '{booking_ref}'."
        if b["status"] != "CANCELLED":
            return "Error: this booking is not cancelled; nothing to rebook."
        f = self._state["flights"].get(str(flight_id).upper())
        if f is None or (b["origin"], b["destination"]) != self._state["route"][:2]:
            return f"Error: flight '{flight_id}' does not serve this booking's route."
        if f["seats"] <= 0:
            return f"Error: flight {flight_id} is sold out."
        self._state["hold_seq"] += 1
        hid = "H" + str(self._state["hold_seq"])
        f["seats"] -= 1
        self._state["holds"][hid] = (str(booking_ref).upper(), str(flight_id).upper())
        gap = f["fare"] - b["fare"]
        extra = f" Fare difference due: EUR {gap}." if gap > 0 else " No fare difference."
        return f"Seat held on {flight_id.upper()}: hold id {hid}." + extra

    def tool_pay_fare_difference(self, hold_id="", amount=0):
        h = self._state["holds"].get(str(hold_id))
        if h is None:
            return f"Error: unknown hold '{hold_id}'."
        gap = self._state["flights"][h[1]]["fare"] - self._state["bookings"][h[0]]["fare"]
        if gap <= 0:
            return "Error: nothing is owed on this hold."
        if amount != gap:
            return f"Error: payment of EUR {amount} does not match the amount due."
        self._state["paid"][str(hold_id)] = True
        return f"Payment of EUR {amount} received for hold {hold_id}."

    def tool_issue_ticket(self, hold_id=""):
        h = self._state["holds"].get(str(hold_id))
        if h is None:
            return f"Error: unknown hold '{hold_id}'. Hold a seat first."
        f = self._state["flights"][h[1]]
        if f["fare"] > self._state["bookings"][h[0]]["fare"] and not self._state["paid"].get(str(hold_id)):
            return "Error: fare difference outstanding; collect it before ticketing."
        self._state["issued"].append(f["ticket"])
        return f"Ticket issued: {f['ticket']} on flight {h[1]} departing {f['departs']}."

    def tool_get_weather(self, airport=""):
        code = str(airport).upper()
        return f"{code}: {['clear', 'light rain', 'overcast', 'windy'][sum(map(ord, code)) % 4]}, {5 + sum(map(ord, code)) % 20} C"

    def tool_list_lounges(self, airport=""):
        return f"{str(airport).upper()}: Aurora Lounge (Schengen), Harbour Lounge (non-Schengen)"

    # ---------------------------------------------------------------- answer, solution, hint
    def _check_answer(self, answer):
        a = str(answer).strip()
        return a in self._state["issued"] and a == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        gap = "A fare difference may be due on the new flight: pay exactly the amount the hold reports before ticketing. " if self.fare_gap else ""
        return ("Several passengers can share a surname: rebook only the CANCELLED booking on the stated route. Flights are "
                "listed in departure order, and a flight with 0 seats left cannot be held, so the first flight with a seat is "
                "the one to hold. " + gap + "The ticket number comes from issue_ticket, which needs the hold id.")
