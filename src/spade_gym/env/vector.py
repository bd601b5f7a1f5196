"""A batched vector env: many instances of one program, few workers, one round-trip per step.

``gym.make_vec(id, num_envs=N)`` (the default ``vector_entry_point`` mode) builds a
:class:`SpadeVectorEnv`. Instances of the same program share workers — each instance
still has its own module namespace and random streams, so tasks are identical to
single envs — and a vector ``step`` costs one request per worker, sent to all
workers before any reply is awaited. ``"sync"`` and ``"async"`` modes use
gymnasium's own classes around single :class:`SpadeEnv` s and work too.

If a worker fails (timeout, crash), every episode it hosted ends with
``truncated=True`` and the error in ``info["error"]``; those sub-envs restart on their
next (auto)reset.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from spade_gym.contract import MAX_ACTION_CHARS, TOOL_USE_KIND, program_kind
from spade_gym.env import episode
from spade_gym.env.episode import ERROR_OBSERVATION
from spade_gym.env.hint_mode import HintValue
from spade_gym.env.monitor import ContractMonitor, Violation
from spade_gym.env.spaces import UnicodeText
from spade_gym.errors import ConfigError, SandboxError
from spade_gym.sandbox.call_results import CallResult, Failed, Ok


class SpadeVectorEnv(VectorEnv):
    """``num_envs`` instances of one program (text), batched over a few workers.

    ``fallback_max_turns`` and ``card`` mean what they mean for
    :class:`~spade_gym.env.SpadeEnv`.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, *, source: str, num_workers: int | None = None, max_turns: int | None = None,
                 limits=None, hint: HintValue = False, fallback_max_turns: int | None = None, card: Any = None,
                 screen_baseline: tuple[int, int] | None = None,
                 on_violation: Callable[[Violation], None] | None = None, **program_kwargs):
        from spade_gym.sandbox import DEFAULT_LIMITS, ProgramHandle

        if hint:  # any hint asked for (a malformed one too): this env shows none
            raise ConfigError("hints are not supported by the batched vector env; use "
                              "gym.make_vec(id, vectorization_mode='sync', hint=True)")
        if not isinstance(source, str):
            raise TypeError(f"source must be the program text (str), got {type(source).__name__}")
        self.num_envs = int(num_envs)
        self.card = card
        self.kind = program_kind(source)
        self.limits = limits or DEFAULT_LIMITS
        kwargs = episode.program_kwargs(max_turns, program_kwargs)
        workers = max(1, min(self.num_envs, num_workers or os.cpu_count() or 1))
        sizes = [self.num_envs // workers + (1 if w < self.num_envs % workers else 0) for w in range(workers)]
        self._handles = [ProgramHandle(source, kwargs=kwargs, limits=self.limits, count=n) for n in sizes]
        #: (worker index, instance index within the worker) for each sub-env
        self._slots = [(w, i) for w, n in enumerate(sizes) for i in range(n)]
        self.max_turns = episode.turn_budget(max_turns, self._handles[0].info, fallback_max_turns)
        self.single_observation_space = UnicodeText(self.limits.max_observation_chars)
        self.single_action_space = UnicodeText(MAX_ACTION_CHARS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._turns = np.zeros(self.num_envs, dtype=np.int64)
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)
        self._failed = [False] * self.num_envs
        self._rngs: list[np.random.Generator | None] = [None] * self.num_envs
        sha = self._handles[0].info.get("sha256", "")
        #: one contract monitor per sub-env (see :mod:`spade_gym.env.monitor`)
        self._monitors = [ContractMonitor(sha, screen_baseline=screen_baseline, on_violation=on_violation)
                          for _ in range(self.num_envs)]

    # ------------------------------------------------------------------ batching

    def _program_seeds(self, seed) -> list[int]:
        """Seeds exactly as ``SyncVectorEnv`` of :class:`SpadeEnv` s would use them: sub-env
        ``i`` gets ``seed + i`` and its own generator, which later (auto)resets draw from."""
        seeds: list[int | None]
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            if len(seed) != self.num_envs:
                raise ValueError(f"need {self.num_envs} seeds, got {len(seed)}")
            seeds = list(seed)
        out = []
        for i, s in enumerate(seeds):
            if s is not None:
                self._rngs[i] = seeding.np_random(int(s))[0]
                out.append(int(s))
            else:
                out.append(self._next_seed(i))
        return out

    def _next_seed(self, i: int) -> int:
        rng = self._rngs[i]
        if rng is None:
            rng = self._rngs[i] = seeding.np_random(int(self.np_random.integers(0, 2**31 - 1)))[0]
        return int(rng.integers(0, 2**31 - 1))

    def _run(self, requests: dict[int, dict]) -> dict[int, CallResult]:
        """Send each worker its share of ``{env index: request}`` at once, then collect."""
        per_worker: dict[int, list[tuple[int, dict]]] = {}
        for env_index, request in requests.items():
            worker, instance = self._slots[env_index]
            per_worker.setdefault(worker, []).append((env_index, dict(request, i=instance)))
        pending = []
        results: dict[int, CallResult] = {}
        for worker, items in per_worker.items():
            handle = self._handles[worker]
            restart = any("action" not in item for _, item in items)
            try:
                token = handle.batch_send([item for _, item in items], restart=restart)
                pending.append((handle, token, items))
            except SandboxError as exc:
                for env_index, _ in items:
                    results[env_index] = Failed(exc)
        for handle, token, items in pending:
            try:
                replies = handle.batch_receive(token)
            except SandboxError as exc:
                replies = [Failed(exc)] * len(items)
            for (env_index, _), reply in zip(items, replies):
                results[env_index] = reply
        return results

    # ------------------------------------------------------------------ VectorEnv API

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        seeds = self._program_seeds(seed)
        results = self._run({i: {"seed": s} for i, s in enumerate(seeds)})
        observations: list[Any] = []
        infos: dict[str, Any] = {}
        for i in range(self.num_envs):
            obs, info = self._reset_result(i, results[i])
            observations.append(obs)
            infos = self._add_info(infos, info, i)
        return tuple(observations), infos

    def _reset_result(self, i: int, result: CallResult):
        self._turns[i] = 0
        self._needs_reset[i] = False
        tools = None
        monitor = self._monitors[i]
        worker, instance = self._slots[i]
        if monitor.violation is not None:
            self._failed[i] = True
            return ERROR_OBSERVATION, self._decorate({}, i, monitor.violation.as_error("reset"))
        if isinstance(result, Ok) and self.kind == TOOL_USE_KIND:
            # The tools are declared by each episode's reset: one more request per new episode.
            try:
                tools = self._handles[worker].tools(instance)
            except SandboxError as exc:
                result = Failed(exc)
        if isinstance(result, Ok):
            obs, info = result.value
            try:
                solution = self._handles[worker].solution(instance) if monitor.watches_screens else None
            except SandboxError as exc:
                self._failed[i] = True
                return ERROR_OBSERVATION, self._decorate({}, i, episode.error_info(exc, "reset"))
            violation = monitor.check_reset(obs, info, solution)
            if violation is not None:
                self._failed[i] = True
                return ERROR_OBSERVATION, self._decorate({}, i, violation.as_error("reset"))
            self._failed[i] = False
            info = self._decorate(info, i)
            if tools is not None:
                info["tools"] = tools
            return obs, info
        self._failed[i] = True
        return ERROR_OBSERVATION, self._decorate({}, i, episode.error_info(result.error, "reset"))

    def step(self, actions):
        actions = list(actions)
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(actions)}")
        requests: dict[int, dict[str, Any]] = {}
        for i, action in enumerate(actions):
            if self._needs_reset[i]:
                requests[i] = {"seed": self._next_seed(i)}
            elif not self._failed[i]:
                requests[i] = {"action": episode.clip_action(action)}
        results = self._run(requests)
        observations: list[Any] = []
        infos: dict[str, Any] = {}
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=bool)
        truncations = np.zeros(self.num_envs, dtype=bool)
        for i in range(self.num_envs):
            if self._needs_reset[i]:
                obs, info = self._reset_result(i, results[i])
            elif self._failed[i] and i not in results:
                obs, info = ERROR_OBSERVATION, self._decorate({}, i, {"kind": "failed", "where": "reset",
                                                                     "message": "the episode could not start"})
                truncations[i] = True
                self._needs_reset[i] = True
            else:
                self._turns[i] += 1
                result = results[i]
                violation = None
                if isinstance(result, Ok):
                    obs, reward, terminated, truncated, info = result.value
                    violation = self._monitors[i].check_step(reward, terminated, truncated, info)
                if violation is not None:
                    obs = ERROR_OBSERVATION
                    info = self._decorate({}, i, violation.as_error("step"))
                    truncations[i] = True
                elif isinstance(result, Ok):
                    info = self._decorate(info, i)
                    if not (terminated or truncated) and episode.past_turn_limit(int(self._turns[i]), self.max_turns):
                        truncated = True
                        info["truncated_by"] = episode.TURN_LIMIT_REASON
                    rewards[i], terminations[i], truncations[i] = reward, terminated, truncated
                else:
                    obs = ERROR_OBSERVATION
                    info = self._decorate({}, i, episode.error_info(result.error, "step"))
                    truncations[i] = True
                self._needs_reset[i] = bool(terminations[i] or truncations[i])
            observations.append(obs)
            infos = self._add_info(infos, info, i)
        return tuple(observations), rewards, terminations, truncations, infos

    def _decorate(self, program_info: dict, i: int, error: dict | None = None) -> dict:
        return episode.decorate(program_info, int(self._turns[i]), self.max_turns, error)

    def close_extras(self, **kwargs):
        for handle in self._handles:
            handle.close()
