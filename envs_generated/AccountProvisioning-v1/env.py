"""Account Provisioning: bring a directory account to an exact target state: the groups the access matrix grants the employee's department at the employee's clearance (creating missing ones, removing memberships the matrix does not grant), activation and role. The directory enforces its policies: groups must exist before members are added, only accounts with a group can be activated, an account that loses its last group is deactivated, and only active accounts can hold a role."""
import json
import random

DEPARTMENTS = ["engineering", "finance", "design", "support", "sales", "legal", "research", "ops"]
SUFFIXES = ["read", "write", "deploy", "admin", "oncall", "billing", "reports", "secrets", "review", "audit"]
ROLES = ["viewer", "editor", "maintainer", "auditor", "admin"]
FIRST = ["Amara", "Bjorn", "Chen", "Dalia", "Emil", "Fatima", "Goran", "Hana", "Ivo", "Jana"]
LAST = ["Achebe", "Berg", "Chow", "Duarte", "Engel", "Fontaine", "Grieg", "Hosseini"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class AccountProvisioningEnv(ToolUseBaseEnv):
    # difficulty -> (matrix rows of the employee's department, how many of them the clearance may grant,
    #                granted groups missing from the directory, chance the account pre-exists, its stale groups)
    LEVELS = {"easy": (3, (1, 2), (0,), 0.0, 0), "medium": (4, (1, 2, 3), (0, 1), 0.5, 1), "hard": (5, (2, 3, 4), (1, 2), 1.0, 2)}

    def __init__(self, max_turns=20, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.rows, self.granted, self.missing, self.p_exists, self.n_stale = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        first, last = rng.choice(FIRST), rng.choice(LAST)
        username = (first[0] + last).lower() + str(rng.randint(1, 99))
        eid = "E-%05d" % rng.randint(0, 99999)
        depts = rng.sample(DEPARTMENTS, 3)
        dept = depts[0]
        matrix = []
        for d in depts:
            n = self.rows if d == dept else 3
            levels = sorted(rng.sample(range(1, 7), n))
            for suffix, level in zip(rng.sample(SUFFIXES, n), levels):
                matrix.append({"group": f"{d}-{suffix}", "department": d, "min_clearance": level})
        rng.shuffle(matrix)
        mine = sorted((r for r in matrix if r["department"] == dept), key=lambda r: r["min_clearance"])
        t = rng.choice(self.granted)
        top = mine[t]["min_clearance"] - 1 if t < len(mine) else 7
        clearance = rng.randint(mine[t - 1]["min_clearance"], top)
        targets = sorted(r["group"] for r in mine[:t])
        missing = set(rng.sample(targets, min(len(targets), rng.choice(self.missing))))
        groups = {r["group"]: [] for r in matrix if r["group"] not in missing}
        for extra in rng.sample([f"{d}-all" for d in DEPARTMENTS], 2):
            groups[extra] = []
        role = rng.choice(ROLES)
        users = {}
        if rng.random() < self.p_exists:
            # stale memberships: other departments' groups and this department's rows above the clearance
            denied = [g for g in groups if g not in targets]
            have = rng.sample(denied, self.n_stale) + [g for g in targets if g not in missing][: rng.randint(0, 1)]
            users[username] = {"name": f"{first} {last}", "groups": have, "active": False, "role": None}
            for g in have:
                groups[g].append(username)
        self._state = {"groups": groups, "users": users, "matrix": matrix, "salt": rng.randint(1, 10 ** 6),
                       "employee": {"employee_id": eid, "name": f"{first} {last}", "department": dept, "clearance": clearance}}
        self._target = (username, tuple(targets), True, role)
        s = {"type": "string"}
        self._tools = {
            "get_user": {"description": "Show an account: name, groups, active flag, role.", "parameters": _obj({"username": s})},
            "get_employee": {"description": "HR record of an employee: name, department, clearance level.", "parameters": _obj({"employee_id": s})},
            "access_matrix": {"description": "The access matrix: which group each department may join from which clearance level on.",
                              "parameters": _obj({})},
            "list_groups": {"description": "Groups that exist in the directory.", "parameters": _obj({})},
            "create_user": {"description": "Create a new (inactive) account.", "parameters": _obj({"username": s, "full_name": s})},
            "create_group": {"description": "Create a group.", "parameters": _obj({"group": s})},
            "add_to_group": {"description": "Add an account to a group.", "parameters": _obj({"username": s, "group": s})},
            "remove_from_group": {"description": "Remove an account from a group.", "parameters": _obj({"username": s, "group": s})},
            "activate_user": {"description": "Activate an account (policy: it must belong to at least one group).",
                              "parameters": _obj({"username": s})},
            "set_role": {"description": "Grant a role to an account (policy: active accounts only).",
                         "parameters": _obj({"username": s, "role": {"type": "string", "enum": ROLES}})},
            "audit_user": {"description": "Compliance audit of an account; returns its access fingerprint.", "parameters": _obj({"username": s})},
            "reset_password": {"description": "Send a password reset link.", "parameters": _obj({"username": s})},
        }
        plan = [("get_user", {"username": username}), ("get_employee", {"employee_id": eid}), ("access_matrix", {}), ("list_groups", {})]
        if username not in users:
            plan.append(("create_user", {"username": username, "full_name": f"{first} {last}"}))
        plan += [("create_group", {"group": g}) for g in targets if g in missing]
        have = users[username]["groups"] if username in users else []
        plan += [("add_to_group", {"username": username, "group": g}) for g in targets if g not in have]
        plan += [("remove_from_group", {"username": username, "group": g}) for g in sorted(have) if g not in targets]
        plan += [("activate_user", {"username": username}), ("set_role", {"username": username, "role": role}),
                 ("audit_user", {"username": username})]
        self._plan = plan
        self._expected_answer = self._fingerprint(username, targets, True, role)
        task = (f"Provision the directory account '{username}' for employee {eid} ({first} {last}): it must belong to exactly the "
                "groups the access matrix grants the employee's department at the employee's clearance (a row applies when its "
                f"minimum clearance is at or below the employee's); be active; and hold the role '{role}'. Create anything that "
                "does not exist yet. Then run the compliance audit and answer with the access fingerprint it reports: "
                "<answer>FP-XXXXXXXX</answer>.")
        self._fact = (f"The matrix grants {len(targets)} group(s), {len(missing)} of them not created yet; the account "
                      + ("already exists." if username in users else "does not exist yet."))
        return task, {}

    def _fingerprint(self, username, groups, active, role):
        h = self._state["salt"]
        for ch in f"{username}|{','.join(sorted(groups))}|{active}|{role}":
            h = (h * 257 + ord(ch)) % 4294967291
        return "FP-%08X" % h

    def _user(self, username):
        return self._state["users"].get(str(username).strip().lower())

    def tool_get_user(self, username=""):
        u = self._user(username)
        if u is None:
            return f"No account '{username}'."
        return json.dumps({"username": str(username).strip().lower(), "name": u["name"], "groups": sorted(u["groups"]),
                           "active": u["active"], "role": u["role"]})

    def tool_get_employee(self, employee_id=""):
        e = self._state["employee"]
        if str(employee_id).strip().upper() != e["employee_id"]:
            return f"Error: no employee '{employee_id}'."
        return json.dumps(e)

    def tool_access_matrix(self):
        return "\n".join(f"{r['group']}: department {r['department']}, from clearance {r['min_clearance']}" for r in self._state["matrix"])

    def tool_list_groups(self):
        return ", ".join(sorted(self._state["groups"]))

    def tool_create_user(self, username="", full_name=""):
        name = str(username).strip().lower()
        if not name or name in self._state["users"]:
            return f"Error: account '{username}' already exists or is invalid."
        self._state["users"][name] = {"name": str(full_name), "groups": [], "active": False, "role": None}
        return f"Account {name} created (inactive)."

    def tool_create_group(self, group=""):
        g = str(group).strip().lower()
        if not g or g in self._state["groups"]:
            return f"Error: group '{group}' already exists or is invalid."
        self._state["groups"][g] = []
        return f"Group {g} created."

    def tool_add_to_group(self, username="", group=""):
        u = self._user(username)
        g = str(group).strip().lower()
        if u is None:
            return f"Error: no account '{username}'."
        if g not in self._state["groups"]:
            return f"Error: group '{group}' does not exist."
        if g in u["groups"]:
            return f"{username} is already in {g}."
        u["groups"].append(g)
        self._state["groups"][g].append(str(username).strip().lower())
        return f"Added {username} to {g}."

    def tool_remove_from_group(self, username="", group=""):
        u = self._user(username)
        g = str(group).strip().lower()
        if u is None or g not in u["groups"]:
            return f"Error: {username} is not in '{group}'."
        u["groups"].remove(g)
        self._state["groups"][g].remove(str(username).strip().lower())
        if not u["groups"] and u["active"]:
            u["active"] = False
            u["role"] = None
            return f"Removed {username} from {g}. The account has no groups left and was deactivated."
        return f"Removed {username} from {g}."

    def tool_activate_user(self, username=""):
        u = self._user(username)
        if u is None:
            return f"Error: no account '{username}'."
        if not u["groups"]:
            return "Error: policy violation: an account must belong to a group before activation."
        u["active"] = True
        return f"{username} activated."

    def tool_set_role(self, username="", role=""):
        u = self._user(username)
        if u is None:
            return f"Error: no account '{username}'."
        if role not in ROLES:
            return "Error: unknown role."
        if not u["active"]:
            return "Error: policy violation: roles can only be granted to active accounts."
        u["role"] = role
        return f"{username} now has role {role}."

    def tool_audit_user(self, username=""):
        u = self._user(username)
        if u is None:
            return f"Error: no account '{username}'."
        return (f"Audit of {str(username).strip().lower()}: groups {sorted(u['groups'])}, active {u['active']}, role {u['role']}. "
                f"Access fingerprint {self._fingerprint(str(username).strip().lower(), u['groups'], u['active'], u['role'])}.")

    def tool_reset_password(self, username=""):
        return f"Password reset link sent for {username}." if self._user(username) else "Error: no such account."

    def _check_answer(self, answer):
        username, groups, active, role = self._target
        u = self._user(username)
        return (u is not None and sorted(u["groups"]) == list(groups) and u["active"] == active and u["role"] == role
                and str(answer).strip().upper() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Read the employee's department and clearance, then keep exactly the matrix rows of that department whose "
                "minimum clearance is not above it: rows of other departments and rows above the clearance are not granted, "
                "even if the account already holds them. Create granted groups the directory lacks before adding the account, "
                "add before removing (an account with no group is deactivated), activate, and grant the role last.")
