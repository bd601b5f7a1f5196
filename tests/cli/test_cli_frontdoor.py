"""What a new user meets first: dead servers fail fast and say whose they are, nonsense is
refused, program text cannot drive the terminal, replays reproduce their log."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakes import FakeOpenAI
from hypothesis import given
from hypothesis import strategies as st
from testkit import BENIGN_DIR, GUESS_SOURCE, ROOT, build_suite

from spade_gym.cli import main
from spade_gym.display import printable
from spade_gym.registry import Card, Suite, register_suite, sha256_text

SCRIPT = Path(sys.executable).with_name("spade-gym")
ESC_GREEN = "\x1b[32mVALID\x1b[0m"
UNSAFE = [chr(c) for c in (*range(0, 9), *range(11, 32), *range(0x7f, 0xa0))] + ["\u202e", "\u2066", "\u200f"]


pytestmark = pytest.mark.usefixtures("forget_registered_ids")


def cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), **(env or {}))
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=full_env, timeout=timeout)


def dead_url() -> str:
    with socket.socket() as sock:  # a port nobody listens on once this socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# ----------------------------------------------------------------------------- dead servers


def test_generate_against_a_dead_server_fails_at_once(tmp_path):
    start = time.monotonic()
    result = cli("generate", "--backend", "openai", "--base-url", dead_url(), "--model", "m", "-n", "1",
                 "--suite", str(tmp_path / "suite"))
    assert time.monotonic() - start < 30
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: cannot reach the designer endpoint"), result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "suite").exists()


def test_eval_against_a_dead_server_fails_at_once_and_names_the_agent(tmp_path):
    start = time.monotonic()
    result = cli("eval", "--agent", "openai", "--base-url", dead_url(), "--model", "m", "--envs",
                 "spade/LetterFeedbackHunt-v0", "--episodes", "1", "--results", str(tmp_path / "r.jsonl"))
    assert time.monotonic() - start < 30
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("Error: cannot reach the agent endpoint"), result.stderr
    assert "designer" not in result.stderr


def test_a_server_that_dies_mid_run_stops_the_run_and_names_the_role():
    from spade_gym.generate.backends import EndpointUnreachable, OpenAIBackend

    fake = FakeOpenAI()
    backend = OpenAIBackend(fake.url, "m", max_retries=1, backoff_base=0.01, role="agent")
    backend.check_endpoint()
    fake.close()
    with pytest.raises(EndpointUnreachable, match="^agent request POST .* failed after 2 attempt"):
        backend.complete([{"role": "user", "content": "hi"}])
    backend.close()


def test_generate_exits_non_zero_when_the_backend_fails_every_target(tmp_path):
    from fakes import Reply

    fake = FakeOpenAI()
    fake.script = [Reply(400, {"error": {"message": "model not found"}})] * 2
    try:
        result = CliRunner().invoke(main, ["generate", "--backend", "openai", "--base-url", fake.url, "--model",
                                           "m", "-n", "2", "--concurrency", "1", "--suite", str(tmp_path / "s")])
    finally:
        fake.close()
    assert result.exit_code == 1
    assert "Error: the designer backend failed on every target" in result.output
    assert "designer request POST" in result.output and "HTTP 400" in result.output


# ----------------------------------------------------------------------------- replay


def _completion(code: str) -> str:
    return f"Here it is.\n```python\n{code}```\n<hint>Name the fruits in the order shown.</hint>"


def test_replay_takes_attempts_and_request_settings_from_the_log(tmp_path):
    sound = (BENIGN_DIR / "unicode_story.py").read_text()
    broken = sound.replace("self.position += 1", "self.position += 0")
    fake = FakeOpenAI()
    fake.recorded = [_completion(broken), _completion(sound)]
    log = tmp_path / "log.jsonl"
    try:
        first = CliRunner().invoke(main, ["generate", "--backend", "openai", "--base-url", fake.url, "--model",
                                          "designer-x", "-n", "2", "--attempts", "1", "--concurrency", "1",
                                          "--seed", "5", "--temperature", "0.3", "--suite", str(tmp_path / "a"),
                                          "--log", str(log), "--skill", "Memory Recall", "--json"])
    finally:
        fake.close()
    original = json.loads(first.output[first.output.index("{"):])
    assert (original["n_accepted"], original["n_rejected"]) == (1, 1)

    replay_log = tmp_path / "replay.jsonl"
    again = CliRunner().invoke(main, ["generate", "--backend", "replay", "--model", str(log), "--suite",
                                      str(tmp_path / "b"), "--log", str(replay_log), "--json"])
    assert again.exit_code == 0, again.output
    replayed = json.loads(again.output[again.output.index("{"):])
    assert [t["failures"] for t in replayed["targets"]] == [t["failures"] for t in original["targets"]]
    assert [t["attempts"] for t in replayed["targets"]] == [1, 1]
    header = json.loads(replay_log.read_text().splitlines()[0])
    assert header["settings"]["attempts"] == 1 and header["settings"]["seed"] == 5
    assert header["settings"]["temperature"] == 0.3
    (card,) = [e.card for e in Suite(tmp_path / "b").entries()]
    assert card.provenance["designer"] == "designer-x (openai)" and card.provenance["replayed_from"] == "log.jsonl"

    clash = CliRunner().invoke(main, ["generate", "--backend", "replay", "--model", str(log), "--suite",
                                      str(tmp_path / "c"), "--attempts", "3"])
    assert clash.exit_code == 2 and "--attempts 3 differs from the replayed log's 1" in clash.output


# ----------------------------------------------------------------------------- nonsense refused


def test_list_of_a_missing_suite_is_an_error(tmp_path):
    result = CliRunner().invoke(main, ["list", "--suite", str(tmp_path / "nope")])
    assert result.exit_code == 1 and "does not exist" in result.output
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(main, ["list", "--suite", str(tmp_path / "file")])
    assert result.exit_code != 0 and "Traceback" not in result.output


def test_suites_variable_naming_a_missing_directory_or_a_file_warns_at_import(tmp_path):
    (tmp_path / "a_file").write_text("not a suite")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"),
               SPADE_GYM_SUITES=os.pathsep.join([str(tmp_path / "missing"), str(tmp_path / "a_file")]))
    result = subprocess.run([sys.executable, "-c", "import spade_gym"], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0
    assert f"{tmp_path / 'missing'}, which does not exist" in result.stderr
    assert f"{tmp_path / 'a_file'}, which is not a directory" in result.stderr


def test_library_deprecation_noise_is_filtered_from_the_cli():
    from spade_gym.cli.app import quiet_library_noise

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet_library_noise()
        warnings.warn_explicit("`torch_dtype` is deprecated", FutureWarning, "modeling_utils.py", 1,
                               module="transformers.modeling_utils")
        warnings.warn_explicit("old trl argument", DeprecationWarning, "grpo.py", 1, module="trl.trainer.grpo")
        warnings.warn_explicit("a real problem", UserWarning, "modeling_utils.py", 2,
                               module="transformers.modeling_utils")
        warnings.warn_explicit("ours", FutureWarning, "x.py", 1, module="spade_gym.selfplay")
    assert sorted(str(w.message) for w in caught) == ["a real problem", "ours"]


# ----------------------------------------------------------------------------- the terminal


@given(st.text(alphabet=st.sampled_from(UNSAFE + list("ab\n\té🙂[]/")), max_size=40))
def test_printable_leaves_no_control_character(text):
    shown = printable(text)
    assert not any(ch in shown for ch in UNSAFE)
    if not any(ch in text for ch in UNSAFE):
        assert shown == text


ANSI_OBS = GUESS_SOURCE.replace("class NumberHuntEnv", "class AnsiHuntEnv")


def _ansi_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "ansi"
    (entry,) = build_suite(suite, {"ansi": ANSI_OBS}, skill="Logic \x1b]0;pwned\x07")
    card = entry.card
    card.description = f"Looks {ESC_GREEN}\x9b31m fine \u202etxt.exe [bold red]markup[/bold red]"
    (entry.directory / "card.json").write_text(card.dumps())
    register_suite(suite)
    return suite


def test_card_text_cannot_drive_the_terminal(tmp_path):
    suite = _ansi_suite(tmp_path)
    runner = CliRunner()
    for args in (["list", "--suite", str(suite)], ["list", "--suite", str(suite), "--markdown"],
                 ["show", "AnsiHunt", "--suite", str(suite)], ["list", "--suite", str(suite), "--json"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
        assert not any(ch in result.output for ch in UNSAFE if ch != "\n"), (args, result.output)
    rows = json.loads(runner.invoke(main, ["list", "--suite", str(suite), "--json"]).output)
    assert rows[0]["description"].startswith(f"Looks {ESC_GREEN}")  # JSON keeps the data exact
    for args in (["list", "--suite", str(suite)], ["show", "AnsiHunt", "--suite", str(suite), "--no-source"]):
        shown = runner.invoke(main, args, env={"COLUMNS": "400"}).output
        assert "\\x1b[32mVALID" in shown and "[bold red]markup" in shown, shown  # shown, not obeyed


def test_program_output_cannot_drive_the_terminal(tmp_path):
    source = GUESS_SOURCE.replace("class NumberHuntEnv", "class EscapeHuntEnv").replace(
        '"Wrong.', '"\\x1b[2J\\x1b[32mYou won!\\x1b[0m Wrong.')
    assert source != GUESS_SOURCE.replace("class NumberHuntEnv", "class EscapeHuntEnv")
    suite = tmp_path / "esc"
    build_suite(suite, {"esc": source})
    result = CliRunner().invoke(main, ["play", "EscapeHunt", "--suite", str(suite), "--seed", "1"], input="1\n")
    assert result.exit_code == 0, result.output
    assert "\\x1b[2J" in result.output and "\x1b" not in result.output


def test_validation_messages_cannot_drive_the_terminal(tmp_path):
    program = tmp_path / "raises.py"
    program.write_text(GUESS_SOURCE.replace("class NumberHuntEnv", "class RaisesEnv").replace(
        "def reset(self, seed=None):", "def reset(self, seed=None):\n        raise ValueError('\\x1b[32mVALID\\x1b[0m')"))
    result = CliRunner().invoke(main, ["validate", str(program)])
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\\x1b[32mVALID" in result.output


def test_error_lines_cannot_drive_the_terminal(tmp_path):
    suite = tmp_path / "s"
    Suite(suite).add(GUESS_SOURCE, Card(name="Err", version=0, skill="s", description="d", hint=None, max_turns=3,
                                        sha256=sha256_text(GUESS_SOURCE)))
    result = CliRunner().invoke(main, ["show", "Nope\x1b[31m", "--suite", str(suite)])
    assert result.exit_code == 1 and "\x1b" not in result.output and "Nope\\x1b[31m" in result.output
