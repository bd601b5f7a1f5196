"""Smart Home Scene: build and activate a lighting scene. Device ids are only known after listing a room, a device must be powered on before it accepts a setting, and a scene only activates once it contains every device the request names with the right level."""
import json
import random

ROOMS = ["living room", "kitchen", "bedroom", "study", "hallway", "patio"]
KINDS = [("lamp", "brightness"), ("ceiling light", "brightness"), ("blinds", "position"), ("speaker", "volume"),
         ("thermostat", "temperature"), ("led strip", "brightness")]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class SmartHomeSceneEnv(ToolUseBaseEnv):
    # difficulty -> (devices to put in the scene, devices per room)
    LEVELS = {"easy": (1, 3), "medium": (2, 4), "hard": (3, 5)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_targets, self.per_room = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        devices = {}
        for room in ROOMS:
            for kind, setting in rng.sample(KINDS, self.per_room):
                did = "dev-%04x" % rng.randint(0, 65535)
                while did in devices:
                    did = "dev-%04x" % rng.randint(0, 65535)
                devices[did] = {"room": room, "kind": kind, "setting": setting, "on": rng.random() < 0.3,
                                "value": rng.randint(0, 100)}
        room = rng.choice(ROOMS)
        in_room = [d for d in devices if devices[d]["room"] == room]
        targets = rng.sample(in_room, self.n_targets)
        wanted = {}
        for d in targets:
            devices[d]["on"] = False
            wanted[d] = rng.randint(5, 95) if devices[d]["setting"] != "temperature" else rng.randint(16, 26)
        scene_name = rng.choice(["Movie Night", "Morning", "Reading", "Dinner", "Focus", "Wind Down"]) + " " + str(rng.randint(2, 99))
        self._state = {"devices": devices, "scenes": {}, "active": None, "salt": rng.randint(1000, 9999)}
        self._wanted = wanted
        self._scene_name = scene_name
        s = {"type": "string"}
        self._tools = {
            "list_devices": {"description": "Devices in a room: id, kind, power state and current setting.",
                             "parameters": _obj({"room": s})},
            "power_on": {"description": "Switch a device on.", "parameters": _obj({"device_id": s})},
            "set_level": {"description": "Set a powered-on device's setting (brightness/position/volume in %, temperature in C).",
                          "parameters": _obj({"device_id": s, "value": {"type": "integer"}})},
            "create_scene": {"description": "Create an empty scene. Returns the scene id.", "parameters": _obj({"name": s})},
            "add_to_scene": {"description": "Capture a device's current power state and setting into a scene.",
                             "parameters": _obj({"scene_id": s, "device_id": s})},
            "activate_scene": {"description": "Activate a scene. Returns its activation receipt.", "parameters": _obj({"scene_id": s})},
            "get_energy_report": {"description": "Energy used by a room today.", "parameters": _obj({"room": s})},
        }
        sid = "scene-%d" % (self._state["salt"] + 1)
        plan = [("list_devices", {"room": room})]
        for d in targets:
            plan += [("power_on", {"device_id": d}), ("set_level", {"device_id": d, "value": wanted[d]})]
        plan.append(("create_scene", {"name": scene_name}))
        plan += [("add_to_scene", {"scene_id": sid, "device_id": d}) for d in targets]
        plan.append(("activate_scene", {"scene_id": sid}))
        self._plan = plan
        self._expected_answer = self._receipt(sid, {d: wanted[d] for d in targets})
        wants = "; ".join(f"the {devices[d]['kind']} {devices[d]['setting']} at {wanted[d]}" for d in targets)
        task = (f"In the {room}, create a scene called '{scene_name}' containing exactly these devices, switched on: {wants}. "
                "Activate it and answer with the activation receipt: <answer>RECEIPT</answer>.")
        self._fact = f"All {len(targets)} device(s) for the scene are switched off right now."
        return task, {}

    def _receipt(self, sid, captured):
        h = self._state["salt"]
        for d in sorted(captured):
            for ch in "%s=%s;" % (d, captured[d]):
                h = (h * 257 + ord(ch)) % 999983
        return "ACT-%s-%06d" % (sid.split("-")[1], h)

    def tool_list_devices(self, room=""):
        rows = [f"{d}: {v['kind']}, {'on' if v['on'] else 'off'}, {v['setting']} {v['value']}"
                for d, v in self._state["devices"].items() if v["room"] == str(room).strip().lower()]
        return "\n".join(rows) if rows else f"No room called '{room}'. Rooms: " + ", ".join(ROOMS)

    def tool_power_on(self, device_id=""):
        d = self._state["devices"].get(device_id)
        if d is None:
            return "Error: unknown device."
        d["on"] = True
        return f"{device_id} ({d['kind']}) is on."

    def tool_set_level(self, device_id="", value=0):
        d = self._state["devices"].get(device_id)
        if d is None:
            return "Error: unknown device."
        if not d["on"]:
            return f"Error: {device_id} is off; it ignores settings until powered on."
        d["value"] = int(value)
        return f"{device_id} {d['setting']} set to {int(value)}."

    def tool_create_scene(self, name=""):
        self._state["salt"] += 1
        sid = "scene-%d" % self._state["salt"]
        self._state["scenes"][sid] = {"name": str(name), "devices": {}}
        return f"Scene '{name}' created with id {sid}."

    def tool_add_to_scene(self, scene_id="", device_id=""):
        sc = self._state["scenes"].get(scene_id)
        d = self._state["devices"].get(device_id)
        if sc is None or d is None:
            return "Error: unknown scene or device."
        if not d["on"]:
            return f"Error: {device_id} is off; a scene captures only powered devices."
        sc["devices"][device_id] = d["value"]
        return f"Captured {device_id} ({d['setting']} {d['value']}) into {scene_id}."

    def tool_activate_scene(self, scene_id=""):
        sc = self._state["scenes"].get(scene_id)
        if sc is None:
            return "Error: unknown scene."
        if not sc["devices"]:
            return "Error: the scene is empty."
        self._state["active"] = (scene_id, sc["name"], dict(sc["devices"]))
        return f"Scene {scene_id} active. Receipt {self._receipt(scene_id, sc['devices'])}."

    def tool_get_energy_report(self, room=""):
        return f"{room}: {sum(map(ord, str(room))) % 40 / 10 + 0.5:.1f} kWh today."

    def _check_answer(self, answer):
        act = self._state["active"]
        return (act is not None and act[1] == self._scene_name and act[2] == self._wanted
                and str(answer).strip().upper() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("List the room first to learn the device ids. Devices that are off ignore set_level and cannot be captured, "
                "so power on, then set, then capture; a scene stores the value a device had when it was added, so set the "
                "level before add_to_scene. Use the scene id create_scene returns.")
