"""A suite's published evaluation: per agent, per skill success counts, in one small JSON file.

``spade-gym eval --publish FILE`` merges its run into FILE under the agent's label (one run
per agent: oracle, random, the shortcut baselines...); ``spade-gym list --markdown`` renders
the file next to the suite (``EVAL.json``) as the README's evaluation table. Why a file of
its own: a README must be reproducible by a test, and replaying three agents over a whole
suite takes minutes; the file records the exact command that produced each column, so a
reader can rerun it, and it holds counts (not only rates) so nothing is rounded away.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError

#: Name of the published evaluation inside a suite directory.
EVAL_FILE = "EVAL.json"
#: Bump when the layout changes incompatibly; readers ignore files of another schema.
SCHEMA = 1
#: Largest file read: a few agents x skills; anything far bigger is not one of ours.
MAX_BYTES = 1024 * 1024
_ARMS = ("no_hint", "hint")


def agent_label(report: dict[str, Any]) -> str:
    """``oracle``, ``random``, ``baselines``, or ``<kind> <model>`` when a model was named."""
    agent = report["agent"]
    return f"{agent['kind']} {agent['model']}" if agent.get("model") else str(agent["kind"])


def _counts(group: dict[str, Any]) -> dict[str, Any]:
    return {arm: {"episodes": group[arm]["episodes"], "successes": group[arm]["successes"]}
            for arm in _ARMS if arm in group}


def summarize(report: dict[str, Any], command: str) -> dict[str, Any]:
    """The part of an evaluation report a suite README shows, and the command that reproduces it."""
    return {
        "command": command,
        "spade_gym_version": report["spade_gym_version"],
        "fingerprint": report["agent"]["fingerprint"],
        "episodes_per_env": report["episodes_per_env"],
        "seed": report["seed"],
        "arms": report["arms"],
        "agent_errors": report["agent_errors"],
        "envs": sorted(row["env_id"] for row in report["envs"]),
        "skills": {row["skill"]: {"envs": row["envs"], **_counts(row)} for row in report["skills"]},
        "overall": {"envs": report["overall"]["envs"], **_counts(report["overall"])},
    }


def load(path: str | os.PathLike) -> dict[str, Any] | None:
    """The published evaluation at ``path``, None when there is no file; a file that is not a
    well-formed published evaluation is a :class:`ConfigError` naming what is wrong."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_BYTES // 1024} KiB: not a published evaluation")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError(f"{path} is not JSON ({exc})") from None
    problem = _problem(data)
    if problem is not None:
        raise ConfigError(f"{path} is not a published evaluation (schema {SCHEMA}): {problem}")
    return data


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _group_problem(group: Any, where: str) -> str | None:
    if not isinstance(group, dict) or not _is_count(group.get("envs")):
        return f"{where} needs an 'envs' count"
    for arm in _ARMS:
        counts = group.get(arm)
        if counts is None:
            continue
        if not (isinstance(counts, dict) and _is_count(counts.get("episodes")) and _is_count(counts.get("successes"))
                and counts["successes"] <= counts["episodes"]):
            return f"{where}.{arm} needs counts 0 <= successes <= episodes"
    return None


def _problem(data: Any) -> str | None:
    """What makes ``data`` something other than a published evaluation, or None. Checked in full,
    so that rendering it (every ``list --markdown``) can trust every field."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("agents"), dict):
        return f"expected an object with \"schema\": {SCHEMA} and \"agents\""
    for label, entry in data["agents"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
            return f"agents.{label} needs a 'command'"
        envs = entry.get("envs")
        if not isinstance(envs, list) or not all(isinstance(e, str) for e in envs):
            return f"agents.{label}.envs must be a list of ids"
        skills = entry.get("skills")
        if not isinstance(skills, dict):
            return f"agents.{label}.skills must be an object"
        for skill, group in [*skills.items(), ("overall", entry.get("overall"))]:
            problem = _group_problem(group, f"agents.{label}.{skill}")
            if problem is not None:
                return problem
    return None


def publish(path: str | os.PathLike, report: dict[str, Any], command: str) -> dict[str, Any]:
    """Merge ``report`` into the file at ``path`` under its agent's label (replacing that agent's
    previous run) and write it atomically; returns the whole file's data."""
    path = Path(path)
    from filelock import FileLock

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Agents are often evaluated side by side: serialise the read-modify-write.
        with FileLock(str(path.with_name(f".{path.name}.lock")), timeout=60):
            data = load(path) or {"schema": SCHEMA, "agents": {}}  # a foreign file raises: never overwritten
            data["agents"][agent_label(report)] = summarize(report, command)
            data["agents"] = dict(sorted(data["agents"].items(), key=lambda kv: agent_order(kv[0])))
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            os.replace(tmp, path)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    return data


#: The reference agents first, in the order a reader compares them: upper bound, lower bound, shortcuts.
REFERENCE_AGENTS = ("oracle", "random", "baselines")


def agent_order(label: str) -> tuple[int, str]:
    return (REFERENCE_AGENTS.index(label) if label in REFERENCE_AGENTS else len(REFERENCE_AGENTS), label)


def eval_command(*, kind: str, model: str | None, patterns: str, episodes: int, seed: int, arms: str,
                 max_turns: int | None, suites: tuple[str, ...], publish_path: str,
                 temperature: float | None = None, max_tokens: int | None = None) -> str:
    """The ``spade-gym eval`` command line that reproduces a run (the options that change results)."""
    parts = ["spade-gym", "eval", "--agent", kind]
    if model:
        parts += ["--model", model]
    parts += ["--envs", patterns, "--episodes", str(episodes)]
    if seed:
        parts += ["--seed", str(seed)]
    if arms != "no-hint":
        parts.append(f"--{arms}")
    if max_turns is not None:
        parts += ["--max-turns", str(max_turns)]
    if temperature is not None:
        parts += ["--temperature", f"{temperature:g}"]
    if max_tokens is not None:
        parts += ["--max-tokens", str(max_tokens)]
    for suite in suites:
        parts += ["--suite", suite]
    parts += ["--publish", publish_path]
    return " ".join(shlex.quote(part) for part in parts)
