"""tau2-bench's user simulator over an OpenAI-compatible endpoint, for :mod:`spade_gym.adapters.tau2`."""

from __future__ import annotations

#: Markers with which tau2's user simulator ends a conversation.
USER_STOP_MARKERS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")


class UserSimulator:
    """tau2's user simulator over an OpenAI-compatible endpoint: its system prompt (tau2's
    guidelines and the task's scenario), the conversation with the roles flipped."""

    def __init__(self, base_url: str, model: str, *, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.0, max_tokens: int = 1024, timeout: float = 120.0):
        from spade_gym.generate.backends import OpenAIBackend

        self.backend = OpenAIBackend(base_url, model, api_key_env=api_key_env, timeout=timeout, concurrency=1,
                                     role="user simulator")
        self.temperature = temperature
        self.max_tokens = max_tokens

    def reply(self, system_prompt: str, conversation: list[tuple[str, str]], seed: int | None = None) -> str:
        """The user's next message; ``conversation`` is ``(role, text)`` with role ``agent`` or ``user``."""
        messages = [{"role": "system", "content": system_prompt}]
        # The simulator plays the user, so the agent's messages are its "user" turns.
        messages += [{"role": "user" if role == "agent" else "assistant", "content": text}
                     for role, text in conversation]
        completion = self.backend.complete(messages, n=1, temperature=self.temperature,
                                           max_tokens=self.max_tokens, seed=seed)[0]
        return completion.text.strip()

    def close(self) -> None:
        self.backend.close()


def user_stopped(text: str) -> bool:
    return any(marker in text for marker in USER_STOP_MARKERS)
