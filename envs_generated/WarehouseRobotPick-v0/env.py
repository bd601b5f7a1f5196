"""Warehouse Robot Pick: drive a picking robot to collect an order's items and deliver them to the packing station. The robot picks only in the aisle it stands in, low shelves take the arm while high shelves need the lift raised to that level first, and the basket has a weight limit that may force a drop-off between picks."""
import json
import random

SKUS = ["bolts-m8", "cable-ties", "duct-tape", "wd-40", "gloves-l", "hinges", "paint-blue", "sandpaper", "torch", "zip-bags",
        "fuse-10a", "hex-keys"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class WarehouseRobotPickEnv(ToolUseBaseEnv):
    # difficulty -> (items on the order, an item sits on a high shelf, basket limit forces a mid-route drop-off)
    LEVELS = {"easy": (2, False, False), "medium": (2, True, False), "hard": (3, True, True)}

    def __init__(self, max_turns=18, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_items, self.high, self.tight = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        aisles = rng.sample(range(1, 40), len(SKUS))
        stock = {}
        for sku, aisle in zip(SKUS, aisles):
            stock[sku] = {"aisle": aisle, "level": rng.randint(1, 2), "kg": rng.randint(2, 9)}
        order = rng.sample(SKUS, self.n_items)
        if self.high:
            stock[order[-1]]["level"] = rng.randint(3, 5)
        limit = 30
        if self.tight:
            # the first two items fit with at most 1 kg to spare, so the third (2 kg or more) needs a drop-off first
            limit = stock[order[0]]["kg"] + stock[order[1]]["kg"] + rng.randint(0, 1)
            stock[order[2]]["kg"] = min(stock[order[2]]["kg"], limit)  # ...and fits once the basket is empty
        start = rng.choice([a for a in range(1, 40) if a not in [stock[o]["aisle"] for o in order]])
        slip_base = rng.randint(10 ** 5, 9 * 10 ** 5)
        self._state = {"stock": stock, "at": start, "lift": 0, "basket": [], "delivered": [], "limit": limit, "seq": slip_base}
        self._order = order
        s = {"type": "string"}
        self._tools = {
            "where_am_i": {"description": "The robot's aisle, lift level, basket contents and weight limit.", "parameters": _obj({})},
            "locate_item": {"description": "Aisle, shelf level (1-2 arm reach, 3+ lift) and unit weight (kg) of a SKU.",
                            "parameters": _obj({"sku": s})},
            "drive_to": {"description": "Drive to an aisle number, or 0 for the packing station. Lowers the lift.",
                         "parameters": _obj({"aisle": {"type": "integer"}})},
            "pick_with_arm": {"description": "Pick one unit from a shelf at level 1-2 of the current aisle.", "parameters": _obj({"sku": s})},
            "raise_lift": {"description": "Raise the lift to a shelf level.", "parameters": _obj({"level": {"type": "integer"}})},
            "pick_from_lift": {"description": "Pick one unit from the shelf at the lift's level in the current aisle.",
                               "parameters": _obj({"sku": s})},
            "drop_at_station": {"description": "At the packing station, unload the basket. Returns the packing slip id.", "parameters": _obj({})},
            "recharge": {"description": "Dock and recharge the battery.", "parameters": _obj({})},
        }
        plan = [("where_am_i", {})] + [("locate_item", {"sku": o}) for o in order]
        seq = slip_base
        weight = 0
        for o in order:
            it = stock[o]
            if weight + it["kg"] > limit:
                plan += [("drive_to", {"aisle": 0}), ("drop_at_station", {})]
                seq += 1
                weight = 0
            plan.append(("drive_to", {"aisle": it["aisle"]}))
            if it["level"] >= 3:
                plan += [("raise_lift", {"level": it["level"]}), ("pick_from_lift", {"sku": o})]
            else:
                plan.append(("pick_with_arm", {"sku": o}))
            weight += it["kg"]
        plan += [("drive_to", {"aisle": 0}), ("drop_at_station", {})]
        seq += 1
        self._plan = plan
        self._expected_answer = "SLIP-%d" % seq
        task = (f"Order to pick: one unit each of {', '.join(order)}. Bring everything to the packing station (aisle 0) and answer "
                "with the packing slip id of the final drop-off: <answer>SLIP-...</answer>.")
        self._fact = f"{sum(stock[o]['level'] >= 3 for o in order)} item(s) sit above arm reach; the order takes {sum(1 for n, _ in plan if n == 'drop_at_station')} drop-off(s)."
        return task, {}

    def tool_where_am_i(self):
        st = self._state
        kg = sum(st["stock"][b]["kg"] for b in st["basket"])
        return (f"Aisle {st['at']}" + (" (packing station)" if st["at"] == 0 else "") + f", lift level {st['lift']}, basket "
                f"{st['basket'] or 'empty'} ({kg}/{st['limit']} kg).")

    def tool_locate_item(self, sku=""):
        it = self._state["stock"].get(str(sku).strip())
        if it is None:
            return "Error: unknown SKU."
        return f"{sku}: aisle {it['aisle']}, shelf level {it['level']}, {it['kg']} kg per unit."

    def tool_drive_to(self, aisle=0):
        if not isinstance(aisle, int) or not 0 <= aisle < 40:
            return "Error: aisles are numbered 0 (station) to 39."
        self._state["at"] = aisle
        self._state["lift"] = 0
        return f"Arrived at {'the packing station' if aisle == 0 else 'aisle %d' % aisle}; lift lowered."

    def _pick(self, sku, with_lift):
        st = self._state
        it = st["stock"].get(str(sku).strip())
        if it is None:
            return "Error: unknown SKU."
        if st["at"] != it["aisle"]:
            return f"Error: {sku} is not in aisle {st['at']}."
        if with_lift and st["lift"] != it["level"]:
            return f"Error: the lift is at level {st['lift']}; nothing to pick there."
        if not with_lift and it["level"] >= 3:
            return f"Error: level {it['level']} is out of the arm's reach; use the lift."
        kg = sum(st["stock"][b]["kg"] for b in st["basket"])
        if kg + it["kg"] > st["limit"]:
            return f"Error: basket limit: {kg} kg + {it['kg']} kg exceeds {st['limit']} kg."
        st["basket"].append(str(sku).strip())
        return f"Picked {sku}."

    def tool_pick_with_arm(self, sku=""):
        return self._pick(sku, False)

    def tool_raise_lift(self, level=0):
        if not isinstance(level, int) or not 1 <= level <= 5:
            return "Error: lift levels are 1-5."
        if self._state["at"] == 0:
            return "Error: no shelving at the packing station."
        self._state["lift"] = level
        return f"Lift at level {level}."

    def tool_pick_from_lift(self, sku=""):
        return self._pick(sku, True)

    def tool_drop_at_station(self):
        st = self._state
        if st["at"] != 0:
            return "Error: drop-offs happen only at the packing station (aisle 0)."
        if not st["basket"]:
            return "Error: the basket is empty."
        st["seq"] += 1
        st["delivered"] += st["basket"]
        st["basket"] = []
        return f"Unloaded. Packing slip SLIP-{st['seq']}."

    def tool_recharge(self):
        return "Battery at 100%."

    def _check_answer(self, answer):
        st = self._state
        return (sorted(st["delivered"]) == sorted(self._order) and not st["basket"]
                and str(answer).strip().upper() == "SLIP-%d" % st["seq"] == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Locate every item first. Drive to an item's aisle before picking; levels 1-2 use the arm, higher levels need the lift raised to exactly that level. "
        if self.tight:
            text += "Watch the basket's weight limit: unload at the station before a pick would exceed it. "
        return text + "The slip id comes from the final drop-off."
