"""Worker side: whole probe episodes played inside the worker (the validator's former path).

Validation now drives episodes from the host, one ``reset``/``step`` request at a time,
so nothing a worker reports about itself is evidence. This module only serves the
``episodes`` request for callers that have not moved yet; it is self-contained so that
removing it is deleting this file and its line in ``serve.HANDLERS``.
"""

from __future__ import annotations

import hashlib

from spade_gym.sandbox import probes
from spade_gym.sandbox.results import CallFailed


def run_episodes(runtime, request) -> list:
    return [_episode(runtime, request.i, seed, request.policy, request.max_steps, request.record)
            for seed in request.seeds]


def _episode(runtime, index, seed, policy_spec, max_steps, record) -> dict:
    # Running hash of everything the episode returned. The worker's hash seed is
    # fixed (PYTHONHASHSEED=0 in every zygote), so equal episodes give equal
    # digests in any worker; it is ~10x cheaper than hashing JSON with sha256.
    digest = 0
    out = {"seed": seed, "turns": 0, "return": 0.0, "rewards": [], "terminated": False,
           "truncated": False, "ended": False, "error": None, "error_turn": None,
           "obs0": None, "obs0_sha": None, "solution0": None, "hint0": None, "transcript": None,
           "max_turns": None}
    transcript = [] if record else None
    policy = probes.make_policy(policy_spec, seed)
    turn = -1
    try:
        obs, info = runtime.reset(index, seed)
        out["obs0"] = obs[:2000]
        out["obs0_sha"] = hashlib.sha256(obs.encode("utf-8", "replace")).hexdigest()
        digest = hash((digest, obs, repr(info) if info else None))
        inst = runtime.instance(index)
        out["max_turns"] = inst.max_turns()
        if inst.has_solution:
            out["solution0"] = runtime.solution(index)[:1000]
        if inst.has_hint:
            hint = runtime.hint(index)
            out["hint0"] = hint[:4000] if hint is not None else None
        if transcript is not None:
            transcript.append({"obs": obs[:4000]})
        policy.begin(obs)
        for turn in range(max_steps):
            solution = runtime.solution(index) if policy.needs_solution else None
            action = policy.act(obs, turn, solution)
            obs, reward, terminated, truncated, info = runtime.step(index, action)
            out["turns"] = turn + 1
            out["rewards"].append(reward)
            out["return"] += reward
            digest = hash((digest, obs, reward, terminated, truncated, repr(info) if info else None))
            if transcript is not None:
                transcript.append({"action": action[:500], "obs": obs[:4000], "reward": reward,
                                   "terminated": terminated, "truncated": truncated})
            if terminated or truncated:
                out.update(terminated=terminated, truncated=truncated, ended=True)
                break
    except CallFailed as failure:
        out["error"] = failure.error.to_wire()
        out["error_turn"] = turn + 1 if turn >= 0 else 0
    out["digest"] = f"{digest & 0xFFFFFFFFFFFFFFFF:016x}"
    out["transcript"] = transcript
    return out
