"""Gymnasium registration of suites: ``spade/<Name>-v<N>`` for every card found.

Registration reads cards only — no worker starts and no program is compiled until
an environment is actually made — so ``import spade_gym`` stays cheap however large
the bundled suite grows.
"""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym

from spade_gym.registry.suite import Suite

#: Environment variable listing extra suite directories (``os.pathsep``-separated)
#: registered on ``import spade_gym``.
SUITES_ENV_VAR = "SPADE_GYM_SUITES"

ENTRY_POINT = "spade_gym.env.wrappers:make_env"
VECTOR_ENTRY_POINT = "spade_gym.env.vector:make_vector_env"


def bundled_suite_path() -> Path:
    """``envs_generated/``: inside the installed package (wheel) or at the repository root."""
    here = Path(__file__).resolve().parent.parent  # .../spade_gym
    installed = here / "envs_generated"
    if installed.is_dir():
        return installed
    return here.parent.parent / "envs_generated"


def register_suite(path: str | os.PathLike) -> list[str]:
    """Register every environment of the suite at ``path``; returns their ids.

    Re-registering the same suite is harmless; an id already registered from another
    directory is left alone (first registration wins) and not returned.
    """
    suite = Suite(path)
    registered = []
    for entry in suite.entries():
        env_id = entry.id
        kwargs = {"env_dir": str(entry.directory)}
        existing = gym.registry.get(env_id)
        if existing is not None:
            if existing.kwargs.get("env_dir") == kwargs["env_dir"]:
                registered.append(env_id)
            continue
        gym.register(
            id=env_id,
            entry_point=ENTRY_POINT,
            vector_entry_point=VECTOR_ENTRY_POINT,
            kwargs=kwargs,
            disable_env_checker=False,
        )
        registered.append(env_id)
    return registered


def register_default_suites() -> list[str]:
    """The bundled suite plus every directory in ``$SPADE_GYM_SUITES``."""
    ids = register_suite(bundled_suite_path())
    for directory in os.environ.get(SUITES_ENV_VAR, "").split(os.pathsep):
        if directory.strip():
            ids += register_suite(directory.strip())
    return ids


def registered_entries():
    """(id, env_dir) of every spade-gym environment currently registered."""
    return [
        (spec.id, spec.kwargs["env_dir"])
        for spec in gym.registry.values()
        if spec.entry_point == ENTRY_POINT and "env_dir" in spec.kwargs
    ]
