"""Print Queue Triage: rearrange a shared printer's queue: jump one document to the front, cancel the queued jobs of a user who has left, and get the printer running again. The spooler only reorders a paused queue, a job that is already printing cannot be touched, and completion estimates only exist while the queue runs."""
import json
import random

USERS = ["akhan", "bmoreau", "cdiaz", "dlee", "epetrov", "fsato", "gmensah", "hrossi", "iward"]
DOCS = ["Q3 board deck", "lease agreement", "lab protocol", "payroll summary", "visa application", "floor plan",
        "grant proposal", "exam sheets", "press release", "audit memo", "menu cards", "safety manual"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class PrintQueueTriageEnv(ToolUseBaseEnv):
    # difficulty -> (queued jobs, jobs of the departed user to cancel); every level cancels
    # something, so no level is one fixed call sequence a script can replay
    LEVELS = {"easy": (5, 1), "medium": (7, 2), "hard": (9, 3)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_jobs, self.n_cancel = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        users = rng.sample(USERS, 4)
        urgent_user, gone = users[0], users[1]
        docs = rng.sample(DOCS, self.n_jobs + 1)
        ids = rng.sample(range(100, 999), self.n_jobs + 1)
        owners = [rng.choice(users[2:]) for _ in range(self.n_jobs + 1)]
        jobs = [{"id": "J%d" % i, "owner": o, "doc": d, "pages": rng.randint(3, 60)} for i, o, d in zip(ids, owners, docs)]
        printing = jobs[0]
        printing["done"] = rng.randint(1, printing["pages"] - 1)
        queued = jobs[1:]
        target = queued[rng.randint(2, len(queued) - 1)]
        target["owner"] = urgent_user
        others = [j for j in queued if j is not target]
        for j in rng.sample(others, self.n_cancel):
            j["owner"] = gone
        if self.n_cancel >= 3:  # the urgent user's other job keeps the name lookup honest
            rest = [j for j in others if j["owner"] != gone]
            rest[0]["owner"] = urgent_user
        ppm = rng.choice([12, 15, 20, 24, 30])
        self._state = {"printing": printing, "queue": queued, "paused": False, "ppm": ppm, "cancelled": []}
        self._target = target["id"]
        self._gone = gone
        s = {"type": "string"}
        self._tools = {
            "get_queue": {"description": "The printing job and the queue in order (id, owner, document, pages), with completion estimates while running.",
                          "parameters": _obj({})},
            "pause_queue": {"description": "Pause the queue after the job that is printing.", "parameters": _obj({})},
            "resume_queue": {"description": "Resume the queue.", "parameters": _obj({})},
            "move_job": {"description": "Move a queued job to a position (1 = next to print).",
                         "parameters": _obj({"job_id": s, "position": {"type": "integer"}})},
            "cancel_job": {"description": "Cancel a queued job.", "parameters": _obj({"job_id": s})},
            "get_printer_info": {"description": "Printer model, speed and toner level.", "parameters": _obj({})},
            "print_test_page": {"description": "Print a test page.", "parameters": _obj({})},
        }
        plan = [("get_queue", {}), ("pause_queue", {})]
        plan += [("cancel_job", {"job_id": j["id"]}) for j in queued if j["owner"] == gone]
        plan += [("move_job", {"job_id": target["id"], "position": 1}), ("resume_queue", {}), ("get_queue", {})]
        self._plan = plan
        remaining = printing["pages"] - printing["done"]
        self._expected_answer = "%.1f" % ((remaining + target["pages"]) / ppm)
        cancel = f" Cancel every queued job of {gone}, who has left the company." if self.n_cancel else ""
        task = (f"{urgent_user} needs the '{target['doc']}' printout urgently: make it the next job to print.{cancel} Make sure "
                "the printer is running afterwards, then answer with the queue's completion estimate for that job in "
                "minutes (one decimal): <answer>MINUTES</answer>.")
        self._fact = "The document is the " + ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")[queued.index(target)] + " job in the queue."
        return task, {}

    def tool_get_queue(self):
        st = self._state
        p = st["printing"]
        lines = [f"PRINTING {p['id']} {p['owner']} '{p['doc']}' page {p['done']}/{p['pages']}"]
        t = (p["pages"] - p["done"]) / st["ppm"]
        for pos, j in enumerate(st["queue"], 1):
            t += j["pages"] / st["ppm"]
            eta = "paused" if st["paused"] else "done in %.1f min" % t
            lines.append(f"{pos}. {j['id']} {j['owner']} '{j['doc']}' {j['pages']} pages, {eta}")
        return "\n".join(lines) + ("\n(queue paused)" if st["paused"] else "")

    def tool_pause_queue(self):
        self._state["paused"] = True
        return "Queue paused after the current job."

    def tool_resume_queue(self):
        self._state["paused"] = False
        return "Queue running."

    def _find(self, job_id):
        for j in self._state["queue"]:
            if j["id"] == str(job_id).strip().upper():
                return j
        return None

    def tool_move_job(self, job_id="", position=1):
        st = self._state
        if str(job_id).strip().upper() == st["printing"]["id"]:
            return "Error: that job is already printing."
        j = self._find(job_id)
        if j is None:
            return f"Error: no queued job '{job_id}'."
        if not st["paused"]:
            return "Error: the spooler only reorders a paused queue."
        if not isinstance(position, int) or not 1 <= position <= len(st["queue"]):
            return "Error: position out of range."
        st["queue"].remove(j)
        st["queue"].insert(position - 1, j)
        return f"{j['id']} moved to position {position}."

    def tool_cancel_job(self, job_id=""):
        st = self._state
        if str(job_id).strip().upper() == st["printing"]["id"]:
            return "Error: a job that is printing cannot be cancelled."
        j = self._find(job_id)
        if j is None:
            return f"Error: no queued job '{job_id}'."
        st["queue"].remove(j)
        st["cancelled"].append(j["id"])
        return f"{j['id']} cancelled."

    def tool_get_printer_info(self):
        return f"LaserJet M60, {self._state['ppm']} pages per minute, toner 41%."

    def tool_print_test_page(self):
        return "Test page queued behind the current job."

    def _check_answer(self, answer):
        st = self._state
        ok = (not st["paused"] and st["queue"] and st["queue"][0]["id"] == self._target
              and not any(j["owner"] == self._gone for j in st["queue"]) and len(st["cancelled"]) == self.n_cancel)
        try:
            return bool(ok) and abs(float(str(answer).split()[0]) - float(self._expected_answer)) < 0.01
        except (ValueError, IndexError):
            return False

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Read the queue to map the document to its job id (the owner alone may not be enough). Pause before reordering. "
        if self.n_cancel:
            text += "Cancel only the departed user's queued jobs, nobody else's. "
        return text + "Estimates are shown only while the queue runs: resume, then read the queue again."
