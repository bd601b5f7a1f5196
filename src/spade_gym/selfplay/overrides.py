"""``--set key=value`` overrides of a :class:`SelfPlayConfig`, each checked against the
field's type and choices (``--set reward.mode=paper --set iterations=5``)."""

from __future__ import annotations

import dataclasses
import difflib
import json
import types
import typing
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.selfplay.config import SelfPlayConfig


def _field_type(section, name: str):
    hints = typing.get_type_hints(section)
    return hints.get(name)


def _coerce(key: str, raw: str, kind):
    """``raw`` as a value of ``kind`` (a field annotation), or a one-line ConfigError."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Literal:
        if raw not in args:
            raise ConfigError(f"--set {key}={raw}: choose one of {', '.join(map(str, args))}")
        return raw
    if origin in (typing.Union, types.UnionType):
        if raw.lower() in ("none", "null") and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _coerce(key, raw, inner)
    if kind is bool:
        if raw.lower() in ("true", "1", "yes", "on"):
            return True
        if raw.lower() in ("false", "0", "no", "off"):
            return False
        raise ConfigError(f"--set {key}={raw}: expected true or false")
    if kind is int:
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"--set {key}={raw}: expected a whole number") from None
    if kind is float:
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"--set {key}={raw}: expected a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ConfigError(f"--set {key}={raw}: expected a finite number")
        return value
    if kind is str:
        return raw
    if origin is tuple:
        items: Any
        try:
            items = json.loads(raw)
        except ValueError:
            items = [part.strip() for part in raw.split(",") if part.strip()]
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise ConfigError(f"--set {key}={raw}: expected a comma-separated list of names")
        return tuple(items)
    raise ConfigError(f"--set {key}: this field cannot be set from the command line")


def apply_overrides(config: SelfPlayConfig, overrides: list[str]) -> SelfPlayConfig:
    """Apply ``key=value`` strings, each checked against the field's type and choices.

    Nested fields use dots (``warmstart.epochs=10``, ``reward.mode=paper``); ``grpo.*``
    passes a JSON value (or a plain string) to TRL's GRPOConfig, which checks it.
    """
    data = config.to_dict()
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE")
        key, raw = item.split("=", 1)
        key, raw = key.strip(), raw.strip()
        parts = key.split(".")
        if parts[0] == "grpo" and len(parts) == 2:
            try:
                data["grpo"][parts[1]] = json.loads(raw)
            except ValueError:
                data["grpo"][parts[1]] = raw
            continue
        section: Any = SelfPlayConfig
        target = data
        for part in parts[:-1]:
            kind = _field_type(section, part) if dataclasses.is_dataclass(section) else None
            if not (isinstance(kind, type) and dataclasses.is_dataclass(kind)):
                raise ConfigError(f"--set {key}: {part!r} is not a config section "
                                  f"(sections: {', '.join(_SECTIONS)})")
            section, target = kind, target[part]
        names = [f.name for f in dataclasses.fields(section)]
        if parts[-1] not in names:
            close = difflib.get_close_matches(parts[-1], names, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ConfigError(f"--set {key}: unknown config field{hint} (see --show-config)")
        kind = _field_type(section, parts[-1])
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            raise ConfigError(f"--set {key}: {key!r} is a section; set one of its fields ({key}.NAME=VALUE)")
        target[parts[-1]] = _coerce(key, raw, kind)
    new = SelfPlayConfig.from_dict(data)
    new.validate()
    return new


_SECTIONS = ("tiny", "warmstart", "reward", "grpo")
