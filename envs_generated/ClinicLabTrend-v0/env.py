"""Clinic Lab Trend: report how a patient's lab marker changed between two visits. Patients share names, so the right chart is found by date of birth; a chart must be opened before its visits can be listed, and each visit's lab panel is fetched separately."""
import json
import random

FIRST = ["Anna", "Ben", "Carla", "David", "Eva", "Felix", "Grace", "Henrik"]
LAST = ["Meyer", "Costa", "Lindgren", "Osei", "Varga", "Quinn"]
MARKERS = [("HbA1c", "%", 4.8, 9.5), ("LDL", "mmol/L", 1.5, 5.2), ("CRP", "mg/L", 0.5, 25.0), ("TSH", "mU/L", 0.4, 6.5),
           ("Creatinine", "umol/L", 50.0, 140.0), ("Ferritin", "ug/L", 15.0, 300.0)]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class ClinicLabTrendEnv(ToolUseBaseEnv):
    # difficulty -> (patients sharing the name, visits on the chart, visits the question spans)
    LEVELS = {"easy": (1, 3, 2), "medium": (2, 5, 2), "hard": (3, 6, 3)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_namesakes, self.n_visits, self.n_asked = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        patients = {}
        for _ in range(self.n_namesakes):
            pid = "MRN-%06d" % rng.randint(0, 999999)
            dob = "%d-%02d-%02d" % (rng.randint(1940, 2000), rng.randint(1, 12), rng.randint(1, 28))
            visits = {}
            days = sorted(rng.sample(range(1, 337), self.n_visits))
            year = rng.randint(2021, 2025)
            for d in days:
                vid = "V%05d" % rng.randint(0, 99999)
                panel = {m: round(rng.uniform(lo, hi), 1) for m, _, lo, hi in MARKERS}
                visits[vid] = {"date": "%d-%02d-%02d" % (year, 1 + (d - 1) // 28, 1 + (d - 1) % 28), "panel": panel}
            patients[pid] = {"name": name, "dob": dob, "visits": visits}
        pid = list(patients)[0]
        marker, unit, lo, hi = rng.choice(MARKERS)
        vids = list(patients[pid]["visits"])
        start = rng.randint(0, len(vids) - self.n_asked)
        asked = vids[start:start + self.n_asked]
        vals = [patients[pid]["visits"][v]["panel"][marker] for v in asked]
        self._state = {"patients": patients, "chart": None, "fetched": set()}
        self._asked = set(asked)
        s = {"type": "string"}
        self._tools = {
            "search_patient": {"description": "Find patients by full name: medical record number and date of birth.",
                               "parameters": _obj({"name": s})},
            "open_chart": {"description": "Open a patient's chart (closes any open chart).", "parameters": _obj({"patient_id": s})},
            "list_visits": {"description": "Visits on the open chart: visit id and date.", "parameters": _obj({})},
            "get_lab_panel": {"description": "Lab results of a visit on the open chart.", "parameters": _obj({"visit_id": s})},
            "get_medications": {"description": "Current medications on the open chart.", "parameters": _obj({})},
        }
        dob = patients[pid]["dob"]
        dates = [patients[pid]["visits"][v]["date"] for v in asked]
        plan = [("search_patient", {"name": name}), ("open_chart", {"patient_id": pid}), ("list_visits", {})]
        plan += [("get_lab_panel", {"visit_id": v}) for v in asked]
        self._plan = plan
        if self.n_asked == 2:
            self._expected_answer = "%.1f" % (vals[1] - vals[0])
            q = (f"By how much did {marker} ({unit}) change from the visit on {dates[0]} to the visit on {dates[1]}? Answer "
                 "the later value minus the earlier one with one decimal (negative if it fell)")
        else:
            self._expected_answer = "%.1f" % (max(vals) - min(vals))
            q = (f"What was the spread (highest minus lowest) of {marker} ({unit}) over the visits from {dates[0]} to {dates[-1]} inclusive? "
                 "Answer with one decimal")
        task = f"Patient {name}, born {dob}. {q}: <answer>CHANGE</answer>."
        self._marker = marker
        self._fact = (f"{marker} is highest at the visit on {dates[vals.index(max(vals))]}." if self.n_asked > 2 else f"{marker} " + ("rose" if vals[1] > vals[0] else "fell or stayed level") + " between the two visits.")
        return task, {}

    def tool_search_patient(self, name=""):
        rows = [f"{pid}: {p['name']}, born {p['dob']}" for pid, p in self._state["patients"].items()
                if p["name"].lower() == str(name).strip().lower()]
        return "\n".join(rows) if rows else "No patients found."

    def tool_open_chart(self, patient_id=""):
        if patient_id not in self._state["patients"]:
            return "Error: unknown patient id."
        self._state["chart"] = patient_id
        return f"Chart {patient_id} open."

    def tool_list_visits(self):
        pid = self._state["chart"]
        if pid is None:
            return "Error: no chart is open."
        return "\n".join(f"{vid}: {v['date']}" for vid, v in self._state["patients"][pid]["visits"].items())

    def tool_get_lab_panel(self, visit_id=""):
        pid = self._state["chart"]
        if pid is None:
            return "Error: no chart is open."
        v = self._state["patients"][pid]["visits"].get(visit_id)
        if v is None:
            return f"Error: visit {visit_id} is not on the open chart."
        self._state["fetched"].add((pid, visit_id))
        return ", ".join(f"{m} {v['panel'][m]} {u}" for m, u, _, _ in MARKERS)

    def tool_get_medications(self):
        if self._state["chart"] is None:
            return "Error: no chart is open."
        return "metformin 500 mg, atorvastatin 20 mg"

    def _check_answer(self, answer):
        pid = list(self._state["patients"])[0]
        try:
            value = float(str(answer).strip().replace("+", ""))
        except ValueError:
            return False
        return all((pid, v) in self._state["fetched"] for v in self._asked) and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Several patients can share a name: pick the record whose date of birth matches, open that chart, then list "
                f"its visits to map the dates in the question to visit ids. Fetch the panel of every visit the question covers "
                f"and read {self._marker} from each.")
