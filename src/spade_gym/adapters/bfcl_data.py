"""BFCL's data files, read from the installed ``bfcl-eval`` package without importing its code.

Why a module of its own: the single-turn environment, the multi-turn environment and the
task filtering all read the same files; only this module knows where they are and their format.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError, RegistryError

#: The PyPI distribution that ships the data, and its data file names.
DISTRIBUTION = "bfcl-eval"
DATA_FILE = "BFCL_v4_{category}.json"
#: Longest observation a BFCL env returns (single- and multi-turn share it).
MAX_OBSERVATION_CHARS = 400_000
#: BFCL category -> how a reply is checked (see :mod:`spade_gym.adapters.bfcl_checker`).
CATEGORIES: dict[str, str] = {
    "simple_python": "simple",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel",
    "live_simple": "simple",
    "live_multiple": "multiple",
    "live_parallel": "parallel",
    "live_parallel_multiple": "parallel",
    "irrelevance": "irrelevance",
    "live_irrelevance": "irrelevance",
    "live_relevance": "relevance",
}
#: Multi-turn categories (see :mod:`spade_gym.adapters.bfcl_multi_turn`).
MULTI_TURN_CATEGORIES = ("multi_turn_base",)


class BfclUnavailable(ConfigError):
    """The ``bfcl-eval`` package (BFCL's data) is not installed."""


class BfclDataError(ConfigError):
    """BFCL's data files are missing or not in the expected format."""


@dataclass(frozen=True)
class BfclTask:
    """One BFCL question: its id, conversation, function declarations and possible answers."""

    id: str
    messages: tuple[dict[str, str], ...]
    functions: tuple[dict[str, Any], ...]
    ground_truth: tuple[dict[str, Any], ...]


# ----------------------------------------------------------------------------- data

def data_dir() -> Path:
    """``bfcl_eval/data`` of the installed package, found without importing it."""
    spec = importlib.util.find_spec("bfcl_eval")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise BfclUnavailable(
            "BFCL environments need the bfcl-eval package (BFCL's data); install it with "
            "pip install 'spade-gym[bfcl]' && pip install --no-deps bfcl-eval==2026.3.23"
        )
    return Path(locations[0]) / "data"


def data_version() -> str | None:
    """The installed bfcl-eval version (scores are comparable only on the same data)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise BfclDataError(f"BFCL data file {path} is missing; reinstall bfcl-eval") from None
    try:
        return [json.loads(line) for line in lines if line.strip()]
    except ValueError as exc:
        raise BfclDataError(f"BFCL data file {path} is not JSON lines: {exc}") from None


def known_category(category: str) -> str:
    if category not in CATEGORIES:
        raise RegistryError(f"unknown BFCL category {category!r}; known: {', '.join(CATEGORIES)}")
    return category

