"""The GRPO self-play loop (TRL). Needs the ``[train]`` extra; imports torch lazily.

    from spade_gym.selfplay import load_preset, resume_selfplay, start_selfplay
    summary = start_selfplay(load_preset("cpu-tiny"), "runs/demo")
    summary = resume_selfplay("runs/demo", iterations=6)
"""

from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.overrides import apply_overrides
from spade_gym.selfplay.presets import PRESETS, load_preset
from spade_gym.selfplay.rewards import RewardConfig, designer_reward, episode_outcome, paired_regret, plateau


def start_selfplay(*args, **kwargs):
    """See :func:`spade_gym.selfplay.loop.start_selfplay` (imported here lazily: it pulls in torch)."""
    from spade_gym.selfplay.loop import start_selfplay as start

    return start(*args, **kwargs)


def resume_selfplay(*args, **kwargs):
    """See :func:`spade_gym.selfplay.loop.resume_selfplay` (imported here lazily: it pulls in torch)."""
    from spade_gym.selfplay.loop import resume_selfplay as resume

    return resume(*args, **kwargs)

__all__ = [
    "PRESETS", "RewardConfig", "SelfPlayConfig", "apply_overrides", "designer_reward", "episode_outcome",
    "load_preset", "paired_regret", "plateau", "resume_selfplay", "start_selfplay",
]
