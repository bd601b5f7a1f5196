"""AIME (the American Invitational Mathematics Examination) as ``spade/aime-<year>-v0``.

Scored as the SPADE reference scores it: the reply's ``\\boxed{}`` answer is compared with
the gold answer by math-verify's ``verify(parse(gold), parse(answer))`` — here spade-gym's
own bounded implementation (:mod:`spade_gym.sandbox.language.mathverify`), which never evaluates
what it reads — falling back to comparing integers, then text. A reply without a
``\\boxed{}`` answer scores 0. The question gets the reference's instruction ("Please reason
step by step, and put your final answer within \\boxed{}.") unless it already asks for a
boxed answer (the reference's own prepared files do).

Rows: a question (``problem``, ``question``, ``prompt`` — text, or chat messages whose user
turns are the question, as the reference's files hold it) and an answer (``answer``,
``label``, ``expected_answer``). Hub sources: HuggingFaceH4/aime_2024, MathArena/aime_2025,
MathArena/aime_2026 (30 problems each). The reference evaluates 2025 and 2026 with 64
samples per problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spade_gym.adapters.benchmarks import BenchmarkEnv, Family
from spade_gym.adapters.datafiles import BenchmarkDataError, DataSpec, HubSource, first_field
from spade_gym.agents.base import extract_boxed
from spade_gym.sandbox.language import mathverify

INSTRUCTION = "Please reason step by step, and put your final answer within \\boxed{}."
QUESTION_FIELDS = ("problem", "question", "prompt", "Problem", "Question")
ANSWER_FIELDS = ("answer", "label", "expected_answer", "Answer", "gold")
ID_FIELDS = ("id", "problem_idx", "ID", "question_id", "idx")


@dataclass(frozen=True)
class AimeProblem:
    id: str
    question: str
    answer: str


def _question_text(value: Any, origin: str, index: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(m, dict) for m in value):  # chat messages
        turns = [str(m.get("content", "")) for m in value if m.get("role", "user") == "user"]
        if turns:
            return "\n\n".join(turns)
    raise BenchmarkDataError(f"{origin}, row {index + 1}: the question is neither text nor chat messages")


def answers_match(gold: str, answer: str | None) -> bool:
    """Whether a boxed ``answer`` is ``gold``: math-verify's comparison, then integers, then text."""
    if answer is None:
        return False
    if mathverify.verify(mathverify.parse("\\boxed{" + gold + "}"), mathverify.parse("\\boxed{" + answer + "}")):
        return True
    try:
        return int(answer.strip()) == int(gold.strip())
    except ValueError:
        return answer.strip() == gold.strip()


class AimeEnv(BenchmarkEnv):
    def parse(self, row: dict, index: int) -> AimeProblem:
        origin = self.rows.origin
        question = _question_text(first_field(row, QUESTION_FIELDS, what="question", origin=origin, index=index),
                                  origin, index)
        answer = first_field(row, ANSWER_FIELDS, what="answer", origin=origin, index=index)
        identifier = next((row[k] for k in ID_FIELDS if row.get(k) is not None), index)
        return AimeProblem(str(identifier), question.strip(), str(answer).strip())

    def pose(self, task: AimeProblem, seed: int) -> str:
        if "\\boxed" in task.question:
            return task.question
        return f"{task.question}\n\n{INSTRUCTION}"

    def score(self, task: AimeProblem, action: str, seed: int) -> tuple[float, dict[str, Any]]:
        answer = extract_boxed(action)
        correct = answers_match(task.answer, answer)
        info: dict[str, Any] = {"answer": answer, "correct": correct}
        if answer is None:
            info["observation"] = "No answer found: put your final answer inside \\boxed{}. Score: 0."
        return (1.0 if correct else 0.0), info

    def reference(self, task: AimeProblem, seed: int) -> str:
        return "\\boxed{" + task.answer + "}"


FAMILY = Family(
    name="aime", skill="AIME", samples=64, env_class=AimeEnv,
    variants={
        "2024": DataSpec("aime-2024", HubSource("HuggingFaceH4/aime_2024")),
        "2025": DataSpec("aime-2025", HubSource("MathArena/aime_2025")),
        "2026": DataSpec("aime-2026", HubSource("MathArena/aime_2026")),
    },
)
AimeEnv.family = FAMILY
