"""``novelty``: not a copy, re-skin or family member of an environment in the target suite."""

from __future__ import annotations

from spade_gym.validation.checks import check
from spade_gym.validation.context import Context, Outcome
from spade_gym.validation.fingerprint import fingerprint
from spade_gym.validation.novelty import check_novelty as compare


@check("novelty", order=120)
def check_novelty(ctx: Context) -> Outcome:
    """Not the same code (normalised), nor near-identical code, nor the same behaviour with similar
    code as an environment in the target suite."""
    fp = fingerprint(ctx.source)
    ctx.details["fingerprint"] = fp.exact[:16]
    if ctx.suite is None:
        return Outcome(True, "no target suite given: not compared", {"fingerprint": fp.exact[:16]})
    from spade_gym.registry import Suite

    suite = ctx.suite if isinstance(ctx.suite, Suite) else Suite(ctx.suite)
    verdict = compare(ctx.source, suites=[suite], code_threshold=ctx.config.novelty_threshold,
                      combined_threshold=ctx.config.novelty_combined_threshold,
                      behaviour=ctx.config.novelty_behaviour, exclude_identical=True)
    details = {"fingerprint": fp.exact[:16], **verdict.to_dict()}
    skipped = ""
    if verdict.skipped:
        listed = ", ".join(f"{i} ({r})" for i, r in verdict.skipped[:3])
        skipped = f"; {len(verdict.skipped)} entr(y/ies) could not be compared: {listed}"
        ctx.warnings.append(f"novelty: {len(verdict.skipped)} suite entr(y/ies) could not be compared: {listed}")
    if not verdict.novel:
        return Outcome(False, f"{verdict.reason}, already in suite {suite.path}; design a different game{skipped}",
                       details)
    near = verdict.nearest
    nearest_text = (f" (nearest: {near.env_id}, code similarity {near.code_similarity:.2f}, behaviour "
                    f"{near.behaviour_similarity:.2f})" if near else "")
    return Outcome(True, f"differs from all {verdict.compared} environments in the suite{nearest_text}{skipped}",
                   details)
