"""Gymnasium integration: SpadeEnv, text spaces, the hint wrapper and privileged access.

Environments here run program text; they know nothing of suites or cards (the
registry reads those and builds environments from verified source).
"""

from spade_gym.env.hint_mode import HintMode, HintValue
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.spade_env import SpadeEnv
from spade_gym.env.wrappers import HintWrapper, PrivilegedInfo, hint_place, privileged, tools, with_hint

__all__ = ["HintMode", "HintValue", "HintWrapper", "PrivilegedInfo", "SpadeEnv", "UnicodeText", "hint_place",
           "privileged", "tools", "with_hint"]
