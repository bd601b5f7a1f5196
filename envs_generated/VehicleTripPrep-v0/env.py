"""Vehicle Trip Prep: get a car from parked to the end of a drive. The controller enforces an interlock chain: doors locked and brake pressed before the engine starts, refuelling only with the engine off, the parking brake released only with the engine running, and headlights on for a night drive; the drive refuses to start if the tank cannot cover the distance."""
import json
import random

CITIES = ["Arles", "Bergamo", "Cadiz", "Dresden", "Esbjerg", "Faro", "Graz", "Haarlem", "Innsbruck", "Jena", "Kassel", "Lyon"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class VehicleTripPrepEnv(ToolUseBaseEnv):
    # difficulty -> (doors start unlocked, tank too low for the trip, night drive)
    LEVELS = {"easy": (False, False, False), "medium": (True, False, True), "hard": (True, True, True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.unlocked, self.low_fuel, self.night = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        dest = rng.choice(CITIES)
        distance = rng.randint(80, 420)
        consumption = rng.randint(50, 95) / 10  # litres per 100 km
        capacity = 55
        need = distance * consumption / 100
        if self.low_fuel:
            fuel = round(rng.uniform(max(2.0, need - 25), need - 3), 1)
        else:
            fuel = round(rng.uniform(need + 3, capacity), 1)
        odo = rng.randint(5000, 180000)
        self._state = {"doors": "unlocked" if self.unlocked else "locked", "brake_pedal": False, "engine": False,
                       "parking_brake": True, "headlights": False, "fuel": fuel, "capacity": capacity,
                       "consumption": consumption, "odometer": odo, "arrived": False, "night": self.night,
                       "dest": dest, "distance": distance}
        s = {"type": "string"}
        self._tools = {
            "get_status": {"description": "Vehicle status: doors, engine, parking brake, lights, fuel (L), tank capacity, consumption (L/100km), odometer.",
                           "parameters": _obj({})},
            "lock_doors": {"description": "Lock all doors.", "parameters": _obj({})},
            "press_brake_pedal": {"description": "Hold the brake pedal down.", "parameters": _obj({})},
            "start_engine": {"description": "Start the engine.", "parameters": _obj({})},
            "stop_engine": {"description": "Stop the engine.", "parameters": _obj({})},
            "refuel": {"description": "Add fuel in litres.", "parameters": _obj({"liters": {"type": "number"}})},
            "release_parking_brake": {"description": "Release the parking brake.", "parameters": _obj({})},
            "set_headlights": {"description": "Switch the headlights on or off.", "parameters": _obj({"on": {"type": "boolean"}})},
            "drive": {"description": "Drive to a destination by navigation; reports the odometer on arrival.",
                      "parameters": _obj({"destination": s, "distance_km": {"type": "integer"}})},
            "set_radio": {"description": "Tune the radio.", "parameters": _obj({"station": s})},
        }
        plan = [("get_status", {})]
        if self.low_fuel:
            plan.append(("refuel", {"liters": round(capacity - fuel, 1)}))
        if self.unlocked:
            plan.append(("lock_doors", {}))
        plan += [("press_brake_pedal", {}), ("start_engine", {}), ("release_parking_brake", {})]
        if self.night:
            plan.append(("set_headlights", {"on": True}))
        plan.append(("drive", {"destination": dest, "distance_km": distance}))
        self._plan = plan
        self._expected_answer = str(odo + distance)
        task = (f"Drive the car from where it is parked to {dest}, {distance} km away" + (" (it is night)" if self.night else "")
                + ". Answer with the odometer reading (km) on arrival: <answer>KM</answer>.")
        self._fact = f"The trip needs {need:.1f} L of fuel."
        return task, {}

    def tool_get_status(self):
        st = self._state
        return json.dumps({k: st[k] for k in ("doors", "engine", "parking_brake", "headlights", "fuel", "capacity",
                                              "consumption", "odometer")} | {"brake_pedal_pressed": st["brake_pedal"]})

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
        self._state["engine"] = False
        self._state["parking_brake"] = True
        return "Engine stopped; parking brake applied."

    def tool_refuel(self, liters=0):
        st = self._state
        if st["engine"]:
            return "Error: refuelling with the engine running is not allowed."
        try:
            amount = float(liters)
        except (TypeError, ValueError):
            return "Error: liters must be a number."
        if amount <= 0 or st["fuel"] + amount > st["capacity"] + 1e-9:
            return f"Error: {amount} L does not fit: the tank holds {st['capacity']} L and has {st['fuel']} L."
        st["fuel"] = round(st["fuel"] + amount, 1)
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
        if st["arrived"]:
            return "Error: you have already arrived."
        if str(destination).strip().lower() != st["dest"].lower() or distance_km != st["distance"]:
            return "Error: navigation has no such route from here."
        if not st["engine"] or st["parking_brake"]:
            return "Error: the car cannot move: engine off or parking brake applied."
        if st["night"] and not st["headlights"]:
            return "Error: safety assist: headlights are required at night."
        need = st["distance"] * st["consumption"] / 100
        if need > st["fuel"]:
            return f"Error: range check failed: {need:.1f} L needed, {st['fuel']} L in the tank."
        st["fuel"] = round(st["fuel"] - need, 1)
        st["odometer"] += st["distance"]
        st["arrived"] = True
        return f"Arrived at {st['dest']}. Odometer {st['odometer']} km, fuel {st['fuel']} L."

    def tool_set_radio(self, station=""):
        return f"Radio tuned to {station}."

    def _check_answer(self, answer):
        return self._state["arrived"] and str(answer).strip().replace(",", "") == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Read the status first. The engine needs locked doors and a pressed brake pedal; the parking brake releases only with the engine running. "
        if self.low_fuel:
            text += "Compare distance x consumption / 100 with the fuel: if short, refuel BEFORE starting (not with the engine on) and within the tank capacity. "
        if self.night:
            text += "At night the drive also needs headlights."
        return text
