"""Lab Sample Workflow: take a specimen from reception to approved results: register the tube, look up the protocol for its specimen type, centrifuge at the protocol's speed, make one aliquot per assay, then route every assay to the analyser that would finish it soonest given its live queue, its speed and whether its quality control must be rerun first, run it and approve the result. Queues grow as assays are placed, so each assay needs its own decision."""
import json
import random

TYPES = {"serum": 3000, "plasma": 2000, "urine": 1500, "csf": 1000}
ASSAYS = {"glucose": ("mmol/L", 3.5, 12.0), "sodium": ("mmol/L", 128.0, 150.0), "creatinine": ("umol/L", 45.0, 160.0),
          "protein": ("g/L", 55.0, 85.0), "lactate": ("mmol/L", 0.5, 4.5), "urea": ("mmol/L", 2.5, 9.0)}
ANALYSERS = ["AX-1", "AX-2", "BX-7", "CX-3", "DX-5"]
QC_MINUTES = 15


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class LabSampleWorkflowEnv(ToolUseBaseEnv):
    # difficulty -> (assays requested: fewest, most; analysers on the bench; analyser QC may have lapsed)
    LEVELS = {"easy": (2, 2, 4, False), "medium": (2, 3, 4, True), "hard": (3, 4, 5, True)}

    def __init__(self, max_turns=24, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.lo, self.hi, self.n_analysers, self.qc_lapses = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def _route(self, bench, assays):
        """The analyser each assay goes to, in order: soonest finish, counting the queue as it grows and the QC run a lapsed
        analyser needs first; None when two analysers tie (the generator draws again)."""
        queue = {a: b["queue"] for a, b in bench.items()}
        qc = {a: b["qc"] for a, b in bench.items()}
        out = []
        for assay in assays:
            finish = sorted(((queue[a] + 1) * bench[a]["speed"] + (0 if qc[a] else QC_MINUTES), a)
                            for a in sorted(bench) if assay in bench[a]["menu"])
            if len(finish) < 2 or finish[0][0] == finish[1][0]:
                return None
            best = finish[0][1]
            out.append((assay, best, not qc[best]))
            queue[best] += 1
            qc[best] = True
        return out

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        tube = "TB%07d" % rng.randint(0, 9999999)
        stype = rng.choice(list(TYPES))
        assays = sorted(rng.sample(list(ASSAYS), rng.randint(self.lo, self.hi)))
        route = None
        while route is None:
            names = rng.sample(ANALYSERS, self.n_analysers)
            bench = {}
            for a in names:
                menu = sorted(x for x in ASSAYS if rng.random() < 0.75)
                bench[a] = {"queue": rng.randint(0, 6), "speed": rng.choice([3, 4, 5, 6, 8]), "menu": menu,
                            "qc": not (self.qc_lapses and rng.random() < 0.35)}
            route = self._route(bench, assays)
        listing = list(bench)
        rng.shuffle(listing)
        values = {a: round(rng.uniform(ASSAYS[a][1], ASSAYS[a][2]), 1) for a in ASSAYS}
        self._state = {"tube": tube, "type": stype, "samples": {}, "values": values, "bench": bench, "listing": listing,
                       "results": {}, "approved": {}, "seq": rng.randint(100, 900), "res_seq": rng.randint(1000, 9000),
                       "wrong_answer": False}
        self._route_want = {assay: best for assay, best, _ in route}
        s = {"type": "string"}
        self._tools = {
            "register_sample": {"description": "Register a received tube; returns the sample id.", "parameters": _obj({"tube_id": s})},
            "get_protocol": {"description": "Handling protocol of a specimen type (centrifuge speed, aliquot volume).",
                             "parameters": _obj({"specimen_type": s})},
            "centrifuge": {"description": "Spin a registered sample at a speed (rpm).", "parameters": _obj({"sample_id": s, "rpm": {"type": "integer"}})},
            "make_aliquots": {"description": "Split a spun sample into aliquots; returns their ids.",
                              "parameters": _obj({"sample_id": s, "count": {"type": "integer"}})},
            "list_analysers": {"description": "The bench: each analyser's assay menu, queue length, minutes per test and QC state.",
                               "parameters": _obj({})},
            "run_qc": {"description": "Run the daily quality control of an analyser (takes 15 minutes).", "parameters": _obj({"analyser": s})},
            "run_assay": {"description": "Queue an assay of an aliquot on an analyser (QC must be valid); returns a result id.",
                          "parameters": _obj({"aliquot_id": s, "assay": s, "analyser": s})},
            "approve_result": {"description": "Approve a result; approved results show their value.", "parameters": _obj({"result_id": s})},
            "print_label": {"description": "Print a barcode label.", "parameters": _obj({"sample_id": s})},
        }
        sid = "S%d" % (self._state["seq"] + 1)
        plan = [("register_sample", {"tube_id": tube}), ("get_protocol", {"specimen_type": stype}),
                ("centrifuge", {"sample_id": sid, "rpm": TYPES[stype]}), ("make_aliquots", {"sample_id": sid, "count": len(assays)}),
                ("list_analysers", {})]
        rs = self._state["res_seq"]
        for i, (assay, best, needs_qc) in enumerate(route):
            if needs_qc:
                plan.append(("run_qc", {"analyser": best}))
            plan.append(("run_assay", {"aliquot_id": "%s-A%d" % (sid, i + 1), "assay": assay, "analyser": best}))
        for i in range(len(route)):
            plan.append(("approve_result", {"result_id": "R%d" % (rs + i + 1)}))
        self._plan = plan
        self._assays = assays
        self._expected_answer = ", ".join("%s %s" % (a, values[a]) for a in assays) if len(assays) > 1 else str(values[assays[0]])
        ask = (f"the {assays[0]} result" if len(assays) == 1 else "the results as 'assay value' pairs in alphabetical order, "
               "comma-separated, each value with one decimal (ASSAY VALUE, ASSAY VALUE)")
        task = (f"Tube {tube} ({stype}) has arrived for {' and '.join(assays)}, one aliquot per assay. Process it by protocol through "
                "to approved results. Place the assays in alphabetical order, each on the analyser that would finish it soonest: "
                "(tests already queued + 1) x minutes per test, plus 15 minutes when the analyser's QC has lapsed and must be run "
                f"first. Answer with {ask}: <answer>...</answer>.")
        return task, {}

    def _sample(self, sid):
        return self._state["samples"].get(str(sid).strip().upper())

    def tool_register_sample(self, tube_id=""):
        if str(tube_id).strip().upper() != self._state["tube"]:
            return "Error: no such tube at reception."
        if any(v["tube"] == self._state["tube"] for v in self._state["samples"].values()):
            return "Error: tube already registered."
        self._state["seq"] += 1
        sid = "S%d" % self._state["seq"]
        self._state["samples"][sid] = {"tube": self._state["tube"], "spun": False, "aliquots": []}
        return f"Registered {tube_id} as sample {sid} ({self._state['type']})."

    def tool_get_protocol(self, specimen_type=""):
        t = str(specimen_type).strip().lower()
        if t not in TYPES:
            return "Error: unknown specimen type."
        return f"{t}: centrifuge at {TYPES[t]} rpm for 10 min; aliquots of 0.5 mL, one per assay."

    def tool_centrifuge(self, sample_id="", rpm=0):
        smp = self._sample(sample_id)
        if smp is None:
            return "Error: unknown sample."
        if rpm != TYPES[self._state["type"]]:
            return f"Error: {rpm} rpm is outside the protocol for {self._state['type']}; the sample was not spun."
        smp["spun"] = True
        return f"{sample_id} spun at {rpm} rpm."

    def tool_make_aliquots(self, sample_id="", count=1):
        smp = self._sample(sample_id)
        if smp is None:
            return "Error: unknown sample."
        if not smp["spun"]:
            return "Error: aliquots can only be made from a spun sample."
        if not isinstance(count, int) or not 1 <= count <= 6 or smp["aliquots"]:
            return "Error: 1-6 aliquots, once per sample."
        sid = str(sample_id).strip().upper()
        smp["aliquots"] = ["%s-A%d" % (sid, i + 1) for i in range(count)]
        return "Aliquots: " + ", ".join(smp["aliquots"])

    def tool_list_analysers(self):
        bench = self._state["bench"]
        return "\n".join(f"{a}: runs {', '.join(bench[a]['menu']) or 'nothing today'}; {bench[a]['queue']} tests queued, "
                         f"{bench[a]['speed']} min per test, QC {'valid' if bench[a]['qc'] else 'lapsed'}"
                         for a in self._state["listing"])

    def tool_run_qc(self, analyser=""):
        b = self._state["bench"].get(str(analyser).strip().upper())
        if b is None:
            return "Error: unknown analyser."
        b["qc"] = True
        return f"QC passed on {str(analyser).strip().upper()}; valid for today."

    def tool_run_assay(self, aliquot_id="", assay="", analyser=""):
        st = self._state
        al = str(aliquot_id).strip().upper()
        name = str(analyser).strip().upper()
        if not any(al in v["aliquots"] for v in st["samples"].values()):
            return "Error: unknown aliquot."
        if any(r[0] == al for r in st["results"].values()):
            return "Error: this aliquot has been used."
        if assay not in ASSAYS:
            return "Error: unknown assay."
        b = st["bench"].get(name)
        if b is None:
            return "Error: unknown analyser."
        if assay not in b["menu"]:
            return f"Error: {name} does not run {assay}."
        if not b["qc"]:
            return f"Error: QC on {name} has lapsed; run QC before patient samples."
        if any(r[1] == assay for r in st["results"].values()):
            return f"Error: {assay} is already queued for this tube."
        b["queue"] += 1
        st["res_seq"] += 1
        rid = "R%d" % st["res_seq"]
        # a slower analyser still takes the test: a late result is a routing mistake, not a failed call
        st["results"][rid] = (al, assay, name)
        return f"Result {rid} ({assay}) queued on {name}, ready in {b['queue'] * b['speed']} min, pending approval."

    def tool_approve_result(self, result_id=""):
        rid = str(result_id).strip().upper()
        r = self._state["results"].get(rid)
        if r is None:
            return "Error: unknown result."
        self._state["approved"][rid] = r
        return f"{rid} approved: {r[1]} {self._state['values'][r[1]]} {ASSAYS[r[1]][0]}."

    def tool_print_label(self, sample_id=""):
        return "Label printed." if self._sample(sample_id) else "Error: unknown sample."

    def _routed(self):
        got = {r[1]: r[2] for r in self._state["approved"].values()}
        return got == self._route_want

    def _check_answer(self, answer):
        # one answer per episode: a wrong one is final (no trying every value the results showed)
        if self._state["wrong_answer"]:
            return False
        done = self._routed()
        if len(self._assays) == 1:
            try:
                ok = done and abs(float(str(answer).split()[0]) - float(self._expected_answer)) < 0.01
            except (ValueError, IndexError):
                ok = False
        else:
            words = " ".join(str(answer).replace(",", " , ").split()).lower()
            ok = done and words == " ".join(self._expected_answer.replace(",", " , ").split()).lower()
        self._state["wrong_answer"] = not ok
        return ok

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        text = ("Register first (the sample id is needed everywhere), read the protocol for the specimen type before spinning, "
                "and make one aliquot per assay. Read the bench before placing anything: for each assay, in alphabetical order, "
                "work out the finish time on every analyser that runs it and take the smallest; after placing one, that "
                "analyser's queue is one longer for the next assay. ")
        if self.qc_lapses:
            text += "A lapsed analyser costs 15 extra minutes; if it still wins, run its QC, then the assay (its QC then stays valid). "
        return text + "Approve each result to see its value."
