"""The validation report: plain data, for people, for the designer model, and for cards."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Longest check message kept on a card (the full report keeps everything).
CARD_MESSAGE_CHARS = 300


@dataclass
class Check:
    """The outcome of one check. ``details`` holds the measured values (rates, seeds...)."""

    name: str
    passed: bool
    message: str
    seconds: float = 0.0
    details: dict[str, Any] | None = None

    @property
    def skipped(self) -> bool:
        """True when an earlier fatal failure kept this check from running."""
        return bool(self.details and self.details.get("skipped"))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "passed": self.passed, "message": self.message,
                                "seconds": round(self.seconds, 6)}
        if self.details:
            data["details"] = self.details
        return data


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ProgramFacts:
    """What a report knows about its program, typed: the findings the checks record in
    :attr:`ValidationReport.details` that its readers (cards, admission, the CLI) act on.

    A view, built from ``details`` on demand, so a report's JSON stays what it was, and a
    report rebuilt from JSON (an executor's worker sent it) reads the same; a value of the
    wrong type reads as unknown (None, or empty), never as a crash in the reader. The rate
    tables stay in ``details``: they are measurements, not facts a reader branches on.
    """

    #: ``"game"`` or ``"tool-use"`` (None: the program did not get that far).
    kind: str | None = None
    #: The environment class (its name); None when none was found.
    class_name: str | None = None
    #: The environment class's docstring, else the module's; ``docstring_read`` says whether the
    #: program check got that far (a None docstring is then known to be absent).
    docstring: str | None = None
    docstring_read: bool = False
    #: The program's turn budget, as validated.
    max_turns: int | None = None
    #: How many probe seeds the checks played.
    seeds: int | None = None
    #: Whether the privileged policy took more than one turn on most seeds.
    multi_turn: bool | None = None
    #: Median turns the privileged policy took to win.
    oracle_turns: float | None = None
    #: The first seed's first observation and hint.
    first_observation: str | None = None
    hint: str | None = None
    #: Difficulty levels that load, are solvable and differ (empty: none, or not checked).
    difficulty_levels: tuple[str, ...] = ()
    #: Per level, what the level-order check measured.
    level_profile: tuple[dict[str, Any], ...] = ()
    #: The code fingerprint (its first 16 hex digits) novelty compared.
    fingerprint: str | None = None
    #: The seed the probe seeds were drawn from.
    run_seed: int | None = None

    @classmethod
    def from_details(cls, details: dict[str, Any]) -> ProgramFacts:
        turns = details.get("oracle_turns")
        multi_turn = details.get("multi_turn")
        levels = details.get("difficulty_levels")
        profile = details.get("level_profile")
        return cls(
            kind=_text(details.get("kind")), class_name=_text(details.get("class_name")),
            docstring=_text(details.get("docstring")), docstring_read="docstring" in details,
            max_turns=_int(details.get("max_turns")),
            seeds=_int(details.get("seeds")), multi_turn=multi_turn if isinstance(multi_turn, bool) else None,
            oracle_turns=float(turns) if isinstance(turns, (int, float)) and not isinstance(turns, bool) else None,
            first_observation=_text(details.get("first_observation")), hint=_text(details.get("hint")),
            difficulty_levels=tuple(str(level) for level in levels) if isinstance(levels, list) else (),
            level_profile=tuple(row for row in profile if isinstance(row, dict)) if isinstance(profile, list) else (),
            fingerprint=_text(details.get("fingerprint")), run_seed=_int(details.get("run_seed")),
        )


@dataclass
class ValidationReport:
    """Everything the validator found out about one program.

    ``valid`` is True only when every enabled check ran and passed: a skipped check
    (after a fatal failure) counts as not passed, so a report is never valid by omission.
    ``details`` carries what the checks recorded (class name, max_turns, multi_turn,
    oracle turns, win-rate tables, difficulty levels, hint), as the JSON report shows it;
    :attr:`facts` is the typed view of it that readers use.
    """

    name: str
    checks: list[Check] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    sha256: str = ""
    seconds: float = 0.0
    #: Findings that do not reject the program (failures on degenerate fuzz inputs, suite
    #: entries the novelty check could not read).
    warnings: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return bool(self.checks) and all(check.passed for check in self.checks)

    @property
    def failures(self) -> list[Check]:
        """Checks that ran and failed (skipped ones excluded)."""
        return [c for c in self.checks if not c.passed and not c.skipped]

    @property
    def first_failure(self) -> Check | None:
        """The first check that ran and failed, in run order (None when valid)."""
        failures = self.failures
        return failures[0] if failures else None

    @property
    def facts(self) -> ProgramFacts:
        """What this report knows about its program (:class:`ProgramFacts`), typed."""
        return ProgramFacts.from_details(self.details)

    @property
    def run_seed(self) -> int | None:
        """The seed the probe seeds were drawn from (pass it as ``ValidationConfig(seed=...)`` to replay)."""
        return self.facts.run_seed

    @property
    def skipped(self) -> list[Check]:
        return [c for c in self.checks if c.skipped]

    def check(self, name: str) -> Check:
        """The check called ``name`` (KeyError if it was not enabled)."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(f"no check named {name!r} in this report")

    def summary(self) -> str:
        """What a person or a designer model needs: the verdict, then each failure, in check order.

        Passed checks are left out (noise for a repair loop); skipped checks are named in
        one line so nobody mistakes them for passes.
        """
        if self.valid:
            text = f"VALID: {self.name} passed all {len(self.checks)} checks."
            if self.warnings:
                text += "\nWarnings:\n" + "\n".join(f"- {w}" for w in self.warnings)
            return text
        failures = self.failures
        lines = [f"INVALID: {self.name} failed {len(failures)} of {len(self.checks)} checks."]
        for number, check in enumerate(failures, 1):
            body = check.message.strip().splitlines() or ["(no message)"]
            lines.append(f"{number}. [{check.name}] {body[0]}")
            lines.extend(f"   {line}" for line in body[1:])
        skipped = self.skipped
        if skipped:
            lines.append(f"Not run because of the failure above: {', '.join(c.name for c in skipped)}.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serializable form of the whole report."""
        return {
            "name": self.name,
            "valid": self.valid,
            "sha256": self.sha256,
            "seconds": round(self.seconds, 6),
            "checks": [c.to_dict() for c in self.checks],
            "details": self.details,
            "warnings": self.warnings,
            "summary": self.summary(),
        }

    def card_summary(self) -> dict[str, Any]:
        """The compact form a card stores: verdict, one line per check, the key measurements."""
        keep = ("oracle_turns", "baseline_win_rates", "multi_turn", "difficulty_levels", "fingerprint",
                "seeds", "run_seed", "shortcut_win_rates", "level_profile", "screen_reveals",
                # the counts and confidence intervals behind the two rate tables, and the rule that read them
                "baseline_win_intervals", "shortcut_win_intervals", "rate_rule",
                # per level, how much the hint lifts the best script (the hint rule)
                "hint_lift")
        return {
            "valid": self.valid,
            "checks": [
                {"name": c.name, "passed": c.passed, "message": _clip(c.message.splitlines()[0] if c.message else "")}
                for c in self.checks
            ],
            **{k: _card_value(k, self.details[k]) for k in keep if k in self.details},
        }


def _card_value(key: str, value: Any) -> Any:
    """The interval tables in a card's compact form: per rate its wins, seeds and interval bounds
    (the trials when they differ from the seeds, and ``cap`` when the seed cap decided)."""
    if not key.endswith("_intervals") or not isinstance(value, dict):
        return value

    def compact(row: Any) -> Any:
        if not isinstance(row, dict) or "wins" not in row:
            return {k: compact(v) for k, v in row.items()} if isinstance(row, dict) else row
        out = {k: row[k] for k in ("wins", "seeds", "low", "high") if k in row}
        if row.get("trials") != row.get("seeds"):
            out["trials"] = row.get("trials")
        if row.get("decided_by") == "cap":
            out["decided_by"] = "cap"
        return out

    return compact(value)


def _clip(text: str) -> str:
    return text if len(text) <= CARD_MESSAGE_CHARS else text[: CARD_MESSAGE_CHARS - 1] + "…"
