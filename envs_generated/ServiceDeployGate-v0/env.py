"""Service Deploy Gate: ship a service to production the way its pipeline demands: pick the newest commit on the release branch whose CI passed, build an image from it, deploy it to staging, confirm staging is healthy and open a change record before production accepts it. Every step consumes an identifier the step before returned."""
import json
import random

SERVICES = ["billing-api", "search-indexer", "auth-gateway", "media-resizer", "orders-worker", "notify-hub", "geo-router"]
WORDS = ["fix", "add", "bump", "refactor", "tune", "drop", "guard", "cache", "retry", "log"]
NOUNS = ["timeout", "parser", "metrics", "schema", "pool", "headers", "quota", "index", "config", "client"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


def _tag(salt, text, n=8):
    h = salt
    for ch in text:
        h = (h * 131 + ord(ch)) % 4294967291
    return "%0*x" % (n, h % (16 ** n))


class ServiceDeployGateEnv(ToolUseBaseEnv):
    # difficulty -> (commits on the branch, red commits on top, staging + health gate, change record)
    LEVELS = {"easy": (4, 0, False, False), "medium": (6, 2, True, False), "hard": (8, 3, True, True)}

    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_commits, self.n_red, self.staging_gate, self.change_gate = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        service = rng.choice(SERVICES)
        branch = "release/%d.%d" % (rng.randint(1, 9), rng.randint(0, 40))
        salt = rng.randint(1, 10 ** 9)
        commits = []
        for i in range(self.n_commits):
            sha = _tag(salt, "c%d" % i, 7)
            commits.append({"sha": sha, "msg": f"{rng.choice(WORDS)} {rng.choice(NOUNS)}", "ci": "passed"})
        red = rng.randint(max(0, self.n_red - 1), self.n_red) if self.n_red else 0
        for c in commits[:red]:
            c["ci"] = rng.choice(["failed", "failed", "running"])
        for c in commits[red + 1:]:
            if rng.random() < 0.3:
                c["ci"] = "failed"
        target = commits[red]["sha"]
        self._state = {"service": service, "branch": branch, "salt": salt, "commits": commits, "images": {}, "deployed": {},
                       "healthy": set(), "changes": {}}
        s = {"type": "string"}
        self._tools = {
            "list_commits": {"description": "Commits on a branch of a service, newest first, with their CI status.",
                             "parameters": _obj({"service": s, "branch": s})},
            "build_image": {"description": "Build a container image of a service at a commit. Returns the image id.",
                            "parameters": _obj({"service": s, "commit": dict(s, description="commit sha")})},
            "deploy": {"description": "Deploy an image to an environment ('staging' or 'production'). Returns the deployment id. "
                                      "Production may require a change record id.",
                       "parameters": _obj({"image_id": s, "environment": {"type": "string", "enum": ["staging", "production"]},
                                           "change_id": dict(s, description="change record id, if one is required")},
                                          ["image_id", "environment"])},
            "check_health": {"description": "Run health probes against the image currently deployed in an environment.",
                             "parameters": _obj({"environment": {"type": "string", "enum": ["staging", "production"]}})},
            "open_change": {"description": "Open a change record for promoting an image to production. Returns the change id.",
                            "parameters": _obj({"image_id": s})},
            "get_logs": {"description": "Tail the logs of an environment.", "parameters": _obj({"environment": s})},
            "rollback": {"description": "Roll an environment back to its previous deployment.", "parameters": _obj({"environment": s})},
        }
        image = "img-" + _tag(salt, "img" + target)
        plan = [("list_commits", {"service": service, "branch": branch}),
                ("build_image", {"service": service, "commit": target})]
        if self.staging_gate:
            plan += [("deploy", {"image_id": image, "environment": "staging"}), ("check_health", {"environment": "staging"})]
        args = {"image_id": image, "environment": "production"}
        if self.change_gate:
            change = "CHG-" + _tag(salt, "chg" + image, 6).upper()
            plan.append(("open_change", {"image_id": image}))
            args["change_id"] = change
        plan.append(("deploy", args))
        self._plan = plan
        self._target_image = image
        self._expected_answer = "dep-" + _tag(salt, "production" + image)
        gates = []
        if self.staging_gate:
            gates.append("production only accepts an image that is running healthy in staging")
        if self.change_gate:
            gates.append("production deploys need an open change record for the image")
        task = (f"Release {service} to production from the newest commit on its '{branch}' branch whose CI passed. "
                + ("Pipeline rules: " + "; ".join(gates) + ". " if gates else "") +
                "Answer with the production deployment id: <answer>dep-xxxxxxxx</answer>.")
        self._fact = "The commit to ship is the " + ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")[red] + " newest on the branch."
        return task, {}

    def tool_list_commits(self, service="", branch=""):
        if service != self._state["service"]:
            return f"Error: unknown service '{service}'."
        if branch != self._state["branch"]:
            return f"Branch '{branch}' has no commits ahead of the current release branch."
        return "\n".join(f"{c['sha']}  CI {c['ci']:<7}  {c['msg']}" for c in self._state["commits"])

    def tool_build_image(self, service="", commit=""):
        if service != self._state["service"]:
            return f"Error: unknown service '{service}'."
        found = [c for c in self._state["commits"] if c["sha"] == str(commit).strip()]
        if not found:
            return f"Error: commit '{commit}' is not on the release branch '{self._state['branch']}'."
        if found[0]["ci"] != "passed":
            return f"Error: refusing to build {commit}: CI {found[0]['ci']}."
        image = "img-" + _tag(self._state["salt"], "img" + found[0]["sha"])
        self._state["images"][image] = found[0]["sha"]
        return f"Built {image} from {commit}."

    def tool_deploy(self, image_id="", environment="", change_id=""):
        if image_id not in self._state["images"]:
            return f"Error: image '{image_id}' does not exist; build it first."
        if environment not in ("staging", "production"):
            return "Error: environment must be 'staging' or 'production'."
        if environment == "production":
            if self.staging_gate and (self._state["deployed"].get("staging") != image_id or "staging" not in self._state["healthy"]):
                return "Error: gate closed: this image has not passed a health check in staging."
            if self.change_gate and self._state["changes"].get(change_id) != image_id:
                return "Error: gate closed: a change record for this image is required (change_id)."
        self._state["deployed"][environment] = image_id
        self._state["healthy"].discard(environment)
        dep = "dep-" + _tag(self._state["salt"], environment + image_id)
        return f"Deployed {image_id} to {environment}: deployment {dep}."

    def tool_check_health(self, environment=""):
        image = self._state["deployed"].get(environment)
        if image is None:
            return f"Error: nothing is deployed in {environment}."
        self._state["healthy"].add(environment)
        return f"{environment}: {image} healthy (6/6 probes passing)."

    def tool_open_change(self, image_id=""):
        if image_id not in self._state["images"]:
            return f"Error: image '{image_id}' does not exist."
        change = "CHG-" + _tag(self._state["salt"], "chg" + image_id, 6).upper()
        self._state["changes"][change] = image_id
        return f"Change record {change} opened for {image_id}."

    def tool_get_logs(self, environment=""):
        image = self._state["deployed"].get(environment)
        return f"[{environment}] " + (f"serving {image}; 0 errors in the last 5 minutes" if image else "no deployment yet")

    def tool_rollback(self, environment=""):
        return f"Error: {environment} has no previous deployment to roll back to."

    def _check_answer(self, answer):
        return (self._state["deployed"].get("production") == self._target_image
                and str(answer).strip().lower() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = "Commits are listed newest first; skip those whose CI did not pass (failed or still running). "
        if self.staging_gate:
            text += "Deploy the image to staging and run the health check there before promoting the SAME image. "
        if self.change_gate:
            text += "Open a change record for the image and pass its id to the production deploy. "
        return text + "The deployment id comes back from the production deploy call."
