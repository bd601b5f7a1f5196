"""The interface every designer backend implements, and what the backends share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Self, runtime_checkable

from spade_gym.errors import SpadeError


class BackendError(SpadeError):
    """A backend could not produce completions (HTTP failure, bad model, exhausted log).

    ``status`` is the HTTP status of the last failed request, when there was one.
    """

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class EndpointUnreachable(BackendError):
    """The server could not be reached at all (refused, unresolvable, timed out).

    Unlike a failed request, this ends the whole job: every later request would fail
    the same way, slowly.
    """


@dataclass
class Completion:
    """One sampled completion with its token accounting (0 when the backend cannot tell)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None
    #: Native tool calls of the reply (OpenAI form), when the request offered tools.
    tool_calls: list[dict] | None = None
    #: The model that wrote it, when a backend spreads requests over several designers.
    model: str | None = None


@runtime_checkable
class DesignerBackend(Protocol):
    """What the generation pipeline needs from a model: ``n`` completions of a chat.

    ``complete`` may be called from several threads at once; implementations serialise
    or bound concurrency themselves.
    """

    name: str
    model: str

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.7,
        max_tokens: int = 4096,
        seed: int | None = None,
    ) -> list[Completion]: ...

    def close(self) -> None: ...


class _ContextManaged:
    """``with backend: ...`` closes the backend (connections, GPU memory) on exit."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()  # type: ignore[attr-defined]  # every subclass defines close()


def _check_request(messages: list[dict], n: int, max_tokens: int) -> None:
    if not messages:
        raise ValueError("messages is empty; pass at least one chat message")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
