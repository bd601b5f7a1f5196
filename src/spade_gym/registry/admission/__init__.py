"""Admission: the one way a program enters a suite (``generate``, ``import``, ``revalidate``, self-play).

Every caller runs the same three steps, and differs from the others only by its
:class:`AdmissionRules` (named presets: :data:`GENERATE`, :data:`IMPORT`, :data:`SELFPLAY`,
:data:`REVALIDATE`):

``prepare``
    the designer's completion parsed (or the program text taken as is), the kind checked;
    a program the suite already holds ends there (admitted as that entry, or turned away as a
    copy, as the rules say), without being validated again.
``validate``
    the expensive step, and a pure one: a :class:`ValidationUnit` (program text, hint, a
    validation config, the suite's path; plain, picklable data) in, a report out. It may run
    in a pool here or on another machine; nothing else of admission has to.
``register`` (on the driver, after ``judge``)
    the caller's rules on the report (a hint, novelty against every registered suite), the
    card (one description function, :func:`~spade_gym.registry.card.describe`), then, under
    the suite's lock, a last look for a copy registered meanwhile and the atomic write of
    :meth:`Suite.add` (or, to refresh, of the validation record). Rejected programs are kept
    with their reports where the rules say.

The validator lives a layer above the registry (it reads suites), so admission takes the
steps it cannot import as :class:`AdmissionSteps`, which the layers above build from
``validate_source``, ``check_novelty`` and ``parse_designer_output``.
"""

from spade_gym.registry.admission.admit import NO_HINT, Admission, admit
from spade_gym.registry.admission.records import (
    Admitted,
    Candidate,
    Form,
    Gate,
    Outcome,
    Prepared,
    Rejected,
    Report,
    Submission,
    ValidationUnit,
)
from spade_gym.registry.admission.rules import (
    GENERATE,
    IMPORT,
    PRESETS,
    REVALIDATE,
    SELFPLAY,
    AdmissionRules,
    AdmissionSteps,
    Keep,
    Registration,
)

__all__ = [
    "GENERATE", "IMPORT", "NO_HINT", "PRESETS", "REVALIDATE", "SELFPLAY", "Admission", "AdmissionRules",
    "AdmissionSteps", "Admitted", "Candidate", "Form", "Keep", "Outcome", "Prepared", "Registration", "Rejected",
    "Report", "Gate", "Submission", "ValidationUnit", "admit",
]
