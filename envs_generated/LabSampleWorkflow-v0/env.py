"""Lab Sample Workflow: take a specimen from reception to an approved result: register the tube, look up the protocol for its specimen type, centrifuge at the protocol's speed, make aliquots, pass the analyser's quality control, run the assay and approve the result. Each step checks that the one before it happened."""
import json
import random

TYPES = {"serum": 3000, "plasma": 2000, "urine": 1500, "csf": 1000}
ASSAYS = {"glucose": ("mmol/L", 3.5, 12.0), "sodium": ("mmol/L", 128.0, 150.0), "creatinine": ("umol/L", 45.0, 160.0),
          "protein": ("g/L", 55.0, 85.0), "lactate": ("mmol/L", 0.5, 4.5)}
ANALYSERS = ["AX-1", "AX-2", "BX-7"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class LabSampleWorkflowEnv(ToolUseBaseEnv):
    # difficulty -> (assays requested, analyser QC already expired)
    LEVELS = {"easy": (1, False), "medium": (2, False), "hard": (2, True)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_assays, self.qc_expired = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        tube = "TB%07d" % rng.randint(0, 9999999)
        stype = rng.choice(list(TYPES))
        assays = sorted(rng.sample(list(ASSAYS), self.n_assays))
        analyser = rng.choice(ANALYSERS)
        values = {a: round(rng.uniform(ASSAYS[a][1], ASSAYS[a][2]), 1) for a in ASSAYS}
        self._state = {"tube": tube, "type": stype, "samples": {}, "values": values, "qc": {a: not self.qc_expired for a in ANALYSERS},
                       "results": {}, "approved": {}, "seq": rng.randint(100, 900), "res_seq": rng.randint(1000, 9000)}
        self._analyser = analyser
        s = {"type": "string"}
        self._tools = {
            "register_sample": {"description": "Register a received tube; returns the sample id.", "parameters": _obj({"tube_id": s})},
            "get_protocol": {"description": "Handling protocol of a specimen type (centrifuge speed, aliquot volume).",
                             "parameters": _obj({"specimen_type": s})},
            "centrifuge": {"description": "Spin a registered sample at a speed (rpm).", "parameters": _obj({"sample_id": s, "rpm": {"type": "integer"}})},
            "make_aliquots": {"description": "Split a spun sample into aliquots; returns their ids.",
                              "parameters": _obj({"sample_id": s, "count": {"type": "integer"}})},
            "run_qc": {"description": "Run the daily quality control of an analyser.", "parameters": _obj({"analyser": s})},
            "run_assay": {"description": "Run an assay on an aliquot on an analyser (QC must be valid); returns a result id.",
                          "parameters": _obj({"aliquot_id": s, "assay": s, "analyser": s})},
            "approve_result": {"description": "Approve a result; approved results show their value.", "parameters": _obj({"result_id": s})},
            "print_label": {"description": "Print a barcode label.", "parameters": _obj({"sample_id": s})},
        }
        sid = "S%d" % (self._state["seq"] + 1)
        plan = [("register_sample", {"tube_id": tube}), ("get_protocol", {"specimen_type": stype}),
                ("centrifuge", {"sample_id": sid, "rpm": TYPES[stype]}), ("make_aliquots", {"sample_id": sid, "count": self.n_assays})]
        if self.qc_expired:
            plan.append(("run_qc", {"analyser": analyser}))
        rs = self._state["res_seq"]
        for i, a in enumerate(assays):
            plan.append(("run_assay", {"aliquot_id": "%s-A%d" % (sid, i + 1), "assay": a, "analyser": analyser}))
        for i, a in enumerate(assays):
            plan.append(("approve_result", {"result_id": "R%d" % (rs + i + 1)}))
        self._plan = plan
        self._assays = assays
        self._expected_answer = ", ".join("%s %s" % (a, values[a]) for a in assays) if len(assays) > 1 else str(values[assays[0]])
        ask = (f"the {assays[0]} result" if len(assays) == 1 else "the results as 'assay value' pairs in alphabetical order, "
               "comma-separated, each value with one decimal (ASSAY VALUE, ASSAY VALUE)")
        task = (f"Tube {tube} ({stype}) has arrived for {' and '.join(assays)} on analyser {analyser}, one aliquot per assay. Process it "
                f"by protocol through to approved results and answer with {ask}: <answer>...</answer>.")
        self._fact = f"{stype.capitalize()} is spun at {TYPES[stype]} rpm."
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
        if not isinstance(count, int) or not 1 <= count <= 4 or smp["aliquots"]:
            return "Error: 1-4 aliquots, once per sample."
        sid = str(sample_id).strip().upper()
        smp["aliquots"] = ["%s-A%d" % (sid, i + 1) for i in range(count)]
        return "Aliquots: " + ", ".join(smp["aliquots"])

    def tool_run_qc(self, analyser=""):
        if analyser not in self._state["qc"]:
            return "Error: unknown analyser."
        self._state["qc"][analyser] = True
        return f"QC passed on {analyser}; valid for today."

    def tool_run_assay(self, aliquot_id="", assay="", analyser=""):
        st = self._state
        al = str(aliquot_id).strip().upper()
        if not any(al in v["aliquots"] for v in st["samples"].values()):
            return "Error: unknown aliquot."
        if any(r[0] == al for r in st["results"].values()):
            return "Error: this aliquot has been used."
        if assay not in ASSAYS:
            return "Error: unknown assay."
        if analyser not in st["qc"]:
            return "Error: unknown analyser."
        if not st["qc"][analyser]:
            return f"Error: QC on {analyser} has expired; run QC before patient samples."
        st["res_seq"] += 1
        rid = "R%d" % st["res_seq"]
        st["results"][rid] = (al, assay)
        return f"Result {rid} ({assay}) pending approval."

    def tool_approve_result(self, result_id=""):
        r = self._state["results"].get(str(result_id).strip().upper())
        if r is None:
            return "Error: unknown result."
        self._state["approved"][str(result_id).strip().upper()] = r
        unit = ASSAYS[r[1]][0]
        return f"{result_id} approved: {r[1]} {self._state['values'][r[1]]} {unit}."

    def tool_print_label(self, sample_id=""):
        return "Label printed." if self._sample(sample_id) else "Error: unknown sample."

    def _check_answer(self, answer):
        done = sorted(a for _, a in self._state["approved"].values()) == self._assays
        if len(self._assays) == 1:
            try:
                return done and abs(float(str(answer).split()[0]) - float(self._expected_answer)) < 0.01
            except (ValueError, IndexError):
                return False
        words = " ".join(str(answer).replace(",", " , ").split()).lower()
        return done and words == " ".join(self._expected_answer.replace(",", " , ").split()).lower()

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("Register first (the sample id is needed everywhere), read the protocol for the specimen type before spinning, "
                "make one aliquot per assay, and approve each result to see its value. ")
        if self.qc_expired:
            text += "The analyser's QC may have lapsed: run QC before the first assay."
        return text
