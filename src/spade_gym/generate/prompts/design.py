"""Design and repair requests: one entry point for both kinds of environment.

A request is the kind's own sections (task, episode design, difficulty, hint and
solution, the contract) around the shared ones (grounding, memory), then the output
format with a worked example. The skill decides the kind: game skills get a game request,
tool-use skills a tool-use request.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from spade_gym.contract import GAME_KIND, TOOL_USE_KIND
from spade_gym.generate.prompts import game, tool_use
from spade_gym.generate.prompts.memory import DesignMemory, render_memory
from spade_gym.generate.prompts.skills import Skill, skill_by_name

#: Recorded on every generated environment's card, so a pool can be traced to the prompt
#: that produced it. Bump the kind's version whenever its wording changes meaningfully.
PROMPT_VERSION = "spade-designer-v1"
TOOL_USE_PROMPT_VERSION = "spade-tool-designer-v1"
PROMPT_VERSIONS = {GAME_KIND: PROMPT_VERSION, TOOL_USE_KIND: TOOL_USE_PROMPT_VERSION}

DIFFICULTIES = ("easy", "medium", "hard")

_KIND_TEXT = {GAME_KIND: game, TOOL_USE_KIND: tool_use}


def build_design_messages(
    skill: str | Skill,
    *,
    multi_turn: bool = False,
    difficulty: str = "medium",
    grounding: str | None = None,
    memory: DesignMemory | None = None,
    rng: random.Random | None = None,
    max_turns: int | None = None,
) -> list[dict]:
    """Chat messages asking the designer for one environment program plus its hint.

    The skill decides the kind of environment (``skill_by_name(skill).kind``); ``multi_turn``
    only applies to games. ``rng`` picks the concept ideas shown (an unseeded generator if
    omitted, so repeated prompts differ); pass a seeded one for reproducible prompts.
    ``max_turns`` defaults to the kind's own default budget.
    """
    skill = skill_by_name(skill)
    if difficulty not in DIFFICULTIES:
        raise ValueError(
            f"unknown difficulty {difficulty!r}; choose one of {', '.join(DIFFICULTIES)}")
    rng = rng or random.Random()
    if skill.kind == TOOL_USE_KIND:
        leading, trailing = tool_use.tool_use_sections(skill, difficulty=difficulty, max_turns=max_turns, rng=rng)
    else:
        leading, trailing = game.game_sections(skill, multi_turn=multi_turn, difficulty=difficulty,
                                               max_turns=max_turns, rng=rng)
    text = _KIND_TEXT[skill.kind]
    sections = list(leading)
    if grounding is not None and grounding.strip():
        sections.append(text.GROUNDING + "\n<document>\n" + grounding.strip() + "\n</document>")
    sections.extend(trailing)
    if memory:
        sections.append(render_memory(memory))
    sections.append(text.FORMAT)
    return [
        {"role": "system", "content": text.SYSTEM},
        {"role": "user", "content": "\n\n".join(sections)},
    ]


def build_repair_messages(
    design_messages: Sequence[dict], completion: str, feedback: str, *, kind: str = GAME_KIND
) -> list[dict]:
    """Continue a design conversation with the validator's verdict on the last attempt.

    The model sees its own previous answer and the exact report (``summary()`` of the
    validation result), which is what lets it fix the named problem instead of starting
    over. Works on a repair conversation too, for a second round of fixes.
    """
    if not design_messages:
        raise ValueError("design_messages is empty; pass the messages the completion answered")
    if not feedback.strip():
        raise ValueError("feedback is empty; pass the validation report of the rejected program")
    request = (
        "Your environment was rejected by automatic validation. The report:\n\n"
        f"{feedback.strip()}\n\n"
        "Fix every problem in the report. Keep the design unless the design itself is the "
        f"problem (for example, {_KIND_TEXT[kind].REPAIR_EXAMPLE}). Reply "
        "with the COMPLETE corrected program, not a diff or a fragment, in one ```python block, "
        "followed by <hint>...</hint>."
    )
    return [dict(m) for m in design_messages] + [
        {"role": "assistant", "content": completion},
        {"role": "user", "content": request},
    ]
