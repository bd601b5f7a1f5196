"""``SpadeEnv``: a sandboxed program as an ordinary ``gymnasium.Env``.

Observations and actions are strings (:class:`~spade_gym.env.spaces.UnicodeText`).
The program runs in a sandbox worker (:class:`~spade_gym.sandbox.ProgramHandle`);
this class adds what Gymnasium users expect on top of the raw program contract:

* seeding: ``reset(seed=s)`` hands ``s`` to the program (the same task plain CPython
  gives for ``reset(seed=s)``); ``reset()`` draws the program seed from the env's
  ``np_random``, so a seeded sequence of resets is reproducible;
* ``info`` tells the agent what it may know (turn, remaining turns), never the solution;
  for a tool-use program, ``reset`` also puts the episode's tools in ``info["tools"]``
  (OpenAI function schemas, for a chat template's or an API's ``tools=``);
* a program failure never escapes into the caller's loop: the episode ends with
  ``truncated=True`` and the error in ``info["error"]`` — the agent is not punished
  for the designer's bug, and the next ``reset`` gets a fresh worker;
* a safety net truncates episodes the program forgets to end (``max_turns`` + slack);
* a :class:`~spade_gym.env.monitor.ContractMonitor` checks the contract on every step
  (reward range, the episode-end rule, host-only ``info`` keys, the task screen); a
  violation ends the episode (``info["error"]["kind"] == "contract"``) and the env
  refuses further episodes, since the program is not what validation accepted;
* ``render_mode="ansi"`` renders the transcript of the current episode.

Privileged information (solution, hint) is never put in observations or info; it is
reachable only through :func:`spade_gym.privileged`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from spade_gym.contract import MAX_ACTION_CHARS, TOOL_USE_KIND, program_kind
from spade_gym.env import episode
from spade_gym.env.episode import ERROR_OBSERVATION, TURN_SLACK  # noqa: F401 - public names
from spade_gym.env.monitor import ContractMonitor, Violation
from spade_gym.env.spaces import UnicodeText
from spade_gym.errors import SandboxError, SpadeError


class SpadeEnv(gym.Env[str, str]):
    """A sandboxed SPADE program. Build it with ``gym.make("spade/<Name>-v<N>")`` (the
    registry checks the program against its card first) or :func:`spade_gym.load_source`.

    ``fallback_max_turns`` and ``fallback_hint`` are what the caller knows about the
    program when it does not say itself (the registry passes its card's values);
    ``card`` is stored as :attr:`card` for callers and never read here.
    ``screen_baseline`` (validation's ``(revealed, episodes)`` count of first screens
    that reveal the solution) turns on the screen monitor; ``on_violation`` is called
    with the :class:`~spade_gym.env.monitor.Violation` when the program breaks the contract.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        source: str,
        *,
        max_turns: int | None = None,
        limits=None,
        render_mode: str | None = None,
        max_observation_chars: int | None = None,
        fallback_max_turns: int | None = None,
        fallback_hint: str | None = None,
        card: Any = None,
        screen_baseline: tuple[int, int] | None = None,
        on_violation: Callable[[Violation], None] | None = None,
        **program_kwargs: Any,
    ):
        from spade_gym.sandbox import DEFAULT_LIMITS, ProgramHandle

        if "env_dir" in program_kwargs:
            raise TypeError("SpadeEnv takes program text; build a suite entry with gym.make(id) or "
                            "spade_gym.registry.make_env(env_dir=...)")
        if not isinstance(source, str):
            raise TypeError(f"source must be the program text (str), got {type(source).__name__}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.card = card
        self.render_mode = render_mode
        self.limits = limits or DEFAULT_LIMITS
        self.program_kwargs = episode.program_kwargs(max_turns, program_kwargs)
        self._fallback_hint = fallback_hint
        self._handle = ProgramHandle(source, kwargs=self.program_kwargs, limits=self.limits)
        self.program_info = self._handle.info
        self.max_turns = episode.turn_budget(max_turns, self.program_info, fallback_max_turns)
        self.observation_space = UnicodeText(max_observation_chars or self.limits.max_observation_chars)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        #: ``"tool-use"`` or ``"game"``, read from the program text (never from the worker).
        self.kind = program_kind(source)
        self._tools: list[dict] | None = None
        self._turn = 0
        self._failed: dict | None = None
        self._ended = False
        self._transcript: list[str] = []
        self.last_program_seed: int | None = None
        self.monitor = ContractMonitor(self.program_info.get("sha256", ""), screen_baseline=screen_baseline,
                                       on_violation=on_violation)

    # ------------------------------------------------------------------ gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        program_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        self.last_program_seed = program_seed
        self._turn = 0
        self._ended = False
        self._failed = None
        self._transcript = []
        self._tools = None
        if self.monitor.violation is not None:
            return self._refuse_episode()
        try:
            obs, program_info = self._handle.reset(seed=program_seed)
            if self.kind == TOOL_USE_KIND:
                self._tools = self._handle.tools()
            solution = self._handle.solution() if self.monitor.watches_screens else None
        except SandboxError as exc:
            return self.fail_episode(exc, "reset")
        violation = self.monitor.check_reset(obs, program_info, solution)
        if violation is not None:
            self._failed = violation.as_error("reset")
            self._transcript.append(f"Observation:\n{ERROR_OBSERVATION}")
            return ERROR_OBSERVATION, self._info({}, error=self._failed)
        self._transcript.append(f"Observation:\n{obs}")
        info = self._info(program_info)
        if self._tools is not None:
            info["tools"] = copy.deepcopy(self._tools)
        return obs, info

    def fail_episode(self, exc: SandboxError, where: str) -> tuple[str, dict]:
        """End the current episode because the program failed in ``where`` (e.g. its
        ``hint()`` raised after a good ``reset``): the agent sees the error observation,
        and the next ``step`` returns ``truncated=True``. Returns (observation, info)."""
        self._failed = episode.error_info(exc, where)
        self._transcript.append(f"Observation:\n{ERROR_OBSERVATION}")
        return ERROR_OBSERVATION, self._info({}, error=self._failed)

    def _refuse_episode(self) -> tuple[str, dict]:
        """The program broke the contract in an earlier episode: no new ones."""
        violation = self.monitor.violation
        assert violation is not None
        self._failed = dict(violation.as_error("reset"), message=(
            f"this environment was stopped after its program broke the contract ({violation.rule}): "
            f"{violation.message}"))
        self._transcript.append(f"Observation:\n{ERROR_OBSERVATION}")
        return ERROR_OBSERVATION, self._info({}, error=self._failed)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        action = episode.clip_action(action)
        self._turn += 1
        self._transcript.append(f"Action:\n{action}")
        if self._failed is not None:
            return ERROR_OBSERVATION, 0.0, False, True, self._info({}, error=self._failed)
        try:
            obs, reward, terminated, truncated, program_info = self._handle.step(action)
        except SandboxError as exc:
            self._failed = episode.error_info(exc, "step")
            self._ended = True
            self._transcript.append(f"Observation:\n{ERROR_OBSERVATION}")
            return ERROR_OBSERVATION, 0.0, False, True, self._info({}, error=self._failed)
        violation = self.monitor.check_step(reward, terminated, truncated, program_info)
        if violation is not None:
            self._failed = violation.as_error("step")
            self._ended = True
            self._transcript.append(f"Observation:\n{ERROR_OBSERVATION}")
            return ERROR_OBSERVATION, 0.0, False, True, self._info({}, error=self._failed)
        info = self._info(program_info)
        if not (terminated or truncated) and episode.past_turn_limit(self._turn, self.max_turns):
            truncated = True
            info["truncated_by"] = episode.TURN_LIMIT_REASON
        self._ended = terminated or truncated
        self._transcript.append(f"Observation:\n{obs}\nReward: {reward:g}"
                                + (" (terminated)" if terminated else " (truncated)" if truncated else ""))
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return "\n\n".join(self._transcript) + "\n"
        return None

    def close(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None:
            handle.close()
        super().close()

    # ------------------------------------------------------------------ helpers

    def _info(self, program_info: dict, error: dict | None = None) -> dict:
        return episode.decorate(program_info, self._turn, self.max_turns, error)

    # Privileged access, used through spade_gym.privileged(env) only.

    def _privileged_solution(self) -> str:
        return self._handle.solution()

    def _privileged_hint(self) -> str | None:
        hint = self._handle.hint() if self._handle.info.get("has_hint") else None
        return hint or self._fallback_hint

    @property
    def tools(self) -> list[dict]:
        """The current episode's tool schemas (see :func:`spade_gym.tools`)."""
        if self.kind != TOOL_USE_KIND:
            raise SpadeError(f"{self!r} is not a tool-use environment (its program does not subclass "
                             f"ToolUseBaseEnv), so it has no tools")
        if self._tools is None:
            raise SpadeError(f"{self!r} has no tools yet: call reset() first (each episode declares its tools)")
        return copy.deepcopy(self._tools)

    @property
    def episode_failed(self) -> dict | None:
        """The error that ended the current episode, if the program failed."""
        return self._failed

    def __repr__(self) -> str:
        name = self.spec.id if self.spec is not None else self.program_info.get("class_name", "program")
        return f"<SpadeEnv {name}>"
