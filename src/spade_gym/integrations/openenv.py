"""Registered ``spade/*`` environments served over HTTP and WebSocket with OpenEnv.

``spade-gym serve IDS...`` (or :func:`build_app`) puts environments behind openenv-core's
``create_app``, so any OpenEnv client (``GenericEnvClient``, TRL, SkyRL, verifiers'
OpenEnv taskset) can play them on another machine. The session protocol:

* **Episodes live in WebSocket sessions** (``/ws``): each connection is its own session
  with its own sandboxed env (:class:`SpadeSessionEnv`, one worker process). OpenEnv's HTTP
  ``/reset`` and ``/step`` build a fresh env per request: ``/reset`` shows a first
  observation, ``/step`` cannot continue anything and answers 409.
* **A reset names the episode**: ``env_id`` (a served id; optional when one is served),
  ``seed`` (the same seed gives the same task as ``gym.make(env_id).reset(seed=...)``),
  ``difficulty``, and ``hint`` only on a server started with ``--allow-hint``. Unknown
  arguments are refused, not ignored.
* **An action** is ``{"action": "<text>"}``, the schema's one required field.
* **An observation** carries ``text``, ``reward``, ``done`` (terminated or truncated, both
  also given), ``env_id``, ``seed`` and ``info``: the env's ``info`` (with ``tools``, OpenAI
  schemas, at the reset of a tool-use env), never a solution, and a hint only when allowed.
  OpenEnv's serializer drops ``Observation.metadata``, so ``info`` is what travels.
* A program failure (a crash, a memory bomb, a deadline) ends that episode only
  (``done``, ``info["error"]``); sessions are bounded (``max_sessions``; the next
  connection gets OpenEnv's ``CAPACITY_REACHED`` error), expire after ``idle_timeout``
  seconds idle, and with a ``token`` every request but ``GET /health`` needs
  ``Authorization: Bearer <token>`` (401 otherwise).
"""

from __future__ import annotations

import functools
import json
import os
import threading
import uuid
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from openenv.core.env_server import Action, Environment, Observation, State, create_app
from openenv.core.env_server.types import EnvironmentMetadata
from pydantic import Field

from spade_gym.env.hint_mode import HintMode
from spade_gym.errors import ConfigError, SandboxError, SpadeError
from spade_gym.integrations.openenv_auth import PUBLIC_PATHS, TOKEN_ENV_VAR, SpadeEnvClient, TokenGate

if TYPE_CHECKING:  # gymnasium is imported when a session first builds its env
    import gymnasium

    from spade_gym.env.spade_env import SpadeEnv

__all__ = [
    "PUBLIC_PATHS",
    "TOKEN_ENV_VAR",
    "ServeConfig",
    "SpadeAction",
    "SpadeEnvClient",
    "SpadeObservation",
    "SpadeSessionEnv",
    "build_app",
    "serve",
]

DEFAULT_MAX_SESSIONS = 16
DEFAULT_IDLE_TIMEOUT = 300.0
#: Largest WebSocket message accepted (an action is at most 100k characters, JSON-escaped).
WS_MAX_BYTES = 1 << 21
#: Reset arguments a session understands (``hint`` only where the server allows it).
RESET_ARGS = ("env_id", "seed", "difficulty", "hint", "episode_id")
_MAX_SEED = 2**63 - 1


class ServeError(SpadeError):
    """A request the server refuses; ``status`` is its HTTP status (WebSocket sessions get the message)."""

    status = 400


class EpisodeStateError(ServeError):
    status = 409


class CapacityError(ServeError):
    status = 503


class SpadeAction(Action):
    """One turn's text: a game's move (answers usually as ``\\boxed{...}``) or a tool-use env's
    ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` / ``<answer>...</answer>``."""

    action: str = Field(..., description="The text action of this turn, e.g. \\boxed{42} or a <tool_call> block.")


class SpadeObservation(Observation):
    """What the agent may see of a turn (``reward``/``done`` travel beside it, as OpenEnv sends them)."""

    text: str = Field(default="", description="The environment's observation.")
    env_id: str = Field(default="", description="The environment played.")
    seed: int | None = Field(default=None, description="The program seed of this episode (replays it).")
    terminated: bool = Field(default=False, description="The episode ended by the environment's rules.")
    truncated: bool = Field(default=False, description="The episode was cut (turn limit or a program failure).")
    info: dict[str, Any] = Field(default_factory=dict,
                                 description="The env's info: turn counters, tools (tool-use envs, at reset), error.")


@dataclass
class ServeConfig:
    """What every session of one server shares: the ids served, the policy, the worker bound."""

    env_ids: tuple[str, ...]
    max_sessions: int = DEFAULT_MAX_SESSIONS
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT
    token: str | None = None
    allow_hint: bool = False
    slots: threading.BoundedSemaphore = field(init=False, repr=False)
    _live: weakref.WeakSet = field(init=False, repr=False, default_factory=weakref.WeakSet)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self):
        if not self.env_ids:
            raise ServeError("no environment to serve")
        if self.max_sessions < 1:
            raise ServeError(f"max_sessions must be at least 1, got {self.max_sessions}")
        # one worker process per live env, across WebSocket sessions and one-shot HTTP resets
        self.slots = threading.BoundedSemaphore(self.max_sessions)

    def track(self, env: SpadeSessionEnv) -> None:
        with self._lock:
            self._live.add(env)

    def sessions(self) -> list[SpadeSessionEnv]:
        """The session envs not yet garbage-collected (closed ones included)."""
        with self._lock:
            return list(self._live)

    def resolve(self, env_id: Any) -> str:
        if env_id is None:
            if len(self.env_ids) == 1:
                return self.env_ids[0]
            raise ServeError(f"reset needs an env_id: this server serves {len(self.env_ids)} environments "
                             f"({_listing(self.env_ids)}; GET /envs lists them)")
        if not isinstance(env_id, str):
            raise ServeError(f"env_id must be a string, got {type(env_id).__name__}")
        for candidate in (env_id, f"spade/{env_id}"):
            if candidate in self.env_ids:
                return candidate
        raise ServeError(f"{env_id[:200]!r} is not served here (served: {_listing(self.env_ids)}; GET /envs)")


def _listing(ids, shown: int = 5) -> str:
    more = f", ... ({len(ids) - shown} more)" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


class SpadeSessionEnv(Environment):
    """One session's environment: builds its gym env at the first reset (OpenEnv also builds
    instances for stateless requests such as ``/metadata``, which must stay cheap)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: ServeConfig):
        super().__init__()
        self.config = config
        self._env: gymnasium.Env | None = None
        self._key: tuple | None = None
        self._slot = False
        self._closed = False
        self._done = True
        self._started = False
        self._env_id = ""
        self._seed: int | None = None
        self._episode_id: str | None = None
        self._steps = 0
        config.track(self)

    # ------------------------------------------------------------------ OpenEnv API

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> SpadeObservation:
        self._check_open()
        unknown = sorted(set(kwargs) - set(RESET_ARGS))
        if unknown:
            accepted = [a for a in RESET_ARGS if a != "hint" or self.config.allow_hint]
            raise ServeError(f"unknown reset argument(s) {', '.join(map(repr, unknown))}; accepted: "
                             f"{', '.join(accepted)}")
        env_id = self.config.resolve(kwargs.get("env_id"))
        seed = _check_seed(seed)
        difficulty = kwargs.get("difficulty")
        if difficulty is not None and not isinstance(difficulty, str):
            raise ServeError(f"difficulty must be a string, got {type(difficulty).__name__}")
        hint = kwargs.get("hint") or False
        if hint and not self.config.allow_hint:
            raise ServeError("hints are privileged and this server does not send them (start it with --allow-hint)")
        self._episode_id = str(episode_id) if episode_id is not None else str(uuid.uuid4())
        self._env_id, self._seed, self._steps, self._started, self._done = env_id, seed, 0, True, True
        try:
            mode = HintMode.parse(hint)
        except ConfigError as exc:
            raise ServeError(str(exc)) from exc
        try:
            env = self._make(env_id, difficulty, mode)
        except SandboxError as exc:  # the program did not even load: that episode is over, nothing else
            from spade_gym.env.episode import ERROR_OBSERVATION, error_info

            return self._observation(ERROR_OBSERVATION, None, False, True, {"error": error_info(exc, "load")})
        obs, info = env.reset(seed=seed)
        self._seed = cast("SpadeEnv", env.unwrapped).last_program_seed
        self._done = "error" in info  # a program that failed at reset has no episode to play
        return self._observation(obs, None, False, self._done, info)

    def step(self, action: SpadeAction, timeout_s: float | None = None, **kwargs: Any) -> SpadeObservation:
        self._check_open()
        if not self._started or self._env is None:
            raise EpisodeStateError("no episode in this session: send a reset first (HTTP /step is stateless; "
                                    "play episodes over the /ws WebSocket session)")
        if self._done:
            raise EpisodeStateError("this episode is over: send a reset to start another")
        obs, reward, terminated, truncated, info = self._env.step(action.action)
        self._steps += 1
        self._done = bool(terminated or truncated)
        return self._observation(obs, float(reward), bool(terminated), bool(truncated), info)

    @property
    def state(self) -> State:
        return State(episode_id=self._episode_id, step_count=self._steps, env_id=self._env_id, seed=self._seed,
                     done=self._done)

    def get_metadata(self) -> EnvironmentMetadata:
        from spade_gym import __version__

        ids = self.config.env_ids
        return EnvironmentMetadata(
            name="spade-gym", version=__version__, documentation_url="https://github.com/spade-gym/spade-gym",
            description=f"{len(ids)} sandboxed spade-gym text environment(s): {_listing(ids)}. Reset with "
                        f"env_id (and seed, difficulty); act with {{\"action\": text}}; GET /envs lists them.")

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Ends the session (OpenEnv calls this on disconnect and when the session expires)."""
        self._closed = True
        self._release()

    # ------------------------------------------------------------------ helpers

    def _check_open(self) -> None:
        if self._closed:
            raise EpisodeStateError("this session has ended (idle past the server's timeout, or closed): "
                                    "open a new WebSocket connection")

    def _make(self, env_id: str, difficulty: str | None, hint: HintMode):
        import gymnasium as gym

        key = (env_id, difficulty, hint)
        if self._env is not None and self._key == key:
            return self._env
        if self._env is not None:
            self._env.close()
            self._env = None
        if not self._slot:
            if not self.config.slots.acquire(blocking=False):
                raise CapacityError(f"server at capacity: {self.config.max_sessions} environments running; "
                                    "retry later")
            self._slot = True
        kwargs: dict[str, Any] = {"difficulty": difficulty} if difficulty is not None else {}
        if hint:
            kwargs["hint"] = hint
        try:
            self._env = gym.make(env_id, **kwargs)
        except SandboxError:
            raise
        except (SpadeError, gym.error.Error) as exc:
            raise ServeError(str(exc)) from exc
        self._key = key
        return self._env

    def _observation(self, text: str, reward: float | None, terminated: bool, truncated: bool,
                     info: dict) -> SpadeObservation:
        public = {k: v for k, v in info.items() if k != "hint" or self.config.allow_hint}
        public = json.loads(json.dumps(public, default=str))  # plain JSON, whatever the program put in info
        return SpadeObservation(text=str(text), reward=reward, done=terminated or truncated, terminated=terminated,
                                truncated=truncated, env_id=self._env_id, seed=self._seed, info=public,
                                metadata=public)

    def _release(self) -> None:
        env, self._env = self._env, None
        if env is not None:
            env.close()
        if self._slot:
            self._slot = False
            self.config.slots.release()

    def __del__(self):
        if getattr(self, "_slot", False) or getattr(self, "_env", None) is not None:
            self._release()


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= _MAX_SEED:
        raise ServeError(f"seed must be an integer from 0 to 2**63-1, got {str(seed)[:40]!r}")
    return seed


def build_app(patterns: str | list[str] | tuple[str, ...], *, max_sessions: int = DEFAULT_MAX_SESSIONS,
              idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT, token: str | None = None,
              allow_hint: bool = False):
    """The FastAPI app serving the registered ids matching ``patterns`` (globs, as ``spade-gym eval --envs``)."""
    from fastapi import Request
    from fastapi.responses import JSONResponse
    from openenv.core.env_server import ConcurrencyConfig

    from spade_gym.evaluation.selection import select_envs

    ids = tuple(info.env_id for info in select_envs(list(patterns) if not isinstance(patterns, str) else patterns))
    config = ServeConfig(ids, max_sessions=max_sessions, idle_timeout=idle_timeout or None, token=token or None,
                         allow_hint=allow_hint)
    concurrency = ConcurrencyConfig(max_concurrent_envs=config.max_sessions, session_timeout=config.idle_timeout)
    app = create_app(functools.partial(SpadeSessionEnv, config), SpadeAction, SpadeObservation,
                     env_name="spade-gym", concurrency_config=concurrency)
    app.state.spade_config = config

    @app.exception_handler(ServeError)
    async def _refused(request: Request, exc: ServeError):
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.get("/envs", tags=["Environment Info"], summary="The environments this server plays")
    def envs() -> list[dict]:
        return [_card_summary(env_id) for env_id in config.env_ids]

    async def _close_sessions() -> None:  # worker processes end with the server
        for env in config.sessions():
            env.close()

    app.router.on_shutdown.append(_close_sessions)

    app.add_middleware(TokenGate, token=config.token)
    return app


def _card_summary(env_id: str) -> dict:
    """What a client may know of an env before playing it (never the card's hint)."""
    import gymnasium as gym

    from spade_gym.registry import Card
    from spade_gym.registry.suite import CARD_FILE

    summary: dict[str, Any] = {"id": env_id}
    env_dir = gym.registry[env_id].kwargs.get("env_dir")
    if env_dir:
        try:
            card = Card.load(os.path.join(env_dir, CARD_FILE))
        except SpadeError:
            return summary
        summary.update(kind=card.kind, skill=card.skill, description=card.description, max_turns=card.max_turns,
                       multi_turn=card.multi_turn, difficulty_levels=list(card.difficulty_levels or []))
    return summary


def serve(patterns, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info", **options: Any) -> None:
    """Build the app (see :func:`build_app` for ``options``) and run it with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(build_app(patterns, **options), host=host, port=port, log_level=log_level, ws_max_size=WS_MAX_BYTES,
                timeout_graceful_shutdown=5)


def app_from_environment():
    """The app configured by environment variables (``$SPADE_GYM_SERVE_IDS`` (default ``spade/*``),
    ``..._MAX_SESSIONS``, ``..._IDLE_TIMEOUT``, ``..._TOKEN``, ``..._ALLOW_HINT``), for
    ``uvicorn spade_gym.integrations.openenv:app`` (the ``app`` of ``openenv.yaml``)."""
    env = os.environ
    return build_app(env.get("SPADE_GYM_SERVE_IDS", "spade/*"),
                     max_sessions=int(env.get("SPADE_GYM_SERVE_MAX_SESSIONS", DEFAULT_MAX_SESSIONS)),
                     idle_timeout=float(env.get("SPADE_GYM_SERVE_IDLE_TIMEOUT", DEFAULT_IDLE_TIMEOUT)),
                     token=env.get(TOKEN_ENV_VAR) or None,
                     allow_hint=env.get("SPADE_GYM_SERVE_ALLOW_HINT", "").lower() in ("1", "true", "yes"))


@functools.lru_cache(maxsize=1)
def _environment_app():
    return app_from_environment()


def __getattr__(name: str):
    # ``app`` is built on first access only: importing this module starts no server and reads no suite
    if name == "app":
        return _environment_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
