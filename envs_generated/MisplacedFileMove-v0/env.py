"""Misplaced File Move: archive a document whose recorded location is out of date. The move fails where the task says the file is, so the agent has to search for it (and tell it apart from a same-named copy by size); the archive folders may not exist yet, and a file of the same name may already sit there, in which case the house rule renames the incoming copy."""
import json
import random

USERS = ["mara", "jonah", "ilse", "kofi", "rhea", "tarek", "wen", "zoe"]
STEMS = ["invoice_march", "tax_return", "lease_scan", "payslip_q2", "contract_draft", "medical_bill", "insurance_claim",
         "bank_statement", "receipt_laptop", "visa_letter"]
FOLDERS = ["pdf", "old", "misc", "scans", "inbox"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class MisplacedFileMoveEnv(ToolUseBaseEnv):
    # difficulty -> (name clash at the destination, destination is a new nested folder, a same-named decoy file exists)
    LEVELS = {"easy": (False, False, False), "medium": (True, False, False), "hard": (False, True, True)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.clash, self.nested, self.decoy = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        user = rng.choice(USERS)
        home = "/home/" + user
        name = rng.choice(STEMS) + "_%d.pdf" % rng.randint(10, 99)
        year = str(rng.randint(2015, 2025))
        sub = rng.choice(FOLDERS)
        dirs = {home: [], home + "/Downloads": [], home + "/Downloads/" + sub: [], home + "/Documents": [],
                home + "/Archive": []}
        for y in sorted(rng.sample(range(2015, 2026), 3)):
            if str(y) != year:
                dirs[home + "/Archive/" + str(y)] = []
        if not self.nested:
            dirs[home + "/Archive/" + year] = []
        inodes = rng.sample(range(100000, 999999), 12)
        files = {}
        recorded = home + "/Downloads"
        actual = home + "/Downloads/" + sub
        files[actual + "/" + name] = {"inode": inodes[0], "size": rng.randint(20, 900)}
        for i, stem in enumerate(rng.sample([x for x in STEMS if not name.startswith(x)], 4)):
            d = rng.choice(list(dirs))
            files[d + "/" + stem + "_%d.pdf" % rng.randint(10, 99)] = {"inode": inodes[i + 1], "size": rng.randint(20, 900)}
        size = files[actual + "/" + name]["size"]
        if self.decoy:
            other = home + "/Documents"
            files[other + "/" + name] = {"inode": inodes[7], "size": size + rng.choice([-1, 1]) * rng.randint(5, 60)}
        quarter = "Q%d" % rng.randint(1, 4)
        dest = home + "/Archive/" + year + ("/" + quarter if self.nested else "")
        final_name = name
        if self.clash:
            dirs.setdefault(dest, [])
            files[dest + "/" + name] = {"inode": inodes[6], "size": rng.randint(20, 900)}
            final_name = name[:-4] + "_v2.pdf"
        self._state = {"dirs": set(dirs), "files": files, "statted": set()}
        self._final = dest + "/" + final_name
        self._inode = inodes[0]
        s = {"type": "string"}
        self._tools = {
            "ls": {"description": "List a directory (absolute path).", "parameters": _obj({"path": s})},
            "find": {"description": "Find files by exact name under a directory.", "parameters": _obj({"root": s, "name": s})},
            "mkdir": {"description": "Create a directory (its parent must exist).", "parameters": _obj({"path": s})},
            "mv": {"description": "Move a file into a directory, optionally under a new name.",
                   "parameters": _obj({"src": s, "dest_dir": s, "new_name": dict(s, description="optional new file name")},
                                      ["src", "dest_dir"])},
            "stat": {"description": "File metadata: inode, size (KB).", "parameters": _obj({"path": s})},
            "rm": {"description": "Delete a file.", "parameters": _obj({"path": s})},
            "chmod": {"description": "Change a file's mode.", "parameters": _obj({"path": s, "mode": s})},
        }
        plan = [("find", {"root": home, "name": name})]
        if self.decoy:
            plan += [("stat", {"path": p}) for p in sorted(f for f in files if f.endswith("/" + name))]
        if self.nested:
            plan += [("mkdir", {"path": home + "/Archive/" + year}), ("mkdir", {"path": dest})]
        if self.clash:
            plan.append(("ls", {"path": dest}))
            plan.append(("mv", {"src": actual + "/" + name, "dest_dir": dest, "new_name": final_name}))
        else:
            plan.append(("mv", {"src": actual + "/" + name, "dest_dir": dest}))
        plan.append(("stat", {"path": self._final}))
        self._plan = plan
        self._expected_answer = str(inodes[0])
        which = f" (the {size} KB copy)" if self.decoy else ""
        task = (f"Move {recorded}/{name}{which} into {dest}/. House rule: never overwrite; if the name is taken there, keep both "
                "by adding '_v2' before the extension of the incoming file. Answer with the inode number of the moved file "
                "at its new location: <answer>INODE</answer>.")
        self._fact = f"The file now sits in a subfolder of {recorded}."
        return task, {}

    def _norm(self, path):
        p = "/" + "/".join(x for x in str(path).strip().split("/") if x)
        return p

    def tool_ls(self, path=""):
        p = self._norm(path)
        if p not in self._state["dirs"]:
            return f"ls: cannot access '{p}': No such directory"
        subs = sorted(d[len(p) + 1:] + "/" for d in self._state["dirs"] if d.startswith(p + "/") and "/" not in d[len(p) + 1:])
        fs = sorted(f[len(p) + 1:] for f in self._state["files"] if f.startswith(p + "/") and "/" not in f[len(p) + 1:])
        return "  ".join(subs + fs) or "(empty)"

    def tool_find(self, root="", name=""):
        r = self._norm(root)
        hits = sorted(f for f in self._state["files"] if f.startswith(r + "/") and f.rsplit("/", 1)[1] == str(name).strip())
        return "\n".join(hits) if hits else "find: no matches"

    def tool_mkdir(self, path=""):
        p = self._norm(path)
        if p in self._state["dirs"]:
            return f"mkdir: {p}: File exists"
        if p.rsplit("/", 1)[0] not in self._state["dirs"]:
            return f"mkdir: {p}: parent directory does not exist"
        self._state["dirs"].add(p)
        return f"created {p}"

    def tool_mv(self, src="", dest_dir="", new_name=""):
        s, d = self._norm(src), self._norm(dest_dir)
        if s not in self._state["files"]:
            return f"mv: cannot stat '{s}': No such file"
        if d not in self._state["dirs"]:
            return f"mv: target directory '{d}' does not exist"
        name = str(new_name).strip() or s.rsplit("/", 1)[1]
        if "/" in name:
            return "mv: new_name must be a plain file name"
        target = d + "/" + name
        if target in self._state["files"]:
            return f"mv: refusing to overwrite '{target}'"
        self._state["files"][target] = self._state["files"].pop(s)
        return f"moved {s} -> {target}"

    def tool_stat(self, path=""):
        f = self._state["files"].get(self._norm(path))
        if f is None:
            return f"stat: cannot stat '{self._norm(path)}': No such file"
        self._state["statted"].add((self._norm(path), f["inode"]))
        return f"{self._norm(path)}: inode {f['inode']}, size {f['size']} KB"

    def tool_rm(self, path=""):
        p = self._norm(path)
        if p not in self._state["files"]:
            return f"rm: '{p}': No such file"
        del self._state["files"][p]
        return f"removed {p}"

    def tool_chmod(self, path="", mode=""):
        return f"mode of '{self._norm(path)}' changed to {mode}" if self._norm(path) in self._state["files"] else "chmod: no such file"

    def _check_answer(self, answer):
        f = self._state["files"].get(self._final)
        clash_kept = not self.clash or any(v["inode"] != self._inode and k.startswith(self._final.rsplit("/", 1)[0] + "/")
                                           for k, v in self._state["files"].items())
        return (f is not None and f["inode"] == self._inode and clash_kept and (self._final, self._inode) in self._state["statted"]
                and str(answer).strip() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "If mv says the source does not exist, the recorded path is stale: search the home directory for the name. "
        if self.decoy:
            text += "More than one file can carry the name: compare sizes with stat to pick the right one. "
        if self.nested:
            text += "Missing target directories have to be created, parent first. "
        if self.clash:
            text += "Check what is already in the destination: mv refuses to overwrite, so move under the '_v2' name. "
        return text + "stat the file where it ended up."
