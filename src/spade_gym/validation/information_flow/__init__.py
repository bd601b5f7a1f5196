"""Static information flow: do the random choices an answer is made of reach what the agent sees?

No script can tell a sound computed task from a lottery by playing it: "compute 7^123 mod 11"
and "your ticket is 7-123-11; guess a number from 0 to 10" look the same to anything that does
not do the computation. The program text can: in the first, the numbers drawn for the screen are
the numbers the answer is computed from; in the second, the answer is drawn by a call whose
result never reaches a screen. This module reads the program (host side, never running it) and
asks that question of its data flow:

* **sources** are the random choices (each call site of ``randint``, ``choice``, ``shuffle``...,
  on any generator), the ``seed`` given to ``reset`` (a hand-made generator), and the agent's
  action (``step``'s argument, a tool's arguments);
* **what the agent sees** is what ``reset`` returns, what a ``step`` that does not end the episode
  returns (a return whose ``terminated`` or ``truncated`` is a literal ``True`` ends it: the loss
  message that names the answer comes too late), and what the tools of a tool-use program return;
* **the answer** is what ``solution()`` returns.

Values flow through assignments, attributes (by name), containers, calls (program functions and
methods by name, every call site merged), returns, comprehensions, and the branches a value
decides (control flow). Two flows do not count as evidence: the answer's own text formatted into a
message (an echo: ``f"It was {self.answer}"``), and anything that passed through an *equality test
with the action* (``guess == self.answer``, ``word in self.secret``): right-or-wrong feedback
tells an agent only whether it guessed; whether marks or hits carry more is judged on the
program's behaviour (the ``informative`` check plays legal moves).

The analysis over-approximates (flows are merged by attribute name, call sites are merged, a
call it cannot resolve passes every argument on), so it errs towards "reaches": it misses a
lottery that launders its answer through the screen (``answer = draw + 0 * ticket``), never a
flow a sound program has. A program it cannot follow (recursion too deep for the host, more
fixpoint rounds than ``MAX_ROUNDS``) is reported as not analysed.

Modules: ``sources`` (what counts as a source, the kinds of flow, the program's functions),
``program`` (where values go: the fixpoint over statements), ``values`` (what an expression is made of).
"""

from __future__ import annotations

from spade_gym import syntax
from spade_gym.validation.information_flow.program import Analysis
from spade_gym.validation.information_flow.sources import (
    ACTION,
    DRAW,
    DRAWS,
    SEED,
    FlowReport,
    NotAnalysed,
)


def analyse(source: str, env_class: str | None = None, *, tool_use: bool = False) -> FlowReport:
    """The information flow of ``source`` (never executed): see the module docstring."""
    try:
        tree = syntax.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return FlowReport(False, reason="the program does not parse")
    try:
        return Analysis(tree, env_class, tool_use).run()
    except RecursionError:
        return FlowReport(False, reason="the program nests deeper than the analysis follows")
    except NotAnalysed as exc:
        return FlowReport(False, reason=str(exc))
    except Exception as exc:  # noqa: BLE001 - a construct the analysis does not know: no verdict, never a crash
        return FlowReport(False, reason=f"the analysis could not follow the program ({type(exc).__name__})")


__all__ = ["ACTION", "DRAW", "DRAWS", "SEED", "FlowReport", "analyse"]
