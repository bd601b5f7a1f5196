"""Helpers shared by CLI commands: resolving ids, suites, JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import click
import gymnasium as gym

from spade_gym.errors import RegistryError
from spade_gym.registry import Suite, register_suite
from spade_gym.registry.registration import ENTRY_POINT


def echo_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def resolve_entry(env_id: str, suite: str | None = None):
    """A suite entry from an id (``spade/X-v0``), a name, or a directory path."""
    path = Path(env_id)
    if (path / "card.json").is_file():
        return Suite(path.parent).get(path.name)
    if suite:
        register_suite(suite)
        return Suite(suite).get(env_id)
    full_id = env_id if env_id.startswith("spade/") else f"spade/{env_id}"
    candidates = [full_id] if "-v" in full_id.rsplit("/", 1)[-1] else [
        spec.id for spec in gym.registry.values() if spec.id.startswith(full_id + "-v")
    ]
    specs = [gym.registry[c] for c in candidates if c in gym.registry]
    specs = [s for s in specs if s.entry_point == ENTRY_POINT]
    if not specs:
        raise RegistryError(f"unknown environment {env_id!r}; see `spade-gym list`")
    spec = max(specs, key=lambda s: s.version or 0)
    directory = Path(spec.kwargs["env_dir"])
    return Suite(directory.parent).get(directory.name)
