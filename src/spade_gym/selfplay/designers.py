"""Who designs a self-play iteration's programs: the trained policy, or a served model.

``config.designer`` picks one, once (:func:`make_designer`); the rollout then asks it what
differs between the two and nothing else: how a group's programs are drawn
(:meth:`Designer.design`), whether the designer trains on them (:attr:`Designer.trains`), and
the backend its programs' cards record (:attr:`Designer.label`).

With ``self_hint`` the policy writes each design's hint in a second generation, prompted
with the parsed program, at ``self_hint_temperature``; the design's text is then its
program and that hint (the hint is not trained on: it is a sample at another temperature).
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from spade_gym.errors import DesignerOutputError
from spade_gym.generate.designer_output import parse_designer_output
from spade_gym.selfplay.config import SelfPlayConfig
from spade_gym.selfplay.policy import TokenPolicy, visible_reply
from spade_gym.selfplay.records import DesignResult

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


@dataclass
class DesignGroup:
    """One design prompt's ``num_generations`` programs."""

    texts: list[str]
    #: The policy's samples of them (token ids, sampling-time log-probabilities), to train on;
    #: empty when the designer does not train.
    samples: list = field(default_factory=list)
    #: The prompt's token ids (None when the designer does not train).
    prompt_ids: list[int] | None = None


class Designer(ABC):
    """What designs an iteration's programs (one per run, :func:`make_designer`)."""

    #: The backend recorded on the programs' cards.
    label: str
    #: The designer is the trained policy: its design samples are in the batch.
    trains: bool
    #: Design prompts may be the compact ones (``designer_prompt``).
    compact_prompts: bool

    def __init__(self, config: SelfPlayConfig):
        self.config = config

    @abstractmethod
    def model_name(self, trainer) -> str:
        """The designer model, as the cards' provenance names it."""

    @abstractmethod
    def design(self, messages: list[dict], policy: TokenPolicy, rng: random.Random) -> DesignGroup:
        """``num_generations`` programs for one design prompt (one seed drawn from ``rng``)."""

    def finish(self, designs: list[DesignResult], policy: TokenPolicy, rng: random.Random) -> None:
        """After a round's designs are drawn (this rank's): nothing, unless the designer adds to them."""
        return None


class PolicyDesigner(Designer):
    """SPADE: the trained policy designs, through TRL's generation path, and learns from its designs."""

    label = "self-play"
    trains = True

    def __init__(self, config: SelfPlayConfig):
        super().__init__(config)
        self.compact_prompts = config.designer_prompt == "compact"

    def model_name(self, trainer) -> str:
        return str(getattr(trainer.model, "name_or_path", "") or self.config.model)

    def design(self, messages: list[dict], policy: TokenPolicy, rng: random.Random) -> DesignGroup:
        config = self.config
        ids = policy.chat_ids(messages)
        samples = policy.sample([ids] * config.num_generations, max_new_tokens=config.max_program_tokens,
                                temperature=config.designer_temperature, seed=rng.randrange(2**31))
        return DesignGroup([policy.decode(s.completion_ids) for s in samples], samples, ids)

    def finish(self, designs: list[DesignResult], policy: TokenPolicy, rng: random.Random) -> None:
        if self.config.self_hint and designs:
            self._write_hints(policy, designs, rng)

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


class ServedDesigner(Designer):
    """An OpenAI-compatible endpoint designs (``designer="openai"``); only the agent trains."""

    label = "openai"
    trains = False
    #: The served model gets the full prompt, memory included, whatever ``designer_prompt`` says.
    compact_prompts = False

    def __init__(self, config: SelfPlayConfig):
        super().__init__(config)
        self._backend: Any = None

    def model_name(self, trainer) -> str:
        return str(self.config.designer_model)

    def design(self, messages: list[dict], policy: TokenPolicy, rng: random.Random) -> DesignGroup:
        config = self.config
        completions = self.backend.complete(messages, n=config.num_generations,
                                            temperature=config.designer_temperature,
                                            max_tokens=config.max_program_tokens, seed=rng.randrange(2**31))
        return DesignGroup([c.text for c in completions])

    @property
    def backend(self):
        """The endpoint's client, made on first use (a run that never designs never connects)."""
        if self._backend is None:
            from spade_gym.generate.backends import make_backend

            self._backend = make_backend("openai", model=self.config.designer_model,
                                         base_url=self.config.designer_base_url,
                                         api_key_env=self.config.designer_api_key_env)
        return self._backend


def make_designer(config: SelfPlayConfig) -> Designer:
    """The run's designer, from ``config.designer`` ("policy" or "openai")."""
    return ServedDesigner(config) if config.designer == "openai" else PolicyDesigner(config)


def written_hint(text: str) -> str:
    """The hint of a self-hint reply: its last ``<hint>`` block, else its visible text; tags and
    fences removed, so the rebuilt design parses to exactly the program and this hint. An empty
    hint stays empty (admission rejects the design for having none)."""
    text = visible_reply(text)
    blocks = _WRITTEN_HINT.findall(text)
    hint = blocks[-1] if blocks else text
    return " ".join(_HINT_TAGS.sub(" ", hint).replace("```", " ").split())
