"""Stale Lock Release: update a database record that another session holds locked. The update fails with the lock holder named; the session list shows whether that holder is itself waiting on a lock held further up a chain. Only the session at the head of the chain (the one that waits on nothing) may be released: terminated when it is idle in transaction, rolled back by its global id when it is a prepared two-phase transaction. Unrelated idle sessions and prepared transactions are decoys that must be left alone."""
import json
import random

TABLES = ["accounts", "bookings", "shipments", "contracts", "tickets"]
FIELDS = {"accounts": ["tier", "credit_limit"], "bookings": ["status", "seat"], "shipments": ["carrier", "status"],
          "contracts": ["owner", "renewal"], "tickets": ["priority", "assignee"]}
VALUES = {"tier": ["gold", "silver", "platinum"], "credit_limit": ["5000", "12000", "25000"], "status": ["on_hold", "confirmed", "released"],
          "seat": ["14C", "2A", "31F"], "carrier": ["dhl", "ups", "postnl"], "owner": ["legal", "sales", "ops"],
          "renewal": ["auto", "manual"], "priority": ["p1", "p2", "p3"], "assignee": ["nadia", "omar", "lin"]}
APPS = ["report-cron", "billing-sync", "admin-console", "etl-nightly", "api-worker", "backup-agent", "ledger-2pc", "crm-import"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class StaleLockReleaseEnv(ToolUseBaseEnv):
    # difficulty -> (lengths the chain above the record may have, head may be a prepared transaction,
    #                unrelated blocking chains, unrelated prepared transactions)
    LEVELS = {"easy": ((1, 2, 2), False, 2, 0), "medium": ((1, 2, 3), True, 2, 1), "hard": ((2, 3, 4), True, 3, 1)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.lengths, self.may_prepare, self.n_decoy_chains, self.n_decoy_prepared = self.LEVELS[self.difficulty]
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
        length = rng.choice(self.lengths)
        # decoy chains always have a waiter, so 'waits on' alone never singles out the right chain
        decoy_lengths = [rng.choice((2, 3)) for _ in range(self.n_decoy_chains)]
        count = length + sum(decoy_lengths) + self.n_decoy_prepared + 2
        pids = rng.sample(range(2000, 9999), count)
        sessions = {pid: {"app": rng.choice(APPS), "state": "active", "idle_min": rng.randint(0, 4), "waits_on": None,
                          "holds": "%s:%d" % (rng.choice(TABLES), rng.randint(1000, 99999)), "gid": None} for pid in pids}

        def make_head(pid, prepared):
            if prepared:  # a prepared transaction has no live backend: termination cannot release it
                sessions[pid].update(state="prepared", gid="gx_%05x" % rng.randint(0, 16 ** 5 - 1), idle_min=rng.randint(40, 900))
            else:
                sessions[pid].update(state="idle in transaction", idle_min=rng.randint(35, 300))

        def make_chain(members, prepared):
            for i in range(len(members) - 1):  # members[i] waits on the lock members[i + 1] holds
                sessions[members[i]].update(state="waiting", waits_on=members[i + 1], idle_min=0)
            make_head(members[-1], prepared)

        chain, rest = pids[:length], pids[length:]
        sessions[chain[0]]["holds"] = f"{table}:{rid}"
        head_prepared = self.may_prepare and rng.random() < 0.5
        make_chain(chain, head_prepared)
        for n in decoy_lengths:  # unrelated chains: their heads look exactly like a stale blocker
            make_chain(rest[:n], rng.random() < 0.5 and self.may_prepare)
            rest = rest[n:]
        for _ in range(self.n_decoy_prepared):
            make_head(rest[0], True)
            rest = rest[1:]
        sessions[rest[0]].update(state="idle in transaction", idle_min=rng.randint(5, 25))  # still inside its grace period
        version = rng.randint(100000, 999000)  # six digits: never part of a record id or pid
        self._state = {"record": {"table": table, "id": rid, field: old, "version": version}, "field": field,
                       "sessions": sessions, "released": []}
        self._want = (field, new)
        head = chain[-1]
        self._culprit = ("gid", sessions[head]["gid"]) if head_prepared else ("pid", head)
        s = {"type": "string"}
        self._tools = {
            "update_record": {"description": "Set a field of a record. Fails if another session holds the record's lock.",
                              "parameters": _obj({"table": s, "record_id": {"type": "integer"}, "field": s, "value": s})},
            "get_record": {"description": "Read a record (with its row version).", "parameters": _obj({"table": s, "record_id": {"type": "integer"}})},
            "list_sessions": {"description": "Database sessions: pid, application, state, idle minutes, lock held, lock waited on, global id of a prepared transaction.",
                              "parameters": _obj({})},
            "terminate_session": {"description": "Terminate a session's backend and roll back its transaction. Refused for sessions idle less than 30 minutes and for prepared transactions.",
                                  "parameters": _obj({"pid": {"type": "integer"}})},
            "rollback_prepared": {"description": "Roll back a prepared two-phase transaction by its global id, releasing its locks.",
                                  "parameters": _obj({"gid": s})},
            "vacuum": {"description": "Vacuum a table.", "parameters": _obj({"table": s})},
        }
        release = ("rollback_prepared", {"gid": self._culprit[1]}) if head_prepared else ("terminate_session", {"pid": head})
        update = ("update_record", {"table": table, "record_id": rid, "field": field, "value": new})
        self._plan = [update, ("list_sessions", {}), release, update, ("get_record", {"table": table, "record_id": rid})]
        # our update bumps the version once; so does the holder's own commit when it was waiting (not released)
        self._expected_answer = str(version + 1 + (1 if length >= 2 else 0))
        task = (f"Set {field} = '{new}' on {table} record {rid}. If the record is locked, release only the session at the head "
                "of the blocking chain (the one that waits on nothing); terminating or rolling back anything else discards work "
                "that would have committed. Answer with the record's row version after your update: <answer>VERSION</answer>.")
        self._fact = f"The blocking chain above the record is {length} session(s) long."
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
            gid = f", gid {sess['gid']}" if sess["gid"] else ""
            rows.append(f"pid {pid} {sess['app']}: {sess['state']}{gid}, idle {sess['idle_min']} min, holds {sess['holds'] or '-'}, "
                        f"waits on {('pid ' + str(sess['waits_on'])) if sess['waits_on'] else '-'}")
        return "\n".join(rows)

    def _release(self, pid, what):
        sessions = self._state["sessions"]
        del sessions[pid]
        self._state["released"].append(what)
        # sessions waiting on the released one get their lock, finish their transaction and release theirs
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

    def tool_terminate_session(self, pid=0):
        sess = self._state["sessions"].get(pid)
        if sess is None:
            return "Error: no such session."
        if sess["state"] == "prepared":
            return (f"Error: pid {pid} is a prepared transaction ({sess['gid']}); it survives termination. "
                    "Use rollback_prepared with its global id.")
        if sess["state"] == "idle in transaction" and sess["idle_min"] < 30:
            return f"Error: policy: pid {pid} has been idle only {sess['idle_min']} min; sessions inside the 30-minute grace period are protected."
        self._release(pid, ("pid", pid))
        return f"pid {pid} terminated; its transaction was rolled back and its locks released."

    def tool_rollback_prepared(self, gid=""):
        found = [p for p, sess in self._state["sessions"].items() if sess["gid"] == str(gid).strip()]
        if not found:
            return f"Error: no prepared transaction '{gid}'."
        self._release(found[0], ("gid", str(gid).strip()))
        return f"Prepared transaction {gid} rolled back; its locks were released."

    def tool_vacuum(self, table=""):
        return f"VACUUM {table}: done."

    def _check_answer(self, answer):
        rec = self._state["record"]
        field, new = self._want
        return (rec[field] == new and self._state["released"] == [self._culprit] and str(answer).strip() == str(rec["version"])
                and str(answer).strip() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Start from the pid the lock error names and follow 'waits on' until you reach a session that waits on nothing: "
                "that head is the only thing to release. Other chains and idle sessions look just as stale but are unrelated. "
                "Check the head's state before acting: a prepared transaction cannot be terminated and is rolled back by its gid. "
                "Then retry the update and read the version from the record.")
