"""Play a bundled environment: the oracle (privileged solution) and a random agent.

    python examples/play_bundled_env.py [ENV_ID]
"""

import sys

import gymnasium as gym

import spade_gym  # noqa: F401  (registers the bundled suite)
from spade_gym.agents import EpisodeSpec, OracleAgent, RandomAgent, play_episodes

env_id = sys.argv[1] if len(sys.argv) > 1 else "spade/CounterfeitCoinScale-v0"
env = gym.make(env_id, render_mode="ansi")
obs, info = env.reset(seed=3)
print(obs, "\n")
print("privileged hint:", spade_gym.privileged(env).hint(), "\n")
env.close()

specs = [EpisodeSpec(env_id, seed) for seed in range(5)]
for agent in (OracleAgent(), RandomAgent(seed=0)):
    episodes = play_episodes(agent, specs)
    wins = sum(e.won for e in episodes)
    turns = sum(len(e.turns) for e in episodes) / len(episodes)
    print(f"{agent.name:>7}: won {wins}/{len(episodes)}, {turns:.1f} turns per episode")
