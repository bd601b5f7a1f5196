"""Environment generation: designer prompts and the backends that answer them.

Importing this package is cheap: httpx, torch and transformers are loaded only when a
backend that needs them is created (or a tiny model is built).
"""

from spade_gym.generate.backends import (
    BackendError,
    Completion,
    DesignerBackend,
    EndpointUnreachable,
    OpenAIBackend,
    ReplayBackend,
    TransformersBackend,
    make_backend,
)
from spade_gym.generate.designer_output import DesignerOutput, parse_designer_output
from spade_gym.generate.prompts import (
    PROMPT_VERSION,
    SKILLS,
    TOOL_USE_SKILLS,
    DesignMemory,
    GroundingCorpus,
    MemoryEntry,
    Skill,
    build_design_messages,
    build_repair_messages,
    skill_by_name,
    skills_for,
)
from spade_gym.generate.tiny_model import build_tiny_model

__all__ = [
    "PROMPT_VERSION",
    "SKILLS",
    "TOOL_USE_SKILLS",
    "BackendError",
    "EndpointUnreachable",
    "DesignerOutput",
    "Completion",
    "DesignMemory",
    "DesignerBackend",
    "GroundingCorpus",
    "MemoryEntry",
    "OpenAIBackend",
    "ReplayBackend",
    "Skill",
    "TransformersBackend",
    "build_design_messages",
    "build_repair_messages",
    "build_tiny_model",
    "make_backend",
    "parse_designer_output",
    "skill_by_name",
    "skills_for",
]
