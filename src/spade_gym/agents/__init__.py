"""Agents that play environments, and the one episode driver eval and self-play share."""

from spade_gym.agents.base import (
    FIRST_TURN_TEMPLATE,
    ActRequest,
    Agent,
    AgentReply,
    extract_boxed,
    first_message,
    followup_message,
    parse_action,
)
from spade_gym.agents.driver import Episode, EpisodeSpec, Turn, play_episodes
from spade_gym.agents.simple import OracleAgent, RandomAgent

__all__ = [
    "FIRST_TURN_TEMPLATE", "ActRequest", "Agent", "AgentReply", "Episode", "EpisodeSpec", "OracleAgent",
    "RandomAgent", "Turn", "extract_boxed", "first_message", "followup_message", "parse_action", "play_episodes",
]
