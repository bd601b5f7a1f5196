"""Stale Lock Release: update a database record that another session holds locked. The update fails with the lock holder named; the session list shows whether that holder is idle (safe to terminate) or itself waiting on a lock held by an idle session further up the chain. Only idle sessions may be terminated; the blocked update then goes through."""
import json
import random

TABLES = ["accounts", "bookings", "shipments", "contracts", "tickets"]
FIELDS = {"accounts": ["tier", "credit_limit"], "bookings": ["status", "seat"], "shipments": ["carrier", "status"],
          "contracts": ["owner", "renewal"], "tickets": ["priority", "assignee"]}
VALUES = {"tier": ["gold", "silver", "platinum"], "credit_limit": ["5000", "12000", "25000"], "status": ["on_hold", "confirmed", "released"],
          "seat": ["14C", "2A", "31F"], "carrier": ["dhl", "ups", "postnl"], "owner": ["legal", "sales", "ops"],
          "renewal": ["auto", "manual"], "priority": ["p1", "p2", "p3"], "assignee": ["nadia", "omar", "lin"]}
APPS = ["report-cron", "billing-sync", "admin-console", "etl-nightly", "api-worker", "backup-agent"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class StaleLockReleaseEnv(ToolUseBaseEnv):
    # difficulty -> (length of the lock chain above the record: 1 = the holder itself is idle)
    LEVELS = {"easy": 1, "medium": 2, "hard": 3}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.chain = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        table = rng.choice(TABLES)
        field = rng.choice(FIELDS[table])
        rid = rng.randint(10000, 99999)
        old, new = rng.sample(VALUES[field], 2)
        pids = rng.sample(range(2000, 9999), 6)
        sessions = {}
        for i, pid in enumerate(pids):
            sessions[pid] = {"app": rng.choice(APPS), "state": "active", "idle_min": rng.randint(0, 4), "waits_on": None,
                             "holds": None}
        chain = pids[: self.chain]  # chain[0] holds the record; chain[i] waits on chain[i+1]; the last is idle
        sessions[chain[0]]["holds"] = f"{table}:{rid}"
        for i in range(len(chain) - 1):
            sessions[chain[i]]["state"] = "waiting"
            sessions[chain[i]]["waits_on"] = chain[i + 1]
            sessions[chain[i + 1]]["holds"] = "%s:%d" % (rng.choice(TABLES), rng.randint(1000, 99999))
        sessions[chain[-1]].update(state="idle in transaction", idle_min=rng.randint(35, 300))
        decoy = pids[-1]  # an idle-looking session that is still inside its grace period
        sessions[decoy].update(state="idle in transaction", idle_min=rng.randint(5, 25))
        version = rng.randint(100000, 999000)  # six digits: never part of a record id or pid
        self._state = {"record": {"table": table, "id": rid, field: old, "version": version}, "field": field,
                       "sessions": sessions, "killed": []}
        self._want = (field, new)
        s = {"type": "string"}
        self._tools = {
            "update_record": {"description": "Set a field of a record. Fails if another session holds the record's lock.",
                              "parameters": _obj({"table": s, "record_id": {"type": "integer"}, "field": s, "value": s})},
            "get_record": {"description": "Read a record (with its row version).", "parameters": _obj({"table": s, "record_id": {"type": "integer"}})},
            "list_sessions": {"description": "Database sessions: pid, application, state, idle minutes, lock held, lock waited on.",
                              "parameters": _obj({})},
            "terminate_session": {"description": "Terminate a session and roll back its transaction. Policy: only sessions idle in transaction for 30+ minutes.",
                                  "parameters": _obj({"pid": {"type": "integer"}})},
            "vacuum": {"description": "Vacuum a table.", "parameters": _obj({"table": s})},
        }
        plan = [("update_record", {"table": table, "record_id": rid, "field": field, "value": new}), ("list_sessions", {}),
                ("terminate_session", {"pid": chain[-1]}), ("update_record", {"table": table, "record_id": rid, "field": field, "value": new}),
                ("get_record", {"table": table, "record_id": rid})]
        self._plan = plan
        # our update bumps the version once; so does the holder's own commit when it was waiting (not terminated)
        self._expected_answer = str(version + 1 + (1 if self.chain >= 2 else 0))
        self._culprit = chain[-1]
        task = (f"Set {field} = '{new}' on {table} record {rid}. Respect the policy on terminating sessions: terminate only what "
                "is necessary. Answer with the record's row version after your update: <answer>VERSION</answer>.")
        self._fact = f"The lock chain above the record is {self.chain} session(s) long."
        return task, {}

    def _blocker(self):
        rec = self._state["record"]
        key = f"{rec['table']}:{rec['id']}"
        for pid, sess in self._state["sessions"].items():
            if sess["holds"] == key:
                return pid
        return None

    def tool_update_record(self, table="", record_id=0, field="", value=""):
        rec = self._state["record"]
        if str(table) != rec["table"] or record_id != rec["id"]:
            return "Error: record not found."
        if str(field) != self._state["field"]:
            return f"Error: field '{field}' is not editable here."
        holder = self._blocker()
        if holder is not None:
            return f"Error: lock timeout: record {table}:{record_id} is locked by pid {holder}."
        rec[field] = str(value)
        rec["version"] += 1
        return f"Updated {table}:{record_id}: {field} = {value}."

    def tool_get_record(self, table="", record_id=0):
        rec = self._state["record"]
        if str(table) != rec["table"] or record_id != rec["id"]:
            return "Error: record not found."
        return json.dumps(rec)

    def tool_list_sessions(self):
        rows = []
        for pid, sess in sorted(self._state["sessions"].items()):
            rows.append(f"pid {pid} {sess['app']}: {sess['state']}, idle {sess['idle_min']} min, holds {sess['holds'] or '-'}, "
                        f"waits on {('pid ' + str(sess['waits_on'])) if sess['waits_on'] else '-'}")
        return "\n".join(rows)

    def tool_terminate_session(self, pid=0):
        sessions = self._state["sessions"]
        sess = sessions.get(pid)
        if sess is None:
            return "Error: no such session."
        if sess["state"] != "idle in transaction" or sess["idle_min"] < 30:
            return f"Error: policy: pid {pid} is {sess['state']} ({sess['idle_min']} min idle); only sessions idle in transaction for 30+ minutes may be terminated."
        del sessions[pid]
        self._state["killed"].append(pid)
        # sessions waiting on the terminated one get their lock, finish their transaction and release theirs
        freed = pid
        while True:
            waiter = [p for p, s2 in sessions.items() if s2["waits_on"] == freed]
            if not waiter:
                break
            w = waiter[0]
            if sessions[w]["holds"] == f"{self._state['record']['table']}:{self._state['record']['id']}":
                self._state["record"]["version"] += 1  # the record's holder commits its own change to the record
            sessions[w].update(state="active", waits_on=None, holds=None, idle_min=0)
            freed = w
        return f"pid {pid} terminated; its transaction was rolled back and its locks released."

    def tool_vacuum(self, table=""):
        return f"VACUUM {table}: done."

    def _check_answer(self, answer):
        rec = self._state["record"]
        field, new = self._want
        return rec[field] == new and self._state["killed"] == [self._culprit] and str(answer).strip() == str(rec["version"]) \
            and str(answer).strip() == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("The lock error names the holder, but the holder may itself be waiting: follow 'waits on' up the chain to a "
                "session idle in transaction for 30+ minutes and terminate only that one (younger idle sessions are "
                "protected). Then retry the update and read the version from the record.")
