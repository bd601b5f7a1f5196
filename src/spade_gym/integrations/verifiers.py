"""Registered ``spade/*`` environments as a verifiers (v1) taskset: ``vf-eval spade-gym``.

verifiers' loader turns the id ``spade-gym`` into the module ``spade_gym`` and takes from its
``__all__`` exactly one ``vf.Taskset`` and one ``vf.Env`` subclass, which the package root
exports lazily (``import spade_gym`` never imports verifiers). See docs/verifiers.md.

* :class:`SpadeGymTaskset`: one task per (environment, difficulty level, seed), its prompt the
  environment's first observation (a tool-use task also records its public tool schemas).
* :class:`SpadeGymEnv`, as verifiers' TextArena env: the sandboxed environment plays the seat's
  user, host-side; each reply is stepped, the next observation is the next user turn, and the
  episode's outcome (the final reward if it terminated, else 0) is the trace's ``spade_reward``.
* Tool-use environments expose their tools the way verifiers does, as an MCP
  :class:`SpadeGymToolset` shared by the run (like NeMo Gym's) that forwards each call to the
  live episode on the env's loopback bridge; ``<tool_call>`` blocks written in a reply are
  stepped too. Solutions and hints never leave the host.
"""

from __future__ import annotations

import asyncio
import fnmatch
import functools
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
from pydantic import Field, field_validator

try:
    import httpx
    import verifiers.v1 as vf
    from aiohttp import web
    from mcp.types import CallToolResult, TextContent, Tool
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("spade-gym's verifiers integration needs verifiers>=0.4: "
                      "pip install 'spade-gym[verifiers]'") from exc

from spade_gym import toolcalls
from spade_gym.agents import toolchat
from spade_gym.agents.base import AgentReply, parse_action
from spade_gym.contract import GAME_KIND, TOOL_USE_KIND
from spade_gym.errors import ConfigError, SpadeError
from spade_gym.evaluation.selection import select_envs
from spade_gym.registry import Card, registered_entries
from spade_gym.registry.suite import CARD_FILE

__all__ = ["SpadeGymConfig", "SpadeGymData", "SpadeGymEnv", "SpadeGymEnvConfig", "SpadeGymState",
           "SpadeGymTask", "SpadeGymTaskset", "SpadeGymToolset"]

logger = logging.getLogger(__name__)

GAME_SYSTEM_PROMPT = (
    "You are playing a text game. Read the observation, reason step by step, and give your action "
    "(your answer or your command) inside \\boxed{}. Each later observation answers your last action."
)
TOOL_USE_SYSTEM_PROMPT = (
    "Solve the task with the tools provided. Call them as tools, or write each call as "
    '<tool_call>{"name": "...", "arguments": {...}}</tool_call>. When you know the result, reply with '
    "<answer>...</answer>."
)
EPISODE_OVER = "The episode is over."  # a tool call's result once it is (the model is not asked again)


class SpadeGymConfig(vf.TasksetConfig):
    """Which episodes the taskset holds (``--env.taskset.*``)."""

    envs: list[str] = Field(default_factory=lambda: ["spade/*"])
    """Environment ids or glob patterns (``spade/*``, ``spade/Cipher*``; a bare ``Name*`` means
    ``spade/Name*``), matched against every registered id, as ``spade-gym eval --envs`` does."""
    seeds: int | list[int] = 8
    """Task seeds per environment and level: a count N (seeds 0 to N-1) or a list; on the command
    line also ``A:B`` (seeds A to B-1, e.g. held-out ``10000:10064``) or ``A,B,C``."""
    difficulty: list[str] = Field(default_factory=list)
    """Difficulty levels (glob patterns: ``["*"]`` is every level an environment has); empty
    plays each environment at its default level. Environments with none of them are left out."""
    max_turns: int | None = Field(None, ge=1)
    """Override every environment's own turn limit."""

    @field_validator("seeds", mode="before")
    @classmethod
    def _parse_seeds(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip().strip("[]")
        try:
            if ":" in text:
                start, stop = (int(part) for part in text.split(":"))
                return list(range(start, stop))
            return [int(part) for part in text.split(",") if part.strip()] if "," in text else int(text)
        except ValueError:
            raise ValueError(f"seeds must be N, A:B or A,B,C (got {value!r})") from None

    @field_validator("seeds")
    @classmethod
    def _check_seeds(cls, seeds: int | list[int]) -> int | list[int]:
        if (seeds < 1) if isinstance(seeds, int) else (not seeds or min(seeds) < 0):
            raise ValueError("seeds must be a positive count or a non-empty list of non-negative seeds")
        return seeds

    def seed_list(self) -> list[int]:
        return list(range(self.seeds)) if isinstance(self.seeds, int) else list(dict.fromkeys(self.seeds))


class SpadeGymData(vf.TaskData):
    """One episode to play: what ``gym.make(env_id, ...).reset(seed=seed)`` starts. Public only."""

    env_id: str
    seed: int
    difficulty: str | None = None
    max_turns: int | None = None
    kind: str = GAME_KIND
    tools: list[dict] = Field(default_factory=list)
    """The episode's OpenAI tool schemas (``info["tools"]`` at reset); empty for a game."""
    program: str = ""
    """The sha256 of the program played (from its card), so results name what they measured."""


class SpadeGymState(vf.State):
    """Shared by the host env and the rollout's tool server: where this episode's tools are."""

    bridge: str = ""
    """This episode's URL on the env's loopback tool bridge (empty: no tools, or the episode is over)."""


class SpadeGymTask(vf.Task[SpadeGymData, SpadeGymState, vf.TaskConfig]):
    pass


@functools.lru_cache(maxsize=1024)
def _card(env_dir: str) -> Card | None:
    try:
        return Card.load(Path(env_dir) / CARD_FILE)
    except SpadeError:
        return None


def _selected(config: SpadeGymConfig) -> list[tuple[str, Card | None]]:
    """(id, card or None) of every registered environment the config's patterns match."""
    try:
        infos = select_envs(config.envs)
    except SpadeError as exc:
        raise ConfigError(f"--env.taskset.envs: {exc}") from exc
    dirs = dict(registered_entries())
    return [(info.env_id, _card(dirs[info.env_id]) if info.env_id in dirs else None) for info in infos]


def _levels(card: Card | None, patterns: list[str]) -> list[str | None]:
    levels = card.difficulty_levels if card is not None else []
    return [lvl for lvl in levels if any(fnmatch.fnmatchcase(lvl, p) for p in patterns)] if patterns else [None]


def _make(env_id: str, difficulty: str | None, max_turns: int | None) -> gym.Env:
    kwargs: dict[str, Any] = {k: v for k, v in (("difficulty", difficulty), ("max_turns", max_turns)) if v is not None}
    return gym.make(env_id, **kwargs)


class SpadeGymTaskset(vf.Taskset[SpadeGymTask, SpadeGymConfig]):
    """One task per (environment, level, seed), in that order; each prompt is the first observation.
    One environment is live at a time; a task whose ``reset`` fails is left out with a warning."""

    @classmethod
    def toolsets(cls, config: SpadeGymConfig) -> list[vf.Toolset]:
        # the tool server runs only if a chosen environment may be tool-use (one without a card may)
        if all(card is not None and card.kind != TOOL_USE_KIND for _, card in _selected(config)):
            return []
        return [SpadeGymToolset(vf.SharedToolsetConfig())]

    def load(self) -> Iterator[SpadeGymTask]:
        config, found = self.config, False
        seeds = config.seed_list()
        for env_id, card in _selected(config):
            levels = _levels(card, config.difficulty)
            if not levels:
                logger.info("%s has no difficulty matching %s; left out", env_id, config.difficulty)
            for level in levels:
                env = _make(env_id, level, config.max_turns)
                try:
                    for seed in seeds:
                        task = self._task(env, env_id, level, seed, card)
                        if task is not None:
                            found = True
                            yield task
                finally:
                    env.close()
        if not found:
            raise ConfigError(f"no task: no environment matching {config.envs} reset at level(s) "
                              f"{config.difficulty or 'default'} (see `spade-gym list`)")

    def _task(self, env: gym.Env, env_id: str, level: str | None, seed: int, card: Card | None):
        observation, info = env.reset(seed=seed)
        if "error" in info:
            logger.warning("%s seed %d left out: its reset failed (%s)", env_id, seed, info["error"].get("message"))
            return None
        tools = info.get("tools")
        kind = TOOL_USE_KIND if isinstance(tools, list) else GAME_KIND
        name = f"{env_id}{f'[{level}]' if level else ''}#{seed}"
        data = SpadeGymData(
            id=name, name=name, prompt=str(observation), env_id=env_id, seed=seed, difficulty=level,
            max_turns=self.config.max_turns, kind=kind, tools=list(tools or []),
            program=(card.sha256 or "") if card is not None else "",
            system_prompt=TOOL_USE_SYSTEM_PROMPT if kind == TOOL_USE_KIND else GAME_SYSTEM_PROMPT,
        )
        return SpadeGymTask(data, self.config.task)


class _Episode:
    """One live episode on the host: the sandboxed env, its turns, and how it ended."""

    def __init__(self, env: gym.Env, tools: list[dict]):
        self.env, self.tools, self.lock = env, tools, asyncio.Lock()
        self.turns, self.reward = 0, 0.0
        self.terminated = self.truncated = False
        self.error: dict | None = None
        self.trace: vf.Trace | None = None

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    @property
    def outcome(self) -> float:
        """The final reward if the episode terminated, else 0, in [-1, 1] (as in self-play and TRL)."""
        return max(-1.0, min(1.0, self.reward)) if self.terminated else 0.0

    async def step(self, action: str) -> str:
        async with self.lock:
            if self.done:
                return EPISODE_OVER
            observation, reward, terminated, truncated, info = await asyncio.to_thread(self.env.step, action)
            self.turns, self.reward = self.turns + 1, float(reward)
            self.terminated, self.truncated = bool(terminated), bool(truncated)
            if isinstance(info.get("error"), dict):
                self.error = info["error"]
            return str(observation)

    async def act(self, reply: str) -> str:
        """Step a model reply: a game's action (``\\boxed{}`` or the text); a tool-use reply's
        ``<answer>``, else each ``<tool_call>`` it writes, else its text. The observations, joined."""
        if not self.tools:
            return await self.step(parse_action(reply))
        planned, _ = toolchat.plan(AgentReply(reply))
        observations = []
        for call in planned:
            observations.append(await self.step(call.action))
            if self.done:
                break
        return "\n\n".join(observations)

    async def call(self, name: str, arguments: dict) -> str:
        """A native tool call from the tool server: one step. If it ends the episode, the trace
        stops, so the model is not asked again (the end of a tool-use episode may show its solution)."""
        observation = await self.step(toolcalls.format_call(name, arguments))
        if self.done and self.trace is not None:
            self.trace.stop("episode_done")
        return observation


class _Bridge:
    """A loopback HTTP endpoint for the live episodes' tools, one unguessable route each."""

    def __init__(self) -> None:
        self.episodes: dict[str, _Episode] = {}
        self.url, self._runner, self._lock = "", cast(Any, None), asyncio.Lock()

    async def open(self, episode: _Episode) -> tuple[str, str]:
        async with self._lock:  # started on first use, in the serving event loop
            if self._runner is None:
                await self._start()
        token = secrets.token_urlsafe(24)
        self.episodes[token] = episode
        return token, f"{self.url}/episodes/{token}"

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/episodes/{token}/tools", self._tools)
        app.router.add_post("/episodes/{token}/call", self._call)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        self._runner = runner
        host, port = runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        self.episodes.clear()
        if runner is not None:
            await runner.cleanup()

    async def _tools(self, request):
        episode = self.episodes.get(request.match_info["token"])
        return web.json_response({"tools": episode.tools if episode is not None and not episode.done else []})

    async def _call(self, request):
        episode, body = self.episodes.get(request.match_info["token"]), await request.json()
        name, arguments = str(body.get("name") or ""), body.get("arguments")
        observation = EPISODE_OVER if episode is None else \
            await episode.call(name, arguments if isinstance(arguments, dict) else {})
        return web.json_response({"observation": observation})


class SpadeGymToolset(vf.Toolset[vf.SharedToolsetConfig, SpadeGymState]):
    """The tools of each rollout's episode as MCP tools, under their own names: a thin
    forwarder to the episode on the host (this server holds no environment)."""

    TOOL_PREFIX = None

    def register(self, mcp) -> None:
        # tools differ per episode: replace the protocol handlers, as verifiers' NeMo Gym toolset does
        server = cast(Any, mcp)
        server.list_tools = self._with_state(self.list_tools)
        server.call_tool = self._with_state(self.call_tool)

    async def _post(self, path: str, body: dict) -> dict:
        async with httpx.AsyncClient(timeout=httpx.Timeout(600.0, connect=10.0)) as client:
            response = await client.post(f"{self.state.bridge}/{path}", json=body)
            response.raise_for_status()
            return response.json()

    async def list_tools(self) -> list:
        if not self.state.bridge:
            return []
        tools = []
        for schema in (await self._post("tools", {}))["tools"]:
            function = schema.get("function", schema)
            tools.append(Tool(name=function["name"], description=function.get("description") or None,
                              input_schema=function.get("parameters") or {"type": "object", "properties": {}}))
        return tools

    async def call_tool(self, name: str, arguments: dict, context: Any = None):
        observation = (await self._post("call", {"name": name, "arguments": arguments}))["observation"] \
            if self.state.bridge else EPISODE_OVER
        return CallToolResult(content=[TextContent(type="text", text=observation)], is_error=False)


class SpadeGymEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime=vf.SubprocessConfig())
    """The seat: by default verifiers' tool-less chat loop (``null`` harness, which runs no
    model-written code) on the ``subprocess`` runtime; ``--env.player.*`` overrides it."""


class SpadeGymEnv(vf.Env[SpadeGymEnvConfig]):
    """The sandboxed environment plays the user (as in verifiers' TextArena env): each model
    reply is stepped host-side, the next observation is the next user turn, and the episode's
    outcome is the trace's ``spade_reward``."""

    def __init__(self, config: SpadeGymEnvConfig) -> None:
        super().__init__(config)
        self._bridge = _Bridge()

    async def stop(self) -> None:  # the end of verifiers' serving(): the bridge goes down
        await self._bridge.stop()

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        data = cast(SpadeGymData, task.data)
        env = await asyncio.to_thread(_make, data.env_id, data.difficulty, data.max_turns)
        try:
            observation, info = await asyncio.to_thread(env.reset, seed=data.seed)
            if "error" in info:
                raise SpadeError(f"{data.name}: reset failed: {info['error'].get('message')}")
            if observation != data.prompt:
                raise SpadeError(f"{data.name}: reset no longer gives the task's prompt (did the program "
                                 "change since the taskset was loaded?)")
            episode = _Episode(env, list(info.get("tools") or []))
            token, url = await self._bridge.open(episode) if episode.tools else ("", "")
            try:
                async with agents.player.interaction(task) as interaction:
                    episode.trace = interaction.trace
                    interaction.trace.state.bridge = url
                    # the first observation is the task prompt, so the model moves first
                    segment = await interaction.turn()
                    while not segment.terminated and not episode.done:
                        observation = await episode.act(segment.last_reply)
                        if episode.done:
                            break  # the outcome is fixed: end the exchange
                        segment = await interaction.turn(observation)
                    # recorded before the exchange closes, so the rollout reports it when it ends
                    _record(interaction.trace, data, episode)
            finally:
                self._bridge.episodes.pop(token, None)
        finally:
            await asyncio.to_thread(env.close)


def _record(trace: vf.Trace, data: SpadeGymData, episode: _Episode) -> None:
    trace.record_reward("spade_reward", episode.outcome, 1.0)
    trace.record_metrics({"env_turns": episode.turns, "terminated": float(episode.terminated),
                          "truncated": float(episode.truncated)})
    trace.info["spade_gym"] = {"env_id": data.env_id, "seed": data.seed, "difficulty": data.difficulty,
                               "turns": episode.turns, "final_reward": episode.reward,
                               "terminated": episode.terminated, "truncated": episode.truncated,
                               "program_error": episode.error}


if __name__ == "__main__":  # how verifiers launches a toolset: python -m <its module>
    SpadeGymToolset.run()
