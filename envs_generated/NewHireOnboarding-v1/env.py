"""New Hire Onboarding: onboard an employee end to end: check HR for an earlier record of the same person (a returning employee is reactivated under the old id, a new one gets a fresh record), look up the department's cost code and laptop policy, open the IT account, assign the in-policy available laptop with the longest warranty left, enrol every course the course table makes mandatory for the department, and only then issue the access badge. Which HR tool, which laptop and how many enrolments all follow from what the tools report."""
import json
import random

DEPTS = ["Finance", "Engineering", "Design", "Support", "Legal", "Research"]
MODELS = ["laptop-std-13", "laptop-pro-14", "laptop-pro-16", "laptop-lite-13"]
FIRST = ["Aditi", "Bruno", "Camila", "Dawit", "Elina", "Florin", "Grete", "Hiro", "Ilona", "Jamal"]
LAST = ["Asante", "Bauer", "Cortez", "Dahl", "Eriksen", "Fujita", "Gallo", "Horvat"]
COURSES = ["security-basics", "gdpr-101", "secure-coding", "finance-controls", "ethics-code", "fire-safety", "export-control",
           "data-handling", "anti-bribery"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _date(rng, years):
    return "%d-%02d-%02d" % (rng.choice(years), rng.randint(1, 12), rng.randint(1, 28))


class NewHireOnboardingEnv(ToolUseBaseEnv):
    # difficulty -> (laptops in stock, department-specific courses, a returning employee is possible, a namesake in HR)
    LEVELS = {"easy": (7, False, False, False), "medium": (10, True, True, False), "hard": (12, True, True, True)}

    def __init__(self, max_turns=20, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_laptops, self.dept_courses, self.rehires, self.namesake = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        first, last = rng.choice(FIRST), rng.choice(LAST)
        name = f"{first} {last}"
        dept = rng.choice(DEPTS)
        start = "2027-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        birth = _date(rng, range(1970, 2004))
        policy = {d: rng.choice(MODELS) for d in DEPTS}
        cost = {d: "CC%03d" % rng.randint(100, 999) for d in DEPTS}
        # the course table: who must take what is drawn per task
        table = {}
        for c in rng.sample(COURSES, 6):
            table[c] = "all staff" if rng.random() < 0.35 else ", ".join(sorted(rng.sample(DEPTS, rng.randint(1, 3))))
        if not any(w == "all staff" for w in table.values()):
            table[sorted(table)[0]] = "all staff"
        courses = sorted(c for c, w in table.items() if w == "all staff" or (self.dept_courses and dept in w.split(", ")))
        # stock: several laptops of the policy model are free; the one with the latest warranty end is the one to hand out
        stock = {}
        while len(stock) < self.n_laptops:
            stock["AS-%05d" % rng.randint(0, 99999)] = {"model": rng.choice(MODELS), "status": rng.choice(["available", "available", "in repair", "assigned"]),
                                                        "warranty": _date(rng, range(2027, 2031))}
        mine = [a for a in stock if stock[a]["model"] == policy[dept]]
        for a in rng.sample(sorted(stock), 3 - len(mine)) if len(mine) < 3 else []:
            stock[a]["model"] = policy[dept]
        mine = sorted(a for a in stock if stock[a]["model"] == policy[dept])
        for a in rng.sample(mine, 2):
            stock[a]["status"] = "available"
        free = [a for a in mine if stock[a]["status"] == "available"]
        while len(set(stock[a]["warranty"] for a in free)) < len(free):
            stock[rng.choice(free)]["warranty"] = _date(rng, range(2027, 2031))
        laptop = max(free, key=lambda a: stock[a]["warranty"])
        order = list(stock)
        rng.shuffle(order)
        seq = rng.randint(1000, 8000)
        people = {}
        rehire = self.rehires and rng.random() < 0.45
        if rehire:
            people["E%d" % rng.randint(100, 999)] = {"name": name, "birth": birth, "status": "terminated " + _date(rng, range(2019, 2025)),
                                                     "dept": rng.choice(DEPTS)}
        if self.namesake or (self.rehires and rng.random() < 0.3):
            other = _date(rng, range(1970, 2004))
            people["E%d" % rng.randint(100, 999)] = {"name": name, "birth": other if other != birth else "1969-12-31",
                                                     "status": rng.choice(["active", "terminated " + _date(rng, range(2019, 2025))]),
                                                     "dept": rng.choice(DEPTS)}
        hr_order = list(people)
        rng.shuffle(hr_order)
        self._state = {"employees": people, "hr_order": hr_order, "accounts": {}, "stock": stock, "order": order, "training": {},
                       "badges": {}, "seq": seq, "cost": cost, "policy": policy, "table": table, "salt": rng.randint(1, 10 ** 6),
                       "wrong_answer": False}
        s = {"type": "string"}
        self._tools = {
            "search_employee": {"description": "HR records matching a full name: id, birth date, status.", "parameters": _obj({"full_name": s})},
            "get_department": {"description": "A department's cost code and laptop model policy.", "parameters": _obj({"department": s})},
            "create_employee": {"description": "Create a new HR record; returns the employee id.",
                                "parameters": _obj({"full_name": s, "birth_date": s, "department": s, "cost_code": s, "start_date": s})},
            "reactivate_employee": {"description": "Reactivate a former employee's HR record for a new start.",
                                    "parameters": _obj({"employee_id": s, "department": s, "cost_code": s, "start_date": s})},
            "create_it_account": {"description": "Open the IT account of an employee; returns the username.", "parameters": _obj({"employee_id": s})},
            "list_laptops": {"description": "Laptop assets: tag, model, status, warranty end.", "parameters": _obj({})},
            "assign_laptop": {"description": "Assign an available laptop to an IT account (model must match the department policy).",
                              "parameters": _obj({"username": s, "asset_tag": s})},
            "list_courses": {"description": "Training courses and who must take them.", "parameters": _obj({})},
            "enroll_training": {"description": "Enrol an IT account in a course.", "parameters": _obj({"username": s, "course": s})},
            "issue_badge": {"description": "Issue the access badge (needs an account, a laptop and all mandatory training).",
                            "parameters": _obj({"employee_id": s})},
        }
        old = [e for e, p in people.items() if p["birth"] == birth and p["status"].startswith("terminated")]
        emp = old[0] if rehire else "E%d" % (seq + 1)
        user = (first[0] + last).lower()
        plan = [("search_employee", {"full_name": name}), ("get_department", {"department": dept})]
        if rehire:
            plan.append(("reactivate_employee", {"employee_id": emp, "department": dept, "cost_code": cost[dept], "start_date": start}))
        else:
            plan.append(("create_employee", {"full_name": name, "birth_date": birth, "department": dept, "cost_code": cost[dept],
                                             "start_date": start}))
        plan += [("create_it_account", {"employee_id": emp}), ("list_laptops", {}),
                 ("assign_laptop", {"username": user, "asset_tag": laptop}), ("list_courses", {})]
        plan += [("enroll_training", {"username": user, "course": c}) for c in courses]
        plan.append(("issue_badge", {"employee_id": emp}))
        self._plan = plan
        self._emp, self._laptop, self._courses, self._dept = emp, laptop, courses, dept
        self._expected_answer = self._badge(emp)
        need = "every course the course table makes mandatory for the department" if self.dept_courses else "every all-staff course"
        back = (" If HR already holds a terminated record of this same person (same birth date), reactivate it instead of "
                "creating a new one.") if self.rehires else ""
        task = (f"Onboard {name} (born {birth}), joining {dept} on {start}: HR record with the department's cost code, IT account, "
                f"the available laptop of the department's policy model whose warranty runs longest, {need}, then the access "
                f"badge.{back} Answer with the badge number: <answer>BDG-...</answer>.")
        return task, {}

    def _badge(self, emp):
        h = self._state["salt"]
        for ch in emp:
            h = (h * 131 + ord(ch)) % 999983
        return "BDG-%06d" % h

    def _dept_of(self, department):
        d = str(department).strip().title()
        return d if d in DEPTS else None

    def tool_search_employee(self, full_name=""):
        st = self._state
        rows = [f"{e}: {p['name']}, born {p['birth']}, {p['status']}" for e in st["hr_order"] for p in [st["employees"][e]]
                if p["name"].lower() == str(full_name).strip().lower() and "start" not in p]
        return "\n".join(rows) if rows else f"No HR record for '{full_name}'."

    def tool_get_department(self, department=""):
        d = self._dept_of(department)
        if d is None:
            return "Error: no such department. Departments: " + ", ".join(DEPTS)
        return f"{d}: cost code {self._state['cost'][d]}, laptop policy {self._state['policy'][d]}."

    def _hr_fields(self, department, cost_code, start_date):
        d = self._dept_of(department)
        if d is None:
            return None, "Error: no such department."
        if str(cost_code).strip().upper() != self._state["cost"][d]:
            return None, f"Error: cost code {cost_code} does not belong to {d}."
        if len(str(start_date)) != 10:
            return None, "Error: start_date must be YYYY-MM-DD."
        return d, None

    def tool_create_employee(self, full_name="", birth_date="", department="", cost_code="", start_date=""):
        d, problem = self._hr_fields(department, cost_code, start_date)
        if problem:
            return problem
        self._state["seq"] += 1
        emp = "E%d" % self._state["seq"]
        # HR does not stop a duplicate: whether this person already has a record is the caller's check
        self._state["employees"][emp] = {"name": str(full_name).strip(), "birth": str(birth_date), "status": "active",
                                         "dept": d, "start": str(start_date)}
        return f"HR record {emp} created for {full_name} ({d})."

    def tool_reactivate_employee(self, employee_id="", department="", cost_code="", start_date=""):
        emp = str(employee_id).strip().upper()
        p = self._state["employees"].get(emp)
        if p is None:
            return "Error: no HR record with that id."
        if not p["status"].startswith("terminated"):
            return "Error: only a terminated record can be reactivated."
        d, problem = self._hr_fields(department, cost_code, start_date)
        if problem:
            return problem
        p.update(status="active", dept=d, start=str(start_date))
        return f"HR record {emp} reactivated for {p['name']} ({d})."

    def tool_create_it_account(self, employee_id=""):
        emp = str(employee_id).strip().upper()
        e = self._state["employees"].get(emp)
        if e is None or "start" not in e:
            return "Error: no HR record onboarded under that id."
        parts = e["name"].split()
        user = (parts[0][0] + parts[-1]).lower() if len(parts) >= 2 else e["name"].lower()
        if user in self._state["accounts"]:
            return f"Error: account {user} exists."
        self._state["accounts"][user] = {"emp": emp, "laptop": None}
        return f"IT account created: username {user}."

    def tool_list_laptops(self):
        st = self._state["stock"]
        return "\n".join(f"{a}: {st[a]['model']}, {st[a]['status']}, warranty until {st[a]['warranty']}" for a in self._state["order"])

    def tool_assign_laptop(self, username="", asset_tag=""):
        acct = self._state["accounts"].get(str(username).strip().lower())
        if acct is None:
            return "Error: no such IT account."
        if acct["laptop"] is not None:
            return "Error: this account already has a laptop."
        a = self._state["stock"].get(str(asset_tag).strip().upper())
        if a is None or a["status"] != "available":
            return f"Error: {asset_tag} is not available."
        dept = self._state["employees"][acct["emp"]]["dept"]
        if a["model"] != self._state["policy"][dept]:
            return f"Error: {dept} policy allows {self._state['policy'][dept]} only."
        a["status"] = "assigned"
        acct["laptop"] = str(asset_tag).strip().upper()
        return f"{str(asset_tag).strip().upper()} assigned to {str(username).strip().lower()}."

    def tool_list_courses(self):
        return "\n".join(f"{c}: mandatory for {w}" for c, w in self._state["table"].items())

    def tool_enroll_training(self, username="", course=""):
        u = str(username).strip().lower()
        if u not in self._state["accounts"]:
            return "Error: no such IT account."
        if course not in self._state["table"]:
            return "Error: no such course."
        self._state["training"].setdefault(u, []).append(course)
        return f"{u} enrolled in {course}."

    def _mandatory(self, dept):
        return sorted(c for c, w in self._state["table"].items() if w == "all staff" or (self.dept_courses and dept in w.split(", ")))

    def tool_issue_badge(self, employee_id=""):
        emp = str(employee_id).strip().upper()
        e = self._state["employees"].get(emp)
        if e is None or "start" not in e:
            return "Error: no HR record onboarded under that id."
        users = [u for u, a in self._state["accounts"].items() if a["emp"] == emp]
        if not users:
            return "Error: the employee has no IT account."
        acct = self._state["accounts"][users[0]]
        if acct["laptop"] is None:
            return "Error: no laptop assigned yet."
        missing = [c for c in self._mandatory(e["dept"]) if c not in self._state["training"].get(users[0], [])]
        if missing:
            return f"Error: mandatory training missing: {len(missing)} course(s)."
        self._state["badges"][emp] = self._badge(emp)
        return f"Badge {self._badge(emp)} issued to {e['name']}."

    def _onboarded(self):
        st = self._state
        fresh = [e for e, p in st["employees"].items() if "start" in p]
        users = [u for u, a in st["accounts"].items() if a["emp"] == self._emp]
        return (fresh == [self._emp] and st["employees"][self._emp]["dept"] == self._dept and len(users) == 1
                and st["accounts"][users[0]]["laptop"] == self._laptop and self._emp in st["badges"])

    def _check_answer(self, answer):
        # one answer per episode: a wrong one is final (no trying every badge number the results showed)
        if self._state["wrong_answer"]:
            return False
        ok = self._onboarded() and str(answer).strip().upper() == self._expected_answer
        self._state["wrong_answer"] = not ok
        return ok

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        text = "Search HR by name first. "
        if self.rehires:
            text += ("A terminated record with the same birth date is this person: reactivate it and keep its id; a record with "
                     "another birth date is someone else, so create a new one. ")
        text += ("The department gives the cost code and the laptop model; among laptops of that model marked available, "
                 "compare the warranty dates and take the latest. The course table says who must take each course: ")
        text += ("enrol every course marked all staff or naming the department. " if self.dept_courses else
                 "enrol every course marked all staff. ")
        return text + "The IT account needs the HR id; the laptop and the training need the username; the badge comes last."
