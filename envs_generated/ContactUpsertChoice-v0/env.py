"""Contact Upsert Choice: sync a list of sign-ups into a CRM, choosing per person between creating a contact, updating the existing one, or first merging duplicates. The CRM rejects the wrong choice (duplicate e-mail on create, unknown contact on update, ambiguous match while duplicates exist), so each person has to be looked up before acting."""
import json
import random

FIRST = ["Alba", "Basil", "Cyra", "Desmond", "Elif", "Fenna", "Gideon", "Halima", "Ivan", "Jorun", "Kenji", "Lucia"]
LAST = ["Ashby", "Bako", "Cruz", "Delacroix", "Eze", "Falk", "Gupta", "Hart"]
DOMAINS = ["mail.test", "post.test", "inbox.test"]
PLANS = ["free", "starter", "team", "business"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class ContactUpsertChoiceEnv(ToolUseBaseEnv):
    # difficulty -> kinds of sign-ups to sync (new person, existing person, person with a duplicate record)
    LEVELS = {"easy": ("new", "existing"), "medium": ("new", "existing", "existing"), "hard": ("new", "existing", "duplicate")}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.kinds = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        people = []
        used = set()
        for _ in range(len(self.kinds) + 3):
            first, last = rng.choice(FIRST), rng.choice(LAST)
            email = f"{first[0].lower()}.{last.lower()}{rng.randint(1, 99)}@{rng.choice(DOMAINS)}"
            while email in used:
                email = f"{first[0].lower()}.{last.lower()}{rng.randint(1, 99)}@{rng.choice(DOMAINS)}"
            used.add(email)
            people.append((f"{first} {last}", email))
        contacts = {}
        ids = rng.sample(range(1000, 9999), 12)
        k = 0
        signups = []
        kinds = list(self.kinds)
        rng.shuffle(kinds)
        for kind, (name, email) in zip(kinds, people):
            plan_now, plan_old = rng.sample(PLANS, 2)
            signups.append((name, email, plan_now, kind))
            if kind in ("existing", "duplicate"):
                contacts["C%d" % ids[k]] = {"name": name, "email": email, "plan": plan_old}
                k += 1
            if kind == "duplicate":
                contacts["C%d" % ids[k]] = {"name": name, "email": email, "plan": rng.choice(PLANS)}
                k += 1
        for name, email in people[len(self.kinds):]:  # unrelated contacts
            contacts["C%d" % ids[k]] = {"name": name, "email": email, "plan": rng.choice(PLANS)}
            k += 1
        self._state = {"contacts": contacts, "seq": ids[-1] + 1, "salt": rng.randint(1, 10 ** 6)}
        s = {"type": "string"}
        self._tools = {
            "search_contacts": {"description": "Find contacts by e-mail: ids, names, plans.", "parameters": _obj({"email": s})},
            "create_contact": {"description": "Create a contact (fails if the e-mail already exists).",
                               "parameters": _obj({"name": s, "email": s, "plan": {"type": "string", "enum": PLANS}})},
            "update_contact": {"description": "Update the plan of the contact with this e-mail (fails if none or several match).",
                               "parameters": _obj({"email": s, "plan": {"type": "string", "enum": PLANS}})},
            "merge_contacts": {"description": "Merge a duplicate contact into a primary one (the duplicate is removed).",
                               "parameters": _obj({"primary_id": s, "duplicate_id": s})},
            "get_sync_status": {"description": "CRM sync status with a checksum of all contacts.", "parameters": _obj({})},
            "delete_contact": {"description": "Delete a contact.", "parameters": _obj({"contact_id": s})},
            "send_welcome_email": {"description": "Send the welcome e-mail to an address.", "parameters": _obj({"email": s})},
        }
        plan = []
        final = {k2: dict(v) for k2, v in contacts.items()}
        seq = self._state["seq"]
        for name, email, plan_now, kind in signups:
            plan.append(("search_contacts", {"email": email}))
            mine = sorted(c for c, v in contacts.items() if v["email"] == email)
            if kind == "new":
                plan.append(("create_contact", {"name": name, "email": email, "plan": plan_now}))
                final["C%d" % seq] = {"name": name, "email": email, "plan": plan_now}
                seq += 1
            else:
                if kind == "duplicate":
                    plan.append(("merge_contacts", {"primary_id": mine[0], "duplicate_id": mine[1]}))
                    del final[mine[1]]
                plan.append(("update_contact", {"email": email, "plan": plan_now}))
                final[mine[0]]["plan"] = plan_now
        plan.append(("get_sync_status", {}))
        self._plan = plan
        self._final = final
        self._expected_answer = self._checksum(final)
        lines = "; ".join(f"{n} <{e}> on plan '{p}'" for n, e, p, _ in signups)
        task = (f"Sync these sign-ups into the CRM so that each person has exactly one contact, on the plan given: {lines}. "
                "Duplicates are merged into the contact with the lowest id. Then answer with the checksum reported by the "
                "sync status: <answer>CHECKSUM</answer>.")
        self._fact = f"{sum(k != 'new' for _, _, _, k in signups)} of the {len(signups)} people already have a contact."
        return task, {}

    def _checksum(self, contacts):
        h = self._state["salt"]
        for cid in sorted(contacts):
            c = contacts[cid]
            for ch in f"{cid}|{c['email']}|{c['plan']};":
                h = (h * 131 + ord(ch)) % 4294967291
        return "crm-%08x" % h

    def _matches(self, email):
        return sorted(c for c, v in self._state["contacts"].items() if v["email"] == str(email).strip().lower())

    def tool_search_contacts(self, email=""):
        hits = self._matches(email)
        if not hits:
            return "No contacts found."
        return "\n".join(f"{c}: {self._state['contacts'][c]['name']} <{self._state['contacts'][c]['email']}>, plan {self._state['contacts'][c]['plan']}"
                         for c in hits)

    def tool_create_contact(self, name="", email="", plan="free"):
        if self._matches(email):
            return f"Error 409: a contact with e-mail {email} already exists."
        if plan not in PLANS:
            return "Error: unknown plan."
        cid = "C%d" % self._state["seq"]
        self._state["seq"] += 1
        self._state["contacts"][cid] = {"name": str(name), "email": str(email).strip().lower(), "plan": plan}
        return f"Created {cid}."

    def tool_update_contact(self, email="", plan="free"):
        hits = self._matches(email)
        if not hits:
            return f"Error 404: no contact with e-mail {email}."
        if len(hits) > 1:
            return f"Error 409: {len(hits)} contacts share this e-mail ({', '.join(hits)}); merge them first."
        if plan not in PLANS:
            return "Error: unknown plan."
        self._state["contacts"][hits[0]]["plan"] = plan
        return f"Updated {hits[0]}: plan {plan}."

    def tool_merge_contacts(self, primary_id="", duplicate_id=""):
        cs = self._state["contacts"]
        if primary_id not in cs or duplicate_id not in cs or primary_id == duplicate_id:
            return "Error: both ids must exist and differ."
        if cs[primary_id]["email"] != cs[duplicate_id]["email"]:
            return "Error: these contacts are not duplicates (different e-mails)."
        del cs[duplicate_id]
        return f"Merged {duplicate_id} into {primary_id}."

    def tool_get_sync_status(self):
        return f"{len(self._state['contacts'])} contacts, last sync OK. Checksum {self._checksum(self._state['contacts'])}."

    def tool_delete_contact(self, contact_id=""):
        if contact_id not in self._state["contacts"]:
            return "Error: no such contact."
        del self._state["contacts"][contact_id]
        return f"Deleted {contact_id}."

    def tool_send_welcome_email(self, email=""):
        return f"Welcome e-mail queued for {email}."

    def _check_answer(self, answer):
        return (self._checksum(self._state["contacts"]) == self._expected_answer
                and str(answer).strip().lower() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Search each e-mail first: no match means create, one match means update. "
        if "duplicate" in self.kinds:
            text += "Two matches mean merge the higher id into the lower one before updating. "
        return text + "Read the checksum only after the last change."
