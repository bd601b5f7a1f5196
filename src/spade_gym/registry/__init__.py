"""Suites on disk and their Gymnasium registration."""

from spade_gym.registry.card import CARD_SCHEMA_VERSION, Card, env_name_from_class, make_id, sanitize_name
from spade_gym.registry.registration import (
    SUITES_ENV_VAR,
    bundled_suite_path,
    register_default_suites,
    register_suite,
    registered_entries,
)
from spade_gym.registry.suite import Suite, SuiteEntry, read_verified_source, sha256_text

__all__ = [
    "CARD_SCHEMA_VERSION", "Card", "SUITES_ENV_VAR", "Suite", "SuiteEntry", "bundled_suite_path",
    "env_name_from_class", "make_id", "read_verified_source", "register_default_suites", "register_suite",
    "registered_entries", "sanitize_name", "sha256_text",
]
