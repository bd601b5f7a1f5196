"""Export Format Router: total the amounts in a set of exported files that arrive in different formats. Each file must be loaded into the workspace, its format detected, and read with the one parser that understands it; legacy exports in Latin-1 must be re-encoded before any parser accepts them."""
import json
import random

FORMATS = ["csv", "json", "xml", "fixed"]
CLIENTS = ["Alder", "Birch", "Cedar", "Damson", "Elder", "Fig", "Gorse", "Hazel", "Ivy", "Juniper"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _render(fmt, rows):
    if fmt == "csv":
        return "client,amount\n" + "\n".join(f"{c},{a // 100}.{a % 100:02d}" for c, a in rows)
    if fmt == "json":
        return json.dumps({"rows": [{"client": c, "amount": f"{a // 100}.{a % 100:02d}"} for c, a in rows]})
    if fmt == "xml":
        return "<export>" + "".join(f"<row><client>{c}</client><amount>{a // 100}.{a % 100:02d}</amount></row>" for c, a in rows) + "</export>"
    return "\n".join(f"{c:<10}{a:>10}" for c, a in rows)  # fixed width, amounts in cents


class ExportFormatRouterEnv(ToolUseBaseEnv):
    # difficulty -> (files to total, files exported in Latin-1)
    LEVELS = {"easy": (2, 0), "medium": (3, 0), "hard": (3, 1)}

    def __init__(self, max_turns=16, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_files, self.n_latin = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        fmts = rng.sample(FORMATS, self.n_files)
        files = {}
        for i, fmt in enumerate(fmts):
            rows = [(rng.choice(CLIENTS), rng.randint(100, 99999)) for _ in range(rng.randint(3, 5))]
            name = "export_%s_%d.dat" % (rng.choice(["north", "south", "east", "west", "hq"]), rng.randint(100, 999))
            while name in files:
                name = "export_%s_%d.dat" % (rng.choice(["north", "south", "east", "west", "hq"]), rng.randint(100, 999))
            files[name] = {"format": fmt, "rows": rows, "encoding": "latin-1" if i < self.n_latin else "utf-8"}
        client = rng.choice(CLIENTS)
        for i, f in enumerate(files.values()):  # the client appears in most files, and always in one
            if i == 0 or rng.random() < 0.8:
                f["rows"][rng.randrange(len(f["rows"]))] = (client, rng.randint(100, 99999))
        self._state = {"files": files, "loaded": {}, "parsed": set()}
        self._client = client
        s = {"type": "string"}
        self._tools = {
            "load_file": {"description": "Load a file into the workspace; reports its size and encoding.", "parameters": _obj({"filename": s})},
            "sniff_format": {"description": "Detect the format of a loaded file from its first bytes.", "parameters": _obj({"filename": s})},
            "convert_encoding": {"description": "Re-encode a loaded file to UTF-8.", "parameters": _obj({"filename": s})},
            "parse_csv": {"description": "Parse a loaded CSV file into rows.", "parameters": _obj({"filename": s})},
            "parse_json": {"description": "Parse a loaded JSON file into rows.", "parameters": _obj({"filename": s})},
            "parse_xml": {"description": "Parse a loaded XML file into rows.", "parameters": _obj({"filename": s})},
            "parse_fixed_width": {"description": "Parse a loaded fixed-width file (client 10 chars, amount in cents 10 chars).",
                                  "parameters": _obj({"filename": s})},
            "compress_file": {"description": "Compress a loaded file.", "parameters": _obj({"filename": s})},
        }
        plan = []
        for name, f in files.items():
            plan += [("load_file", {"filename": name}), ("sniff_format", {"filename": name})]
            if f["encoding"] != "utf-8":
                plan.append(("convert_encoding", {"filename": name}))
            plan.append(({"csv": "parse_csv", "json": "parse_json", "xml": "parse_xml", "fixed": "parse_fixed_width"}[f["format"]],
                         {"filename": name}))
        self._plan = plan
        total = sum(a for f in files.values() for c, a in f["rows"] if c == client)
        self._expected_answer = "%d.%02d" % (total // 100, total % 100)
        task = (f"What is the total amount billed to client '{client}' across these exports: {', '.join(files)}? Answer in EUR "
                "with two decimals: <answer>AMOUNT</answer>.")
        self._fact = "The files use " + ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")[len(files)] + " different formats, one per file."
        return task, {}

    def _loaded(self, filename):
        return self._state["loaded"].get(str(filename).strip())

    def tool_load_file(self, filename=""):
        f = self._state["files"].get(str(filename).strip())
        if f is None:
            return "Error: no such file."
        self._state["loaded"][str(filename).strip()] = {"encoding": f["encoding"]}
        return f"Loaded {filename}: {len(_render(f['format'], f['rows']))} bytes, encoding {f['encoding']}."

    def tool_sniff_format(self, filename=""):
        if self._loaded(filename) is None:
            return "Error: load the file first."
        head = _render(self._state["files"][str(filename).strip()]["format"], self._state["files"][str(filename).strip()]["rows"])[:24]
        return f"First bytes: {head!r}"

    def tool_convert_encoding(self, filename=""):
        lf = self._loaded(filename)
        if lf is None:
            return "Error: load the file first."
        lf["encoding"] = "utf-8"
        return f"{filename} re-encoded to UTF-8."

    def _parse(self, fmt, filename):
        lf = self._loaded(filename)
        if lf is None:
            return "Error: load the file first."
        if lf["encoding"] != "utf-8":
            return "Error: invalid byte 0xE9 at offset 41: input is not UTF-8."
        f = self._state["files"][str(filename).strip()]
        if f["format"] != fmt:
            return f"Error: {filename} is not valid {fmt} input."
        self._state["parsed"].add(str(filename).strip())
        return json.dumps([{"client": c, "amount": f"{a // 100}.{a % 100:02d}"} for c, a in f["rows"]])

    def tool_parse_csv(self, filename=""):
        return self._parse("csv", filename)

    def tool_parse_json(self, filename=""):
        return self._parse("json", filename)

    def tool_parse_xml(self, filename=""):
        return self._parse("xml", filename)

    def tool_parse_fixed_width(self, filename=""):
        return self._parse("fixed", filename)

    def tool_compress_file(self, filename=""):
        return "Error: load the file first." if self._loaded(filename) is None else f"{filename}.gz written."

    def _check_answer(self, answer):
        try:
            value = float(str(answer).replace("EUR", "").replace(",", "").strip())
        except ValueError:
            return False
        return self._state["parsed"] == set(self._state["files"]) and abs(value - float(self._expected_answer)) < 0.01

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "File names say nothing about the format: load each file and sniff its first bytes, then pick the matching parser. "
        if self.n_latin:
            text += "A file reported as latin-1 must be converted to UTF-8 before any parser accepts it. "
        return text + "The client can appear in several files (or not at all in one); add every matching amount."
