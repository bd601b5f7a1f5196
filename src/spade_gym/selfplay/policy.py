"""The policy being trained, seen from the rollouts: sampling with log-probabilities,
and the token sequences of multi-turn episodes that GRPO trains on.

GRPO trains on exactly the tokens the policy sampled, never a re-tokenisation of the
decoded text. :class:`TokenAgent` plays through the shared episode driver and records
an episode in one of two forms (``sample_unit``):

* ``"episode"``: one sequence: the first prompt, the policy's turn, the environment's
  feedback rendered by the chat template (``env_mask`` 0: not the policy's doing, so no
  loss), the next turn, and so on. Every earlier turn stays in the context, reasoning
  included, so long thinking turns exhaust the episode budget after a few turns.
* ``"turn"``: one sample per turn (the SPADE reference's way for thinking models): the
  turn is generated from, and trained with, the conversation so far with the reasoning
  of earlier assistant turns removed (:func:`strip_reasoning`, what Qwen3's own chat
  template does to history), so the context grows by the visible replies only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from spade_gym.agents.base import ActRequest, AgentReply
from spade_gym.selfplay.generation import Sample

_PLACEHOLDER = "\u2063SPADE\u2063"
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def visible_reply(text: str) -> str:
    """A reply without its reasoning: what follows the last ``</think>``; a reply cut off
    inside an unclosed ``<think>`` keeps only what came before it."""
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        return text[closes[-1].end():].lstrip("\n")
    opened = _THINK_OPEN.search(text)
    return text[:opened.start()] if opened else text


def strip_reasoning(messages: list[dict]) -> list[dict]:
    """The conversation with every assistant message's reasoning removed (copies; tool
    calls and other fields kept)."""
    out = []
    for message in messages:
        if message.get("role") == "assistant" and isinstance(message.get("content"), str):
            message = {**message, "content": visible_reply(message["content"])}
        out.append(message)
    return out


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


@dataclass
class TurnSample:
    """One turn as its own training sample: the prompt it was generated from (earlier
    reasoning stripped) and the policy's reply, every completion token the policy's."""

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    finished: bool = True


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

    def feedback_ids(self, messages: list[dict], completion_finished: bool,
                     tools: list[dict] | None = None) -> list[int]:
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
    """An :class:`~spade_gym.agents.Agent` that plays with the policy and keeps, per
    episode (keyed by the driver's ``episode_id``), a :class:`Trace` (``sample_unit
    "episode"``) or a list of :class:`TurnSample` (``"turn"``).

    ``max_episode_tokens`` bounds what one training sample may hold: a whole episode's
    completion tokens, or (per turn) one turn's prompt plus its reply.
    """

    name = "policy"

    def __init__(self, policy: TokenPolicy, *, temperature: float, max_turn_tokens: int,
                 max_episode_tokens: int, seed: int = 0, sample_unit: Literal["episode", "turn"] = "episode"):
        if sample_unit not in ("episode", "turn"):
            raise ValueError(f"sample_unit must be 'episode' or 'turn', got {sample_unit!r}")
        self.policy = policy
        self.temperature = temperature
        self.max_turn_tokens = max_turn_tokens
        self.max_episode_tokens = max_episode_tokens
        self.seed = seed
        self.sample_unit = sample_unit
        self.traces: dict[int, Trace] = {}
        self.turns: dict[int, list[TurnSample]] = {}
        self._calls = 0
        self.tokens = 0

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        if self.sample_unit == "turn":
            return self._act_per_turn(requests)
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

    def _act_per_turn(self, requests: list[ActRequest]) -> list[AgentReply]:
        """Each turn generated from the reasoning-stripped conversation so far: the
        prompt is re-rendered by the chat template (only the policy's own tokens of this
        turn are trained, so nothing earlier needs to match a previous turn's tokens)."""
        replies: dict[int, AgentReply] = {}
        live = []
        for request in requests:
            prompt = self.policy.chat_ids(strip_reasoning(request.messages), request.tools)
            budget = self.max_episode_tokens - len(prompt)
            if budget <= 0:
                replies[request.episode_id] = AgentReply("", extra={"stop": "token budget"})
            else:
                live.append((request, prompt, min(self.max_turn_tokens, budget)))
        if live:
            self._calls += 1
            samples = self.policy.sample([prompt for _, prompt, _ in live], max_new_tokens=max(n for *_, n in live),
                                         temperature=self.temperature, seed=self.seed * 100_003 + self._calls)
            for (request, prompt, budget), sample in zip(live, samples):
                ids, logps = sample.completion_ids[:budget], sample.logprobs[:budget]
                finished = sample.finished and len(ids) == len(sample.completion_ids)
                self.turns.setdefault(request.episode_id, []).append(TurnSample(prompt, ids, logps, finished))
                self.tokens += len(ids)
                replies[request.episode_id] = AgentReply(self.policy.decode(ids), completion_tokens=len(ids))
        return [replies[r.episode_id] for r in requests]

    def close(self) -> None:
        pass
