"""Every example in ``spade-gym ... --help`` and every command in README.md's code blocks
is executed, so a documented command that fails is caught here, named in the test id.

Commands run in a scratch directory holding the files the examples name (my_env.py,
pool/games/, my_suite/, hints.json, a generate log, a run directory...), against a
loopback OpenAI-compatible server standing in for ``http://localhost:8000/v1``.
What cannot honestly run inside a test is listed in ``NOT_RUN_HERE`` with the reason,
and checked as far as it can be:

* ``config``: self-play trains for minutes; the exact command runs with
  ``--show-config`` added, which parses every option and resolves the configuration;
* ``plan``: evaluations play hundreds of episodes; the exact command is parsed by the
  CLI and its ``--envs`` patterns and agent settings are resolved (no episode is played);
* ``skip``: not a spade-gym command a test can run (installing packages, the test
  suite itself, a GPU inference server).

A README command none of these patterns knows fails the test: classify it consciously.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes import FakeOpenAI
from testkit import BENIGN_DIR, ROOT, build_suite

from spade_gym.cli import main

README = ROOT / "README.md"
SCRIPTS = Path(sys.executable).parent
STAND_IN_URL = "http://localhost:8000/v1"
TIMEOUT_S = 300

#: (pattern over the command text, mode, reason)
NOT_RUN_HERE = [
    (r"\bpip install\b|-m venv\b", "skip", "installs packages (network, minutes)"),
    (r"(^|/)pytest\b", "skip", "the test suite itself"),
    (r"\bvllm-serve\b", "skip", "starts a GPU inference server"),
    (r"\bspade-gym serve\b", "skip", "starts a server (tests/integrations/test_openenv.py serves on loopback)"),
    (r"\bselfplay\b", "config", "trains for minutes: run with --show-config"),
    (r"\beval\b", "plan", "plays hundreds of episodes: parsed and resolved only"),
]


def help_examples() -> list[str]:
    """The commands under ``Example:``/``Examples:`` in every command's ``--help``."""
    runner = CliRunner()
    texts = [runner.invoke(main, ["--help"]).output]
    listing = texts[0].split("Commands:")[1].strip().splitlines()
    texts += [runner.invoke(main, [line.split()[0], "--help"]).output for line in listing]
    commands = []
    for text in texts:
        match = re.search(r"Examples?:\n(.*?)(\n\s*\n|\Z)", text, re.S)
        assert match, f"no example in:\n{text[:300]}"
        commands += [c for c in join_continuations(match.group(1).splitlines()) if c.startswith("spade-gym ")]
    return commands


def join_continuations(lines: list[str]) -> list[str]:
    out, current = [], ""
    for raw in lines:
        line = raw.strip()
        if line.endswith("\\"):
            current += line[:-1].strip() + " "
            continue
        out.append((current + line).strip())
        current = ""
    return [c for c in out if c]


def readme_blocks() -> tuple[list[str], list[str]]:
    """(shell commands, python blocks) of README.md's fenced code blocks."""
    text = README.read_text(encoding="utf-8")
    shell, python = [], []
    for language, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if language == "python":
            python.append(body)
        elif language in ("bash", "sh", "shell", "console"):
            lines = [line for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]
            shell += join_continuations(lines)
    return shell, python


def mode_of(command: str) -> tuple[str, str]:
    for pattern, mode, reason in NOT_RUN_HERE:
        if re.search(pattern, command):
            return mode, reason
    return "run", ""


def completion(code: str, hint: str) -> str:
    return f"```python\n{code}```\n<hint>{hint}</hint>"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A directory holding every file the documented commands name, and a stand-in server."""
    ws = tmp_path_factory.mktemp("documented")
    benign = {p.stem: p.read_text() for p in BENIGN_DIR.glob("*.py")}
    (ws / "my_env.py").write_text(benign["guess_number"])
    (ws / "pool" / "games").mkdir(parents=True)
    # Programs that pass on any run seed (the documented command's exit status says "all valid");
    # injected_names' fixed opening moves let the blind-script baseline win on some fresh seeds.
    for stem in ("unicode_story", "rng_instance"):
        (ws / "pool" / "games" / f"{stem}.py").write_text(benign[stem])
    (ws / "spade-pool" / "games").mkdir(parents=True)
    (ws / "spade-pool" / "games" / "game_00001_001_logical_deduction.py").write_text(benign["inventory_dataclasses"])
    (ws / "hints.json").write_text(json.dumps({"game_00001_001_logical_deduction.py": "Count what is in stock."}))
    (ws / "docs.jsonl").write_text(json.dumps({"text": "Canal locks raise boats between water levels."}) + "\n")
    build_suite(ws / "my_suite", {"numpy_grid": benign["numpy_grid"]})
    (ws / "generate-20261130.jsonl").write_text(json.dumps(
        {"completion": completion(benign["unicode_story"], "Name the fruits in the order shown."),
         "skill": "Memory Recall"}) + "\n")
    (ws / "runs" / "demo").mkdir(parents=True)
    (ws / "runs" / "demo" / "metrics.jsonl").write_text("".join(json.dumps(
        {"iteration": i, "designed": 4, "valid": 2, "regret_mean": 0.1 * i, "pool_size": 2 * i, "design_s": 3.0,
         "validate_s": 0.5, "play_s": 0.5, "update_s": 4.0, "registered": []}) + "\n" for i in (1, 2)))
    server = FakeOpenAI()
    server.recorded = ["I would rather not write code today."] * 10_000  # every design fails to parse, at once
    env = dict(os.environ, PATH=f"{SCRIPTS}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=str(ROOT / "src"), OPENAI_API_KEY="sk-test", COLUMNS="120")
    env.pop("SPADE_GYM_SUITES", None)
    yield ws, server, env
    server.close()


def run_shell(command: str, workspace) -> subprocess.CompletedProcess:
    ws, server, env = workspace
    command = command.replace(STAND_IN_URL, server.url).replace(".venv/bin/", "")
    return subprocess.run(["bash", "-c", command], cwd=ws, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S)


def check(command: str, workspace, exports: dict | None = None) -> None:
    mode, reason = mode_of(command)
    if mode == "skip":
        pytest.skip(f"not run here: {reason}")
    ws, server, env = workspace
    if exports:
        workspace = (ws, server, {**env, **exports})
    if mode == "config":
        spade = command[command.index("selfplay"):]
        result = run_shell(f"spade-gym {spade} --show-config", workspace)
    elif mode == "plan":
        result = plan_eval(command[command.index("eval"):], workspace)
    else:
        result = run_shell(command, workspace)
    assert result.returncode == 0, (f"documented command failed ({mode}): {command}\n"
                                    f"exit {result.returncode}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    assert "Traceback" not in result.stderr, f"{command}\n{result.stderr[-2000:]}"


PLAN = r"""
import sys
from spade_gym.cli.eval_cmd import command
from spade_gym.evaluation import AgentConfig, select_envs

ctx = command.make_context("eval", sys.argv[1:])
p = ctx.params
AgentConfig(p["kind"], model=p["model"], base_url=p["base_url"], max_tokens=p["max_tokens"],
            max_turns=p["max_turns"], concurrency=p["concurrency"])
print(len(select_envs(p["patterns"])), "environment(s)")
"""


def plan_eval(command: str, workspace) -> subprocess.CompletedProcess:
    ws, server, env = workspace
    args = shlex.split(command.replace(STAND_IN_URL, server.url))[1:]
    return subprocess.run([sys.executable, "-c", PLAN, *args], cwd=ws, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S)


def _short(command: str) -> str:
    return command if len(command) <= 90 else command[:87] + "..."


@pytest.mark.parametrize("command", help_examples(), ids=_short)
def test_help_example_runs(command, workspace):
    check(command, workspace)


def readme_shell_commands() -> list[tuple[str, dict]]:
    """README commands with the environment variables exported before them in their block."""
    shell, _ = readme_blocks()
    out, exports = [], {}
    for command in shell:
        command = command.split("  #")[0].strip()
        if command.startswith("export "):
            name, _, value = command[len("export "):].partition("=")
            exports[name] = value
            continue
        out.append((command, dict(exports)))
    return out


@pytest.mark.parametrize("command, exports", readme_shell_commands(), ids=lambda v: _short(v) if isinstance(v, str)
                         else "")
def test_readme_command_runs(command, exports, workspace):
    check(command, workspace, exports={k: v for k, v in exports.items() if k != "OPENAI_API_KEY"})


def test_readme_python_blocks_run(workspace, tmp_path):
    _, blocks = readme_blocks()
    assert blocks, "README.md has no python block"
    ws, server, env = workspace
    for number, block in enumerate(blocks):
        script = tmp_path / f"block{number}.py"
        script.write_text(block + "\nfor _name in ('env', 'vec'):\n    if _name in globals():\n"
                                  "        globals()[_name].close()\n")
        result = subprocess.run([sys.executable, str(script)], cwd=ws, env=env, capture_output=True, text=True,
                                timeout=TIMEOUT_S)
        assert result.returncode == 0, f"README python block {number} failed:\n{block}\n{result.stderr[-3000:]}"


def test_every_readme_command_is_classified():
    """A new README command must run, or be listed in NOT_RUN_HERE with a reason."""
    for command, _ in readme_shell_commands():
        mode, _ = mode_of(command)
        first = shlex.split(command.replace("\\", ""))[0]
        assert mode != "run" or first.endswith("spade-gym"), f"unclassified README command: {command}"
