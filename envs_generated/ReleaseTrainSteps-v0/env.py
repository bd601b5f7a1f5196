"""Release Train Steps: cut a release by the book: read the unreleased changelog to decide the semantic version bump, get a green test run, set the version, tag, build, sign with a valid key where the channel demands it, and publish. Each step refuses to run before the one it depends on."""
import json
import random

FIXES = ["fix crash on empty config", "fix timezone drift in scheduler", "fix memory leak in cache", "fix retry storm"]
FEATURES = ["add CSV export", "add dark mode", "add webhook filters", "add bulk import"]
BREAKING = ["remove v1 endpoints", "rename --out to --output", "drop Python 3.9 support"]
PROJECTS = ["tidepool", "lanternfish", "quillmark", "orbitkit", "mossgate", "brightline"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class ReleaseTrainStepsEnv(ToolUseBaseEnv):
    # difficulty -> (changelog entries, kinds that may appear, publishing channel needs a signature)
    LEVELS = {"easy": (2, ("fix", "feature"), False), "medium": (4, ("fix", "feature", "breaking"), False),
              "hard": (5, ("fix", "feature", "breaking"), True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_entries, self.kinds, self.signing = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        project = rng.choice(PROJECTS)
        major, minor, patch = rng.randint(0, 5), rng.randint(0, 20), rng.randint(0, 12)
        entries = []
        for _ in range(self.n_entries):
            kind = rng.choice(self.kinds)
            text = rng.choice({"fix": FIXES, "feature": FEATURES, "breaking": BREAKING}[kind])
            entries.append((kind, text))
        kinds = {k for k, _ in entries}
        if "breaking" in kinds:
            new = (major + 1, 0, 0)
        elif "feature" in kinds:
            new = (major, minor + 1, 0)
        else:
            new = (major, minor, patch + 1)
        version = "%d.%d.%d" % new
        keys = {}
        for i in range(3):  # one key still valid on 2026-12-01, two expired
            kid = "key-%04x" % rng.randint(0, 65535)
            year, month = (2027, rng.randint(1, 12)) if i == 0 else (rng.choice([2025, 2026]), rng.randint(1, 11))
            keys[kid] = "%d-%02d-%02d" % (year, month, rng.randint(1, 28))
        valid_keys = sorted(k for k, d in keys.items() if d >= "2026-12-01")
        branch = "release/%s-%d" % (rng.choice(["aurora", "basalt", "cobalt", "delta", "ember", "fjord"]), rng.randint(1, 99))
        channel = "stable" if self.signing else rng.choice(["stable", "beta"])
        self._state = {"project": project, "version": "%d.%d.%d" % (major, minor, patch), "entries": entries,
                       "branch": branch, "tests": None, "tags": {}, "artifacts": {}, "signed": set(), "published": None,
                       "keys": keys, "salt": rng.randint(1, 10 ** 6), "seq": rng.randint(100, 900)}
        s = {"type": "string"}
        self._tools = {
            "read_changelog": {"description": "Unreleased changelog entries, each marked fix, feature or breaking.", "parameters": _obj({})},
            "get_version": {"description": "The project's current version.", "parameters": _obj({})},
            "run_tests": {"description": "Run the test suite on a branch.", "parameters": _obj({"branch": s})},
            "set_version": {"description": "Set the project version (needs a green test run).", "parameters": _obj({"version": s})},
            "create_tag": {"description": "Tag the current version (tag name 'v' + version).", "parameters": _obj({"tag": s})},
            "build_artifact": {"description": "Build the release artifact from a tag; returns the artifact id.", "parameters": _obj({"tag": s})},
            "list_signing_keys": {"description": "Signing keys and their expiry dates.", "parameters": _obj({})},
            "sign_artifact": {"description": "Sign an artifact with a signing key.", "parameters": _obj({"artifact_id": s, "key_id": s})},
            "publish": {"description": "Publish an artifact to a channel ('stable' needs a valid signature). Returns the release digest.",
                        "parameters": _obj({"artifact_id": s, "channel": {"type": "string", "enum": ["stable", "beta"]}})},
            "open_issue": {"description": "Open an issue in the tracker.", "parameters": _obj({"title": s})},
        }
        art = "art-%d" % (self._state["seq"] + 1)
        plan = [("read_changelog", {}), ("get_version", {}), ("run_tests", {"branch": branch}), ("set_version", {"version": version}),
                ("create_tag", {"tag": "v" + version}), ("build_artifact", {"tag": "v" + version})]
        if self.signing:
            plan += [("list_signing_keys", {}), ("sign_artifact", {"artifact_id": art, "key_id": valid_keys[0]})]
        plan.append(("publish", {"artifact_id": art, "channel": channel}))
        self._plan = plan
        self._release = (version, channel)
        self._expected_answer = self._digest(version, channel)
        task = (f"Release {project} from branch '{branch}' to the '{channel}' channel. The version number must follow semantic versioning from the "
                "unreleased changelog (breaking -> major, feature -> minor, otherwise patch)" +
                (", and stable releases must be signed with a key that has not expired (today is 2026-12-01)" if self.signing else "") +
                ". Answer with the release digest: <answer>sha256:...</answer>.")
        self._fact = "The most severe unreleased change is a " + ("breaking change" if "breaking" in kinds else "feature" if "feature" in kinds else "fix") + "."
        return task, {}

    def _digest(self, version, channel):
        h = self._state["salt"]
        for ch in f"{self._state['project']}@{version}#{channel}":
            h = (h * 131 + ord(ch)) % 4294967291
        return "sha256:%08x%04x" % (h, h % 65521)

    def tool_read_changelog(self):
        return "\n".join(f"- [{k}] {t}" for k, t in self._state["entries"])

    def tool_get_version(self):
        return f"{self._state['project']} {self._state['version']}"

    def tool_run_tests(self, branch=""):
        if branch != self._state["branch"]:
            return f"Error: branch '{branch}' is not the release branch; nothing to test."
        self._state["tests"] = "passed"
        return f"Test run on {branch}: 412 passed, 0 failed."

    def tool_set_version(self, version=""):
        st = self._state
        if st["tests"] != "passed":
            return "Error: no green test run on the release branch; run the tests first."
        parts = str(version).strip().split(".")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            return "Error: version must look like MAJOR.MINOR.PATCH."
        if tuple(int(p) for p in parts) <= tuple(int(p) for p in st["version"].split(".")):
            return "Error: the new version must be greater than the current one."
        st["version"] = str(version).strip()
        return f"Version set to {st['version']}."

    def tool_create_tag(self, tag=""):
        st = self._state
        if tag != "v" + st["version"]:
            return f"Error: the tag must be 'v' + the current version ({st['version']})."
        if tag in st["tags"]:
            return "Error: tag exists."
        st["tags"][tag] = st["version"]
        return f"Tagged {tag}."

    def tool_build_artifact(self, tag=""):
        st = self._state
        if tag not in st["tags"]:
            return "Error: no such tag."
        st["seq"] += 1
        aid = "art-%d" % st["seq"]
        st["artifacts"][aid] = st["tags"][tag]
        return f"Built {aid} from {tag}."

    def tool_list_signing_keys(self):
        return "\n".join(f"{k}: expires {d}" for k, d in sorted(self._state["keys"].items()))

    def tool_sign_artifact(self, artifact_id="", key_id=""):
        st = self._state
        if artifact_id not in st["artifacts"]:
            return "Error: no such artifact."
        expiry = st["keys"].get(key_id)
        if expiry is None:
            return "Error: unknown key."
        if expiry < "2026-12-01":
            return f"Error: key {key_id} expired on {expiry}."
        st["signed"].add(artifact_id)
        return f"{artifact_id} signed with {key_id}."

    def tool_publish(self, artifact_id="", channel=""):
        st = self._state
        if artifact_id not in st["artifacts"]:
            return "Error: no such artifact."
        if channel not in ("stable", "beta"):
            return "Error: unknown channel."
        if channel == "stable" and self.signing and artifact_id not in st["signed"]:
            return "Error: stable releases must be signed."
        if st["published"] is not None:
            return "Error: a release was already published today."
        version = st["artifacts"][artifact_id]
        st["published"] = (version, channel)
        return f"Published {st['project']} {version} to {channel}. Digest {self._digest(version, channel)}."

    def tool_open_issue(self, title=""):
        return f"Issue #{len(str(title)) + 100} opened."

    def _check_answer(self, answer):
        return self._state["published"] == self._release and str(answer).strip().lower() == self._expected_answer

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("The bump is decided by the most severe entry: any breaking change resets minor and patch to 0 under a new "
                "major; a feature resets patch. Tests must be green before the version changes; tag 'v'+version, build from the tag. ")
        if self.signing:
            text += "Some signing keys are expired: compare their dates with today before signing. "
        return text + "Only one publish is allowed, so get the version right first."
