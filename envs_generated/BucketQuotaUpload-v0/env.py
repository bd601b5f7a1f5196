"""Bucket Quota Upload: upload a backup into a storage bucket that is too full to take it. The upload error states the shortfall; the housekeeping rule says which objects may go (temporary objects past their retention), retention-locked objects refuse deletion, and in a versioned bucket deleted objects keep using quota until their old versions are purged."""
import json
import random

BUCKETS = ["ops-archive", "ml-artifacts", "media-raw", "finance-exports", "build-cache"]
PREFIXES = ["tmp/", "exports/", "logs/", "snapshots/", "scratch/"]


def _obj(props, required=None):
    return {"type": "object", "properties": props, "required": list(props) if required is None else required}


def _call(tool, args):
    return "<tool_call>" + json.dumps({"name": tool, "arguments": args}) + "</tool_call>"


class BucketQuotaUploadEnv(ToolUseBaseEnv):
    # difficulty -> (objects in the bucket, expired temp objects, young temp objects that must stay, versioned bucket)
    LEVELS = {"easy": (5, 2, 0, False), "medium": (8, 2, 2, False), "hard": (9, 2, 2, True)}

    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in self.LEVELS else "medium"
        self.n_objects, self.n_expired, self.n_young, self.versioned = self.LEVELS[self.difficulty]
        self._plan = []
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(None if seed is None else f"{self.difficulty}/{seed}")  # each level poses its own task
        self.turn_count = 0
        self._call_history = []
        bucket = rng.choice(BUCKETS)
        retention = rng.choice([7, 14, 30])
        objects = {}
        for i in range(self.n_objects):
            key = rng.choice(PREFIXES) + "obj-%04d.bin" % rng.randint(0, 9999)
            while key in objects:
                key = rng.choice(PREFIXES) + "obj-%04d.bin" % rng.randint(0, 9999)
            kind = "expired" if i < self.n_expired else "young" if i < self.n_expired + self.n_young else "keep"
            objects[key] = {"size": rng.randint(40, 400), "temp": kind != "keep",
                            "age": rng.randint(retention + 1, retention + 90) if kind == "expired" else rng.randint(0, retention - 1) if kind == "young" else rng.randint(0, 400),
                            "locked": kind == "keep" and rng.random() < 0.5, "versions": 1}
        expired = [k for k, o in objects.items() if o["temp"] and o["age"] > retention]
        freed = sum(objects[k]["size"] for k in expired)
        used = sum(o["size"] for o in objects.values())
        backup_size = rng.randint(60, 300)
        # short of space now, but the housekeeping the rule allows is always enough
        quota = used + rng.randint(max(1, backup_size - freed), backup_size - 1)
        day = "2026%02d%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        key = f"backups/db-{day}.tar"
        self._state = {"bucket": bucket, "objects": objects, "quota": quota, "deleted": [], "uploaded": None,
                       "salt": rng.randint(1, 10 ** 6), "noncurrent": {}}
        self._expired = sorted(expired)
        self._key, self._size = key, backup_size
        s = {"type": "string"}
        self._tools = {
            "get_bucket": {"description": "Bucket quota, usage (MB), versioning and housekeeping rules.", "parameters": _obj({"bucket": s})},
            "list_objects": {"description": "Objects in a bucket: key, size (MB), temp tag, age (days), retention lock.",
                             "parameters": _obj({"bucket": s})},
            "delete_object": {"description": "Delete an object.", "parameters": _obj({"bucket": s, "key": s})},
            "purge_versions": {"description": "Permanently remove the noncurrent versions of a deleted key.",
                               "parameters": _obj({"bucket": s, "key": s})},
            "upload": {"description": "Upload a local file of the given size (MB) under a key. Returns the ETag.",
                       "parameters": _obj({"bucket": s, "key": s, "size_mb": {"type": "integer"}})},
            "set_lifecycle_rule": {"description": "Set a lifecycle expiry rule (applies from the next nightly run).",
                                   "parameters": _obj({"bucket": s, "days": {"type": "integer"}})},
        }
        plan = [("upload", {"bucket": bucket, "key": key, "size_mb": backup_size}), ("get_bucket", {"bucket": bucket}),
                ("list_objects", {"bucket": bucket})]
        plan += [("delete_object", {"bucket": bucket, "key": k}) for k in self._expired]
        if self.versioned:
            plan += [("purge_versions", {"bucket": bucket, "key": k}) for k in self._expired]
        plan.append(("upload", {"bucket": bucket, "key": key, "size_mb": backup_size}))
        self._plan = plan
        self._expected_answer = self._etag(key, backup_size)
        self._retention = retention
        task = (f"Upload tonight's database backup as '{key}' ({backup_size} MB) to bucket '{bucket}'. If space is short, follow "
                "the bucket's housekeeping rule exactly: remove every object it allows and nothing else. Answer with the "
                "upload's ETag: <answer>etag</answer>.")
        self._fact = f"{len(expired)} object(s) qualify under the rule, freeing {freed} MB."
        return task, {}

    def _etag(self, key, size):
        h = self._state["salt"]
        for ch in f"{key}:{size}":
            h = (h * 33 + ord(ch)) % 4294967291
        return "%08x" % h

    def _used(self):
        st = self._state
        return sum(o["size"] for o in st["objects"].values()) + sum(st["noncurrent"].values()) + (self._size if st["uploaded"] else 0)

    def tool_get_bucket(self, bucket=""):
        st = self._state
        if bucket != st["bucket"]:
            return "Error: no such bucket."
        return (f"{bucket}: quota {st['quota']} MB, used {self._used()} MB, versioning {'ENABLED' if self.versioned else 'off'}. "
                f"Housekeeping rule: objects tagged temp may be deleted once older than {self._retention} days; all other "
                "objects must be kept.")

    def tool_list_objects(self, bucket=""):
        st = self._state
        if bucket != st["bucket"]:
            return "Error: no such bucket."
        rows = [f"{k}: {o['size']} MB, {'temp' if o['temp'] else 'no tag'}, {o['age']} days, {'retention-locked' if o['locked'] else 'unlocked'}"
                for k, o in sorted(st["objects"].items())]
        rows += [f"{k} (noncurrent versions): {v} MB" for k, v in sorted(st["noncurrent"].items())]
        return "\n".join(rows) or "(empty)"

    def tool_delete_object(self, bucket="", key=""):
        st = self._state
        if bucket != st["bucket"] or key not in st["objects"]:
            return "Error: no such object."
        o = st["objects"][key]
        if o["locked"]:
            return f"Error: {key} is under retention lock and cannot be deleted."
        del st["objects"][key]
        st["deleted"].append(key)
        if self.versioned:
            st["noncurrent"][key] = o["size"]
            return f"Deleted {key} (a delete marker was added; noncurrent versions still count against quota)."
        return f"Deleted {key}; {o['size']} MB freed."

    def tool_purge_versions(self, bucket="", key=""):
        st = self._state
        if bucket != st["bucket"] or key not in st["noncurrent"]:
            return "Error: no noncurrent versions for that key."
        freed = st["noncurrent"].pop(key)
        return f"Purged noncurrent versions of {key}; {freed} MB freed."

    def tool_upload(self, bucket="", key="", size_mb=0):
        st = self._state
        if bucket != st["bucket"]:
            return "Error: no such bucket."
        if key != self._key or size_mb != self._size:
            return "Error: no local file matches that key and size."
        if st["uploaded"]:
            return "Error: already uploaded."
        free = st["quota"] - self._used()
        if free < size_mb:
            return f"Error 507: quota exceeded: {size_mb} MB needed, {free} MB free."
        st["uploaded"] = self._etag(key, size_mb)
        return f"Uploaded {key}. ETag {st['uploaded']}."

    def tool_set_lifecycle_rule(self, bucket="", days=30):
        return f"Lifecycle rule set: expire after {days} days (takes effect at the next nightly run)."

    def _check_answer(self, answer):
        st = self._state
        return (st["uploaded"] == self._expected_answer and sorted(st["deleted"]) == self._expired
                and str(answer).strip().lower() == self._expected_answer)

    def solution(self):
        return "\n".join([_call(n, a) for n, a in self._plan] + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return self._fact + " " + self._approach()

    def _approach(self):
        text = ("Read the bucket's rule, then list the objects: only temp-tagged objects older than the retention period may go, "
                "and the rule asks for all of them, not just enough. ")
        if self.versioned:
            text += "The bucket is versioned: a delete frees nothing until the key's noncurrent versions are purged. "
        return text + "Retry the upload afterwards."
