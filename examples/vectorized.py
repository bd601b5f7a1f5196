"""Step eight copies of an environment at once (the batched vector env), with random text actions.

    python examples/vectorized.py
"""

import gymnasium as gym

import spade_gym  # noqa: F401

envs = gym.make_vec("spade/LetterFeedbackHunt-v0", num_envs=8)  # default mode: the batched SpadeVectorEnv
obs, info = envs.reset(seed=0)
for _ in range(5):
    actions = envs.action_space.sample()  # random Unicode text, mostly \boxed{...}
    obs, rewards, terminated, truncated, info = envs.step(actions)
print(type(envs.unwrapped).__name__, "| rewards:", rewards.tolist(), "| turn:", info["turn"].tolist())
print("first observation:", obs[0][:120].replace("\n", " "), "...")
envs.close()
