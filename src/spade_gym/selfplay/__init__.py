"""The GRPO self-play loop (TRL). Needs the ``[train]`` extra; imports torch lazily.

    from spade_gym.selfplay import load_preset, run_selfplay
    summary = run_selfplay(load_preset("cpu-tiny"), "runs/demo")
"""

from spade_gym.selfplay.config import PRESETS, SelfPlayConfig, apply_overrides, load_preset
from spade_gym.selfplay.rewards import RewardConfig, designer_reward, episode_outcome, paired_regret, plateau


def run_selfplay(*args, **kwargs):
    """See :func:`spade_gym.selfplay.loop.run_selfplay` (imported here lazily: it pulls in torch)."""
    from spade_gym.selfplay.loop import run_selfplay as run

    return run(*args, **kwargs)


__all__ = [
    "PRESETS", "RewardConfig", "SelfPlayConfig", "apply_overrides", "designer_reward", "episode_outcome",
    "load_preset", "paired_regret", "plateau", "run_selfplay",
]
