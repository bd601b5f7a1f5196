"""New Hire Onboarding: onboard a new employee end to end: create the HR record, look up the department's cost code and manager, open an IT account, assign a laptop from the stock the department is allowed, enrol the mandatory training, and only then issue the access badge. Each system needs an id the previous one issued."""
import json
import random

DEPTS = {"Finance": "laptop-std", "Engineering": "laptop-pro", "Design": "laptop-pro", "Support": "laptop-std",
         "Legal": "laptop-std", "Research": "laptop-pro"}
FIRST = ["Aditi", "Bruno", "Camila", "Dawit", "Elina", "Florin", "Grete", "Hiro", "Ilona", "Jamal"]
LAST = ["Asante", "Bauer", "Cortez", "Dahl", "Eriksen", "Fujita", "Gallo", "Horvat"]
COURSES = {"security-basics": "all staff", "gdpr-101": "all staff", "secure-coding": "Engineering, Research",
           "finance-controls": "Finance, Legal"}


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _mandatory(dept):
    return sorted(c for c, who in COURSES.items() if who == "all staff" or dept in who)


class NewHireOnboardingEnv(ToolUseBaseEnv):
    # difficulty -> (mandatory courses counted: only the all-staff ones or the department's too, laptop stock low)
    LEVELS = {"easy": (False, False), "medium": (True, False), "hard": (True, True)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.dept_courses, self.low_stock = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        dept = rng.choice(list(DEPTS))
        start = "2027-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        cost = {d: "CC%03d" % rng.randint(100, 999) for d in DEPTS}
        managers = {d: f"{rng.choice(FIRST)} {rng.choice(LAST)}" for d in DEPTS}
        stock = {}
        for model in ("laptop-std", "laptop-pro"):
            for _ in range(3):
                stock["AS-%05d" % rng.randint(0, 99999)] = {"model": model, "status": "available"}
        tag_model = DEPTS[dept]
        if self.low_stock:  # the first listed asset of the right model is out for repair
            mine = sorted(a for a, v in stock.items() if v["model"] == tag_model)
            stock[mine[0]]["status"] = "in repair"
        laptop = sorted(a for a, v in stock.items() if v["model"] == tag_model and v["status"] == "available")[0]
        courses = _mandatory(dept) if self.dept_courses else sorted(c for c, w in COURSES.items() if w == "all staff")
        self._state = {"employees": {}, "accounts": {}, "stock": stock, "training": {}, "badges": {},
                       "seq": rng.randint(1000, 8000), "cost": cost, "managers": managers, "salt": rng.randint(1, 10 ** 6)}
        s = {"type": "string"}
        self._tools = {
            "get_department": {"description": "A department's cost code, manager and laptop model policy.", "parameters": _obj({"department": s})},
            "create_employee": {"description": "Create the HR record; returns the employee id.",
                                "parameters": _obj({"full_name": s, "department": s, "cost_code": s, "start_date": s})},
            "create_it_account": {"description": "Open the IT account of an employee; returns the username.", "parameters": _obj({"employee_id": s})},
            "list_laptops": {"description": "Laptop assets: tag, model, status.", "parameters": _obj({})},
            "assign_laptop": {"description": "Assign an available laptop to an IT account (model must match the department policy).",
                              "parameters": _obj({"username": s, "asset_tag": s})},
            "list_courses": {"description": "Training courses and who must take them.", "parameters": _obj({})},
            "enroll_training": {"description": "Enrol an IT account in a course.", "parameters": _obj({"username": s, "course": s})},
            "issue_badge": {"description": "Issue the access badge (needs an account, a laptop and all mandatory training).",
                            "parameters": _obj({"employee_id": s})},
            "book_desk": {"description": "Book a desk for a date.", "parameters": _obj({"employee_id": s, "date": s})},
        }
        emp = "E%d" % (self._state["seq"] + 1)
        first, last = name.split()
        user = (first[0] + last).lower()
        plan = [("get_department", {"department": dept}),
                ("create_employee", {"full_name": name, "department": dept, "cost_code": cost[dept], "start_date": start}),
                ("create_it_account", {"employee_id": emp}), ("list_laptops", {}),
                ("assign_laptop", {"username": user, "asset_tag": laptop})]
        if self.dept_courses:
            plan.append(("list_courses", {}))
        plan += [("enroll_training", {"username": user, "course": c}) for c in courses]
        plan.append(("issue_badge", {"employee_id": emp}))
        self._plan = plan
        self._emp, self._laptop, self._courses = emp, laptop, courses
        self._expected_answer = self._badge(emp)
        need = "all mandatory training for the department" if self.dept_courses else "the all-staff training"
        task = (f"Onboard {name}, joining {dept} on {start}: HR record (with the department's cost code), IT account, a laptop "
                f"of the model the department's policy allows, {need}, then the access badge. Answer with the badge number: "
                "<answer>BDG-...</answer>.")
        self._fact = f"Onboarding into {dept} takes {len(courses)} mandatory course(s)."
        return task, {}

    def _badge(self, emp):
        h = self._state["salt"]
        for ch in emp:
            h = (h * 131 + ord(ch)) % 999983
        return "BDG-%06d" % h

    def tool_get_department(self, department=""):
        d = str(department).strip().title()
        if d not in DEPTS:
            return "Error: no such department. Departments: " + ", ".join(DEPTS)
        return f"{d}: cost code {self._state['cost'][d]}, manager {self._state['managers'][d]}, laptop policy {DEPTS[d]}."

    def tool_create_employee(self, full_name="", department="", cost_code="", start_date=""):
        d = str(department).strip().title()
        if d not in DEPTS:
            return "Error: no such department."
        if str(cost_code).strip().upper() != self._state["cost"][d]:
            return f"Error: cost code {cost_code} does not belong to {d}."
        if len(str(start_date)) != 10:
            return "Error: start_date must be YYYY-MM-DD."
        self._state["seq"] += 1
        emp = "E%d" % self._state["seq"]
        self._state["employees"][emp] = {"name": str(full_name).strip(), "dept": d}
        return f"HR record {emp} created for {full_name} ({d})."

    def tool_create_it_account(self, employee_id=""):
        e = self._state["employees"].get(str(employee_id).strip().upper())
        if e is None:
            return "Error: no HR record with that id."
        parts = e["name"].split()
        user = (parts[0][0] + parts[-1]).lower() if len(parts) >= 2 else e["name"].lower()
        if user in self._state["accounts"]:
            return f"Error: account {user} exists."
        self._state["accounts"][user] = {"emp": str(employee_id).strip().upper(), "laptop": None}
        return f"IT account created: username {user}."

    def tool_list_laptops(self):
        return "\n".join(f"{a}: {v['model']}, {v['status']}" for a, v in sorted(self._state["stock"].items()))

    def tool_assign_laptop(self, username="", asset_tag=""):
        acct = self._state["accounts"].get(str(username).strip().lower())
        if acct is None:
            return "Error: no such IT account."
        a = self._state["stock"].get(str(asset_tag).strip().upper())
        if a is None or a["status"] != "available":
            return f"Error: {asset_tag} is not available."
        dept = self._state["employees"][acct["emp"]]["dept"]
        if a["model"] != DEPTS[dept]:
            return f"Error: {dept} policy allows {DEPTS[dept]} only."
        a["status"] = "assigned"
        acct["laptop"] = str(asset_tag).strip().upper()
        return f"{asset_tag} assigned to {username}."

    def tool_list_courses(self):
        return "\n".join(f"{c}: mandatory for {w}" for c, w in COURSES.items())

    def tool_enroll_training(self, username="", course=""):
        if str(username).strip().lower() not in self._state["accounts"]:
            return "Error: no such IT account."
        if course not in COURSES:
            return "Error: no such course."
        self._state["training"].setdefault(str(username).strip().lower(), set()).add(course)
        return f"{username} enrolled in {course}."

    def tool_issue_badge(self, employee_id=""):
        emp = str(employee_id).strip().upper()
        e = self._state["employees"].get(emp)
        if e is None:
            return "Error: no HR record with that id."
        users = [u for u, a in self._state["accounts"].items() if a["emp"] == emp]
        if not users:
            return "Error: the employee has no IT account."
        acct = self._state["accounts"][users[0]]
        if acct["laptop"] is None:
            return "Error: no laptop assigned yet."
        missing = [c for c in _mandatory(e["dept"]) if c not in self._state["training"].get(users[0], set())]
        if self.dept_courses and missing:
            return f"Error: mandatory training missing: {len(missing)} course(s)."
        if not self.dept_courses and any(COURSES[c] == "all staff" and c not in self._state["training"].get(users[0], set()) for c in COURSES):
            return "Error: all-staff training missing."
        self._state["badges"][emp] = self._badge(emp)
        return f"Badge {self._badge(emp)} issued to {e['name']}."

    def tool_book_desk(self, employee_id="", date=""):
        return "Desk 4.17 booked." if str(employee_id).strip().upper() in self._state["employees"] else "Error: no HR record."

    def _check_answer(self, answer):
        return self._state["badges"].get(self._emp) == self._expected_answer and str(answer).strip().upper() == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("Look up the department first (cost code and laptop policy). The IT account needs the HR id, the laptop and "
                "training need the username the account step returns. ")
        if self.low_stock:
            text += "Only laptops with status 'available' can be assigned. "
        if self.dept_courses:
            text += "Mandatory training depends on the department: check the course list. "
        return text + "The badge is issued last."
