"""Schema Migration Steps: replace a column of a table by a new one against a database that enforces its constraints. The new column copies what describe_table reports of the old one (type, nullability, default), every index on the old column is rebuilt on the new one (same kind, renamed), and only then can the old column go: a NOT NULL column can only be added empty and then backfilled, a column cannot be dropped while an index uses it, and an index can only be built on a column that exists. The final schema's version hash is the proof of a clean migration."""
import json
import random

TABLES = ["orders", "customers", "invoices", "shipments", "tickets", "payments", "devices"]
NEW_COLS = ["region_code", "tenant_id", "status_v2", "created_day", "priority", "currency", "channel"]
OLD_COLS = ["legacy_ref", "old_status", "tmp_flag", "notes_raw", "import_batch", "sync_token"]
EXTRA_COLS = ["amount", "email", "updated_at", "owner_id", "label", "score"]
TYPES = ["text", "integer", "date"]
DEFAULTS = {"text": ["'unknown'", "'n/a'", "'none'", "'pending'"], "integer": ["0", "-1", "1"],
            "date": ["'1970-01-01'", "'2000-01-01'", "'1900-01-01'"]}
# index name patterns (prefix uq = unique); {c} is the indexed column
PATTERNS = ["ix_{t}_{c}", "uq_{t}_{c}", "ix_{t}_{c}_recent", "ix_{c}_lookup"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _literal_ok(value, type_):
    v = str(value).strip()
    if type_ == "integer":
        return v.lstrip("-").isdigit()
    if type_ == "date":
        body = v.strip("'")
        return v.startswith("'") and v.endswith("'") and len(body) == 10 and body[4] == "-" and body[7] == "-"
    return len(v) >= 2 and v.startswith("'") and v.endswith("'")


class SchemaMigrationStepsEnv(ToolUseBaseEnv):
    # difficulty -> (how many indexes the old column may carry, other indexes on the table)
    LEVELS = {"easy": ((0, 1), 0), "medium": ((1, 2), 1), "hard": ((2, 3), 2)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.index_counts, self.other_indexes = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        table = rng.choice(TABLES)
        new_col = rng.choice(NEW_COLS)
        old_col = rng.choice(OLD_COLS)

        def column():
            type_ = rng.choice(TYPES)
            if rng.random() < 0.5:
                return {"type": type_, "nullable": True, "default": None, "filled": True}
            return {"type": type_, "nullable": False, "default": rng.choice(DEFAULTS[type_]), "filled": True}

        names = ["id"] + rng.sample(EXTRA_COLS, rng.randint(2, 3))
        names.insert(rng.randint(1, len(names)), old_col)
        cols = {n: ({"type": "integer", "nullable": False, "default": None, "filled": True} if n == "id" else column()) for n in names}
        indexes = {"pk_" + table: {"cols": ["id"], "unique": True}}
        for pattern in rng.sample(PATTERNS, rng.choice(self.index_counts)):
            indexes[pattern.format(t=table, c=old_col)] = {"cols": [old_col], "unique": pattern.startswith("uq")}
        for other in rng.sample([n for n in names if n not in ("id", old_col)], self.other_indexes):
            pattern = rng.choice(PATTERNS)
            indexes[pattern.format(t=table, c=other)] = {"cols": [other], "unique": pattern.startswith("uq")}
        rows = rng.randint(1000, 90000)
        self._state = {"table": table, "cols": cols, "indexes": indexes, "rows": rows, "salt": rng.randint(1, 10 ** 6)}
        old = cols[old_col]
        s = {"type": "string"}
        self._tools = {
            "describe_table": {"description": "Columns (type, nullability, default) and indexes of a table, with its schema version hash.",
                               "parameters": _obj({"table": s})},
            "add_column": {"description": "Add a column. A NOT NULL column can only be added to a non-empty table as nullable and tightened after a backfill.",
                           "parameters": _obj({"table": s, "column": s, "type": {"type": "string", "enum": TYPES},
                                               "nullable": {"type": "boolean"}})},
            "backfill": {"description": "Fill every NULL of a column with a SQL literal and make that literal the column's default.",
                         "parameters": _obj({"table": s, "column": s, "value": s})},
            "set_not_null": {"description": "Add a NOT NULL constraint to a column (fails if it holds NULLs).",
                             "parameters": _obj({"table": s, "column": s})},
            "create_index": {"description": "Build an index on one column, unique or not.",
                             "parameters": _obj({"table": s, "index": s, "column": s, "unique": {"type": "boolean"}})},
            "drop_index": {"description": "Drop an index.", "parameters": _obj({"table": s, "index": s})},
            "drop_column": {"description": "Drop a column (fails while an index uses it).", "parameters": _obj({"table": s, "column": s})},
            "vacuum_table": {"description": "Reclaim storage of a table.", "parameters": _obj({"table": s})},
        }
        plan = [("describe_table", {"table": table}),
                ("add_column", {"table": table, "column": new_col, "type": old["type"], "nullable": True})]
        if not old["nullable"]:
            plan += [("backfill", {"table": table, "column": new_col, "value": old["default"]}),
                     ("set_not_null", {"table": table, "column": new_col})]
        on_old = [name for name, ix in indexes.items() if old_col in ix["cols"]]
        plan += [("create_index", {"table": table, "index": name.replace(old_col, new_col), "column": new_col,
                                   "unique": indexes[name]["unique"]}) for name in on_old]
        plan += [("drop_index", {"table": table, "index": name}) for name in on_old]
        plan += [("drop_column", {"table": table, "column": old_col}), ("describe_table", {"table": table})]
        self._plan = plan
        final_cols = {k: dict(v) for k, v in cols.items() if k != old_col}
        final_cols[new_col] = dict(old)
        final_idx = {k: v for k, v in indexes.items() if k not in on_old}
        final_idx.update({name.replace(old_col, new_col): {"cols": [new_col], "unique": indexes[name]["unique"]} for name in on_old})
        self._expected_answer = self._hash(final_cols, final_idx)
        task = (f"Migrate table '{table}' ({rows} rows): replace the column {old_col} by a new column {new_col}. The new column "
                f"takes the old one's type, nullability and default (existing rows get that default); every index on {old_col} is "
                f"rebuilt on {new_col} with the same kind (unique or not) under its old name with '{old_col}' replaced by "
                f"'{new_col}'; then {old_col} and its indexes go. Leave everything else untouched. Answer with the schema version "
                "hash that describe_table reports afterwards: <answer>sv-xxxxxxxx</answer>.")
        self._fact = f"The old column is {'nullable' if old['nullable'] else 'NOT NULL'} and covered by {len(on_old)} index(es)."
        return task, {}

    def _hash(self, cols, indexes):
        h = self._state["salt"]
        text = ";".join(f"{c}:{v['type']}:{'null' if v['nullable'] else 'notnull'}:{v['default']}" for c, v in sorted(cols.items()))
        text += "|" + ";".join(f"{i}:{','.join(v['cols'])}:{v['unique']}" for i, v in sorted(indexes.items()))
        for ch in text:
            h = (h * 131 + ord(ch)) % 4294967291
        return "sv-%08x" % h

    def _table_ok(self, table):
        return str(table).strip().lower() == self._state["table"]

    def tool_describe_table(self, table=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        st = self._state
        cols = ", ".join(f"{c} {v['type']}{'' if v['nullable'] else ' NOT NULL'}{' DEFAULT ' + v['default'] if v['default'] else ''}"
                         for c, v in st["cols"].items())
        idx = ", ".join(f"{'UNIQUE ' if v['unique'] else ''}{i}({','.join(v['cols'])})" for i, v in st["indexes"].items())
        return f"{st['table']}: {st['rows']} rows. Columns: {cols}. Indexes: {idx}. Schema version {self._hash(st['cols'], st['indexes'])}."

    def tool_add_column(self, table="", column="", type="text", nullable=True):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        col = str(column).strip()
        if not col or col in self._state["cols"]:
            return f"Error: column '{column}' exists or is invalid."
        if type not in TYPES:
            return "Error: unsupported type."
        if not nullable:
            return "Error: cannot add a NOT NULL column without a default to a table that has rows; add it nullable, backfill, then set NOT NULL."
        self._state["cols"][col] = {"type": type, "nullable": True, "default": None, "filled": False}
        return f"Added {col} {type} (nullable); {self._state['rows']} rows hold NULL."

    def tool_backfill(self, table="", column="", value=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        c = self._state["cols"].get(str(column).strip())
        if c is None:
            return f"Error: no column '{column}'."
        if not _literal_ok(value, c["type"]):
            return f"Error: {value} is not a SQL literal of type {c['type']} (quote text and dates)."
        c["filled"] = True
        c["default"] = str(value).strip()
        return f"Backfilled {self._state['rows']} rows of {column} with {c['default']}; it is now the column default."

    def tool_set_not_null(self, table="", column=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        c = self._state["cols"].get(str(column).strip())
        if c is None:
            return f"Error: no column '{column}'."
        if not c["filled"]:
            return f"Error: {column} contains NULLs; backfill it first."
        c["nullable"] = False
        return f"{column} is now NOT NULL."

    def tool_create_index(self, table="", index="", column="", unique=False):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        if str(column).strip() not in self._state["cols"]:
            return f"Error: no column '{column}'."
        if not index or index in self._state["indexes"]:
            return "Error: index name taken or empty."
        self._state["indexes"][str(index)] = {"cols": [str(column).strip()], "unique": bool(unique)}
        return f"{'Unique index' if unique else 'Index'} {index} built on {column}."

    def tool_drop_index(self, table="", index=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        if index not in self._state["indexes"] or index.startswith("pk_"):
            return f"Error: cannot drop '{index}'."
        del self._state["indexes"][index]
        return f"Index {index} dropped."

    def tool_drop_column(self, table="", column=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        col = str(column).strip()
        if col not in self._state["cols"] or col == "id":
            return f"Error: cannot drop '{column}'."
        users = [i for i, v in self._state["indexes"].items() if col in v["cols"]]
        if users:
            return f"Error: column {col} is used by index {users[0]}; drop the index first."
        del self._state["cols"][col]
        return f"Column {col} dropped."

    def tool_vacuum_table(self, table=""):
        return "Vacuum complete." if self._table_ok(table) else f"Error: no table '{table}'."

    def _check_answer(self, answer):
        st = self._state
        return (self._hash(st["cols"], st["indexes"]) == self._expected_answer
                and str(answer).strip().lower() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        return ("Describe the table first and read the old column's line and every index that lists it. A NOT NULL column goes in "
                "three steps (add it nullable, backfill the old default, set NOT NULL); a nullable one is only added. Build the "
                "replacement indexes before dropping the old ones, drop the column last, and read the hash after the last change.")
