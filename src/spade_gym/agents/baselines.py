"""The validator's shortcut zoo as an agent: ``spade-gym eval --agent baselines``.

Each episode is played by one no-reasoning baseline of the zoo the validator probes its kind
with: a game by :data:`~spade_gym.validation.baselines.zoo.SHORTCUT_BASELINES`, a tool-use
environment (the driver hands its episodes ``tools``, as ``info["tools"]``) by
:data:`~spade_gym.validation.baselines.zoo.TOOL_SHORTCUT_BASELINES`, whose scripts speak
``<tool_call>``/``<answer>`` and read the tool schemas (a ``\\boxed{}`` answer is ignored there).
``--model NAME`` picks one baseline of either zoo (a name the episode's kind has no use for is
a :class:`~spade_gym.errors.ConfigError`); without it the episodes are dealt to their zoo in
turn, by episode.

The baselines see only the observations, plus what a script could learn from *other* episodes
of the same environment, read from those episodes' privileged ``solution()`` as they are
played, never from the episode itself:

* games: the other episodes' answers (``prior``, the shape filter of ``enumeration``, the range
  of ``bisection``) and their answers per turn (``blind_script``), read every turn;
* tool-use: each other episode's ``solution()`` read right after its reset, as the actions that
  play it (``blind_script`` replays the most common per turn), paired turn by turn with what
  that episode showed: its task, and the result of its own call where the calls it sent so far
  were exactly the solution's (the same calls on the same state); results it never got are
  left empty. No episode is played behind the caller's back to fill them in.

So the first episodes of an environment, and episodes played at once, play with little to go
on (the validator's probes, which see every other seed's privileged play first, are stronger).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from spade_gym import toolcalls
from spade_gym.agents.base import ActRequest, AgentReply
from spade_gym.env.wrappers import privileged
from spade_gym.errors import ConfigError
from spade_gym.validation.baselines.base import Transcripts
from spade_gym.validation.baselines.zoo import (
    SHORTCUT_BASELINES,
    TOOL_SHORTCUT_BASELINES,
    Baseline,
    Prior,
    make_baseline,
)

#: Every name ``--model`` accepts: the game zoo, then the tool-use zoo's own.
BASELINES: tuple[str, ...] = tuple(dict.fromkeys(SHORTCUT_BASELINES + TOOL_SHORTCUT_BASELINES))


@dataclass
class _ToolPlay:
    """One tool-use episode as other episodes may learn from it."""

    #: ``solution()`` as read right after the reset, and the actions that play it.
    solution: str
    script: list[str]
    #: What the episode showed: the task, then the observation after each action it sent.
    observations: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)

    def transcript(self) -> tuple[tuple[str, str], ...]:
        """(observation, privileged action) per turn, as the validator's Prior holds them; an
        observation is known only while this episode's own play followed the solution."""
        pairs = []
        for turn, action in enumerate(self.script):
            followed = turn < len(self.observations) and self.sent[:turn] == self.script[:turn]
            pairs.append((self.observations[turn] if followed else "", action))
        return tuple(pairs)


class BaselinesAgent:
    """Plays each episode with one shortcut baseline of its kind's zoo."""

    def __init__(self, baseline: str | None = None, seed: int = 0):
        if baseline is not None and baseline not in BASELINES:
            raise ValueError(f"unknown baseline {baseline!r}; choose one of {', '.join(SHORTCUT_BASELINES)} (games) "
                             f"or {', '.join(TOOL_SHORTCUT_BASELINES)} (tool-use environments)")
        self.baseline = baseline
        self.name = f"baselines-{baseline}" if baseline else "baselines"
        self.seed = seed
        self._baselines: dict[int, Baseline] = {}
        #: env id -> episode id -> answers per turn (privileged, read for *other* episodes only).
        self._answers: dict[str, dict[int, list[str]]] = defaultdict(dict)
        #: env id -> episode id -> a tool-use episode's solution and play (for *other* episodes only).
        self._plays: dict[str, dict[int, _ToolPlay]] = defaultdict(dict)

    def _env_key(self, request: ActRequest) -> str:
        spec = getattr(request.env, "spec", None)
        return getattr(spec, "id", None) or type(request.env).__name__

    def _prior(self, key: str, episode: int) -> Prior:
        others = [answers for other, answers in self._answers[key].items() if other != episode and answers]
        turns = max((len(a) for a in others), default=0)
        return Prior([a[0] for a in others], [[a[t] for a in others if len(a) > t] for t in range(turns)])

    def _tool_prior(self, key: str, episode: int) -> Prior:
        others = [play for other, play in self._plays[key].items() if other != episode]
        turns = max((len(p.script) for p in others), default=0)
        return Prior([p.solution for p in others], [[p.script[t] for p in others if len(p.script) > t]
                                                    for t in range(turns)],
                     Transcripts(p.transcript() for p in others))

    def _record(self, key: str, request: ActRequest) -> None:
        try:
            answer = privileged(request.env).solution()
        except Exception:  # noqa: BLE001 - an env without a usable solution teaches no prior
            return
        self._answers[key].setdefault(request.episode_id, []).append(answer)

    def _record_tool(self, key: str, request: ActRequest) -> None:
        play = self._plays[key].get(request.episode_id)
        if request.turn == 0:
            # the solution as the validator's privileged play reads it: once, right after reset
            try:
                solution = privileged(request.env).solution()
                play = _ToolPlay(solution, toolcalls.solution_actions(solution))
            except Exception:  # noqa: BLE001 - an env without a usable solution teaches no prior
                self._plays[key].pop(request.episode_id, None)
                return
            self._plays[key][request.episode_id] = play
        if play is not None:
            play.observations.append(request.observation)

    def _kind(self, request: ActRequest, key: str) -> str:
        zoo = SHORTCUT_BASELINES if request.tools is None else TOOL_SHORTCUT_BASELINES
        if self.baseline is None:
            return zoo[request.episode_id % len(zoo)]
        if self.baseline not in zoo:
            what = "a game" if request.tools is None else "a tool-use environment"
            raise ConfigError(f"--agent baselines --model {self.baseline}: {key} is {what}, whose baselines are "
                              f"{', '.join(zoo)}")
        return self.baseline

    def act(self, requests: list[ActRequest]) -> list[AgentReply]:
        for request in requests:
            if request.tools is None:
                self._record(self._env_key(request), request)
            else:
                self._record_tool(self._env_key(request), request)
        replies = []
        for request in requests:
            key = self._env_key(request)
            baseline = self._baselines.get(request.episode_id)
            if baseline is None or request.turn == 0:
                prior = self._prior(key, request.episode_id) if request.tools is None else \
                    self._tool_prior(key, request.episode_id)
                baseline = make_baseline({"kind": self._kind(request, key)}, request.episode_id, prior,
                                       run_seed=self.seed)
                baseline.begin(request.observation)
                if request.tools is not None and getattr(baseline, "needs_tools", False):
                    baseline.see_tools(request.tools)  # type: ignore[attr-defined]
                self._baselines[request.episode_id] = baseline
            action = baseline.act(request.observation, request.turn, None)
            if request.tools is None:
                replies.append(AgentReply(action))
                continue
            if baseline.exhausted:
                # a script with nothing left to send ends its episode (truncated), rather than
                # spending a turn on an empty reply's format error
                replies.append(AgentReply("", extra={"stop": True}))
                continue
            play = self._plays[key].get(request.episode_id)
            if play is not None:
                play.sent.append(action)
            replies.append(AgentReply(action))
        return replies

    def close(self) -> None:
        self._baselines.clear()


__all__ = ["BASELINES", "BaselinesAgent"]
