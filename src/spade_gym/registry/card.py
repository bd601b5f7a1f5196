"""The card: everything a suite records about one environment, in one versioned schema.

A card is plain JSON next to its program (``card.json`` beside ``env.py``). It says
what the environment is (name, skill, description, hint), how to run it
(``max_turns``, difficulty levels), how to trust it (``sha256`` of ``env.py``, the
validation summary) and where it came from (``provenance``: designer, model, prompt,
time). Optional ``stats`` carry what self-play measured (win rates, regret), which the
designer's memory reads.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol

from spade_gym.contract import GAME_KIND, KINDS
from spade_gym.errors import RegistryError
from spade_gym.registry.files import read_suite_file

#: Bump when the card layout changes incompatibly; readers refuse newer versions.
CARD_SCHEMA_VERSION = 1
#: Namespace of every spade-gym id: ``spade/<Name>-v<N>``.
NAMESPACE = "spade"
#: Longest environment name (characters, and UTF-8 bytes): the name is also a directory
#: name (``<Name>-v<N>``), and file systems refuse components over 255 bytes.
MAX_NAME_CHARS = 64
MAX_NAME_BYTES = 128
#: Highest version number a card may carry (keeps ids and directory names short).
MAX_VERSION = 999_999
#: Largest ``card.json`` read, and deepest JSON nesting accepted in one: a card is a
#: few kilobytes; anything far beyond is corrupt or hostile and must not cost the
#: reader (every ``import spade_gym``) time, memory or a ``RecursionError``.
MAX_CARD_BYTES = 256 * 1024
MAX_CARD_DEPTH = 32
#: Longest mechanic family name: a short label that tables and counts group by.
MAX_MECHANIC_CHARS = 80
#: The kinds of environment a card can describe (the contract defines them).
CARD_KINDS = KINDS

_ID_NAME = re.compile(r"[^\w.\-]")


def sanitize_name(name: str) -> str:
    """Make ``name`` fit gymnasium's id grammar (``[\\w:.-]+``, no ``-v<digits>`` suffix)
    and the length limits of :data:`MAX_NAME_CHARS` / :data:`MAX_NAME_BYTES`."""
    cleaned = _ID_NAME.sub("_", name.strip()) or "Env"
    cleaned = cleaned[:MAX_NAME_CHARS]
    while len(cleaned.encode("utf-8")) > MAX_NAME_BYTES:
        cleaned = cleaned[:-1]
    cleaned = re.sub(r"-v(\d+)$", r"_v\1", cleaned)
    return cleaned


def designer_label(model: str | None, backend: str) -> str:
    """What ``provenance.designer`` says: the designer model and the backend, nothing else."""
    return f"{model or 'unknown model'} ({backend})"


def json_depth(value: Any, limit: int) -> int:
    """Nesting depth of decoded JSON, counting no further than ``limit + 1`` (iterative:
    a hostile card must not be able to exhaust the stack of the code that checks it)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


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
    #: The mechanic family: what the player does and what ``step()`` answers (e.g. "budgeted
    #: shortest plan"); a re-skin shares its original's family. Optional; older cards have none.
    mechanic: str | None = None
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
    def from_dict(cls, data: dict[str, Any], *, source: str = "card") -> Card:
        if not isinstance(data, dict):
            raise RegistryError(f"{source}: a card must be a JSON object")
        version = data.get("schema_version", 1)
        if not isinstance(version, int) or version > CARD_SCHEMA_VERSION:
            raise RegistryError(
                f"{source}: card schema_version {version!r} is newer than this spade-gym supports "
                f"({CARD_SCHEMA_VERSION}); upgrade spade-gym"
            )
        missing = [n for n in ("name", "version", "skill", "description", "max_turns", "sha256") if n not in data]
        if missing:
            raise RegistryError(f"{source}: missing field(s) {', '.join(missing)}")
        card = cls._build(data)
        card._check(source)
        if "id" in data and data["id"] != card.id:
            raise RegistryError(f"{source}: id {data['id']!r} does not match name/version ({card.id!r})")
        return card

    @classmethod
    def _build(cls, data: dict[str, Any]) -> Card:
        """The card of decoded JSON, unchecked (:meth:`from_dict` checks; :meth:`load` skips
        the checks only for bytes that passed them before)."""
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs.setdefault("hint", None)
        return cls(**kwargs)

    def _check(self, source: str) -> None:
        """Every field's type and range: readers (``list``, ``show``, the novelty check...)
        may then use a card without guarding each access."""
        problems = []
        if not isinstance(self.name, str) or not self.name or sanitize_name(self.name) != self.name:
            long_name = isinstance(self.name, str) and len(self.name) > MAX_NAME_CHARS
            shown = self.name[:MAX_NAME_CHARS] + "..." if long_name else self.name
            problems.append(f"name {shown!r} is not a valid id name (word characters, '.', '-'; at most "
                            f"{MAX_NAME_CHARS} characters)")
        if not _is_int(self.version) or not 0 <= self.version <= MAX_VERSION:
            problems.append(f"version must be an int from 0 to {MAX_VERSION}")
        if not _is_int(self.max_turns) or self.max_turns < 1:
            problems.append("max_turns must be a positive int")
        if not isinstance(self.sha256, str) or not re.fullmatch(r"[0-9a-f]{64}", self.sha256):
            problems.append("sha256 must be 64 lowercase hex digits")
        for name in ("skill", "description"):
            if not isinstance(getattr(self, name), str):
                problems.append(f"{name} must be a string")
        for name in ("hint", "class_name"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                problems.append(f"{name} must be a string or null")
        if self.mechanic is not None and not (
                isinstance(self.mechanic, str) and self.mechanic == " ".join(self.mechanic.split())
                and 0 < len(self.mechanic) <= MAX_MECHANIC_CHARS):
            problems.append(f"mechanic must be null or a one-line string of 1 to {MAX_MECHANIC_CHARS} characters "
                            "without leading, trailing or repeated spaces")
        if not isinstance(self.multi_turn, bool):
            problems.append("multi_turn must be true or false")
        if not isinstance(self.difficulty_levels, list) or not all(isinstance(x, str) for x in self.difficulty_levels):
            problems.append("difficulty_levels must be a list of strings")
        for name in ("provenance", "validation", "stats"):
            if not isinstance(getattr(self, name), dict):
                problems.append(f"{name} must be an object")
        if self.kind not in CARD_KINDS:
            problems.append(f"kind must be one of {', '.join(CARD_KINDS)}")
        if problems:
            raise RegistryError(f"{source}: " + "; ".join(problems))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Card:
        """Read and check a card; any problem (file type, size, owner, nesting, encoding,
        fields) is a :class:`RegistryError` naming the file.

        The file is read through :func:`~spade_gym.registry.files.read_suite_file`. Bytes
        that already passed :meth:`parse` in this process (known by their sha256, so an
        edited card is always checked again, however fast it was rewritten) are only
        decoded: listing a suite, then showing or making its environments, checks each
        card once. Every call returns a card of its own.
        """
        path = Path(path)
        raw = read_suite_file(path, what="card", limit=MAX_CARD_BYTES)
        digest = hashlib.sha256(raw).digest()
        if digest in _CHECKED:
            return cls._build(json.loads(raw.decode("utf-8")))
        card = cls.parse(raw, source=str(path))
        if len(_CHECKED) >= _CHECKED_LIMIT:
            _CHECKED.clear()  # the simplest bound; refilling costs one check per card
        _CHECKED.add(digest)
        return card

    @classmethod
    def parse(cls, raw: bytes, *, source: str = "card") -> Card:
        """A card from the bytes of a ``card.json`` (size, nesting, encoding, then fields)."""
        if len(raw) > MAX_CARD_BYTES:
            raise RegistryError(f"{source}: card is larger than {MAX_CARD_BYTES // 1024} KiB; refusing to read it")
        try:
            data = json.loads(raw.decode("utf-8"))
        except RecursionError:
            raise RegistryError(f"{source}: card nests deeper than {MAX_CARD_DEPTH} levels") from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise RegistryError(f"{source}: cannot read card ({exc})") from None
        if json_depth(data, MAX_CARD_DEPTH) > MAX_CARD_DEPTH:
            raise RegistryError(f"{source}: card nests deeper than {MAX_CARD_DEPTH} levels")
        return cls.from_dict(data, source=source)

    @classmethod
    def from_report(cls, report, *, skill: str, provenance: dict[str, Any], hint: str | None = None,
                    name: str | None = None, multi_turn: bool | None = None,
                    description: str | None = None, kind: str = GAME_KIND) -> Card:
        """The card of a program that passed validation: what the validator measured (class,
        turn budget, multi-turn, difficulty levels, first observation, hint) plus what only
        the producer knows (skill, provenance). ``sha256`` is set by :meth:`Suite.add`."""
        from spade_gym.contract import DEFAULT_MAX_TURNS

        facts = report.facts
        class_name = facts.class_name or getattr(report, "name", None) or "Env"
        return cls(
            name=sanitize_name(name) if name else env_name_from_class(class_name),
            version=0,
            skill=skill,
            description=description if description is not None else describe(facts, class_name=class_name),
            hint=hint if hint is not None else facts.hint,
            max_turns=int(facts.max_turns or DEFAULT_MAX_TURNS),
            sha256="0" * 64,
            multi_turn=bool(facts.multi_turn) if multi_turn is None else bool(multi_turn),
            class_name=class_name[:MAX_CLASS_NAME_CHARS],
            difficulty_levels=list(facts.difficulty_levels),
            provenance=dict(provenance),
            validation=report.card_summary(),
            kind=kind,
        )

    def dumps(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


#: Class names are recorded for people, not used as paths; a longer one is cut.
MAX_CLASS_NAME_CHARS = 200
#: Longest card description written by :meth:`Card.from_report`.
DESCRIPTION_CHARS = 500
#: Docstrings that say nothing about the game (the SPADE reference prepends the first to every file).
BOILERPLATE_DOCSTRINGS = ("spare self-play generated game", "spade self-play generated game")


#: The sha256 of every ``card.json`` content that passed :meth:`Card.parse` in this process.
_CHECKED: set[bytes] = set()
_CHECKED_LIMIT = 65_536


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Findings(Protocol):
    """What :func:`describe` reads of a validation report's facts (``ValidationReport.facts``,
    a ``spade_gym.validation.report.ProgramFacts``: the layer above, so named here by shape)."""

    @property
    def docstring(self) -> str | None: ...
    @property
    def docstring_read(self) -> bool: ...
    @property
    def first_observation(self) -> str | None: ...
    @property
    def class_name(self) -> str | None: ...


def describe(facts: Findings, *, source: str | None = None, class_name: str | None = None) -> str:
    """The description of a card, however the program arrived (generate, import, self-play): its
    docstring (the environment class's, else the module's; the reference's boilerplate line is
    no description), else the first sentence of its first observation, else its class name.

    ``facts`` are the validator's findings (``docstring``, ``first_observation``, ``class_name``);
    where the validator did not read the docstring, it is read from ``source`` (parsed, never run).
    """
    docstring = facts.docstring if facts.docstring_read else _docstring(source)
    text = " ".join(str(docstring or "").split())
    if text and text.lower().rstrip(".") not in BOILERPLATE_DOCSTRINGS:
        return _clip(text)
    observation = " ".join(str(facts.first_observation or "").split())
    sentence = re.split(r"(?<=[.!?])\s", observation, maxsplit=1)[0] if observation else ""
    return _clip(sentence) or class_name or str(facts.class_name or "") or "Environment"


def _docstring(source: str | None) -> str | None:
    """The environment class's docstring, else the module's (the validator's order)."""
    try:
        tree = ast.parse(source or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    env = next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name.endswith("Env")), None)
    return (ast.get_docstring(env) if env is not None else None) or ast.get_docstring(tree)


def _clip(text: str) -> str:
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1].rstrip() + "…"
