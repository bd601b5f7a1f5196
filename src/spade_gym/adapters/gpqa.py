"""GPQA (graduate-level Google-proof Q&A) as ``spade/gpqa-<subset>-v0`` (diamond, main, extended).

Each question has one correct and three incorrect answers. They are shown as choices A-D
in an order drawn from the episode seed (``random.Random("spade-gpqa:<seed>")``): the same seed
gives the same order in any process, and the rounds of an evaluation see the correct
answer under different letters, so a letter prior earns nothing. Scored as the reference
scores it, by the chosen letter, 1.0 if it is the correct answer's: the last ``\\boxed{}``,
else the last "answer is X" / "Answer: X". The reference's offline GPQA suite accepts only a
bare capital in the box (``\\boxed{C}``); its in-loop environment strips LaTeX wrappers and
takes the first A-D letter anywhere in the box (reading ``\\boxed{Both}`` as B). Here the
letter must stand alone, wrappers allowed: ``\\boxed{C}``, ``\\boxed{\\text{C}}``,
``\\boxed{(C)}``, ``\\boxed{C: 2.4}``.

Rows: GPQA's own columns (``Question``, ``Correct Answer``, ``Incorrect Answer 1`` .. ``3``,
``Record ID``), or ``question`` + ``choices`` (four texts) + ``answer`` (the correct one's
letter or 0-based index). Hub source: Idavidrein/gpqa (gated: accept its terms and set
``HF_TOKEN``), configs gpqa_diamond (198 questions), gpqa_main, gpqa_extended. The
reference evaluates Diamond with 8 samples per question.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from spade_gym.adapters.benchmarks import BenchmarkEnv, Family
from spade_gym.adapters.datafiles import BenchmarkDataError, DataSpec, HubSource, first_field
from spade_gym.sandbox.language.mathverify import _last_boxed

LETTERS = "ABCD"
INSTRUCTION = ("Please reason step by step, and put your final answer within \\boxed{}. "
               "Put only the letter of the correct choice in the box, e.g. \\boxed{A}.")
_WRAPPERS = re.compile(r"\\(?:text|textbf|textrm|mathrm|mathbf|mathit|bf|rm)\s*")
_ALONE = re.compile(r"^\(?([A-D])\)?(?:$|[\s.:,)\]-])")
_SAID = re.compile(r"(?:answer is|answer:)\s*\(?([A-D])\b", re.IGNORECASE)


@dataclass(frozen=True)
class GpqaQuestion:
    id: str
    question: str
    correct: str
    incorrect: tuple[str, str, str]


def choice_order(seed: int) -> list[int]:
    """The permutation of (correct, incorrect 1, 2, 3) shown as A-D in episode ``seed``."""
    order = [0, 1, 2, 3]
    random.Random(f"spade-gpqa:{seed}").shuffle(order)
    return order


def chosen_letter(reply: str) -> str | None:
    """The letter a reply chose (see the module docstring), or None."""
    boxed = _last_boxed(reply)
    if boxed is not None:
        text = _WRAPPERS.sub("", boxed).replace("{", "").replace("}", "").strip()
        match = _ALONE.match(text)
        return match.group(1) if match else None
    said = _SAID.findall(reply)
    return said[-1].upper() if said else None


class GpqaEnv(BenchmarkEnv):
    def parse(self, row: dict, index: int) -> GpqaQuestion:
        origin = self.rows.origin
        identifier = str(row.get("Record ID") or row.get("id") or index)
        if "Correct Answer" in row:
            question = first_field(row, ("Question",), what="question", origin=origin, index=index)
            correct = first_field(row, ("Correct Answer",), what="correct answer", origin=origin, index=index)
            incorrect = [first_field(row, (f"Incorrect Answer {i}",), what=f"incorrect answer {i}", origin=origin,
                                     index=index) for i in (1, 2, 3)]
        else:
            question = first_field(row, ("question", "Question", "problem"), what="question", origin=origin,
                                   index=index)
            choices = first_field(row, ("choices", "options"), what="choices", origin=origin, index=index)
            answer = first_field(row, ("answer", "label"), what="answer", origin=origin, index=index)
            if not isinstance(choices, list) or len(choices) != 4:
                raise BenchmarkDataError(f"{origin}, row {index + 1}: choices must be a list of four answers")
            if isinstance(answer, str) and answer.strip().upper() in LETTERS:
                position = LETTERS.index(answer.strip().upper())
            elif isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < 4:
                position = answer
            else:
                raise BenchmarkDataError(f"{origin}, row {index + 1}: answer must be a letter A-D or an index "
                                         f"0-3, got {answer!r}")
            correct = choices[position]
            incorrect = [c for i, c in enumerate(choices) if i != position]
        texts = [str(t).strip() for t in (correct, *incorrect)]
        return GpqaQuestion(identifier, str(question).strip(), texts[0], (texts[1], texts[2], texts[3]))

    def _choices(self, task: GpqaQuestion, seed: int) -> tuple[list[str], str]:
        texts = [task.correct, *task.incorrect]
        order = choice_order(seed)
        return [texts[i] for i in order], LETTERS[order.index(0)]

    def pose(self, task: GpqaQuestion, seed: int) -> str:
        shown, _ = self._choices(task, seed)
        lines = "\n".join(f"{letter}: {text}" for letter, text in zip(LETTERS, shown))
        return f"{task.question}\n\n{lines}\n\n{INSTRUCTION}"

    def score(self, task: GpqaQuestion, action: str, seed: int) -> tuple[float, dict[str, Any]]:
        _, correct = self._choices(task, seed)
        letter = chosen_letter(action)
        info: dict[str, Any] = {"answer": letter, "correct": letter == correct}
        if letter is None:
            info["observation"] = "No choice found: put the letter of your choice inside \\boxed{}. Score: 0."
        return (1.0 if letter == correct else 0.0), info

    def reference(self, task: GpqaQuestion, seed: int) -> str:
        return "\\boxed{" + self._choices(task, seed)[1] + "}"


FAMILY = Family(
    name="gpqa", skill="GPQA", samples=8, env_class=GpqaEnv,
    variants={
        "diamond": DataSpec("gpqa-diamond", HubSource("Idavidrein/gpqa", "gpqa_diamond")),
        "main": DataSpec("gpqa-main", HubSource("Idavidrein/gpqa", "gpqa_main")),
        "extended": DataSpec("gpqa-extended", HubSource("Idavidrein/gpqa", "gpqa_extended")),
    },
)
GpqaEnv.family = FAMILY
