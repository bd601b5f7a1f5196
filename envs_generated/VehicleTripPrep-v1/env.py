"""Vehicle Trip Prep: drive a car from where it is parked along a route of one or more legs. The controller enforces an interlock chain: doors locked and brake pressed before the engine starts, refuelling only with the engine off, the parking brake released only with the engine running. Before every leg two decisions depend on what the car reports: whether the fuel covers the leg plus the reserve (if not, fill the tank completely; if so, no refuel), and whether the leg departs after sunset (headlights on, and only then)."""
import json
import random

CITIES = ["Arles", "Bergamo", "Cadiz", "Dresden", "Esbjerg", "Faro", "Graz", "Haarlem", "Innsbruck", "Jena", "Kassel", "Lyon"]
RESERVE = 5.0  # litres that must be left in the tank at the end of every leg
SPEED = 100  # km/h on every leg: the clock advances distance / SPEED


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _clock(minutes):
    return "%02d:%02d" % (minutes // 60, minutes % 60)


class VehicleTripPrepEnv(ToolUseBaseEnv):
    # difficulty -> (legs of the route, chance the doors start unlocked)
    LEVELS = {"easy": (1, 0.0), "medium": (2, 0.5), "hard": (3, 1.0)}

    def __init__(self, max_turns=24, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_legs, self.p_unlocked = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        stops = rng.sample(CITIES, self.n_legs)
        legs = [(city, rng.randint(90, 260)) for city in stops]
        consumption = rng.randint(55, 95) / 10  # litres per 100 km
        capacity = rng.choice([45, 50, 55, 60])
        total = sum(60 * d // SPEED for _, d in legs)
        start = min(rng.randint(15 * 60, 18 * 60), 23 * 60 - total)  # the clock never wraps past midnight
        departs = [start]
        for _, d in legs[:-1]:
            departs.append(departs[-1] + 60 * d // SPEED)
        # sunset falls before the first leg, between two legs or after the last departure, equally likely
        k = rng.randint(0, len(legs))
        if k == 0:
            sunset = start - rng.randint(0, 90)
        elif k < len(legs):
            sunset = rng.randint(departs[k - 1] + 1, departs[k])
        else:
            sunset = departs[-1] + rng.randint(1, 120)
        need0 = legs[0][1] * consumption / 100
        fuel = round(rng.uniform(3.0, need0 + RESERVE - 1) if rng.random() < 0.5 else rng.uniform(need0 + RESERVE + 1, capacity), 1)
        odo = rng.randint(5000, 180000)
        self._state = {"doors": "unlocked" if rng.random() < self.p_unlocked else "locked", "brake_pedal": False, "engine": False,
                       "parking_brake": True, "headlights": False, "fuel": fuel, "capacity": capacity, "consumption": consumption,
                       "odometer": odo, "clock": start, "sunset": sunset, "leg": 0, "refuelled": False, "violations": [],
                       "leg_start_fuel": fuel}  # fuel on reaching the current leg's start, before any refuel there
        self._legs = legs
        s = {"type": "string"}
        self._tools = {
            "get_status": {"description": "Vehicle status: doors, engine, parking brake, lights, fuel (L), tank capacity, consumption (L/100km), odometer, clock, today's sunset.",
                           "parameters": _obj({})},
            "lock_doors": {"description": "Lock all doors.", "parameters": _obj({})},
            "press_brake_pedal": {"description": "Hold the brake pedal down.", "parameters": _obj({})},
            "start_engine": {"description": "Start the engine.", "parameters": _obj({})},
            "stop_engine": {"description": "Stop the engine (applies the parking brake, releases the pedal).", "parameters": _obj({})},
            "refuel": {"description": "Add fuel in litres (engine off; it must fit in the tank).", "parameters": _obj({"liters": {"type": "number"}})},
            "release_parking_brake": {"description": "Release the parking brake.", "parameters": _obj({})},
            "set_headlights": {"description": "Switch the headlights on or off.", "parameters": _obj({"on": {"type": "boolean"}})},
            "drive": {"description": "Drive the next leg of the route by navigation; reports the odometer, clock and fuel on arrival.",
                      "parameters": _obj({"destination": s, "distance_km": {"type": "integer"}})},
            "set_radio": {"description": "Tune the radio.", "parameters": _obj({"station": s})},
        }
        # the privileged play: simulate the car leg by leg and take each decision from its state
        plan = [("get_status", {})]
        if self._state["doors"] != "locked":
            plan.append(("lock_doors", {}))
        f, clock, engine = fuel, start, False
        for k, (city, dist) in enumerate(legs):
            need = dist * consumption / 100
            if f < need + RESERVE:
                if engine:
                    plan.append(("stop_engine", {}))
                    engine = False
                plan.append(("refuel", {"liters": round(capacity - f, 1)}))
                f = float(capacity)
            if not engine:
                plan += [("press_brake_pedal", {}), ("start_engine", {}), ("release_parking_brake", {})]
                engine = True
            if clock >= sunset and (k == 0 or clock - 60 * legs[k - 1][1] // SPEED < sunset):
                plan.append(("set_headlights", {"on": True}))
            plan.append(("drive", {"destination": city, "distance_km": dist}))
            f = round(f - need, 1)
            clock += 60 * dist // SPEED
        self._plan = plan
        self._expected_answer = str(odo + sum(d for _, d in legs))
        route = ", then ".join(f"{city} ({dist} km)" for city, dist in legs)
        task = (f"Drive the car from where it is parked to {route}, legs in that order. At the start of every leg the tank must "
                f"cover the leg with at least {RESERVE:.0f} L to spare: if it cannot, fill the tank completely before the leg "
                "(the fleet card pays only for full fills a leg needs; never refuel otherwise). Headlights must be on for every "
                "leg that departs at or after sunset and off for legs that depart before it (the battery is weak). "
                "Answer with the odometer reading (km) on arrival at the last stop: <answer>KM</answer>.")
        refuels = sum(1 for name, _ in plan if name == "refuel")
        self._fact = f"The route has {len(legs)} leg(s), and {refuels} of them need the tank filled first."
        return task, {}

    def tool_get_status(self):
        st = self._state
        out = {k: st[k] for k in ("doors", "engine", "parking_brake", "headlights", "fuel", "capacity", "consumption", "odometer")}
        out.update(brake_pedal_pressed=st["brake_pedal"], clock=_clock(st["clock"]), sunset=_clock(st["sunset"]))
        return json.dumps(out)

    def tool_lock_doors(self):
        self._state["doors"] = "locked"
        return "Doors locked."

    def tool_press_brake_pedal(self):
        self._state["brake_pedal"] = True
        return "Brake pedal pressed."

    def tool_start_engine(self):
        st = self._state
        if st["doors"] != "locked":
            return "Error: interlock: lock the doors before starting the engine."
        if not st["brake_pedal"]:
            return "Error: interlock: press the brake pedal to start."
        if st["fuel"] <= 0:
            return "Error: the tank is empty."
        st["engine"] = True
        return "Engine running."

    def tool_stop_engine(self):
        st = self._state
        st.update(engine=False, parking_brake=True, brake_pedal=False)
        return "Engine stopped; parking brake applied."

    def tool_refuel(self, liters=0):
        st = self._state
        if st["engine"]:
            return "Error: refuelling with the engine running is not allowed."
        try:
            amount = float(liters)
        except (TypeError, ValueError):
            return "Error: liters must be a number."
        if not amount > 0 or st["fuel"] + amount > st["capacity"] + 1e-9:
            return f"Error: {amount} L does not fit: the tank holds {st['capacity']} L and has {st['fuel']} L."
        st["fuel"] = round(st["fuel"] + amount, 1)
        st["refuelled"] = True
        return f"Refuelled. Fuel now {st['fuel']} L."

    def tool_release_parking_brake(self):
        if not self._state["engine"]:
            return "Error: the parking brake only releases with the engine running."
        self._state["parking_brake"] = False
        return "Parking brake released."

    def tool_set_headlights(self, on=True):
        self._state["headlights"] = bool(on)
        return "Headlights " + ("on." if on else "off.")

    def tool_drive(self, destination="", distance_km=0):
        st = self._state
        if st["leg"] >= len(self._legs):
            return "Error: you have already arrived at the last stop."
        city, dist = self._legs[st["leg"]]
        if str(destination).strip().lower() != city.lower() or distance_km != dist:
            return "Error: navigation has no such route from here."
        if not st["engine"] or st["parking_brake"]:
            return "Error: the car cannot move: engine off or parking brake applied."
        night = st["clock"] >= st["sunset"]
        if night and not st["headlights"]:
            return "Error: safety assist: headlights are required after sunset."
        need = dist * st["consumption"] / 100
        if need > st["fuel"]:
            return f"Error: range check failed: {need:.1f} L needed, {st['fuel']} L in the tank."
        # the leg's rules are judged when it starts: the refuel decision and the lights
        must_fill = st["leg_start_fuel"] < need + RESERVE
        if st["refuelled"] != must_fill or (must_fill and st["fuel"] != st["capacity"]) or st["headlights"] != night:
            st["violations"].append(st["leg"])
        st["fuel"] = round(st["fuel"] - need, 1)
        st["odometer"] += dist
        st["clock"] += 60 * dist // SPEED
        st["leg"] += 1
        st["refuelled"] = False
        st["leg_start_fuel"] = st["fuel"]
        return f"Arrived at {city}. Odometer {st['odometer']} km, clock {_clock(st['clock'])}, fuel {st['fuel']} L."

    def tool_set_radio(self, station=""):
        return f"Radio tuned to {station}."

    def _check_answer(self, answer):
        st = self._state
        return (st["leg"] == len(self._legs) and not st["violations"]
                and str(answer).strip().replace(",", "") == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Before each leg compare the fuel with distance x consumption / 100 plus the reserve; only when it falls short, "
                "stop the engine and fill up by exactly the room left in the tank. Compare the clock with the sunset before each "
                "leg for the lights. The engine needs locked doors and a pressed brake pedal; the parking brake releases only with "
                "the engine running, and stopping the engine applies it again.")
