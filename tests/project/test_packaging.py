"""Packaging: the wheel ships the bundled suite; a plain (non-editable) install can gym.make it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tomllib
import venv

import pytest
from testkit import ROOT

from spade_gym.registry import Suite, bundled_suite_path


def test_package_list_matches_source_tree():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    declared = set(config["packages"]) - {"spade_gym.envs_generated"}
    found = {
        ".".join(p.relative_to(ROOT / "src").parts[:-1])
        for p in (ROOT / "src" / "spade_gym").rglob("__init__.py")
    }
    assert declared == found


def test_import_spade_gym_does_not_import_training_stack():
    code = "import spade_gym, sys; print([m for m in ('torch', 'transformers', 'trl') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_wheel_install_can_make_bundled_env(tmp_path):
    bundled = Suite(bundled_suite_path()).entries()
    assert bundled, "the bundled suite is empty"
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist)], check=True, capture_output=True)
    wheel = next(dist.glob("spade_gym-*.whl"))
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    python = target / "bin" / "python"
    # (without the caller's PYTHONPATH: a source tree on it, with the egg-info the wheel build
    # leaves there, reads to pip as spade-gym already installed, and the wheel is skipped)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, env=clean)
    # dependencies come from the test environment's site-packages (no network needed);
    # spade_gym itself must come from the freshly installed wheel.
    deps = sysconfig.get_paths()["purelib"]
    first = bundled[0].id
    code = (
        "import json, gymnasium as gym, spade_gym\n"
        f"env = gym.make({first!r})\n"
        "obs, info = env.reset(seed=0)\n"
        "ids = sorted(s.id for s in gym.registry.values() if s.id.startswith('spade/'))\n"
        "print(json.dumps({'file': spade_gym.__file__, 'obs': obs[:40], 'ids': ids}))\n"
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": deps, "HOME": str(tmp_path)}
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["file"].startswith(str(target)), data["file"]
    assert data["obs"]
    assert set(data["ids"]) == {e.id for e in bundled}
