"""Paths and helpers the tests share (the fixtures that use them are in tests/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
SUPPORT = TESTS / "support"


ROOT = TESTS.parent


PROGRAMS = TESTS / "programs"


BENIGN_DIR = PROGRAMS / "benign"


def plain_run(path: Path, spec: dict) -> list:
    """Run a trusted test program under plain CPython (PYTHONHASHSEED=0) and return its results."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run(
        [sys.executable, str(SUPPORT / "plain_runner.py"), str(path), json.dumps(spec)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


GUESS_SOURCE = (BENIGN_DIR / "guess_number.py").read_text()


def build_suite(directory: Path, programs: dict[str, str] | None = None, *, skill: str = "Test Skill",
                hint: str | None = "Think step by step about the hidden rule.") -> list:
    """Register trusted test programs (default: the benign corpus) into a suite at ``directory``."""
    from spade_gym.contract import program_kind
    from spade_gym.registry import Card, Suite, env_name_from_class, sha256_text
    from spade_gym.sandbox import ProgramHandle

    programs = programs if programs is not None else {p.stem: p.read_text() for p in sorted(BENIGN_DIR.glob("*.py"))}
    suite = Suite(directory)
    entries = []
    for stem, source in programs.items():
        with ProgramHandle(source) as handle:
            info = handle.info
        card = Card(name=env_name_from_class(info["class_name"]), version=0, skill=skill,
                    description=f"test program {stem}", hint=hint, max_turns=info["max_turns"] or 10,
                    sha256=sha256_text(source), provenance={"designer": "test-suite"},
                    kind=program_kind(source))
        entries.append(suite.add(source, card))
    return entries


TOOLUSE_DIR = PROGRAMS / "tooluse"


def representative_bundled_ids() -> list[str]:
    """Three bundled envs that stand for the suite's kinds: the first (by id) single-turn game,
    multi-turn game and tool-use env. Every bundled env is played in test_bundled_suite.py;
    other modules test what they add on these, so their cost does not grow with the suite."""
    from spade_gym.registry import Suite, bundled_suite_path

    chosen: dict[tuple[str, bool], str] = {}
    for entry in sorted(Suite(bundled_suite_path()).entries(), key=lambda e: e.id):
        kind = (entry.card.kind, entry.card.multi_turn and entry.card.kind == "game")
        chosen.setdefault(kind, entry.id)
    wanted = [("game", False), ("game", True), ("tool-use", False)]
    missing = [kind for kind in wanted if kind not in chosen]
    assert not missing, f"the bundled suite has no env of kind {missing}"
    return [chosen[kind] for kind in wanted]


def card_for(source: str, name: str = "Guess", version: int = 0, **extra):
    """A complete card for ``source`` (the fields a test does not care about filled in)."""
    from spade_gym.registry import Card, sha256_text

    return Card(name=name, version=version, skill="Test", description="d", hint="h", max_turns=5,
                sha256=sha256_text(source), **extra)


def transcript_win_rate(env_id: str, level: str, agent, seeds, max_steps: int) -> float:
    """Share of ``seeds`` that ``agent`` (a function of the screens so far, oldest first) wins at ``level``."""
    import gymnasium as gym

    env = gym.make(env_id, difficulty=level)
    wins = 0
    try:
        for seed in seeds:
            obs, _ = env.reset(seed=seed)
            transcript = [obs]
            for _ in range(max_steps):
                obs, reward, terminated, truncated, _ = env.step(agent(transcript))
                transcript.append(obs)
                if terminated or truncated:
                    wins += reward > 0
                    break
    finally:
        env.close()
    return wins / len(seeds)
