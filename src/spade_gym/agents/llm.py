"""Model-backed agents: any OpenAI-compatible endpoint, or a local checkpoint."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from spade_gym import toolcalls
from spade_gym.agents.base import ActRequest, AgentReply
from spade_gym.agents.toolchat import after_thinking
from spade_gym.generate.backends import BackendError, EndpointUnreachable, OpenAIBackend, TransformersBackend


class OpenAIAgent:
    """Sends each episode's conversation to a chat-completions endpoint, concurrently.

    The endpoint is checked once when the agent is built, so a dead or mistyped server
    fails at once. A request that fails (HTTP error) ends that episode with the error
    recorded; an endpoint that stops answering altogether raises
    :class:`~spade_gym.generate.backends.EndpointUnreachable` and ends the whole run.
    """

    name = "openai"

    def __init__(self, base_url: str, model: str, *, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.6, max_tokens: int = 2048, concurrency: int = 8, timeout: float = 120.0):
        self.backend = OpenAIBackend(base_url, model, api_key_env=api_key_env, timeout=timeout,
                                     concurrency=concurrency, role="agent")
        try:
            self.backend.check_endpoint()
        except BackendError:
            self.backend.close()
            raise
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="spade-agent")

    def _one(self, request: ActRequest) -> AgentReply:
        try:
            # A tool-use episode sends its tools natively; the reply's tool_calls become actions.
            completion = self.backend.complete(request.messages, n=1, temperature=self.temperature,
                                               max_tokens=self.max_tokens, tools=request.tools)[0]
        except EndpointUnreachable:
            raise
        except BackendError as exc:
            # A failed request answers nothing; the episode records the failure.
            return AgentReply("", extra={"error": str(exc)})
        return AgentReply(completion.text, completion.prompt_tokens, completion.completion_tokens,
                          tool_calls=completion.tool_calls)

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        return list(self.pool.map(self._one, requests))

    def close(self) -> None:
        self.pool.shutdown(wait=False)
        self.backend.close()


class TransformersAgent:
    """A local checkpoint generating the next turn of every live episode in one batch."""

    name = "transformers"

    def __init__(self, model_path: str, *, temperature: float = 0.6, max_tokens: int = 512,
                 batch_size: int = 8, device: str | None = None, seed: int | None = None):
        self.backend = TransformersBackend(model_path, device=device, batch_size=batch_size)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self._calls = 0

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        self._calls += 1
        seed = None if self.seed is None else self.seed * 10_007 + self._calls
        completions = self.backend.complete_batch([r.messages for r in requests], temperature=self.temperature,
                                                  max_tokens=self.max_tokens, seed=seed,
                                                  tools=[r.tools for r in requests])
        replies = []
        for request, c in zip(requests, completions):
            # The chat template taught the model to write Qwen-style <tool_call> blocks: read them
            # as native calls, so the conversation records them the way the template expects.
            calls = toolcalls.parse_action(after_thinking(c.text)).calls if request.tools is not None else ()
            replies.append(AgentReply(c.text, c.prompt_tokens, c.completion_tokens,
                                      tool_calls=toolcalls.to_openai_tool_calls(calls, id_prefix=f"call_{self._calls}_")
                                      if calls else None))
        return replies

    def close(self) -> None:
        self.backend.close()
