"""Prompts for the Environment Designer, one job per module.

* :mod:`~spade_gym.generate.prompts.skills`: the skill catalogue (nine game skills, six
  tool-use skills) with concept ideas;
* :mod:`~spade_gym.generate.prompts.corpus`: grounding documents, one drawn per design;
* :mod:`~spade_gym.generate.prompts.memory`: which earlier environments the designer is shown
  (the agent's frontier band is defined there, once);
* :mod:`~spade_gym.generate.prompts.game` and :mod:`~spade_gym.generate.prompts.tool_use`: the
  prompt text of each kind of environment;
* :mod:`~spade_gym.generate.prompts.design`: design and repair requests.

Nothing here imports heavy dependencies; building a prompt is pure string work.
"""

from spade_gym.generate.prompts.corpus import GroundingCorpus
from spade_gym.generate.prompts.design import (
    DIFFICULTIES,
    PROMPT_VERSION,
    PROMPT_VERSIONS,
    TOOL_USE_PROMPT_VERSION,
    build_design_messages,
    build_repair_messages,
)
from spade_gym.generate.prompts.game import IDEAS_PER_PROMPT, MULTI_TURN_MAX_TURNS
from spade_gym.generate.prompts.memory import FRONTIER, SNIPPET_CHARS, TOO_EASY, TOO_HARD, DesignMemory, MemoryEntry
from spade_gym.generate.prompts.skills import SKILLS, TOOL_USE_SKILLS, Skill, skill_by_name, skills_for
from spade_gym.generate.prompts.tool_use import TOOL_USE_MAX_TURNS

__all__ = [
    "DIFFICULTIES", "FRONTIER", "IDEAS_PER_PROMPT", "MULTI_TURN_MAX_TURNS", "PROMPT_VERSION", "PROMPT_VERSIONS",
    "SKILLS", "SNIPPET_CHARS", "TOOL_USE_MAX_TURNS", "TOOL_USE_PROMPT_VERSION", "TOOL_USE_SKILLS", "TOO_EASY",
    "TOO_HARD", "DesignMemory", "GroundingCorpus", "MemoryEntry", "Skill", "build_design_messages",
    "build_repair_messages", "skill_by_name", "skills_for",
]
