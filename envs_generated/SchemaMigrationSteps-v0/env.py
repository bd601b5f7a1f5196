"""Schema Migration Steps: carry out a table migration against a database that enforces its constraints: a NOT NULL column can only be added empty and then backfilled, a column cannot be dropped while an index uses it, and an index can only be built on a column that exists. The final schema's version hash is the proof of a clean migration."""
import json
import random

TABLES = ["orders", "customers", "invoices", "shipments", "tickets", "payments", "devices"]
NEW_COLS = ["region_code", "tenant_id", "status_v2", "created_day", "priority", "currency", "channel"]
OLD_COLS = ["legacy_ref", "old_status", "tmp_flag", "notes_raw", "import_batch", "sync_token"]
TYPES = ["text", "integer", "date"]
DEFAULTS = {"text": "'unknown'", "integer": "0", "date": "'1970-01-01'"}


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class SchemaMigrationStepsEnv(ToolUseBaseEnv):
    # difficulty -> (new NOT NULL column needs backfill, old column to drop is indexed, index on new column)
    LEVELS = {"easy": (False, False, True), "medium": (True, False, True), "hard": (True, True, True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.not_null, self.indexed_old, self.new_index = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        table = rng.choice(TABLES)
        new_col = rng.choice(NEW_COLS)
        new_type = rng.choice(TYPES)
        old_col = rng.choice(OLD_COLS)
        cols = {"id": {"type": "integer", "nullable": False, "filled": True}, old_col: {"type": "text", "nullable": True, "filled": True}}
        for extra in rng.sample(["amount", "email", "updated_at", "owner_id", "label"], 2):
            cols[extra] = {"type": rng.choice(TYPES), "nullable": True, "filled": True}
        indexes = {"pk_" + table: ["id"]}
        old_index = None
        if self.indexed_old:
            old_index = "ix_%s_%s" % (table, old_col)
            indexes[old_index] = [old_col]
        rows = rng.randint(1000, 90000)
        self._state = {"table": table, "cols": cols, "indexes": indexes, "rows": rows, "salt": rng.randint(1, 10 ** 6), "log": []}
        new_index = "ix_%s_%s" % (table, new_col)
        self._target = (new_col, new_type, old_col, new_index)
        s = {"type": "string"}
        self._tools = {
            "describe_table": {"description": "Columns (type, nullability) and indexes of a table, with its schema version hash.",
                               "parameters": _obj({"table": s})},
            "add_column": {"description": "Add a column. A NOT NULL column can only be added to a non-empty table as nullable and tightened after a backfill.",
                           "parameters": _obj({"table": s, "column": s, "type": {"type": "string", "enum": TYPES},
                                               "nullable": {"type": "boolean"}})},
            "backfill": {"description": "Fill every NULL of a column with a SQL literal default.",
                         "parameters": _obj({"table": s, "column": s, "value": s})},
            "set_not_null": {"description": "Add a NOT NULL constraint to a column (fails if it holds NULLs).",
                             "parameters": _obj({"table": s, "column": s})},
            "create_index": {"description": "Build an index on one column.", "parameters": _obj({"table": s, "index": s, "column": s})},
            "drop_index": {"description": "Drop an index.", "parameters": _obj({"table": s, "index": s})},
            "drop_column": {"description": "Drop a column (fails while an index uses it).", "parameters": _obj({"table": s, "column": s})},
            "vacuum_table": {"description": "Reclaim storage of a table.", "parameters": _obj({"table": s})},
        }
        plan = [("describe_table", {"table": table}),
                ("add_column", {"table": table, "column": new_col, "type": new_type, "nullable": True})]
        if self.not_null:
            plan += [("backfill", {"table": table, "column": new_col, "value": DEFAULTS[new_type]}),
                     ("set_not_null", {"table": table, "column": new_col})]
        plan.append(("create_index", {"table": table, "index": new_index, "column": new_col}))
        if old_index:
            plan.append(("drop_index", {"table": table, "index": old_index}))
        plan += [("drop_column", {"table": table, "column": old_col}), ("describe_table", {"table": table})]
        self._plan = plan
        final_cols = {k: dict(v) for k, v in cols.items() if k != old_col}
        final_cols[new_col] = {"type": new_type, "nullable": not self.not_null, "filled": True}
        final_idx = {k: v for k, v in indexes.items() if k != old_index}
        final_idx[new_index] = [new_col]
        self._expected_answer = self._hash(final_cols, final_idx)
        rules = [f"add column {new_col} ({new_type})" + (f", NOT NULL, existing rows defaulting to {DEFAULTS[new_type]}" if self.not_null else ", nullable"),
                 f"index it as {new_index}", f"drop the column {old_col}" + (" together with any index on it" if self.indexed_old else "")]
        task = (f"Migrate table '{table}' ({rows} rows): " + "; ".join(rules) + ". Leave everything else untouched. Answer with "
                "the schema version hash that describe_table reports afterwards: <answer>sv-xxxxxxxx</answer>.")
        self._fact = "The old column " + ("is covered by an index." if old_index else "is not indexed.")
        return task, {}

    def _hash(self, cols, indexes):
        h = self._state["salt"]
        text = ";".join(f"{c}:{v['type']}:{'null' if v['nullable'] else 'notnull'}" for c, v in sorted(cols.items()))
        text += "|" + ";".join(f"{i}:{','.join(c)}" for i, c in sorted(indexes.items()))
        for ch in text:
            h = (h * 131 + ord(ch)) % 4294967291
        return "sv-%08x" % h

    def _table_ok(self, table):
        return str(table).strip().lower() == self._state["table"]

    def tool_describe_table(self, table=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        st = self._state
        cols = ", ".join(f"{c} {v['type']}{'' if v['nullable'] else ' NOT NULL'}" for c, v in st["cols"].items())
        idx = ", ".join(f"{i}({','.join(c)})" for i, c in st["indexes"].items())
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
        self._state["cols"][col] = {"type": type, "nullable": True, "filled": False}
        return f"Added {col} {type} (nullable); {self._state['rows']} rows hold NULL."

    def tool_backfill(self, table="", column="", value=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        c = self._state["cols"].get(str(column).strip())
        if c is None:
            return f"Error: no column '{column}'."
        if str(value).strip().strip("'\"") != DEFAULTS[c["type"]].strip("'"):
            return f"Error: {value} is not the agreed default literal for a {c['type']} column."
        c["filled"] = True
        return f"Backfilled {self._state['rows']} rows of {column}."

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

    def tool_create_index(self, table="", index="", column=""):
        if not self._table_ok(table):
            return f"Error: no table '{table}'."
        if str(column).strip() not in self._state["cols"]:
            return f"Error: no column '{column}'."
        if not index or index in self._state["indexes"]:
            return "Error: index name taken or empty."
        self._state["indexes"][str(index)] = [str(column).strip()]
        return f"Index {index} built on {column}."

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
        users = [i for i, c in self._state["indexes"].items() if col in c]
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
        text = "Describe the table first to see its columns and indexes. "
        if self.not_null:
            text += "A NOT NULL column goes in three steps: add it nullable, backfill the default, then set NOT NULL. "
        if self.indexed_old:
            text += "An index on the old column blocks dropping it: drop that index first. "
        return text + "The hash changes with every schema change, so read it only after the last step."
