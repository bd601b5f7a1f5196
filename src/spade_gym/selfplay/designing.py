"""Design stage of a self-play iteration: sample programs from the trained policy or a served designer.

Which targets (skill, single/multi-turn) an iteration's design groups take: with
``design_skills=0`` they rotate over every target, one group after another across
iterations; with ``design_skills=s`` each design round draws ``s`` targets afresh (the same
on every rank: the draw's stream is the run's seed and the round) and its groups take
them in turn. Only iterations ``config.designs_at`` designs at all (``design_every``).

With ``self_hint`` the policy writes each design's hint in a second generation, prompted
with the parsed program, at ``self_hint_temperature``; the design's text is then its
program and that hint (the hint is not trained on: it is a sample at another temperature).
"""

from __future__ import annotations

import random
import re

from spade_gym.errors import DesignerOutputError
from spade_gym.generate.designer_output import parse_designer_output
from spade_gym.generate.pipeline import suite_memory
from spade_gym.generate.prompts import build_design_messages
from spade_gym.selfplay.policy import TokenPolicy, visible_reply
from spade_gym.selfplay.records import DesignResult, RolloutStage
from spade_gym.selfplay.warmstart import compact_design_messages

_HINT_TAGS = re.compile(r"</?hint>", re.IGNORECASE)
_WRITTEN_HINT = re.compile(r"<hint>(.*?)(?:</hint>|\Z)", re.DOTALL | re.IGNORECASE)

#: The self-hint request. The player sees only observations; the hint may guide, never answer.
SELF_HINT_PROMPT = (
    "Below is the program of a text environment you designed. A player will see only its "
    "observations, never the code. Write the hint the player gets with its first observation: "
    "the key insight or strategy for solving this kind of task, and the answer format it expects. "
    "Speak only of what the player can see; do not give the answer or any value read from the code. "
    "At most three sentences. Reply with the hint inside <hint>...</hint>.\n\n```python\n{code}\n```"
)
SELF_HINT_PROMPT_TOOLS = (
    "Below is the program of a tool-use environment you designed. An agent will see only the user's "
    "instructions and the tool results, never the code. Write the hint the agent gets with its first "
    "observation: which kinds of tools to use in which order, and to discover every argument with the "
    "tools rather than assume it. Name no concrete value (ids, names, amounts, paths) from the code. "
    "At most three sentences. Reply with the hint inside <hint>...</hint>.\n\n```python\n{code}\n```"
)


class DesignStage(RolloutStage):
    def _design_target(self, iteration: int, index: int) -> tuple[str, bool | None]:
        """The (skill, multi-turn) target of design group ``index`` (among the iteration's, global)."""
        config = self.config
        design_round = (iteration - 1) // config.design_every
        if config.design_skills:
            # One draw per round, from the run's seed alone: every rank draws the same subset.
            draw = random.Random(f"design-skills:{config.seed}:{design_round}")
            targets = list(dict.fromkeys(self.targets))
            subset = draw.sample(targets, min(config.design_skills, len(targets)))
            return subset[index % len(subset)]
        return self.targets[(design_round * config.designer_groups + index) % len(self.targets)]

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
            skill, multi_turn = self._design_target(iteration, offset + group)
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
        if config.self_hint and designs:
            self._write_hints(policy, designs, rng)
        return designs, samples, prompt_ids

    def _design_served(self, n_groups: int, iteration: int, rng: random.Random, phase, *,
                       offset: int = 0) -> list[DesignResult]:
        """Designs from the served model (not trained on: they carry no tokens of the policy)."""
        config = self.config
        backend = self._served_backend()
        designs: list[DesignResult] = []
        all_entries = self.seed_entries + self.suite.entries()
        for group in range(n_groups):
            skill, multi_turn = self._design_target(iteration, offset + group)
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

    def _write_hints(self, policy: TokenPolicy, designs: list[DesignResult], rng: random.Random) -> None:
        """Self-hint: the policy writes each parsed program's hint (one call, every design of this
        rank; a design that does not parse keeps its text, and admission rejects it)."""
        from spade_gym.contract import TOOL_USE_KIND, program_kind

        config = self.config
        todo = []
        for design in designs:
            try:
                code = parse_designer_output(design.text).code
            except DesignerOutputError:
                continue
            template = SELF_HINT_PROMPT_TOOLS if program_kind(code) == TOOL_USE_KIND else SELF_HINT_PROMPT
            todo.append((design, code, policy.chat_ids([{"role": "user", "content": template.format(code=code)}])))
        if not todo:
            return
        written = policy.sample([ids for *_, ids in todo], max_new_tokens=config.self_hint_max_tokens,
                                temperature=config.self_hint_temperature, seed=rng.randrange(2**31))
        for (design, code, _), sample in zip(todo, written):
            # The program as designed and the hint as written (an empty hint stays empty: no hint).
            hint = written_hint(policy.decode(sample.completion_ids))
            design.text = f"```python\n{code.rstrip()}\n```\n<hint>{hint}</hint>\n"


def written_hint(text: str) -> str:
    """The hint of a self-hint reply: its last ``<hint>`` block, else its visible text; tags and
    fences removed, so the rebuilt design parses to exactly the program and this hint. An empty
    hint stays empty (admission rejects the design for having none)."""
    text = visible_reply(text)
    blocks = _WRITTEN_HINT.findall(text)
    hint = blocks[-1] if blocks else text
    return " ".join(_HINT_TAGS.sub(" ", hint).replace("```", " ").split())
