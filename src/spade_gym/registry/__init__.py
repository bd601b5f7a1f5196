"""Suites on disk, the cards that describe them, and their Gymnasium registration.

The registry sits above the env layer: it reads suites, checks what it reads, and
builds environments from verified program text (:mod:`spade_gym.registry.make`).
Every program enters a suite through :mod:`spade_gym.registry.admission` (imported on
use, not here: ``import spade_gym`` stays cheap).
"""

from spade_gym.registry.card import (
    CARD_KINDS,
    CARD_SCHEMA_VERSION,
    Card,
    designer_label,
    env_name_from_class,
    make_id,
    sanitize_name,
)
from spade_gym.registry.files import MAX_PROGRAM_BYTES, read_suite_file
from spade_gym.registry.make import load_entry, make_env, make_vector_env
from spade_gym.registry.registration import (
    OVERRIDE_ENV_VAR,
    SUITES_ENV_VAR,
    bundled_suite_path,
    closest_ids,
    register_default_suites,
    register_env,
    register_suite,
    registered_entries,
    registered_suite_entries,
)
from spade_gym.registry.suite import Suite, SuiteEntry, read_verified_source, sha256_text

__all__ = [
    "CARD_KINDS", "CARD_SCHEMA_VERSION", "Card", "MAX_PROGRAM_BYTES", "OVERRIDE_ENV_VAR", "SUITES_ENV_VAR", "Suite",
    "SuiteEntry", "bundled_suite_path", "closest_ids", "designer_label", "env_name_from_class", "load_entry",
    "make_env", "make_id", "make_vector_env", "read_suite_file", "read_verified_source", "register_default_suites",
    "register_env", "register_suite", "registered_entries", "registered_suite_entries", "sanitize_name",
    "sha256_text",
]
