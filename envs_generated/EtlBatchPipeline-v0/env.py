"""ETL Batch Pipeline: run a small extract-transform-load job by hand: open a source connection, extract a table since a date, filter the batch, convert its amounts to EUR, create the target table if it is missing, load, and validate. Every stage consumes the batch id the previous stage produced, and the load is rejected until the batch is in the target's currency."""
import json
import random

SOURCES = ["pos-eu", "pos-us", "webshop", "wholesale"]
TABLES = ["sales", "returns", "payments"]
STATUSES = ["settled", "pending", "void"]
RATES = {"EUR": 100, "USD": 92, "GBP": 117, "SEK": 9}  # cents of EUR per unit (x100 precision)


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class EtlBatchPipelineEnv(ToolUseBaseEnv):
    # difficulty -> (rows in the source table, foreign-currency rows need converting, target table missing)
    LEVELS = {"easy": (12, False, False), "medium": (20, True, False), "hard": (30, True, True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_rows, self.convert, self.create = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        source = rng.choice(SOURCES)
        table = rng.choice(TABLES)
        currencies = list(RATES) if self.convert else ["EUR"]
        rows = []
        for i in range(self.n_rows):
            rows.append({"id": 1000 + i, "day": "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28)),
                         "status": rng.choice(STATUSES), "amount": rng.randint(100, 90000), "currency": rng.choice(currencies)})
        since = "2026-%02d-01" % rng.randint(3, 10)
        status = rng.choice(["settled", "pending"])
        target = f"dw_{table}_{rng.choice(['daily', 'clean', 'eur', 'v2'])}"
        self._state = {"source": source, "table": table, "rows": rows, "sessions": {}, "batches": {}, "seq": rng.randint(100, 900),
                       "targets": {} if self.create else {target: []}, "loaded": {}, "sess_seq": rng.randint(10, 90)}
        for r in rng.sample(rows, 3):  # the job always has rows to move
            r["status"] = status
            if r["day"] < since:
                r["day"] = since[:8] + "%02d" % rng.randint(1, 28)
        keep = [r for r in rows if r["day"] >= since and r["status"] == status]
        eur = [(r["id"], r["amount"] * RATES[r["currency"]] // 100) for r in keep]
        self._target = target
        self._want = sorted(eur)
        s = {"type": "string"}
        self._tools = {
            "connect": {"description": "Open a read session on a source system; returns a session id.", "parameters": _obj({"source": s})},
            "extract": {"description": "Extract rows of a table changed on or after a date (YYYY-MM-DD) into a new batch.",
                        "parameters": _obj({"session_id": s, "table": s, "since": s})},
            "filter_batch": {"description": "Keep the rows of a batch whose column equals a value; returns a new batch id.",
                             "parameters": _obj({"batch_id": s, "column": s, "value": s})},
            "convert_currency": {"description": "Convert a batch's amounts to a currency at today's rates; returns a new batch id.",
                                 "parameters": _obj({"batch_id": s, "currency": s})},
            "create_table": {"description": "Create a warehouse table (schema: id, amount_eur).", "parameters": _obj({"table": s})},
            "load_batch": {"description": "Append a batch to a warehouse table (amounts must be in EUR).",
                           "parameters": _obj({"batch_id": s, "table": s})},
            "validate_table": {"description": "Row count and checksum of a warehouse table.", "parameters": _obj({"table": s})},
            "preview_batch": {"description": "First rows of a batch.", "parameters": _obj({"batch_id": s})},
        }
        seq = self._state["seq"]
        sess = "sess-%d" % (self._state["sess_seq"] + 1)
        plan = [("connect", {"source": source}), ("extract", {"session_id": sess, "table": table, "since": since}),
                ("filter_batch", {"batch_id": "b%d" % (seq + 1), "column": "status", "value": status})]
        last = seq + 2
        if self.convert:
            plan.append(("convert_currency", {"batch_id": "b%d" % last, "currency": "EUR"}))
            last += 1
        if self.create:
            plan.append(("create_table", {"table": target}))
        plan += [("load_batch", {"batch_id": "b%d" % last, "table": target}), ("validate_table", {"table": target})]
        self._plan = plan
        self._expected_answer = self._checksum(self._want)
        task = (f"Load into warehouse table '{target}' every '{status}' row of the '{table}' table on source '{source}' dated on or "
                f"after {since}, with amounts in EUR. Answer with the checksum that validate_table reports: <answer>ck-xxxxxxxx</answer>.")
        self._fact = f"{len(self._want)} rows should end up in {target}."
        return task, {}

    def _checksum(self, rows):
        h = 7
        for rid, cents in sorted(rows):
            for ch in f"{rid}:{cents};":
                h = (h * 131 + ord(ch)) % 4294967291
        return "ck-%08x" % h

    def _new_batch(self, rows, currency_ok):
        self._state["seq"] += 1
        bid = "b%d" % self._state["seq"]
        self._state["batches"][bid] = {"rows": rows, "eur": currency_ok}
        return bid

    def tool_connect(self, source=""):
        if source != self._state["source"]:
            return f"Error: unknown source '{source}'. Sources: " + ", ".join(SOURCES) if source not in SOURCES else "Error: access denied for this job."
        self._state["sess_seq"] += 1
        sid = "sess-%d" % self._state["sess_seq"]
        self._state["sessions"][sid] = source
        return f"Connected to {source}: session {sid}."

    def tool_extract(self, session_id="", table="", since=""):
        if session_id not in self._state["sessions"]:
            return "Error: no such session; connect first."
        if table != self._state["table"]:
            return f"Error: table '{table}' does not exist on {self._state['source']}."
        if len(str(since)) != 10:
            return "Error: since must be YYYY-MM-DD."
        rows = [dict(r) for r in self._state["rows"] if r["day"] >= str(since)]
        bid = self._new_batch(rows, all(r["currency"] == "EUR" for r in rows))
        return f"Extracted {len(rows)} rows into batch {bid}."

    def tool_filter_batch(self, batch_id="", column="", value=""):
        b = self._state["batches"].get(batch_id)
        if b is None:
            return "Error: no such batch."
        if column not in ("status", "currency", "day"):
            return "Error: filterable columns are status, currency, day."
        rows = [dict(r) for r in b["rows"] if str(r[column]) == str(value)]
        bid = self._new_batch(rows, all(r["currency"] == "EUR" for r in rows))
        return f"Batch {bid}: {len(rows)} rows kept."

    def tool_convert_currency(self, batch_id="", currency=""):
        b = self._state["batches"].get(batch_id)
        if b is None:
            return "Error: no such batch."
        if str(currency).upper() != "EUR":
            return "Error: only conversion to EUR is supported."
        rows = [dict(r, amount=r["amount"] * RATES[r["currency"]] // 100, currency="EUR") for r in b["rows"]]
        bid = self._new_batch(rows, True)
        return f"Batch {bid}: {len(rows)} rows converted to EUR."

    def tool_create_table(self, table=""):
        if table in self._state["targets"]:
            return f"Error: table {table} already exists."
        self._state["targets"][table] = []
        return f"Created table {table}."

    def tool_load_batch(self, batch_id="", table=""):
        b = self._state["batches"].get(batch_id)
        if b is None:
            return "Error: no such batch."
        if table not in self._state["targets"]:
            return f"Error: target table {table} does not exist."
        if not b["eur"]:
            return "Error: schema mismatch: amount_eur expects EUR but the batch holds other currencies."
        if batch_id in self._state["loaded"]:
            return "Error: batch already loaded."
        self._state["targets"][table] += [(r["id"], r["amount"]) for r in b["rows"]]
        self._state["loaded"][batch_id] = table
        return f"Loaded {len(b['rows'])} rows into {table}."

    def tool_validate_table(self, table=""):
        rows = self._state["targets"].get(table)
        if rows is None:
            return f"Error: no table {table}."
        return f"{table}: {len(rows)} rows, checksum {self._checksum(rows)}."

    def tool_preview_batch(self, batch_id=""):
        b = self._state["batches"].get(batch_id)
        if b is None:
            return "Error: no such batch."
        return "\n".join(json.dumps(r) for r in b["rows"][:3]) or "(empty batch)"

    def _check_answer(self, answer):
        rows = self._state["targets"].get(self._target)
        return rows is not None and sorted(rows) == self._want and str(answer).strip().lower() == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Each stage returns a new batch id: always pass the latest one on. Filter by status before loading. "
        if self.convert:
            text += "The batch mixes currencies, and the target only accepts EUR: convert before loading. "
        if self.create:
            text += "The target table may not exist yet; create it before the load. "
        return text + "Load once: a second load of the same rows changes the checksum."
