"""The card: everything a suite records about one environment, in one versioned schema.

A card is plain JSON next to its program (``card.json`` beside ``env.py``). It says
what the environment is (name, skill, description, hint), how to run it
(``max_turns``, difficulty levels), how to trust it (``sha256`` of ``env.py``, the
validation summary) and where it came from (``provenance``: designer, model, prompt,
time). Optional ``stats`` carry what self-play measured (win rates, regret), which the
designer's memory reads.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from spade_gym.contract import GAME_KIND, KINDS
from spade_gym.errors import RegistryError

#: Bump when the card layout changes incompatibly; readers refuse newer versions.
CARD_SCHEMA_VERSION = 1
#: Namespace of every spade-gym id: ``spade/<Name>-v<N>``.
NAMESPACE = "spade"

_ID_NAME = re.compile(r"[^\w.\-]")


def sanitize_name(name: str) -> str:
    """Make ``name`` fit gymnasium's id grammar (``[\\w:.-]+``, no ``-v<digits>`` suffix)."""
    cleaned = _ID_NAME.sub("_", name.strip()) or "Env"
    cleaned = re.sub(r"-v(\d+)$", r"_v\1", cleaned)
    return cleaned


def env_name_from_class(class_name: str) -> str:
    """``NumberHuntEnv`` -> ``NumberHunt`` (the id drops the mandatory suffix)."""
    base = class_name[:-3] if class_name.endswith("Env") and len(class_name) > 3 else class_name
    return sanitize_name(base)


def make_id(name: str, version: int) -> str:
    return f"{NAMESPACE}/{sanitize_name(name)}-v{int(version)}"


@dataclass
class Card:
    """Metadata of one environment. ``to_dict``/``from_dict`` round-trip through JSON."""

    name: str
    version: int
    skill: str
    description: str
    hint: str | None
    max_turns: int
    sha256: str
    multi_turn: bool = False
    #: ``"game"`` or ``"tool-use"`` (a program subclassing ``ToolUseBaseEnv``); older cards are games.
    kind: str = GAME_KIND
    class_name: str | None = None
    difficulty_levels: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    validation: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    schema_version: int = CARD_SCHEMA_VERSION

    @property
    def id(self) -> str:
        return make_id(self.name, self.version)

    @property
    def dirname(self) -> str:
        return f"{sanitize_name(self.name)}-v{int(self.version)}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data = {"schema_version": data.pop("schema_version"), "id": self.id, **data}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "card") -> "Card":
        if not isinstance(data, dict):
            raise RegistryError(f"{source}: a card must be a JSON object")
        version = data.get("schema_version", 1)
        if not isinstance(version, int) or version > CARD_SCHEMA_VERSION:
            raise RegistryError(
                f"{source}: card schema_version {version!r} is newer than this spade-gym supports "
                f"({CARD_SCHEMA_VERSION}); upgrade spade-gym"
            )
        known = {f.name for f in fields(cls)}
        missing = [n for n in ("name", "version", "skill", "description", "max_turns", "sha256") if n not in data]
        if missing:
            raise RegistryError(f"{source}: missing field(s) {', '.join(missing)}")
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs.setdefault("hint", None)
        card = cls(**kwargs)
        card._check(source)
        if "id" in data and data["id"] != card.id:
            raise RegistryError(f"{source}: id {data['id']!r} does not match name/version ({card.id!r})")
        return card

    def _check(self, source: str) -> None:
        problems = []
        if not isinstance(self.name, str) or not self.name or sanitize_name(self.name) != self.name:
            problems.append(f"name {self.name!r} is not a valid id name")
        if not isinstance(self.version, int) or self.version < 0:
            problems.append("version must be a non-negative int")
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            problems.append("max_turns must be a positive int")
        if not isinstance(self.sha256, str) or not re.fullmatch(r"[0-9a-f]{64}", self.sha256):
            problems.append("sha256 must be 64 lowercase hex digits")
        if self.hint is not None and not isinstance(self.hint, str):
            problems.append("hint must be a string or null")
        if self.kind not in KINDS:
            problems.append(f"kind must be one of {', '.join(map(repr, KINDS))}, got {self.kind!r}")
        if problems:
            raise RegistryError(f"{source}: " + "; ".join(problems))

    @classmethod
    def load(cls, path: Path) -> "Card":
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RegistryError(f"{path}: cannot read card ({exc})") from None
        return cls.from_dict(data, source=str(path))

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
