"""Whether and where an env shows the privileged hint: :class:`HintMode`.

Users say it the gym way (``gym.make(id, hint=True)``, ``hint="info"``); every entry point parses
that once with :meth:`HintMode.parse`, so the code below it handles three named modes, not
``False``/``True``/strings.
"""

from __future__ import annotations

import enum
from typing import TypeAlias

from spade_gym.errors import ConfigError


class HintMode(enum.Enum):
    """``OFF``: no hint; ``OBSERVATION``: appended to the first observation (and in ``info["hint"]``);
    ``INFO``: in ``info["hint"]`` only. A value is the ``where`` of :class:`~spade_gym.env.HintWrapper`."""

    OFF = "off"
    OBSERVATION = "observation"
    INFO = "info"

    def __bool__(self) -> bool:  # "is a hint shown at all", as the user-facing False/True read
        return self is not HintMode.OFF

    @classmethod
    def parse(cls, value: HintValue) -> HintMode:
        """The mode a user-facing ``hint=`` value asks for: ``False``/``None`` off, ``True`` (or
        ``"observation"``) in the first observation, ``"info"`` in info only, or a mode itself."""
        if isinstance(value, HintMode):
            return value
        if value is None or value is False:
            return cls.OFF
        if value is True:
            return cls.OBSERVATION
        if isinstance(value, str) and value in (cls.OBSERVATION.value, cls.INFO.value):
            return cls(value)
        raise ConfigError(f"hint must be False, True, 'observation' or 'info', got {value!r}")


#: What a caller may pass as ``hint=`` at an entry point (``gym.make``, an adapter, the OpenEnv server).
HintValue: TypeAlias = HintMode | bool | str | None

__all__ = ["HintMode", "HintValue"]
