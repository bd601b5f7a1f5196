"""Archive Box Request: a reading room lends one archive box at a time. Find which boxes hold a correspondent's letters in the finding aid, request each box, read its folders, return it before requesting the next, and report the date of the earliest letter."""
import json
import random

PEOPLE = ["Agnes Whitlow", "Bartholomew Crane", "Cordelia Fenn", "Dorian Vale", "Eleanor Marsh", "Fitzroy Blake",
          "Genevieve Hale", "Horace Lindley", "Isolde Pryce", "Jasper Thorne"]
TOPICS = ["harbour dues", "the mill fire", "a land dispute", "the school board", "railway shares", "a wedding", "crop failure"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class ArchiveBoxRequestEnv(ToolUseBaseEnv):
    # difficulty -> (boxes holding the correspondent's letters, folders per box)
    LEVELS = {"easy": (1, 3), "medium": (2, 3), "hard": (3, 4)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_boxes, self.n_folders = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        people = rng.sample(PEOPLE, 5)
        who = people[0]
        boxes = {}
        for b in rng.sample(range(10, 99), 6):
            box = "Box %d" % b
            folders = {}
            for f in range(1, self.n_folders + 1):
                letters = []
                for _ in range(rng.randint(2, 4)):
                    letters.append({"from": rng.choice(people[1:]), "date": "%d-%02d-%02d" % (rng.randint(1850, 1899), rng.randint(1, 12), rng.randint(1, 28)),
                                    "topic": rng.choice(TOPICS)})
                folders["F%d" % f] = letters
            boxes[box] = folders
        holding = rng.sample(list(boxes), self.n_boxes)
        for box in holding:
            for fname in rng.sample(list(boxes[box]), rng.randint(1, 2)):
                boxes[box][fname].append({"from": who, "date": "%d-%02d-%02d" % (rng.randint(1850, 1899), rng.randint(1, 12), rng.randint(1, 28)),
                                          "topic": rng.choice(TOPICS)})
                rng.shuffle(boxes[box][fname])
        topic = rng.choice(TOPICS)
        mine = [l for box in holding for f in boxes[box].values() for l in f if l["from"] == who]
        if not any(l["topic"] == topic for l in mine):
            rng.choice(mine)["topic"] = topic
        dates = [l["date"] for l in mine if l["topic"] == topic]
        self._state = {"boxes": boxes, "desk": None, "read": set(), "reader": "RDR-%04d" % rng.randint(0, 9999)}
        reader = self._state["reader"]
        self._need = {(box, f) for box in holding for f, ls in boxes[box].items() if any(l["from"] == who for l in ls)}
        s = {"type": "string"}
        self._tools = {
            "search_finding_aid": {"description": "Search the finding aid by correspondent name: boxes and folders that hold their letters.",
                                   "parameters": _obj({"name": s})},
            "request_box": {"description": "Bring a box to your desk (one box at a time); needs your reader ticket.",
                            "parameters": _obj({"box": dict(s, description="e.g. 'Box 42'"), "reader_ticket": s})},
            "read_folder": {"description": "Read the letters in a folder of the box on your desk: sender, date, topic.",
                            "parameters": _obj({"folder": dict(s, description="e.g. 'F2'")})},
            "return_box": {"description": "Return the box on your desk to the stacks.", "parameters": _obj({})},
            "order_scan": {"description": "Order a digital scan of a folder (delivered in 10 working days).",
                           "parameters": _obj({"box": s, "folder": s})},
        }
        order = sorted(holding, key=lambda b: int(b.split()[1]))
        plan = [("search_finding_aid", {"name": who})]
        for i, box in enumerate(order):
            plan.append(("request_box", {"box": box, "reader_ticket": reader}))
            plan += [("read_folder", {"folder": f}) for f in sorted(boxes[box]) if (box, f) in self._need]
            if i < len(order) - 1:
                plan.append(("return_box", {}))
        self._plan = plan
        self._expected_answer = min(dates)
        task = (f"Your reader ticket is {reader}. Find the date of the EARLIEST letter written by {who} about {topic} held in "
                "the reading room's collection. "
                "Answer with the date as YYYY-MM-DD: <answer>YYYY-MM-DD</answer>.")
        self._fact = f"{who}'s letters are spread over {len(holding)} box(es), {len(self._need)} folder(s) in all."
        return task, {}

    def tool_search_finding_aid(self, name=""):
        name = str(name).strip().lower()
        hits = sorted({(b, f) for b, fs in self._state["boxes"].items() for f, ls in fs.items()
                       if any(l["from"].lower() == name for l in ls)}, key=lambda x: (int(x[0].split()[1]), x[1]))
        if not hits:
            return "No entries."
        return "\n".join(f"{b}, folder {f}" for b, f in hits)

    def tool_request_box(self, box="", reader_ticket=""):
        if str(reader_ticket).strip().upper() != self._state["reader"]:
            return "Error: a valid reader ticket is required."
        box = str(box).strip()
        if not box.lower().startswith("box"):
            box = "Box " + box
        box = "Box " + box[3:].strip()
        if box not in self._state["boxes"]:
            return f"Error: {box} is not in this collection."
        if self._state["desk"] is not None:
            return f"Error: {self._state['desk']} is still on your desk; return it first."
        self._state["desk"] = box
        return f"{box} delivered to your desk ({len(self._state['boxes'][box])} folders)."

    def tool_read_folder(self, folder=""):
        box = self._state["desk"]
        if box is None:
            return "Error: no box on your desk."
        f = str(folder).strip().upper()
        letters = self._state["boxes"][box].get(f)
        if letters is None:
            return f"Error: {box} has no folder {folder}."
        self._state["read"].add((box, f))
        return "\n".join(f"{l['date']}: from {l['from']}, about {l['topic']}" for l in letters)

    def tool_return_box(self):
        if self._state["desk"] is None:
            return "Error: no box on your desk."
        box = self._state["desk"]
        self._state["desk"] = None
        return f"{box} returned."

    def tool_order_scan(self, box="", folder=""):
        return f"Scan of {box} {folder} ordered for reader {self._state['reader']}."

    def _check_answer(self, answer):
        return self._need <= self._state["read"] and str(answer).strip() == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("The finding aid tells you every box and folder to read; folders also hold other people's letters, so read "
                "the sender and topic of each line. Only one box fits on the desk: return it before requesting the next. Compare "
                "dates across all boxes before answering.")
