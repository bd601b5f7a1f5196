"""Adapters that expose outside benchmarks as spade-gym environments.

Importing this package is cheap: each adapter imports its benchmark library only when
it is used.
"""

from spade_gym.adapters.benchmarks import register_benchmarks
from spade_gym.adapters.reasoning_gym import ReasoningGymEnv, ReasoningGymUnavailable, register_reasoning_gym
from spade_gym.adapters.tau2 import register_tau2

__all__ = ["ReasoningGymEnv", "ReasoningGymUnavailable", "register_benchmarks", "register_reasoning_gym",
           "register_tau2"]
