"""Design stage of a self-play iteration: sample programs from the trained policy or a served designer."""

from __future__ import annotations

import random

from spade_gym.generate.pipeline import suite_memory
from spade_gym.generate.prompts import build_design_messages
from spade_gym.selfplay.policy import TokenPolicy
from spade_gym.selfplay.records import DesignResult, RolloutStage
from spade_gym.selfplay.warmstart import compact_design_messages


class DesignStage(RolloutStage):
    def _design(self, policy: TokenPolicy, n_groups: int, iteration: int, rng: random.Random, phase, *,
                offset: int = 0):
        """This rank's ``n_groups`` design groups; ``offset`` is the index of its first among the
        iteration's (``designer_groups``, global): the targets rotate over the iteration's groups,
        so the same groups get the same targets on any number of ranks."""
        config = self.config
        designs: list[DesignResult] = []
        samples: list = []
        prompt_ids: list[list[int]] = []
        all_entries = self.seed_entries + self.suite.entries()
        for group in range(n_groups):
            cursor = (iteration - 1) * config.designer_groups + offset + group
            skill, multi_turn = self.targets[cursor % len(self.targets)]
            if multi_turn is None:
                multi_turn = rng.random() < config.multi_turn_ratio
            if config.designer_prompt == "compact":
                messages = compact_design_messages(skill, multi_turn)
            else:
                memory = suite_memory(all_entries, skill, k=config.memory_k, rng=rng)
                messages = build_design_messages(skill, multi_turn=multi_turn, memory=memory, rng=rng)
            ids = policy.chat_ids(messages)
            group_samples = policy.sample([ids] * config.num_generations, max_new_tokens=config.max_program_tokens,
                                          temperature=config.designer_temperature, seed=rng.randrange(2**31))
            phase.advance(len(group_samples))
            prompt_ids.append(ids)
            samples.append(group_samples)
            designs += [DesignResult(skill, multi_turn, policy.decode(s.completion_ids), rank=self.ranks.rank,
                                     index=len(designs) + i) for i, s in enumerate(group_samples)]
        return designs, samples, prompt_ids

    def _design_served(self, n_groups: int, iteration: int, rng: random.Random, phase, *,
                       offset: int = 0) -> list[DesignResult]:
        """Designs from the served model (not trained on: they carry no tokens of the policy)."""
        config = self.config
        backend = self._served_backend()
        designs: list[DesignResult] = []
        all_entries = self.seed_entries + self.suite.entries()
        for group in range(n_groups):
            cursor = (iteration - 1) * config.designer_groups + offset + group
            skill, multi_turn = self.targets[cursor % len(self.targets)]
            if multi_turn is None:
                multi_turn = rng.random() < config.multi_turn_ratio
            # Regret decides the memory: the suite's programs nearest the agent's frontier
            # (by the regret and win rates self-play recorded on their cards) are shown.
            memory = suite_memory(all_entries, skill, k=config.memory_k, rng=rng)
            messages = build_design_messages(skill, multi_turn=multi_turn, memory=memory, rng=rng)
            completions = backend.complete(messages, n=config.num_generations, temperature=config.designer_temperature,
                                           max_tokens=config.max_program_tokens, seed=rng.randrange(2**31))
            phase.advance(len(completions))
            designs += [DesignResult(skill, multi_turn, c.text, rank=self.ranks.rank, index=len(designs) + i)
                        for i, c in enumerate(completions)]
        return designs

    def _served_backend(self):
        if getattr(self, "_backend", None) is None:
            from spade_gym.generate.backends import make_backend

            self._backend = make_backend("openai", model=self.config.designer_model,
                                         base_url=self.config.designer_base_url,
                                         api_key_env=self.config.designer_api_key_env)
        return self._backend
