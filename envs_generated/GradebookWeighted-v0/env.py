"""Gradebook Weighted: compute one student's final course grade from a gradebook. The course must be opened first, the student id comes from the roster, category weights and scores are separate queries, and the syllabus may drop each student's lowest quiz."""
import json
import random

COURSES = ["BIO-201", "CHEM-110", "HIST-340", "MATH-221", "PHYS-150", "ECON-305", "LING-120"]
FIRST = ["Aiko", "Bram", "Cleo", "Dario", "Esme", "Finn", "Gia", "Hamid", "Iris", "Jude", "Kira", "Levi"]
LAST = ["Abara", "Berg", "Castro", "Dunn", "Ekwueme", "Faure", "Gill", "Holm"]
CATEGORIES = ["quizzes", "labs", "midterm", "final", "project", "homework"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class GradebookWeightedEnv(ToolUseBaseEnv):
    # difficulty -> (graded categories, items per multi-item category, drop the lowest quiz)
    LEVELS = {"easy": (2, 3, False), "medium": (3, 4, False), "hard": (4, 5, True)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_cats, self.n_items, self.drop = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        courses = {}
        for code in rng.sample(COURSES, 3):
            cats = ["quizzes"] + rng.sample([c for c in CATEGORIES if c != "quizzes"], self.n_cats - 1)
            cuts = sorted(rng.sample(range(1, 20), self.n_cats - 1))
            parts = [b - a for a, b in zip([0] + cuts, cuts + [20])]
            weights = {c: p * 5 for c, p in zip(cats, parts)}
            roster = {}
            for _ in range(6):
                sid = "S%06d" % rng.randint(0, 999999)
                name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
                while name in [r["name"] for r in roster.values()]:
                    name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
                scores = {c: [rng.randint(40, 100) for _ in range(self.n_items if c in ("quizzes", "labs", "homework") else 1)]
                          for c in cats}
                roster[sid] = {"name": name, "scores": scores}
            courses[code] = {"weights": weights, "roster": roster}
        code = list(courses)[0]
        sid = list(courses[code]["roster"])[rng.randint(0, 5)]
        st = courses[code]["roster"][sid]
        total = 0.0
        for c, w in courses[code]["weights"].items():
            vals = sorted(st["scores"][c])
            if c == "quizzes" and self.drop and len(vals) > 1:
                vals = vals[1:]
            total += w * sum(vals) / len(vals)
        self._state = {"courses": courses, "open": None, "seen": set(), "weights_seen": False}
        self._sid, self._code = sid, code
        s = {"type": "string"}
        self._tools = {
            "open_course": {"description": "Open a course's gradebook (closes any other).", "parameters": _obj({"course": s})},
            "get_roster": {"description": "Students of the open course: id and name.", "parameters": _obj({})},
            "get_weights": {"description": "Grading weights (percent) per category of the open course, and the syllabus rules.",
                            "parameters": _obj({})},
            "get_scores": {"description": "A student's scores (0-100) in every category of the open course.",
                           "parameters": _obj({"student_id": s})},
            "post_comment": {"description": "Post a comment on a student's record.", "parameters": _obj({"student_id": s, "text": s})},
        }
        self._plan = [("open_course", {"course": code}), ("get_roster", {}), ("get_weights", {}), ("get_scores", {"student_id": sid})]
        self._expected_answer = "%.2f" % (total / 100)
        task = (f"What is {st['name']}'s final weighted grade in {code}? Average the scores inside each category, weight the "
                "category averages by the course's weights, and apply the syllabus rules. Answer with two decimals: <answer>GRADE</answer>.")
        self._fact = f"{len(courses[code]['weights'])} grading categories count in {code}."
        return task, {}

    def _course(self):
        return self._state["courses"].get(self._state["open"]) if self._state["open"] else None

    def tool_open_course(self, course=""):
        code = str(course).strip().upper()
        if code not in self._state["courses"]:
            return "Error: no gradebook for that course. Gradebooks: " + ", ".join(self._state["courses"])
        self._state["open"] = code
        return f"{code} gradebook open."

    def tool_get_roster(self):
        c = self._course()
        if c is None:
            return "Error: open a course first."
        return "\n".join(f"{sid}: {r['name']}" for sid, r in c["roster"].items())

    def tool_get_weights(self):
        c = self._course()
        if c is None:
            return "Error: open a course first."
        self._state["weights_seen"] = self._state["open"] == self._code
        rule = "Each student's lowest quiz score is dropped." if self.drop else "All scores count."
        return ", ".join(f"{k} {v}%" for k, v in c["weights"].items()) + ". " + rule

    def tool_get_scores(self, student_id=""):
        c = self._course()
        if c is None:
            return "Error: open a course first."
        r = c["roster"].get(str(student_id).strip().upper())
        if r is None:
            return "Error: no such student in the open course."
        self._state["seen"].add((self._state["open"], str(student_id).strip().upper()))
        return "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in r["scores"].items())

    def tool_post_comment(self, student_id="", text=""):
        if self._course() is None:
            return "Error: open a course first."
        return "Comment posted."

    def _check_answer(self, answer):
        try:
            value = float(str(answer).strip().rstrip("%"))
        except ValueError:
            return False
        return ((self._code, self._sid) in self._state["seen"] and self._state["weights_seen"]
                and abs(value - float(self._expected_answer)) < 0.01)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Open the course, find the student's id on the roster (names are not accepted by get_scores), then read the "
                "weights and the scores. Average within a category first, then take the weighted sum of the averages"
                + ("; drop the single lowest quiz before averaging the quizzes." if self.drop else "."))
