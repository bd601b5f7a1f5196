"""Build a designer backend by name from CLI or preset values."""

from __future__ import annotations

import inspect
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.generate.backends.base import DesignerBackend
from spade_gym.generate.backends.openai_compatible import OpenAIBackend
from spade_gym.generate.backends.replay import ReplayBackend
from spade_gym.generate.backends.transformers_local import TransformersBackend

_BACKENDS: dict[str, Any] = {  # name -> backend class
    OpenAIBackend.name: OpenAIBackend,
    TransformersBackend.name: TransformersBackend,
    ReplayBackend.name: ReplayBackend,
}


def make_backend(
    kind: str, *, model: str | None = None, base_url: str | None = None, **options: Any
) -> DesignerBackend:
    """Build a backend from CLI/preset values, rejecting combinations that cannot work.

    * ``openai``: needs ``model`` and ``base_url``; options ``api_key_env``, ``timeout``,
      ``max_retries``, ``concurrency``, ``backoff_base``, ``backoff_max``.
    * ``transformers``: ``model`` is the checkpoint path; options ``device``, ``dtype``,
      ``batch_size``.
    * ``replay``: needs the ``path`` option; ``model`` is an optional label.
    """
    cls = _BACKENDS.get(kind)
    if cls is None:
        raise ConfigError(
            f"unknown designer backend {kind!r}; choose one of {', '.join(_BACKENDS)}")
    if base_url is not None and "base_url" not in inspect.signature(cls).parameters:
        served = [name for name, other in _BACKENDS.items() if "base_url" in inspect.signature(other).parameters]
        raise ConfigError(f"base_url only applies to the {' and '.join(served)} backend, not to {kind!r}")
    arguments = cls.required_arguments(model, base_url, options)
    accepted = set(inspect.signature(cls).parameters) - set(arguments) - {"role"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ConfigError(f"unknown option(s) {', '.join(unknown)} for the {kind} backend; "
                          f"accepted: {', '.join(sorted(accepted))}")
    return cls(**arguments, **options)
