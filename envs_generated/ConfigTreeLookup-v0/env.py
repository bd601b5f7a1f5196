"""Config Tree Lookup: find the effective port a service listens on in one deployment environment by walking a small file tree. Files can only be read from the current directory, and the effective value may be split between a shared defaults file and per-service files that offset or override it."""
import json
import random

SERVICES = ["api", "worker", "scheduler", "gateway", "cache", "search", "mailer", "auth"]
ENVS = ["dev", "staging", "prod", "qa", "perf"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class ConfigTreeLookupEnv(ToolUseBaseEnv):
    # difficulty -> (port is base + offset, a per-service override file may exist)
    LEVELS = {"easy": (False, False), "medium": (True, False), "hard": (True, True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.offsets, self.overrides = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        envs = rng.sample(ENVS, 3)
        services = rng.sample(SERVICES, 4)
        files = {"/": {"dirs": ["etc", "var"], "files": {}}, "/var": {"dirs": [], "files": {"README": "runtime data"}},
                 "/etc": {"dirs": envs, "files": {"motd": "welcome"}}}
        answers = {}
        for e in envs:
            base = rng.randint(20, 90) * 100
            d = "/etc/" + e
            files[d] = {"dirs": list(services), "files": {"common.conf": f"base_port = {base}\nlog_level = info"}}
            for s in services:
                off = rng.randint(1, 60)
                body = f"name = {s}\nthreads = {rng.randint(2, 32)}\n"
                body += f"port_offset = {off}\n" if self.offsets else f"port = {base + off}\n"
                sub = {"service.conf": body}
                port = base + off
                if self.overrides and rng.random() < 0.5:
                    port = rng.randint(10000, 60000)
                    sub["override.conf"] = f"# local override, wins over everything\nport = {port}"
                files[d + "/" + s] = {"dirs": [], "files": sub}
                answers[(e, s)] = port
        env = envs[0]
        svc = services[0]
        if self.overrides and "override.conf" not in files[f"/etc/{env}/{svc}"]["files"] and rng.random() < 0.6:
            port = rng.randint(10000, 60000)
            files[f"/etc/{env}/{svc}"]["files"]["override.conf"] = f"# local override, wins over everything\nport = {port}"
            answers[(env, svc)] = port
        self._state = {"fs": files, "cwd": "/", "read": set()}
        s = {"type": "string"}
        self._tools = {
            "pwd": {"description": "Print the current directory.", "parameters": _obj({})},
            "ls": {"description": "List the current directory.", "parameters": _obj({})},
            "cd": {"description": "Change directory (absolute path, relative name, or '..').", "parameters": _obj({"path": s})},
            "cat": {"description": "Print a file in the current directory.", "parameters": _obj({"filename": s})},
            "touch": {"description": "Create an empty file in the current directory.", "parameters": _obj({"filename": s})},
        }
        sdir = f"/etc/{env}/{svc}"
        sfiles = files[sdir]["files"]
        plan = [("cd", {"path": sdir}), ("ls", {})]
        need = {(sdir, "service.conf")}
        if "override.conf" in sfiles:
            plan.append(("cat", {"filename": "override.conf"}))
            need = {(sdir, "override.conf")}
        else:
            plan.append(("cat", {"filename": "service.conf"}))
            if self.offsets:
                plan += [("cd", {"path": ".."}), ("cat", {"filename": "common.conf"})]
                need.add((f"/etc/{env}", "common.conf"))
        self._need = need
        self._plan = plan
        self._expected_answer = str(answers[(env, svc)])
        task = (f"On which TCP port does the '{svc}' service listen in the '{env}' environment? Configuration lives under "
                "/etc/<environment>/<service>/" + (", with shared defaults in /etc/<environment>/common.conf" if self.offsets else "")
                + ". Answer with the port number: <answer>PORT</answer>.")
        self._fact = "The value is decided by " + " plus ".join(sorted(d + "/" + f for d, f in need)) + "."
        return task, {}

    def _resolve(self, path):
        cwd = self._state["cwd"]
        path = str(path).strip()
        parts = [] if path.startswith("/") else [p for p in cwd.split("/") if p]
        for p in path.split("/"):
            if p in ("", "."):
                continue
            if p == "..":
                parts = parts[:-1]
            else:
                parts.append(p)
        return "/" + "/".join(parts)

    def tool_pwd(self):
        return self._state["cwd"]

    def tool_ls(self):
        node = self._state["fs"][self._state["cwd"]]
        return "  ".join([d + "/" for d in node["dirs"]] + sorted(node["files"]))

    def tool_cd(self, path=""):
        target = self._resolve(path)
        if target not in self._state["fs"]:
            return f"Error: no such directory: {target}"
        self._state["cwd"] = target
        return f"cwd is now {target}"

    def tool_cat(self, filename=""):
        node = self._state["fs"][self._state["cwd"]]
        name = str(filename).strip()
        if "/" in name:
            return "Error: cat reads files in the current directory only; cd there first."
        if name not in node["files"]:
            return f"Error: {name}: no such file in {self._state['cwd']}"
        self._state["read"].add((self._state["cwd"], name))
        return node["files"][name]

    def tool_touch(self, filename=""):
        name = str(filename).strip()
        if not name or "/" in name:
            return "Error: invalid file name."
        self._state["fs"][self._state["cwd"]]["files"].setdefault(name, "")
        return f"created {name}"

    def _check_answer(self, answer):
        return self._need <= self._state["read"] and str(answer).strip() == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "cat only reads the current directory, so cd into the service's directory and list it before reading. "
        if self.offsets:
            text += "A service file gives only an offset; add it to base_port from the environment's common.conf. "
        if self.overrides:
            text += "If an override.conf is present, its port wins over the computed one."
        return text
