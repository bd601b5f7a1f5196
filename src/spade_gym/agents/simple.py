"""Reference agents: the oracle (upper bound) and random play (lower bound)."""

from __future__ import annotations

import random

from spade_gym.agents.base import ActRequest, AgentReply
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.wrappers import privileged
from spade_gym.sandbox.probes import observation_candidates


class OracleAgent:
    """Plays ``\\boxed{<solution()>}`` every turn, re-reading the solution each time —
    the validator's solvability policy. It wins every sound environment."""

    name = "oracle"

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        return [AgentReply("\\boxed{" + privileged(r.env).solution() + "}") for r in requests]

    def close(self) -> None:
        pass


class RandomAgent:
    """Copies a random candidate from the observation (a boxed example or a token), or
    samples the action space: what a model that ignores the task would do."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.space = UnicodeText(200, seed=seed)

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        replies = []
        for r in requests:
            if self.rng.random() < 0.8:
                replies.append(AgentReply("\\boxed{" + self.rng.choice(observation_candidates(r.observation)) + "}"))
            else:
                replies.append(AgentReply(self.space.sample()))
        return replies

    def close(self) -> None:
        pass
