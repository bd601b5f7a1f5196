"""Service Deploy Gate: ship a service to production the way its pipeline demands: find the newest commit on the release branch whose CI passed, build it, deploy it to staging and read the health check. A healthy staging run may be promoted (with a change record where required); a degraded one must be rolled back and the next older passing commit tried instead, so how many builds it takes, and which commit ships, is only known from what staging reports."""
import json
import random

SERVICES = ["billing-api", "search-indexer", "auth-gateway", "media-resizer", "orders-worker", "notify-hub", "geo-router"]
WORDS = ["fix", "add", "bump", "refactor", "tune", "drop", "guard", "cache", "retry", "log"]
NOUNS = ["timeout", "parser", "metrics", "schema", "pool", "headers", "quota", "index", "config", "client"]
SYMPTOMS = ["p99 latency over budget", "readiness probe flapping", "5xx rate at 4%", "memory climbing past the limit"]


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
    # difficulty -> (commits on the branch, most non-green commits on top, most degraded candidates, change record)
    LEVELS = {"easy": (6, 4, 0, False), "medium": (7, 4, 1, False), "hard": (9, 4, 2, True)}

    def __init__(self, max_turns=20, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_commits, self.max_red, self.max_bad, self.change_gate = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        service = rng.choice(SERVICES)
        branch = "release/%d.%d" % (rng.randint(1, 9), rng.randint(0, 40))
        salt = rng.randint(1, 10 ** 9)
        red = rng.randint(0, self.max_red)
        bad = rng.randint(0, self.max_bad)
        commits = []
        for i in range(self.n_commits):
            sha = "%07x" % rng.randrange(16 ** 7)
            if i < red:
                ci = rng.choice(["failed", "failed", "running"])
            elif i <= red + bad:  # enough green commits below the red ones for every degraded try plus the one that ships
                ci = "passed"
            else:
                ci = "passed" if rng.random() < 0.6 else "failed"
            commits.append({"sha": sha, "msg": f"{rng.choice(WORDS)} {rng.choice(NOUNS)}", "ci": ci})
        green = [c["sha"] for c in commits if c["ci"] == "passed"]
        degraded = {sha: rng.choice(SYMPTOMS) for sha in green[:bad]}  # only staging reveals these
        target = green[bad]
        self._state = {"service": service, "branch": branch, "salt": salt, "commits": commits, "images": {}, "staging": None,
                       "staging_prev": [], "health": {}, "production": None, "changes": {}, "degraded": degraded,
                       "wrong_answer": False}
        s = {"type": "string"}
        env_enum = {"type": "string", "enum": ["staging", "production"]}
        self._tools = {
            "list_commits": {"description": "Commits on a branch of a service, newest first, with their CI status.",
                             "parameters": _obj({"service": s, "branch": s})},
            "build_image": {"description": "Build a container image of a service at a commit. Returns the image id.",
                            "parameters": _obj({"service": s, "commit": dict(s, description="commit sha")})},
            "deploy": {"description": "Deploy an image to an environment ('staging' or 'production'). Returns the deployment id. "
                                      "Production may require a change record id.",
                       "parameters": _obj({"image_id": s, "environment": env_enum,
                                           "change_id": dict(s, description="change record id, if one is required")},
                                          ["image_id", "environment"])},
            "check_health": {"description": "Run health probes against the image currently deployed in an environment.",
                             "parameters": _obj({"environment": env_enum})},
            "rollback": {"description": "Roll an environment back to its previous deployment.", "parameters": _obj({"environment": env_enum})},
            "open_change": {"description": "Open a change record for promoting an image to production. Returns the change id.",
                            "parameters": _obj({"image_id": s})},
            "get_logs": {"description": "Tail the logs of an environment.", "parameters": _obj({"environment": s})},
        }
        plan = [("list_commits", {"service": service, "branch": branch})]
        for sha in green[:bad + 1]:
            image = self._image(sha)
            plan += [("build_image", {"service": service, "commit": sha}), ("deploy", {"image_id": image, "environment": "staging"}),
                     ("check_health", {"environment": "staging"})]
            if sha in degraded:
                plan.append(("rollback", {"environment": "staging"}))
        image = self._image(target)
        args = {"image_id": image, "environment": "production"}
        if self.change_gate:
            plan.append(("open_change", {"image_id": image}))
            args["change_id"] = self._change(image)
        plan.append(("deploy", args))
        self._plan = plan
        self._target_image = image
        self._expected_answer = self._dep("production", image)
        rules = ["production only accepts an image that is running healthy in staging",
                 "a staging run that comes back degraded must be rolled back, and the next older commit whose CI passed tried instead"]
        if self.change_gate:
            rules.append("production deploys need an open change record for the image")
        task = (f"Release {service} to production from the newest commit on its '{branch}' branch whose CI passed and that runs "
                f"healthy in staging. Pipeline rules: " + "; ".join(rules) + ". Answer with the production deployment id: "
                "<answer>dep-xxxxxxxx</answer>.")
        return task, {}

    def _image(self, sha):
        return "img-" + _tag(self._state["salt"], "img" + sha)

    def _change(self, image):
        return "CHG-" + _tag(self._state["salt"], "chg" + image, 6).upper()

    def _dep(self, environment, image):
        return "dep-" + _tag(self._state["salt"], environment + image)

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
        # any commit builds: shipping one whose CI is not green is a wrong decision, not a typo to retry
        image = self._image(found[0]["sha"])
        self._state["images"][image] = found[0]["sha"]
        return f"Built {image} from {found[0]['sha']}."

    def tool_deploy(self, image_id="", environment="", change_id=""):
        st = self._state
        if image_id not in st["images"]:
            return f"Error: image '{image_id}' does not exist; build it first."
        if environment == "staging":
            if st["staging"] is not None and st["health"].get(st["staging"]) == "degraded":
                return "Error: staging is degraded; roll it back before deploying again."
            if st["staging"] is not None:
                st["staging_prev"].append(st["staging"])
            st["staging"] = image_id
            return f"Deployed {image_id} to staging: deployment {self._dep('staging', image_id)}."
        if environment != "production":
            return "Error: environment must be 'staging' or 'production'."
        if st["staging"] != image_id or st["health"].get(image_id) != "healthy":
            return "Gate closed: this image is not running healthy in staging."
        if self.change_gate and st["changes"].get(change_id) != image_id:
            return "Gate closed: a change record for this image is required (change_id)."
        if st["production"] is not None:
            return "Gate closed: production already took a release in this change window."
        st["production"] = image_id
        return f"Deployed {image_id} to production: deployment {self._dep('production', image_id)}."

    def tool_check_health(self, environment=""):
        st = self._state
        image = st["staging"] if environment == "staging" else st["production"] if environment == "production" else None
        if image is None:
            return f"Error: nothing is deployed in {environment}."
        sha = st["images"][image]
        ci = [c["ci"] for c in st["commits"] if c["sha"] == sha][0]
        symptom = st["degraded"].get(sha) or ("boot loop after the last migration" if ci != "passed" else None)
        if environment == "staging":
            st["health"][image] = "degraded" if symptom else "healthy"
        if symptom:
            return f"{environment}: {image} DEGRADED (2/6 probes passing: {symptom})."
        return f"{environment}: {image} healthy (6/6 probes passing)."

    def tool_rollback(self, environment=""):
        st = self._state
        if environment != "staging" or st["staging"] is None:
            return f"Error: {environment} has no deployment to roll back."
        st["staging"] = st["staging_prev"].pop() if st["staging_prev"] else None
        return "Staging rolled back to " + (st["staging"] or "an empty slot") + "."

    def tool_open_change(self, image_id=""):
        if image_id not in self._state["images"]:
            return f"Error: image '{image_id}' does not exist."
        change = self._change(image_id)
        self._state["changes"][change] = image_id
        return f"Change record {change} opened for {image_id}."

    def tool_get_logs(self, environment=""):
        image = self._state["staging"] if environment == "staging" else self._state["production"]
        return f"[{environment}] " + (f"serving {image}" if image else "no deployment yet")

    def _check_answer(self, answer):
        # one answer per episode: a wrong one is final (no trying every id the results showed)
        if self._state["wrong_answer"]:
            return False
        ok = self._state["production"] == self._target_image and str(answer).strip().lower() == self._expected_answer
        self._state["wrong_answer"] = not ok
        return ok

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        text = ("Read the commit list top down and take the first commit whose CI says passed; build it and put it in staging. "
                "The health check decides the next step: healthy means promote that same image; degraded means roll staging back "
                "and repeat with the next older passing commit. ")
        if self.change_gate:
            text += "Open the change record for the image you promote and pass its id to the production deploy. "
        return text + "Production takes one release, so promote only the image that passed staging."
