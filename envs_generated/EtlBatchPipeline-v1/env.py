"""ETL Batch Pipeline: run a small extract-transform-load job by hand: pick the replica to read from (the freshest one that is online), extract a table since a date, collapse ids that appear twice to their latest version, filter the batch, convert its amounts to EUR when other currencies are in it, make sure the target table is created and empty, load, and validate. Which replica, which transforms and which table fixes the job needs are only known from what the tools report; every stage consumes the batch id the previous stage produced."""
import json
import random

SOURCES = ["pos-eu", "pos-us", "webshop", "wholesale", "kiosk", "b2b-portal", "marketplace"]
TABLES = ["sales", "returns", "payments"]
STATUSES = ["settled", "pending", "void"]
RATES = {"EUR": 100, "USD": 92, "GBP": 117, "SEK": 9}  # cents of EUR per unit (x100 precision)


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _latest(rows):
    """One row per id: its highest version (the order of first appearance kept)."""
    best = {}
    for r in rows:
        if r["id"] not in best or r["version"] > best[r["id"]]["version"]:
            best[r["id"]] = r
    seen, out = set(), []
    for r in rows:
        if r["id"] not in seen:
            seen.add(r["id"])
            out.append(best[r["id"]])
    return out


class EtlBatchPipelineEnv(ToolUseBaseEnv):
    # difficulty -> (replicas to choose from, rows in the table, currencies may be mixed, target table state varies)
    LEVELS = {"easy": (4, 12, False, False), "medium": (5, 20, True, False), "hard": (6, 30, True, True)}

    def __init__(self, max_turns=18, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_replicas, self.n_rows, self.mixed, self.target_varies = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        table = rng.choice(TABLES)
        since = "2026-%02d-01" % rng.randint(3, 10)
        status = rng.choice(["settled", "pending"])
        currencies = list(RATES) if self.mixed and rng.random() < 0.6 else ["EUR"]
        rows = []
        for i in range(self.n_rows):
            rows.append({"id": 1000 + i, "version": 1, "day": "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28)),
                         "status": rng.choice(STATUSES), "amount": rng.randint(100, 90000), "currency": rng.choice(currencies)})
        for r in rng.sample(rows, 3):  # the job always has rows to move
            r["status"] = status
            if r["day"] < since:
                r["day"] = since[:8] + "%02d" % rng.randint(1, 28)
        dupes = rng.choice([0, 0, 2, 3])
        for r in rng.sample([r for r in rows if r["day"] >= since], dupes):  # a later version of a row: status or amount changed
            newer = dict(r, version=2, amount=rng.randint(100, 90000))
            newer["status"] = r["status"] if rng.random() < 0.5 else rng.choice([s for s in STATUSES if s != r["status"]])
            rows.insert(rng.randint(0, len(rows)), newer)
        keep = [r for r in _latest([r for r in rows if r["day"] >= since]) if r["status"] == status]
        if not keep:
            keep = [r for r in rows if r["day"] >= since and r["status"] == status][:1]
            for r in rows:
                if r["id"] == keep[0]["id"]:
                    r.update(status=status)
        keep = [r for r in _latest([r for r in rows if r["day"] >= since]) if r["status"] == status]
        eur = [(r["id"], r["amount"] * RATES[r["currency"]] // 100) for r in keep]
        # replicas: the freshest online one holds the table as it is; every other one is stale somewhere in the rows that matter
        names = rng.sample(SOURCES, self.n_replicas)
        stamps = sorted(rng.sample(range(24 * 20), self.n_replicas), reverse=True)
        states = [rng.choice(["online", "lagging", "offline"]) for _ in names]
        best = rng.randrange(self.n_replicas) if rng.random() < 0.3 else rng.randrange(1, self.n_replicas)
        for i in range(self.n_replicas):
            if i < best:
                states[i] = rng.choice(["lagging", "offline"])
        states[best] = "online"
        replicas = {}
        for i, name in enumerate(names):
            data = [dict(r) for r in rows]
            if i != best:
                stale = rng.choice(keep)
                for r in data:
                    if r["id"] == stale["id"] and r["version"] == stale["version"]:
                        r["amount"] += rng.randint(50, 900)  # an amount corrected since that snapshot
            replicas[name] = {"stamp": stamps[i], "state": states[i], "rows": data}
        listing = list(names)
        rng.shuffle(listing)
        target = f"dw_{table}_{rng.choice(['daily', 'clean', 'eur', 'v2'])}"
        leftovers = [(9000 + k, rng.randint(100, 9000)) for k in range(rng.randint(2, 6))]
        state = rng.choice(["missing", "empty", "leftover"]) if self.target_varies else "empty"
        self._state = {"table": table, "replicas": replicas, "listing": listing, "sessions": {}, "batches": {},
                       "seq": rng.randint(100, 900), "sess_seq": rng.randint(10, 90), "loaded": {}, "wrong_answer": False,
                       "targets": {} if state == "missing" else {target: list(leftovers) if state == "leftover" else []}}
        self._target = target
        self._want = sorted(eur)
        s = {"type": "string"}
        self._tools = {
            "list_replicas": {"description": "Replicas that serve a table: snapshot time and replication state.",
                              "parameters": _obj({"table": s})},
            "connect": {"description": "Open a read session on a replica; returns a session id.", "parameters": _obj({"source": s})},
            "extract": {"description": "Extract rows of a table changed on or after a date (YYYY-MM-DD) into a new batch.",
                        "parameters": _obj({"session_id": s, "table": s, "since": s})},
            "dedupe_batch": {"description": "Keep only the latest version of every id in a batch; returns a new batch id.",
                             "parameters": _obj({"batch_id": s})},
            "filter_batch": {"description": "Keep the rows of a batch whose column equals a value; returns a new batch id.",
                             "parameters": _obj({"batch_id": s, "column": s, "value": s})},
            "convert_currency": {"description": "Convert a batch's amounts to a currency at today's rates; returns a new batch id.",
                                 "parameters": _obj({"batch_id": s, "currency": s})},
            "describe_table": {"description": "Whether a warehouse table exists, and its row count.", "parameters": _obj({"table": s})},
            "create_table": {"description": "Create a warehouse table (schema: id, amount_eur).", "parameters": _obj({"table": s})},
            "truncate_table": {"description": "Delete every row of a warehouse table.", "parameters": _obj({"table": s})},
            "load_batch": {"description": "Append a batch to a warehouse table (amounts must be in EUR).",
                           "parameters": _obj({"batch_id": s, "table": s})},
            "validate_table": {"description": "Row count and checksum of a warehouse table.", "parameters": _obj({"table": s})},
        }
        seq, sess = self._state["seq"], "sess-%d" % (self._state["sess_seq"] + 1)
        plan = [("list_replicas", {"table": table}), ("connect", {"source": names[best]}),
                ("extract", {"session_id": sess, "table": table, "since": since})]
        last = seq + 1
        if dupes:
            plan.append(("dedupe_batch", {"batch_id": "b%d" % last}))
            last += 1
        plan.append(("filter_batch", {"batch_id": "b%d" % last, "column": "status", "value": status}))
        last += 1
        if any(r["currency"] != "EUR" for r in keep):
            plan.append(("convert_currency", {"batch_id": "b%d" % last, "currency": "EUR"}))
            last += 1
        if self.target_varies:
            plan.append(("describe_table", {"table": target}))
            if state == "missing":
                plan.append(("create_table", {"table": target}))
            elif state == "leftover":
                plan.append(("truncate_table", {"table": target}))
        plan += [("load_batch", {"batch_id": "b%d" % last, "table": target}), ("validate_table", {"table": target})]
        self._plan = plan
        self._expected_answer = self._checksum(self._want)
        fix = " The target may be missing or hold rows from an aborted run: it must end up holding exactly this job's rows." if self.target_varies else ""
        task = (f"Load into warehouse table '{target}' every '{status}' row of the '{table}' table dated on or after {since}, "
                "with amounts in EUR. Read from the replica with the newest snapshot among those that are online. Where an id "
                "appears more than once, only its latest version counts (its status included)." + fix +
                " Answer with the checksum that validate_table reports: <answer>ck-xxxxxxxx</answer>.")
        return task, {}

    def _checksum(self, rows):
        h = 7
        for rid, cents in sorted(rows):
            for ch in f"{rid}:{cents};":
                h = (h * 131 + ord(ch)) % 4294967291
        return "ck-%08x" % h

    def _new_batch(self, rows):
        self._state["seq"] += 1
        bid = "b%d" % self._state["seq"]
        self._state["batches"][bid] = rows
        return bid

    def _stamp(self, hours):
        return "2026-11-%02d %02d:00" % (1 + hours // 24, hours % 24)

    def tool_list_replicas(self, table=""):
        if table != self._state["table"]:
            return f"Error: no replica serves a table '{table}'."
        reps = self._state["replicas"]
        return "\n".join(f"{n}: snapshot {self._stamp(reps[n]['stamp'])}, {reps[n]['state']}" for n in self._state["listing"])

    def tool_connect(self, source=""):
        rep = self._state["replicas"].get(str(source).strip())
        if rep is None:
            return f"Error: unknown source '{source}'."
        self._state["sess_seq"] += 1
        sid = "sess-%d" % self._state["sess_seq"]
        self._state["sessions"][sid] = str(source).strip()
        # a stale replica still answers: reading from it is a wrong choice, not a failed call
        return f"Connected to {source} ({rep['state']}, snapshot {self._stamp(rep['stamp'])}): session {sid}."

    def tool_extract(self, session_id="", table="", since=""):
        src = self._state["sessions"].get(session_id)
        if src is None:
            return "Error: no such session; connect first."
        if table != self._state["table"]:
            return f"Error: table '{table}' does not exist on {src}."
        if len(str(since)) != 10:
            return "Error: since must be YYYY-MM-DD."
        rows = [dict(r) for r in self._state["replicas"][src]["rows"] if r["day"] >= str(since)]
        bid = self._new_batch(rows)
        return f"Extracted {len(rows)} rows into batch {bid}." + self._profile(rows)

    def _profile(self, rows):
        cur = sorted(set(r["currency"] for r in rows))
        twice = len(rows) - len(set(r["id"] for r in rows))
        return f" Currencies: {', '.join(cur) or 'none'}. Ids with more than one version: {twice}."

    def _batch(self, batch_id):
        return self._state["batches"].get(str(batch_id).strip())

    def tool_dedupe_batch(self, batch_id=""):
        b = self._batch(batch_id)
        if b is None:
            return "Error: no such batch."
        rows = [dict(r) for r in _latest(b)]
        return f"Batch {self._new_batch(rows)}: {len(rows)} rows, one version per id." + self._profile(rows)

    def tool_filter_batch(self, batch_id="", column="", value=""):
        b = self._batch(batch_id)
        if b is None:
            return "Error: no such batch."
        if column not in ("status", "currency", "day"):
            return "Error: filterable columns are status, currency, day."
        rows = [dict(r) for r in b if str(r[column]) == str(value)]
        return f"Batch {self._new_batch(rows)}: {len(rows)} rows kept." + self._profile(rows)

    def tool_convert_currency(self, batch_id="", currency=""):
        b = self._batch(batch_id)
        if b is None:
            return "Error: no such batch."
        if str(currency).upper() != "EUR":
            return "Error: only conversion to EUR is supported."
        rows = [dict(r, amount=r["amount"] * RATES[r["currency"]] // 100, currency="EUR") for r in b]
        return f"Batch {self._new_batch(rows)}: {len(rows)} rows converted to EUR."

    def tool_describe_table(self, table=""):
        rows = self._state["targets"].get(table)
        return f"{table}: does not exist." if rows is None else f"{table}: exists, {len(rows)} rows."

    def tool_create_table(self, table=""):
        if table in self._state["targets"]:
            return f"Error: table {table} already exists."
        self._state["targets"][table] = []
        return f"Created table {table}."

    def tool_truncate_table(self, table=""):
        if table not in self._state["targets"]:
            return f"Error: no table {table}."
        self._state["targets"][table] = []
        return f"Truncated {table}: 0 rows."

    def tool_load_batch(self, batch_id="", table=""):
        b = self._batch(batch_id)
        if b is None:
            return "Error: no such batch."
        if table not in self._state["targets"]:
            return f"Error: target table {table} does not exist."
        if any(r["currency"] != "EUR" for r in b):
            return "Error: schema mismatch: amount_eur expects EUR but the batch holds other currencies."
        if batch_id in self._state["loaded"]:
            return "Error: batch already loaded."
        self._state["targets"][table] += [(r["id"], r["amount"]) for r in b]
        self._state["loaded"][batch_id] = table
        return f"Loaded {len(b)} rows into {table}."

    def tool_validate_table(self, table=""):
        rows = self._state["targets"].get(table)
        if rows is None:
            return f"Error: no table {table}."
        return f"{table}: {len(rows)} rows, checksum {self._checksum(rows)}."

    def _check_answer(self, answer):
        # one answer per episode: a wrong one is final (no trying every checksum the results showed)
        if self._state["wrong_answer"]:
            return False
        rows = self._state["targets"].get(self._target)
        ok = rows is not None and sorted(rows) == self._want and str(answer).strip().lower() == self._expected_answer
        self._state["wrong_answer"] = not ok
        return ok

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        text = ("Compare the replicas' snapshot times and read only from the newest one marked online; a lagging or offline "
                "replica still answers, with stale amounts. Each stage returns a new batch id: pass the latest one on. "
                "The extract reports whether ids appear twice: if so, dedupe before filtering by status, since the latest "
                "version decides the status. ")
        if self.mixed:
            text += "Convert to EUR only matters when the batch reports other currencies. "
        if self.target_varies:
            text += "Describe the target first: create it when missing, truncate it when it already holds rows. "
        return text + "Load once, then validate."
