"""The results file: one JSON line per finished episode, keyed so a re-run plays only what it lacks."""

from __future__ import annotations

import json
from pathlib import Path

from spade_gym.agents import Episode
from spade_gym.errors import ConfigError
from spade_gym.evaluation.selection import EnvInfo

#: Where results go when neither a results file nor a JSON report is named.
DEFAULT_RESULTS_DIR = ".spade-eval"


#: A record's identity: agent fingerprint, env id, the program played under it, seed, hint arm.
RecordKey = tuple[str, str, str, int, bool]


def record_key(record: dict) -> RecordKey:
    # Records written before the program was recorded get "" and are replayed, not trusted.
    return (record["agent"], record["env_id"], str(record.get("program") or ""), int(record["seed"]),
            bool(record["hint"]))


def episode_record(fingerprint: str, env: EnvInfo, episode: Episode) -> dict:
    """The JSON line stored for one finished episode.

    ``success`` is the driver's win (terminated with its best, positive reward), without
    an environment error, and with full credit on graded envs. ``agent_error`` holds the
    first failure of the agent itself (e.g. an unreachable server): such episodes say
    nothing about the agent's skill, so a re-run plays them again.
    """
    final_reward = episode.turns[-1].reward if episode.turns else 0.0
    success = episode.won and episode.error is None and (not env.graded or final_reward >= 1.0)
    agent_errors = [t.reply.extra["error"] for t in episode.turns if t.reply.extra.get("error")]
    return {"agent": fingerprint, **episode.to_dict(), "program": env.program,
            "final_reward": final_reward, "success": success,
            "agent_error": agent_errors[0] if agent_errors else None}


class ResultsStore:
    """An append-only JSONL file of episode records, shared by runs and agents.

    Appending one line per episode (flushed at once) means an interrupted run loses at
    most the episodes in flight. A torn last line from a crash is skipped on reading,
    and the next append starts on a fresh line.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def load(self, fingerprint: str) -> dict[RecordKey, dict]:
        """The latest record per key for ``fingerprint`` (later lines replace earlier ones)."""
        records: dict[RecordKey, dict] = {}
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return records
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read results file {self.path}: {exc}") from None
        for line in lines:
            try:
                record = json.loads(line)
                key = record_key(record)
            except (ValueError, KeyError, TypeError):
                continue  # torn or foreign line
            if key[0] == fingerprint:
                records[key] = record
        return records

    def open_for_append(self):
        """A text handle positioned after a complete line."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            needs_newline = self.path.exists() and self.path.stat().st_size > 0 and not self._ends_with_newline()
            handle = open(self.path, "a", encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write results file {self.path}: {exc.strerror or exc}") from None
        if needs_newline:
            handle.write("\n")
        return handle

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as handle:
            handle.seek(-1, 2)
            return handle.read(1) == b"\n"


def default_results_path(fingerprint: str, json_path: str | Path | None = None) -> Path:
    """Next to the JSON report (``report.json`` -> ``report.episodes.jsonl``) if there is one,
    else ``.spade-eval/<fingerprint>.jsonl`` in the working directory."""
    if json_path is not None:
        return Path(json_path).with_suffix(".episodes.jsonl")
    return Path(DEFAULT_RESULTS_DIR) / f"{fingerprint}.jsonl"
