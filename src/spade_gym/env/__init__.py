"""Gymnasium integration: SpadeEnv, text spaces, the hint wrapper and privileged access."""

from spade_gym.env.spaces import UnicodeText
from spade_gym.env.spade_env import SpadeEnv
from spade_gym.env.wrappers import HintWrapper, PrivilegedInfo, make_env, privileged, tools

__all__ = ["HintWrapper", "PrivilegedInfo", "SpadeEnv", "UnicodeText", "make_env", "privileged", "tools"]
