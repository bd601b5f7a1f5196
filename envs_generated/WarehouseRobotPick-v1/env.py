"""Warehouse Robot Pick: drive a picking robot to collect an order's items and deliver them to the packing station. Every SKU is stocked in several aisles and stock rotates first-in first-out, so each unit must come from the oldest lot that still has units; that lot's shelf level decides between the arm (levels 1-2) and the lift raised to exactly that level, and the basket's weight limit may force drop-offs between picks."""
import json
import random

SKUS = ["bolts-m8", "cable-ties", "duct-tape", "wd-40", "gloves-l", "hinges", "paint-blue", "sandpaper", "torch", "zip-bags",
        "fuse-10a", "hex-keys"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class WarehouseRobotPickEnv(ToolUseBaseEnv):
    # difficulty -> (items on the order, fewest and most locations per SKU, older lots may be empty, tight basket)
    LEVELS = {"easy": (2, 2, 2, False, False), "medium": (3, 2, 3, True, False), "hard": (4, 3, 3, True, True)}

    def __init__(self, max_turns=36, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_items, self.few, self.many, self.empties, self.tight = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        order = rng.sample(SKUS, self.n_items)
        free = rng.sample(range(1, 40), 38)  # aisles, each holding one lot at most
        stock, target = {}, {}
        for sku in SKUS:
            k = rng.randint(self.few, self.many) if sku in order else 1
            lots = []
            dates = sorted(rng.sample(range(1, 300), k))
            for day in dates:
                month, d = divmod(day, 30)
                lots.append({"aisle": free.pop(), "level": rng.randint(1, 5), "lot": "L%02d%02d" % (month + 1, d + 1),
                             "units": rng.randint(1, 6)})
            if sku in order:
                # the oldest lots may be used up: the first one with units is the one to pick from
                first = rng.randint(0, k - 2) if self.empties and rng.random() < 0.7 else 0
                for lot in lots[:first]:
                    lot["units"] = 0
                target[sku] = lots[first]
                rng.shuffle(lots)  # listed in storage order, not by age
            stock[sku] = {"kg": rng.randint(2, 9), "lots": lots}
        kgs = [stock[o]["kg"] for o in order]
        limit = 40
        if self.tight:
            # every item fits alone, but not all together: drop-offs are needed, how many depends on the weights
            limit = rng.randint(max(max(kgs), sum(kgs) // 2), sum(kgs) - 1)
        start = rng.choice(free)
        slip_base = rng.randint(10 ** 5, 9 * 10 ** 5)
        self._state = {"stock": stock, "at": start, "lift": 0, "basket": [], "delivered": [], "limit": limit, "seq": slip_base}
        self._order = order
        self._target = sorted(f"{o}/{target[o]['lot']}" for o in order)
        s = {"type": "string"}
        self._tools = {
            "where_am_i": {"description": "The robot's aisle, lift level, basket contents and weight limit.", "parameters": _obj({})},
            "locate_item": {"description": "Every location of a SKU: aisle, shelf level (1-2 arm reach, 3+ lift), lot code "
                                           "(L<month><day> of arrival) and units left; and the unit weight (kg).",
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
        seq, weight = slip_base, 0
        for o in order:
            lot = target[o]
            if weight + stock[o]["kg"] > limit:
                plan += [("drive_to", {"aisle": 0}), ("drop_at_station", {})]
                seq, weight = seq + 1, 0
            plan.append(("drive_to", {"aisle": lot["aisle"]}))
            if lot["level"] >= 3:
                plan += [("raise_lift", {"level": lot["level"]}), ("pick_from_lift", {"sku": o})]
            else:
                plan.append(("pick_with_arm", {"sku": o}))
            weight += stock[o]["kg"]
        plan += [("drive_to", {"aisle": 0}), ("drop_at_station", {})]
        self._plan = plan
        self._expected_answer = "SLIP-%d" % (seq + 1)
        task = (f"Order to pick: one unit each of {', '.join(order)}. Stock rotates first-in first-out: take every unit from the "
                "oldest lot of its SKU that still has units. Bring everything to the packing station (aisle 0) and answer "
                "with the packing slip id of the final drop-off: <answer>SLIP-...</answer>.")
        self._fact = (f"{sum(target[o]['level'] >= 3 for o in order)} of the lots to pick from sit above arm reach"
                      + (f"; the basket holds {limit} kg." if self.tight else "."))
        return task, {}

    def _lot_here(self, sku):
        it = self._state["stock"].get(str(sku).strip())
        if it is None:
            return None, None
        return it, next((lot for lot in it["lots"] if lot["aisle"] == self._state["at"]), None)

    def tool_where_am_i(self):
        st = self._state
        kg = sum(st["stock"][b.split("/")[0]]["kg"] for b in st["basket"])
        return (f"Aisle {st['at']}" + (" (packing station)" if st["at"] == 0 else "") + f", lift level {st['lift']}, basket "
                f"{st['basket'] or 'empty'} ({kg}/{st['limit']} kg).")

    def tool_locate_item(self, sku=""):
        it = self._state["stock"].get(str(sku).strip())
        if it is None:
            return "Error: unknown SKU."
        rows = [f"aisle {lot['aisle']}, shelf level {lot['level']}, lot {lot['lot']}, {lot['units']} unit(s)" for lot in it["lots"]]
        return f"{sku} ({it['kg']} kg per unit): " + "; ".join(rows) + "."

    def tool_drive_to(self, aisle=0):
        if not isinstance(aisle, int) or not 0 <= aisle < 40:
            return "Error: aisles are numbered 0 (station) to 39."
        self._state["at"] = aisle
        self._state["lift"] = 0
        return f"Arrived at {'the packing station' if aisle == 0 else 'aisle %d' % aisle}; lift lowered."

    def _pick(self, sku, with_lift):
        st = self._state
        it, lot = self._lot_here(sku)
        if it is None:
            return "Error: unknown SKU."
        if lot is None:
            return f"Error: {sku} is not in aisle {st['at']}."
        if with_lift and st["lift"] != lot["level"]:
            return f"Error: the lift is at level {st['lift']}; nothing to pick there."
        if not with_lift and lot["level"] >= 3:
            return f"Error: level {lot['level']} is out of the arm's reach; use the lift."
        if lot["units"] <= 0:
            return f"Error: lot {lot['lot']} is empty."
        kg = sum(st["stock"][b.split("/")[0]]["kg"] for b in st["basket"])
        if kg + it["kg"] > st["limit"]:
            return f"Error: basket limit: {kg} kg + {it['kg']} kg exceeds {st['limit']} kg."
        lot["units"] -= 1
        # the lot travels with the unit: the station checks first-in first-out on delivery
        st["basket"].append(f"{str(sku).strip()}/{lot['lot']}")
        return f"Picked {sku} from lot {lot['lot']}."

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
        # any route that delivers exactly the right lots wins; the slip is that route's last one
        st = self._state
        return (sorted(st["delivered"]) == self._target and not st["basket"]
                and str(answer).strip().upper() == "SLIP-%d" % st["seq"])

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("Locate every item first and compare its lot codes: the oldest lot with units left is the one to pick from "
                "(an older empty lot does not count). Drive to that lot's aisle; levels 1-2 use the arm, higher levels need "
                "the lift raised to exactly that level. ")
        if self.tight:
            text += "Watch the basket's weight limit: unload at the station before a pick would exceed it. "
        return text + "The slip id comes from the final drop-off."
