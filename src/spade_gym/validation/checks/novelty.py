"""``novelty``: not a copy, re-skin or family member of an environment in the target suite."""

from __future__ import annotations

from spade_gym.validation.checks import check
from spade_gym.validation.context import Context, Outcome
from spade_gym.validation.fingerprint import fingerprint
from spade_gym.validation.novelty import check_novelty as compare


@check("novelty", order=120)
def check_novelty(ctx: Context) -> Outcome:
    """Not the same code (normalised, dead code dropped), nor near-identical code, nor the same
    transcripts, nor the same behaviour with similar code as an environment in the target
    suite (default: every registered suite)."""
    fp = fingerprint(ctx.source)
    ctx.details["fingerprint"] = fp.exact[:16]
    from spade_gym.registry import Suite
    from spade_gym.validation.novelty import registered_suites

    if ctx.suite is None:
        # No target suite: a copy of a registered environment (the bundled suite,
        # $SPADE_GYM_SUITES) is not new either.
        suites = registered_suites()
        where = "a registered suite"
    else:
        suite = ctx.suite if isinstance(ctx.suite, Suite) else Suite(ctx.suite)
        suites, where = [suite], f"suite {suite.path}"
    verdict = compare(ctx.source, suites=suites, code_threshold=ctx.config.novelty_threshold,
                      combined_threshold=ctx.config.novelty_combined_threshold,
                      behaviour=ctx.config.novelty_behaviour, exclude_identical=True)
    details = {"fingerprint": fp.exact[:16], **verdict.to_dict()}
    skipped = ""
    if verdict.skipped:
        listed = ", ".join(f"{i} ({r})" for i, r in verdict.skipped[:3])
        skipped = f"; {len(verdict.skipped)} entr(y/ies) could not be compared: {listed}"
        ctx.warnings.append(f"novelty: {len(verdict.skipped)} suite entr(y/ies) could not be compared: {listed}")
    if not verdict.novel:
        return Outcome(False, f"{verdict.reason}, already in {where}; design a different game{skipped}",
                       details)
    near = verdict.nearest
    nearest_text = (f" (nearest: {near.env_id}, code similarity {near.code_similarity:.2f}, behaviour "
                    f"{near.behaviour_similarity:.2f})" if near else "")
    return Outcome(True, f"differs from all {verdict.compared} environments in "
                         f"{'the suite' if ctx.suite is not None else 'the registered suites'}{nearest_text}{skipped}",
                   details)
