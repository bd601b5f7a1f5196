"""Contact Upsert Choice: sync a list of sign-ups into a CRM, choosing per person between creating a contact, updating the existing one, or first merging duplicates into the record that was active most recently. Only a search shows which case a person is, and the number of sign-ups and their cases differ from task to task, so no fixed sequence of calls fits."""
import json
import random

FIRST = ["Alba", "Basil", "Cyra", "Desmond", "Elif", "Fenna", "Gideon", "Halima", "Ivan", "Jorun", "Kenji", "Lucia"]
LAST = ["Ashby", "Bako", "Cruz", "Delacroix", "Eze", "Falk", "Gupta", "Hart"]
DOMAINS = ["mail.test", "post.test", "inbox.test"]
PLANS = ["free", "starter", "team", "business"]
# how many CRM records a person of each kind already has
RECORDS = {"new": 0, "existing": 1, "duplicate": 2, "triplicate": 3}


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class ContactUpsertChoiceEnv(ToolUseBaseEnv):
    # difficulty -> (fewest and most sign-ups, the kinds a sign-up may be, a kind every task has)
    LEVELS = {"easy": (3, 4, ("new", "existing"), None),
              "medium": (3, 5, ("new", "existing", "duplicate"), "duplicate"),
              "hard": (4, 6, ("new", "existing", "duplicate", "triplicate"), "triplicate")}

    def __init__(self, max_turns=30, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.low, self.high, self.kinds, self.must = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        n = rng.randint(self.low, self.high)
        # every person's case is drawn on its own, so the sequence of tools differs between tasks
        kinds = [rng.choice(self.kinds) for _ in range(n)]
        if len(set(kinds)) == 1:
            kinds[rng.randrange(n)] = rng.choice([k for k in self.kinds if k != kinds[0]])
        if self.must and self.must not in kinds:
            kinds[rng.randrange(n)] = self.must
        people, used = [], set()
        while len(people) < n + 3:
            first, last = rng.choice(FIRST), rng.choice(LAST)
            email = f"{first[0].lower()}.{last.lower()}{rng.randint(1, 99)}@{rng.choice(DOMAINS)}"
            if email not in used:
                used.add(email)
                people.append((f"{first} {last}", email))
        ids = rng.sample(range(1000, 9999), 3 * n + 3)
        days = rng.sample(range(1, 330), 3 * n + 3)  # distinct activity dates: "most recent" is never a tie
        contacts, signups, k = {}, [], 0

        def add(name, email):
            nonlocal k
            month, day = divmod(days[k], 30)
            contacts["C%d" % ids[k]] = {"name": name, "email": email, "plan": rng.choice(PLANS), "merged": [],
                                        "active": "2026-%02d-%02d" % (month + 1, day + 1)}
            k += 1

        for kind, (name, email) in zip(kinds, people):
            for _ in range(RECORDS[kind]):
                add(name, email)
            if kind == "new":
                signups.append((name, email, rng.choice(PLANS), kind))
                continue
            # the plan always changes: an update that was never made must show in the checksum
            latest = max((v for v in contacts.values() if v["email"] == email), key=lambda v: v["active"])
            signups.append((name, email, rng.choice([p for p in PLANS if p != latest["plan"]]), kind))
        for name, email in people[n:]:  # unrelated contacts
            add(name, email)
        self._state = {"contacts": contacts, "seq": max(ids) + 1, "salt": rng.randint(1, 10 ** 6),
                       "original": sorted(contacts)}
        s = {"type": "string"}
        self._tools = {
            "search_contacts": {"description": "Find contacts by e-mail: ids, names, plans and the date each was last active.",
                                "parameters": _obj({"email": s})},
            "create_contact": {"description": "Create a contact (fails if the e-mail already exists).",
                               "parameters": _obj({"name": s, "email": s, "plan": {"type": "string", "enum": PLANS}})},
            "update_contact": {"description": "Update the plan of the contact with this e-mail (fails if none or several match).",
                               "parameters": _obj({"email": s, "plan": {"type": "string", "enum": PLANS}})},
            "merge_contacts": {"description": "Merge a duplicate contact into a primary one (the duplicate is removed, its history kept on the primary).",
                               "parameters": _obj({"primary_id": s, "duplicate_id": s})},
            "get_sync_status": {"description": "CRM sync status with a checksum of all contacts.", "parameters": _obj({})},
            "delete_contact": {"description": "Delete a contact (its history is lost).", "parameters": _obj({"contact_id": s})},
            "send_welcome_email": {"description": "Send the welcome e-mail to an address.", "parameters": _obj({"email": s})},
        }
        plan = []
        final = {c: dict(v, merged=[]) for c, v in contacts.items()}
        for name, email, plan_now, kind in signups:
            plan.append(("search_contacts", {"email": email}))
            mine = sorted((c for c, v in contacts.items() if v["email"] == email), key=lambda c: contacts[c]["active"])
            if kind == "new":
                plan.append(("create_contact", {"name": name, "email": email, "plan": plan_now}))
                final["new:" + email] = {"email": email, "plan": plan_now, "merged": []}
                continue
            keep = mine[-1]  # the record active most recently survives
            for other in mine[:-1]:
                plan.append(("merge_contacts", {"primary_id": keep, "duplicate_id": other}))
                final[keep]["merged"].append(other)
                del final[other]
            plan.append(("update_contact", {"email": email, "plan": plan_now}))
            final[keep]["plan"] = plan_now
        plan.append(("get_sync_status", {}))
        self._plan = plan
        self._expected_answer = self._checksum(final)
        lines = "; ".join(f"{nm} <{e}> on plan '{p}'" for nm, e, p, _ in signups)
        task = (f"Sync these {n} sign-ups into the CRM so that each person has exactly one contact, on the plan given: {lines}. "
                "Where a person has several contacts, keep the one that was active most recently and merge each of the "
                "others into it. Then answer with the checksum reported by the sync status: <answer>CHECKSUM</answer>.")
        self._fact = f"{sum(k != 'new' for k in kinds)} of the {n} people already have at least one contact."
        return task, {}

    def _checksum(self, contacts):
        # created contacts count by e-mail, not by id, so the order the agent creates them in does not matter
        h = self._state["salt"]
        rows = []
        for cid, c in contacts.items():
            key = cid if cid in self._state["original"] else "new:" + c["email"]
            rows.append(f"{key}|{c['email']}|{c['plan']}|{','.join(sorted(c['merged']))};")
        for row in sorted(rows):
            for ch in row:
                h = (h * 131 + ord(ch)) % 4294967291
        return "crm-%08x" % h

    def _matches(self, email):
        return sorted(c for c, v in self._state["contacts"].items() if v["email"] == str(email).strip().lower())

    def tool_search_contacts(self, email=""):
        hits = self._matches(email)
        if not hits:
            return "No contacts found."
        cs = self._state["contacts"]
        return "\n".join(f"{c}: {cs[c]['name']} <{cs[c]['email']}>, plan {cs[c]['plan']}, last active {cs[c].get('active', 'today')}"
                         for c in hits)

    def tool_create_contact(self, name="", email="", plan="free"):
        if self._matches(email):
            return f"Error 409: a contact with e-mail {email} already exists."
        if plan not in PLANS:
            return "Error: unknown plan."
        cid = "C%d" % self._state["seq"]
        self._state["seq"] += 1
        self._state["contacts"][cid] = {"name": str(name), "email": str(email).strip().lower(), "plan": plan,
                                        "merged": [], "active": "today"}
        return f"Created {cid}."

    def tool_update_contact(self, email="", plan="free"):
        hits = self._matches(email)
        if not hits:
            return f"Error 404: no contact with e-mail {email}."
        if len(hits) > 1:
            return f"Error 409: {len(hits)} contacts share this e-mail; merge them first."
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
        cs[primary_id]["merged"] = cs[primary_id]["merged"] + [duplicate_id] + cs[duplicate_id]["merged"]
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
        text = "Search each e-mail before acting: no match means create, one match means update. "
        if "duplicate" in self.kinds:
            text += ("Several matches mean merge: compare the 'last active' dates, keep the latest record as the primary "
                     "and merge every other one into it, then update. ")
        return text + "Read the checksum only after the last change."
