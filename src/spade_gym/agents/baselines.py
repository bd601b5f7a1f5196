"""The validator's shortcut zoo as an agent: ``spade-gym eval --agent baselines``.

Each episode is played by one no-reasoning baseline of
:data:`~spade_gym.validation.policies.SHORTCUT_BASELINES` (``--model NAME`` picks one;
without it the episodes are dealt to the five in turn, by episode). The baselines see only
the observations, plus what a script could learn from *other* episodes of the same
environment: their answers (``prior``, the shape filter of ``enumeration``, the range of
``bisection``) and the answers per turn (``blind_script``). Those are read from the other
episodes' privileged ``solution()`` as they are played, never from the episode itself, so
the first episodes of an environment play with little to go on (the validator's probes,
which see every other seed first, are stronger).
"""

from __future__ import annotations

from collections import defaultdict

from spade_gym.agents.base import ActRequest, AgentReply
from spade_gym.env.wrappers import privileged
from spade_gym.validation.policies import SHORTCUT_BASELINES, Policy, Prior, make_policy


class BaselinesAgent:
    """Plays each episode with one shortcut baseline."""

    def __init__(self, baseline: str | None = None, seed: int = 0):
        if baseline is not None and baseline not in SHORTCUT_BASELINES:
            raise ValueError(f"unknown baseline {baseline!r}; choose one of {', '.join(SHORTCUT_BASELINES)}")
        self.baseline = baseline
        self.name = f"baselines-{baseline}" if baseline else "baselines"
        self.seed = seed
        self._policies: dict[int, Policy] = {}
        self._episode_env: dict[int, str] = {}
        #: env id -> episode id -> answers per turn (privileged, read for *other* episodes only).
        self._answers: dict[str, dict[int, list[str]]] = defaultdict(dict)

    def _env_key(self, request: ActRequest) -> str:
        spec = getattr(request.env, "spec", None)
        return getattr(spec, "id", None) or type(request.env).__name__

    def _prior(self, key: str, episode: int) -> Prior:
        others = [answers for other, answers in self._answers[key].items() if other != episode and answers]
        turns = max((len(a) for a in others), default=0)
        return Prior([a[0] for a in others], [[a[t] for a in others if len(a) > t] for t in range(turns)])

    def _record(self, key: str, request: ActRequest) -> None:
        try:
            answer = privileged(request.env).solution()
        except Exception:  # noqa: BLE001 - an env without a usable solution teaches no prior
            return
        self._answers[key].setdefault(request.episode_id, []).append(answer)

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        for request in requests:
            self._record(self._env_key(request), request)
        replies = []
        for request in requests:
            key = self._env_key(request)
            policy = self._policies.get(request.episode_id)
            if policy is None or request.turn == 0:
                kind = self.baseline or SHORTCUT_BASELINES[request.episode_id % len(SHORTCUT_BASELINES)]
                policy = make_policy({"kind": kind}, request.episode_id, self._prior(key, request.episode_id),
                                     run_seed=self.seed)
                policy.begin(request.observation)
                self._policies[request.episode_id] = policy
            replies.append(AgentReply(policy.act(request.observation, request.turn, None)))
        return replies

    def close(self) -> None:
        self._policies.clear()


__all__ = ["BaselinesAgent"]
