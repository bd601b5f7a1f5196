"""What a single env and the batched vector env do alike around a program's episode.

One implementation of the rules both follow, so they cannot drift apart:

* the turn budget: the caller's ``max_turns``, else the program's, else the fallback
  the registry supplies (its card), else the contract's default;
* the turn limit: a program that forgets to end its episode is truncated
  :data:`TURN_SLACK` turns past its budget (``info["truncated_by"]`` says so);
* ``info``: the turn and the remaining turns, never anything privileged; and the
  host's own keys win over whatever the program put under the same names;
* failures: a program failure becomes ``truncated=True`` with ``info["error"]`` and the
  agent sees :data:`ERROR_OBSERVATION`.
"""

from __future__ import annotations

from typing import Any

from spade_gym.contract import DEFAULT_MAX_TURNS, MAX_ACTION_CHARS
from spade_gym.errors import SandboxError

#: Extra turns past ``max_turns`` before spade-gym truncates an episode itself.
TURN_SLACK = 2
#: ``info["truncated_by"]`` when the turn limit (not the program) ended the episode.
TURN_LIMIT_REASON = "spade-gym turn limit"
#: Observation an agent sees when the environment program failed.
ERROR_OBSERVATION = "[The environment failed and this episode has ended. Please continue with a new episode.]"
#: Keys of ``info`` that only the host writes.
HOST_INFO_KEYS = ("turn", "max_turns", "remaining_turns", "error", "truncated_by", "tools")


def program_kwargs(max_turns: int | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for the program's constructor.

    ``max_turns`` goes to the program only when the caller asks for it: a program may
    size its turn budget by difficulty, and the card records only the default level's.
    """
    out = dict(kwargs)
    if max_turns is not None:
        out["max_turns"] = int(max_turns)
    return out


def turn_budget(requested: int | None, program_info: dict, fallback: int | None) -> int:
    """The episode's turn budget (see the module docstring for the order)."""
    return int(requested or program_info.get("max_turns") or fallback or DEFAULT_MAX_TURNS)


def clip_action(action: Any) -> str:
    text = action if isinstance(action, str) else str(action)
    return text[:MAX_ACTION_CHARS]


def past_turn_limit(turn: int, max_turns: int) -> bool:
    return turn >= max_turns + TURN_SLACK


def error_info(exc: SandboxError, where: str) -> dict:
    """The ``info["error"]`` record of a program failure."""
    return {"kind": exc.kind, "where": where, "message": str(exc), "lineno": exc.lineno}


def decorate(program_info: dict, turn: int, max_turns: int, error: dict | None = None) -> dict:
    """``info`` as the agent sees it: the program's keys, then the host's over them."""
    info = {k: v for k, v in program_info.items() if k not in HOST_INFO_KEYS}
    info["turn"] = turn
    info["max_turns"] = max_turns
    info["remaining_turns"] = max(0, max_turns - turn)
    if error is not None:
        info["error"] = dict(error)  # a fresh dict per call: callers may keep and edit infos
    return info
