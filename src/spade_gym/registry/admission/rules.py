"""Where the callers of admission differ: :class:`AdmissionRules` and its named presets
('rules', not 'policy': that word names the sandbox's rules, the baselines and the trained model)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from spade_gym.registry.admission.records import Report
from spade_gym.registry.suite import Suite


@dataclass(frozen=True)
class AdmissionSteps:
    """The steps admission takes from the layers above the registry.

    ``validate`` has ``validate_source``'s signature (``source, *, hint, suite, config, name``);
    ``novelty`` has ``check_novelty``'s (a verdict with ``novel`` and ``reason``);
    ``registered_suites`` lists every registered suite; ``config`` is the validator's default
    config; ``parse`` reads a designer's completion (``.code``, ``.hint``; raises
    :class:`DesignerOutputError`), and only callers that admit completions need it.
    """

    validate: Callable[..., Report]
    novelty: Callable[..., Any]
    registered_suites: Callable[[], list[Suite]]
    config: Any
    parse: Callable[[str], Any] | None = None


class Keep(Enum):
    """Where and how rejected programs are kept (in the caller's folder, each with its report)."""

    #: Nothing is kept (import and revalidate print their rejections).
    NOTHING = "nothing"
    #: Every rejected program that was validated: ``<time>_<label>_<class>.py`` + ``.report.json``
    #: (``generate``, in ``rejected/`` next to the suite).
    PROGRAMS = "programs"
    #: Every rejected design, parsed or not, as the designer wrote it: ``<label>.txt`` +
    #: ``.report.json``, up to a cap (self-play, in the run's ``rejected/``).
    DESIGNS = "designs"


class Registration(Enum):
    #: A new entry (or the entry already holding this program).
    ADD = "add"
    #: The ``validation`` record of the entry the submission names, nothing else.
    REFRESH = "refresh"


@dataclass(frozen=True)
class AdmissionRules:
    """Where callers' rules differ, named; everything else is the same for all of them."""

    name: str
    #: Reject a program without a hint (neither given nor a ``hint()`` method).
    require_hint: bool = True
    #: Also reject copies of what any registered suite holds (the validator's novelty check
    #: looks in the target suite only).
    novelty_everywhere: bool = False
    #: A program the suite already holds is admitted as that entry (idempotent), else rejected as a copy.
    present_is_admitted: bool = True
    keep: Keep = Keep.NOTHING
    registration: Registration = Registration.ADD
    #: Overrides of the validation config (``ValidationConfig`` fields), e.g. a cheaper preset.
    validation: Mapping[str, Any] = field(default_factory=dict)

    def replace(self, **changes: Any) -> AdmissionRules:
        return dataclasses.replace(self, **changes)


#: ``spade-gym generate``: designs need a hint; rejected programs kept under ``rejected/``.
GENERATE = AdmissionRules("generate", keep=Keep.PROGRAMS)
#: ``spade-gym import``: reference programs often have no hint; nothing kept (the command prints why).
IMPORT = AdmissionRules("import", require_hint=False)
#: Self-play: a hint (regret needs it), novel against every registered suite, a re-emitted program
#: earns nothing; every rejected design kept. Its callers set ``validation`` to the run's cheaper preset.
SELFPLAY = AdmissionRules("self-play", novelty_everywhere=True, present_is_admitted=False, keep=Keep.DESIGNS)
#: ``spade-gym revalidate``: a registered program's validation record refreshed; its card otherwise kept.
REVALIDATE = AdmissionRules("revalidate", require_hint=False, registration=Registration.REFRESH)
PRESETS = {rules.name: rules for rules in (GENERATE, IMPORT, SELFPLAY, REVALIDATE)}
