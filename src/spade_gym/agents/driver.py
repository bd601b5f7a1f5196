"""The episode driver: one implementation of multi-turn play for eval and self-play.

Episodes run in lockstep: each round, every unfinished episode asks the agent for an
action in one batched ``act`` call (so a local model generates for all of them at
once and an HTTP agent sends them concurrently), then every environment steps.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from spade_gym.agents import toolchat
from spade_gym.agents.base import ActRequest, Agent, AgentReply, first_message, followup_message, parse_action


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to play: an environment id (or a factory), a seed, hint or not."""

    env_id: str
    seed: int
    hint: bool = False
    kwargs: tuple[tuple[str, Any], ...] = ()
    make: Callable[[], gym.Env] | None = field(default=None, compare=False)

    def build(self) -> gym.Env:
        if self.make is not None:
            return self.make()
        kwargs = dict(self.kwargs)
        if self.hint:
            kwargs["hint"] = True
        return gym.make(self.env_id, **kwargs)


@dataclass
class Turn:
    reply: AgentReply
    action: str
    observation: str
    reward: float
    terminated: bool
    truncated: bool


@dataclass
class Episode:
    spec: EpisodeSpec
    first_observation: str = ""
    turns: list[Turn] = field(default_factory=list)
    messages: list[dict] = field(default_factory=list)
    total_reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    error: dict | None = None
    seconds: float = 0.0
    #: Wall time spent inside the environment (make, reset, step): the sandbox's share.
    env_seconds: float = 0.0
    #: The tools of a tool-use episode (``info["tools"]`` on reset), else None.
    tools: list[dict] | None = None

    @property
    def rewards(self) -> list[float]:
        return [t.reward for t in self.turns]

    @property
    def won(self) -> bool:
        """Ended terminated with a positive final reward that is the episode's best."""
        rewards = self.rewards
        return bool(self.terminated and rewards and rewards[-1] > 0 and rewards[-1] >= max(rewards))

    @property
    def outcome(self) -> float:
        """The episode's return for training: the final reward if it terminated, else 0
        (the SPADE reference's outcome reward, clamped to [-1, 1])."""
        if not self.terminated or not self.turns:
            return 0.0
        return max(-1.0, min(1.0, self.turns[-1].reward))

    def to_dict(self) -> dict:
        return {
            "env_id": self.spec.env_id, "seed": self.spec.seed, "hint": self.spec.hint,
            "turns": len(self.turns), "total_reward": self.total_reward, "won": self.won,
            "terminated": self.terminated, "truncated": self.truncated, "error": self.error,
            "seconds": round(self.seconds, 3),
        }


def play_episodes(agent: Agent, specs: list[EpisodeSpec], *, max_turns: int | None = None,
                  batch_size: int = 32, on_episode: Callable[[Episode], None] | None = None) -> list[Episode]:
    """Play every spec with ``agent``; returns episodes in the order of ``specs``.

    ``max_turns`` caps turns per episode on top of each environment's own limit.
    At most ``batch_size`` episodes are live at once (each holds a sandbox worker).
    """
    results: list[Episode | None] = [None] * len(specs)
    for start in range(0, len(specs), batch_size):
        chunk = list(range(start, min(len(specs), start + batch_size)))
        played = _play_chunk(agent, [specs[i] for i in chunk], max_turns, on_episode, offset=start)
        for index, episode in zip(chunk, played):
            results[index] = episode
    return results  # type: ignore[return-value]


def _play_chunk(agent, specs, max_turns, on_episode, offset: int = 0) -> list[Episode]:
    episodes = [Episode(spec) for spec in specs]
    envs: list[gym.Env | None] = [None] * len(specs)
    started = [time.monotonic()] * len(specs)
    live: list[int] = []
    observations: dict[int, str] = {}
    try:
        for i, spec in enumerate(specs):
            started[i] = time.monotonic()
            try:
                env = envs[i] = spec.build()
                obs, info = env.reset(seed=spec.seed)
            except Exception as exc:  # a broken env must not stop the others
                episodes[i].error = {"kind": type(exc).__name__, "message": str(exc), "where": "make"}
                _finish(episodes[i], started[i], on_episode)
                continue
            finally:
                episodes[i].env_seconds += time.monotonic() - started[i]
            episodes[i].first_observation = obs
            episodes[i].tools = info.get("tools") if isinstance(info.get("tools"), list) else None
            episodes[i].messages = [toolchat.first_message(obs) if episodes[i].tools is not None
                                    else first_message(obs)]
            observations[i] = obs
            if "error" in info:
                episodes[i].error = info["error"]
                episodes[i].truncated = True
                _finish(episodes[i], started[i], on_episode)
                continue
            live.append(i)
        turn = 0
        while live:
            # episode_id is the index in the caller's spec list: stateful agents (the
            # self-play policy keeps token-level traces) key their per-episode state on it.
            requests = [ActRequest(list(episodes[i].messages), observations[i], turn, envs[i], offset + i,
                                   episodes[i].tools)
                        for i in live]
            replies = agent.act(requests)
            still_live = []
            for i, reply in zip(live, replies):
                episode = episodes[i]
                if reply.extra.get("stop"):
                    # the agent ran out of budget (e.g. its token budget): the episode ends
                    # truncated without another environment step
                    episode.truncated = True
                    _finish(episode, started[i], on_episode)
                    continue
                if episode.tools is not None:
                    # a tool-use reply may hold several calls: one environment step each
                    planned, assistant = toolchat.plan(reply, id_prefix=f"call_{turn}_")
                else:
                    planned = [toolchat.PlannedCall(parse_action(reply.text))]
                    assistant = {"role": "assistant", "content": reply.text}
                episode.messages.append(assistant)
                env = envs[i]
                assert env is not None  # live episodes have an env
                ended = False
                for step in planned:
                    stepped = time.monotonic()
                    obs, reward, terminated, truncated, info = env.step(step.action)
                    episode.env_seconds += time.monotonic() - stepped
                    episode.turns.append(Turn(reply, step.action, obs, float(reward), bool(terminated),
                                              bool(truncated)))
                    episode.total_reward += float(reward)
                    if "error" in info:
                        episode.error = info["error"]
                    if max_turns is not None and len(episode.turns) >= max_turns and not (terminated or truncated):
                        truncated = True
                    if terminated or truncated:
                        episode.terminated, episode.truncated = bool(terminated), bool(truncated)
                        _finish(episode, started[i], on_episode)
                        ended = True
                        break
                    episode.messages.append(toolchat.result_message(step, obs) if episode.tools is not None
                                            else followup_message(obs))
                    observations[i] = obs
                if not ended:
                    still_live.append(i)
            live = still_live
            turn += 1
    finally:
        for env in envs:
            if env is not None:
                try:
                    env.close()
                except Exception as exc:  # noqa: BLE001 - the episodes are played; say what failed after
                    warnings.warn(f"closing {env!r} failed: {type(exc).__name__}: {exc}", RuntimeWarning,
                                  stacklevel=2)
    return episodes


def _finish(episode: Episode, started: float, on_episode) -> None:
    episode.seconds = time.monotonic() - started
    if on_episode is not None:
        on_episode(episode)
