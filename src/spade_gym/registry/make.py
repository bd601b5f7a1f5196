"""Building environments from suite entries: the entry points of every registered id.

The registry, not the env layer, reads the card, checks who could write the entry
and that ``env.py`` matches the card's checksum, and checks the caller's arguments
against the card; the env classes then get verified program text and the card's
fallbacks (turn budget, hint). It also refuses a quarantined program and hands the env
what its contract monitor needs (validation's screen baseline, the quarantine callback).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from spade_gym.errors import ConfigError
from spade_gym.registry.card import Card
from spade_gym.registry.registration import OVERRIDE_ENV_VAR, OVERRIDE_KWARG, warn_suite
from spade_gym.registry.suite import CARD_FILE, SuiteEntry, check_dirname

if TYPE_CHECKING:
    from spade_gym.env.hint_mode import HintValue

#: Keyword arguments of ``gym.make(id, ...)`` that spade-gym itself takes (the rest go to
#: the program, and only those the card declares are accepted).
ENV_OPTIONS = ("max_turns", "limits", "render_mode", "max_observation_chars", "hint")
VECTOR_OPTIONS = ("max_turns", "limits", "num_workers", "hint")


def load_entry(env_dir: str | os.PathLike) -> SuiteEntry:
    """The entry at ``env_dir``, its card read and checked (trust is checked with the source)."""
    directory = Path(env_dir)
    card = Card.load(directory / CARD_FILE)
    check_dirname(directory, card)  # registered from its directory name, unparsed
    return SuiteEntry(card, directory)


def program_options(card: Card, options: dict[str, Any], own: tuple[str, ...]) -> dict[str, Any]:
    """The caller's keyword arguments meant for the program, checked against the card.

    A made-up keyword or a difficulty the program does not have would otherwise be
    handed to the program, which usually swallows it in ``**kwargs``: the caller would
    silently play something other than what they asked for.
    """
    program = {key: value for key, value in options.items() if key not in own}
    accepted = ["difficulty"] if card.difficulty_levels else []
    unknown = sorted(set(program) - set(accepted))
    if unknown:
        raise ConfigError(
            f"{card.id} does not take {', '.join(map(repr, unknown))}; keyword arguments accepted: "
            f"{', '.join(sorted(own + tuple(accepted)))}")
    if "difficulty" in program and program["difficulty"] not in card.difficulty_levels:
        raise ConfigError(f"{card.id} has no difficulty {program['difficulty']!r}; "
                          f"choose one of {', '.join(card.difficulty_levels)}")
    return program


def warn_if_override(entry: SuiteEntry, overridden: str | None) -> None:
    """Every make of an id registered over another suite's says so: an override was asked
    for once, at registration, and a run much later must not silently play another program."""
    if overridden:
        warn_suite(f"{entry.id} runs the program of suite {entry.directory.parent}, which overrides suite "
                   f"{overridden} ({OVERRIDE_ENV_VAR} or register_suite(..., allow_override=True))",
                   entry.directory)


def screen_baseline(card: Card) -> tuple[int, int] | None:
    """Validation's count of first screens that revealed the answer, if the card has it."""
    value = (card.validation or {}).get("screen_reveals")
    if (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                             for v in value) and 0 <= value[0] <= value[1]):
        return value[0], value[1]
    return None


def monitoring(entry: SuiteEntry, program: dict[str, Any]) -> dict[str, Any]:
    """What an env of ``entry`` needs for its contract monitor: refuse a quarantined program,
    compare its screens with validation's, quarantine it when it breaks the contract.

    Validation measured the screens at the program's default level, so the screen rule runs
    only there: another level may legitimately show its answer more often (an easy level
    listing every option)."""
    from spade_gym.registry.quarantine import check_not_quarantined, quarantine

    sha, env_id = entry.card.sha256, entry.id
    check_not_quarantined(sha, env_id)

    def on_violation(violation) -> None:
        quarantine(sha, env_id=env_id, rule=violation.rule, message=violation.message)
        warn_suite(f"{env_id} broke the contract while running ({violation.rule}): {violation.message}; "
                   "it is quarantined (spade-gym quarantine list)", entry.directory)

    baseline = screen_baseline(entry.card) if "difficulty" not in program else None
    return {"screen_baseline": baseline, "on_violation": on_violation}


def make_env(*, env_dir: str, hint: HintValue = False, **options: Any) -> gym.Env:
    """Entry point of every registered id: ``gym.make(id, hint=True, difficulty="hard", ...)``."""
    from spade_gym.env import SpadeEnv, with_hint

    overridden = options.pop(OVERRIDE_KWARG, None)
    entry = load_entry(env_dir)
    warn_if_override(entry, overridden)
    program = program_options(entry.card, options, ENV_OPTIONS)
    own = {key: value for key, value in options.items() if key not in program}
    watch = monitoring(entry, program)
    env = SpadeEnv(entry.read_source(), card=entry.card, fallback_max_turns=entry.card.max_turns,
                   fallback_hint=entry.card.hint, **watch, **own, **program)
    return with_hint(env, hint)


def make_vector_env(num_envs: int = 1, *, env_dir: str, **options: Any):
    """Vector entry point of every registered id (``gym.make_vec(id, num_envs=N)``)."""
    from spade_gym.env.vector import SpadeVectorEnv

    options.pop("max_episode_steps", None)  # gymnasium passes it; the turn limit is the env's own
    overridden = options.pop(OVERRIDE_KWARG, None)
    entry = load_entry(env_dir)
    warn_if_override(entry, overridden)
    program = program_options(entry.card, options, VECTOR_OPTIONS)
    own = {key: value for key, value in options.items() if key not in program}
    watch = monitoring(entry, program)
    return SpadeVectorEnv(num_envs, source=entry.read_source(), card=entry.card,
                          fallback_max_turns=entry.card.max_turns, **watch, **own, **program)
