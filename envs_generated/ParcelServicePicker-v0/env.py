"""Parcel Service Picker: ship a batch of parcels, each through the one shipping service it is eligible for. The services look alike but each accepts only some parcels (by weight and destination), so the agent has to read every parcel before choosing a service for it, and report the total postage actually charged."""
import json
import random

DOMESTIC = ["Leeds", "Bristol", "Glasgow", "Cardiff", "Norwich", "York", "Belfast", "Exeter"]
ABROAD = ["Lyon", "Porto", "Gdansk", "Utrecht", "Bologna", "Ghent", "Tartu", "Cork"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _service(p):
    if p["country"] != "UK":
        return "ship_international"
    if p["grams"] <= 2000:
        return "ship_letter_post"
    if p["grams"] <= 30000:
        return "ship_parcel"
    return "ship_freight"


def _price(service, grams):
    kg = (grams + 999) // 1000
    base = {"ship_letter_post": (185, 0), "ship_parcel": (520, 45), "ship_freight": (3900, 30), "ship_international": (1450, 210)}[service]
    return base[0] + base[1] * kg


class ParcelServicePickerEnv(ToolUseBaseEnv):
    # difficulty -> parcels in the batch
    LEVELS = {"easy": 2, "medium": 3, "hard": 4}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_parcels = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        kinds = rng.sample(["letter", "parcel", "freight", "intl"], min(4, self.n_parcels))
        while len(kinds) < self.n_parcels:
            kinds.append(rng.choice(["letter", "parcel", "freight", "intl"]))
        parcels = {}
        for k in kinds:
            pid = "PCL-%05d" % rng.randint(0, 99999)
            grams = {"letter": rng.randint(50, 2000), "parcel": rng.randint(2001, 30000), "freight": rng.randint(30001, 90000),
                     "intl": rng.randint(100, 30000)}[k]
            city = rng.choice(ABROAD) if k == "intl" else rng.choice(DOMESTIC)
            parcels[pid] = {"grams": grams, "city": city, "country": "UK" if k != "intl" else "EU", "shipped": None}
        self._state = {"parcels": parcels, "charged": 0, "seq": rng.randint(10 ** 5, 9 * 10 ** 5)}
        s = {"type": "string"}
        rule = {"ship_letter_post": "Royal letter post: domestic items up to 2 kg.",
                "ship_parcel": "Domestic parcel service: domestic items over 2 kg and up to 30 kg.",
                "ship_freight": "Freight pallet service: domestic items over 30 kg.",
                "ship_international": "International tracked: items to EU destinations up to 30 kg."}
        self._tools = {"get_parcel": {"description": "Parcel details: weight in grams, destination city and country.",
                                      "parameters": _obj({"parcel_id": s})}}
        for name in ("ship_letter_post", "ship_parcel", "ship_freight", "ship_international"):
            self._tools[name] = {"description": rule[name] + " Charges postage and returns a tracking number.",
                                 "parameters": _obj({"parcel_id": s})}
        self._tools["track"] = {"description": "Tracking events of a tracking number.", "parameters": _obj({"tracking_no": s})}
        self._tools["print_customs_form"] = {"description": "Print a customs declaration for a parcel.", "parameters": _obj({"parcel_id": s})}
        ids = list(parcels)
        plan = [("get_parcel", {"parcel_id": p}) for p in ids] + [(_service(parcels[p]), {"parcel_id": p}) for p in ids]
        self._plan = plan
        total = sum(_price(_service(parcels[p]), parcels[p]["grams"]) for p in ids)
        self._expected_answer = "%d.%02d" % (total // 100, total % 100)
        task = (f"Ship these parcels today: {', '.join(ids)}. Each must go through the shipping service it is eligible for. "
                "Answer with the total postage charged, in GBP with two decimals: <answer>AMOUNT</answer>.")
        self._fact = "The batch needs " + ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")[len(set(_service(parcels[p]) for p in ids))] + " different shipping services."
        return task, {}

    def tool_get_parcel(self, parcel_id=""):
        p = self._state["parcels"].get(str(parcel_id).strip().upper())
        if p is None:
            return "Error: unknown parcel."
        return json.dumps({"parcel_id": str(parcel_id).strip().upper(), "weight_g": p["grams"], "city": p["city"],
                           "country": p["country"], "shipped": p["shipped"] is not None})

    def _ship(self, service, parcel_id):
        st = self._state
        pid = str(parcel_id).strip().upper()
        p = st["parcels"].get(pid)
        if p is None:
            return "Error: unknown parcel."
        if p["shipped"]:
            return f"Error: {pid} has already been shipped."
        if _service(p) != service:
            return f"Error: {pid} is not eligible for this service (see the service's rules)."
        cost = _price(service, p["grams"])
        st["seq"] += 1
        p["shipped"] = "TRK%d" % st["seq"]
        st["charged"] += cost
        return f"Booked {pid}: tracking {p['shipped']}, postage {cost // 100}.{cost % 100:02d} GBP."

    def tool_ship_letter_post(self, parcel_id=""):
        return self._ship("ship_letter_post", parcel_id)

    def tool_ship_parcel(self, parcel_id=""):
        return self._ship("ship_parcel", parcel_id)

    def tool_ship_freight(self, parcel_id=""):
        return self._ship("ship_freight", parcel_id)

    def tool_ship_international(self, parcel_id=""):
        return self._ship("ship_international", parcel_id)

    def tool_track(self, tracking_no=""):
        return f"{tracking_no}: label created, awaiting collection."

    def tool_print_customs_form(self, parcel_id=""):
        return f"Customs form CN22 printed for {parcel_id}."

    def _check_answer(self, answer):
        st = self._state
        try:
            value = float(str(answer).replace("GBP", "").replace("£", "").strip())
        except ValueError:
            return False
        return all(p["shipped"] for p in st["parcels"].values()) and abs(value * 100 - st["charged"]) < 1 \
            and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Read each parcel before booking it: the destination country decides international vs domestic, and for "
                "domestic items the weight decides between letter post (up to 2 kg), parcel (up to 30 kg) and freight. Add up "
                "the postage each booking reports.")
