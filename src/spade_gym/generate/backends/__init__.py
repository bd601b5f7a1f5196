"""Designer backends: one small interface over the ways to get a completion.

Users bring whatever model they have: an API model or a local inference server
(:class:`OpenAIBackend`, any OpenAI-compatible ``/chat/completions`` endpoint such as
vLLM, SGLang or llama.cpp), a local checkpoint (:class:`TransformersBackend`), or a log
of earlier completions (:class:`ReplayBackend`, for reproducible runs and tests).
The generation pipeline only sees :class:`DesignerBackend`.

Heavy or optional dependencies (httpx, torch, transformers) are imported inside the
classes, so importing this package stays cheap.

One module per backend: :mod:`.openai_compatible`, :mod:`.transformers_local` and
:mod:`.replay`; the shared interface lives in :mod:`.base`, the by-name factory in
:mod:`.factory`. Everything public is importable from this package.
"""

from spade_gym.generate.backends.base import BackendError, Completion, DesignerBackend, EndpointUnreachable
from spade_gym.generate.backends.factory import make_backend
from spade_gym.generate.backends.openai_compatible import (
    BODY_EXCERPT_CHARS,
    MAX_RETRY_AFTER_S,
    OpenAIBackend,
)
from spade_gym.generate.backends.replay import ReplayBackend
from spade_gym.generate.backends.transformers_local import TransformersBackend

__all__ = [
    "BODY_EXCERPT_CHARS",
    "MAX_RETRY_AFTER_S",
    "BackendError",
    "Completion",
    "DesignerBackend",
    "EndpointUnreachable",
    "OpenAIBackend",
    "ReplayBackend",
    "TransformersBackend",
    "make_backend",
]
