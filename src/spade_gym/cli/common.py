"""Helpers shared by CLI commands: resolving ids, suites, JSON output, printable text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import gymnasium as gym

from spade_gym.display import printable
from spade_gym.errors import RegistryError
from spade_gym.registry import Suite, register_suite
from spade_gym.registry.registration import ENTRY_POINT, unknown_id_message

__all__ = ["echo", "echo_json", "existing_suite", "printable", "resolve_entry", "safe_markup"]

# Characters json.dumps leaves raw with ensure_ascii=False that a terminal still acts on.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def echo(text: object = "", **kwargs) -> None:
    """``click.echo`` of text that may hold program- or card-supplied parts."""
    click.echo(printable(text), **kwargs)


def safe_markup(text: object, *, newlines: bool = True) -> str:
    """Program-supplied text for a rich console: printable, and rich markup escaped."""
    from rich.markup import escape

    return escape(printable(text, newlines=newlines))


def echo_json(data) -> None:
    """JSON on stdout. Control characters inside strings are JSON escapes (``\\u001b``),
    so the data round-trips exactly and nothing reaches the terminal raw."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    click.echo(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def existing_suite(path: str | Path) -> Path:
    """A suite directory named on the command line; a missing one is an error, not an empty list."""
    suite = Path(path).expanduser()
    if not suite.exists():
        raise RegistryError(f"suite directory {suite} does not exist")
    if not suite.is_dir():
        raise RegistryError(f"{suite} is not a directory (a suite is a directory of environments)")
    return suite


def resolve_entry(env_id: str, suite: str | None = None):
    """A suite entry from an id (``spade/X-v0``), a name, or a directory path."""
    path = Path(env_id)
    if (path / "card.json").is_file():
        return Suite(path.parent).get(path.name)
    if suite:
        register_suite(existing_suite(suite))
        return Suite(suite).get(env_id)
    full_id = env_id if env_id.startswith("spade/") else f"spade/{env_id}"
    candidates = [full_id] if "-v" in full_id.rsplit("/", 1)[-1] else [
        spec.id for spec in gym.registry.values() if spec.id.startswith(full_id + "-v")
    ]
    specs = [gym.registry[c] for c in candidates if c in gym.registry]
    specs = [s for s in specs if s.entry_point == ENTRY_POINT]
    if not specs:
        raise RegistryError(unknown_id_message(env_id))
    spec = max(specs, key=lambda s: s.version or 0)
    directory = Path(spec.kwargs["env_dir"])
    return Suite(directory.parent).get(directory.name)
