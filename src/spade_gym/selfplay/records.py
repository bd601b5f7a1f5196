"""What one self-play iteration carries: the run state saved with checkpoints, and each design's
record, which the rollout's stages fill in as it goes (drawn, admitted, played, rewarded)."""

from __future__ import annotations

from dataclasses import dataclass, field


def samples_file(rank: int) -> str:
    """A checkpoint's file of one rank's pending design samples (:attr:`RunState.pending_samples`)."""
    return f"spade_samples-rank{rank}.json"


@dataclass
class RunState:
    """What the loop carries from one iteration to the next (saved with every checkpoint)."""

    iteration: int = 0
    #: Ids registered up to this checkpoint: on resume, anything else in the suite was
    #: registered by an iteration that never reached its checkpoint, and is rolled back.
    registered: list[str] = field(default_factory=list)
    #: The stats on those ids' cards at this checkpoint (what the design prompts' frontier
    #: memory reads): on resume, cards refreshed by a later iteration get them back.
    card_stats: dict[str, dict] = field(default_factory=dict)
    #: Recent agent outcomes per environment (all ranks), for learning-potential sampling.
    outcomes: dict[str, list[float]] = field(default_factory=dict)
    #: No-hint outcomes per environment of the last ``reward.win_rate_window`` iterations
    #: (all ranks), as [iteration, outcome]: the win rates of the plateau term and the cards.
    plays: dict[str, list[list[float]]] = field(default_factory=dict)
    #: Designs (every rank's) waiting ``reward.designer_reward_delay`` iterations for their
    #: reward and training: what scores them (see :mod:`~spade_gym.selfplay.delayed`).
    pending_designs: list[dict] = field(default_factory=list)
    #: This rank's samples of its pending designs, in their order (token ids and sampling-time
    #: log-probabilities). Kept out of :meth:`to_dict`: each rank checkpoints its own
    #: (``spade_samples-rank<N>.json``), so no rank gathers every rank's tokens.
    pending_samples: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"iteration": self.iteration, "registered": list(self.registered), "card_stats": self.card_stats,
                "outcomes": self.outcomes, "plays": self.plays, "pending_designs": self.pending_designs}

    @classmethod
    def from_dict(cls, data: dict) -> RunState:
        return cls(iteration=int(data["iteration"]), registered=list(data.get("registered", [])),
                   card_stats={k: dict(v) for k, v in data.get("card_stats", {}).items()},
                   outcomes={k: [float(x) for x in v] for k, v in data.get("outcomes", {}).items()},
                   plays={k: [[int(i), float(o)] for i, o in v] for k, v in data.get("plays", {}).items()},
                   pending_designs=[dict(p) for p in data.get("pending_designs", [])])


@dataclass
class DesignResult:
    skill: str
    multi_turn: bool
    text: str
    rank: int = 0
    index: int = 0
    valid: bool = False
    env_id: str | None = None
    failed_check: str | None = None
    failure: str | None = None
    regret: float | None = None
    win_rate: float | None = None
    win_rate_hint: float | None = None
    #: None: dropped (``reward.invalid_designs="drop"``): no loss, no part in any baseline.
    reward: float | None = 0.0
    #: The program overran a reset()/step() deadline in its regret plays (``reward.step_timeout_penalty``).
    step_timeout: bool = False
    #: The designer's advantage when self-play computes it (per-skill centring), else None:
    #: GRPO's per-group normalisation of the rewards applies.
    advantage: float | None = None
    #: A valid program sampled twice in one batch: the copy shares the original's reward
    #: (same program, same reward — anything else is noise in GRPO's advantage) but is not
    #: registered or counted twice.
    duplicate_of: tuple[int, int] | None = None

