"""The policy being trained, seen from the rollouts: sampling with log-probabilities,
and multi-turn token traces whose environment tokens are masked out of the loss.

GRPO trains on exactly the tokens the policy sampled. A multi-turn episode is one
sequence: the first prompt, then the policy's turn, then the environment's feedback
rendered by the chat template (``env_mask`` 0: not the policy's doing, so no loss),
then the next turn, and so on. :class:`TokenAgent` builds that sequence while it plays
through the shared episode driver, so the tokens trained on are the tokens generated,
never a re-tokenisation of the decoded text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spade_gym.agents.base import ActRequest, AgentReply
from spade_gym.selfplay.generation import Sample

_PLACEHOLDER = "\u2063SPADE\u2063"


@dataclass
class Trace:
    """One multi-turn episode as a single training sequence."""

    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    last_finished: bool = True

    def add(self, ids: list[int], logprobs: list[float] | None, from_policy: bool) -> None:
        self.completion_ids += ids
        self.env_mask += [1 if from_policy else 0] * len(ids)
        self.logprobs += logprobs if logprobs is not None else [0.0] * len(ids)


class TokenPolicy:
    """The policy as the rollouts see it: chat templating on one side, a
    :class:`~spade_gym.selfplay.generation.Generator` (TRL's generation path) on the other."""

    def __init__(self, generator, tokenizer):
        self.generator = generator
        self.tokenizer = tokenizer
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token

    def chat_ids(self, messages: list[dict], tools: list[dict] | None = None) -> list[int]:
        text = self.tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True)
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def feedback_ids(self, messages: list[dict], completion_finished: bool, tools: list[dict] | None = None) -> list[int]:
        """Template tokens between the end of the policy's last turn and the start of its next.

        ``messages`` is the conversation so far; what follows its last assistant message
        (a user message, or a tool-use turn's tool results) is the environment's feedback.
        Rendered with a placeholder in place of that assistant turn, so only the template's
        own text around the feedback is tokenised; if the completion already ended with
        the end-of-turn token, the template's copy of it is dropped.
        """
        template = self.tokenizer.apply_chat_template
        last = max(i for i, m in enumerate(messages) if m.get("role") == "assistant")
        history = messages[:last] + [{"role": "assistant", "content": _PLACEHOLDER}]
        text = template(history + messages[last + 1:], tools=tools, tokenize=False, add_generation_prompt=True)
        tail = text[text.rindex(_PLACEHOLDER) + len(_PLACEHOLDER):]
        eos_text = self.tokenizer.eos_token or ""
        if completion_finished and eos_text and tail.startswith(eos_text):
            tail = tail[len(eos_text):]
        return self.tokenizer(tail, add_special_tokens=False)["input_ids"]

    def sample(self, prompts: list[list[int]], *, max_new_tokens: int, temperature: float,
               seed: int | None = None) -> list[Sample]:
        """One completion per prompt, with log-probabilities at the loss temperature."""
        return self.generator.sample(prompts, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=True)


class TokenAgent:
    """An :class:`~spade_gym.agents.Agent` that plays with the policy and keeps a
    :class:`Trace` per episode (keyed by the driver's ``episode_id``)."""

    name = "policy"

    def __init__(self, policy: TokenPolicy, *, temperature: float, max_turn_tokens: int,
                 max_episode_tokens: int, seed: int = 0):
        self.policy = policy
        self.temperature = temperature
        self.max_turn_tokens = max_turn_tokens
        self.max_episode_tokens = max_episode_tokens
        self.seed = seed
        self.traces: dict[int, Trace] = {}
        self._calls = 0
        self.tokens = 0

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        replies: dict[int, AgentReply] = {}
        live = []
        for request in requests:
            trace = self.traces.get(request.episode_id)
            if request.turn == 0 or trace is None:
                trace = self.traces[request.episode_id] = Trace(self.policy.chat_ids(request.messages, request.tools))
            else:
                feedback = self.policy.feedback_ids(request.messages, trace.last_finished, request.tools)
                trace.add(feedback, None, from_policy=False)
            budget = self.max_episode_tokens - len(trace.completion_ids)
            if budget <= 0:
                replies[request.episode_id] = AgentReply("", extra={"stop": "token budget"})
            else:
                live.append((request, trace, min(self.max_turn_tokens, budget)))
        if live:
            self._calls += 1
            # Episodes share one batch; the shortest remaining budget bounds it, and longer
            # completions are cut back to each episode's own budget.
            limit = max(n for _, _, n in live)
            samples = self.policy.sample([t.prompt_ids + t.completion_ids for _, t, _ in live],
                                         max_new_tokens=limit, temperature=self.temperature,
                                         seed=self.seed * 100_003 + self._calls)
            for (request, trace, budget), sample in zip(live, samples):
                ids, logps = sample.completion_ids[:budget], sample.logprobs[:budget]
                finished = sample.finished and len(ids) == len(sample.completion_ids)
                trace.add(ids, logps, from_policy=True)
                trace.last_finished = finished
                self.tokens += len(ids)
                replies[request.episode_id] = AgentReply(self.policy.decode(ids), completion_tokens=len(ids))
        return [replies[r.episode_id] for r in requests]

    def close(self) -> None:
        pass
