"""``informative``'s evidence: does what the agent sees predict the answer? (see ``docs/validation.md``,
"Evidence: what the agent sees predicts the answer").

Behavioural evidence, here: a zoo script that reads the screen and the feedback beats the scripts
that do not, on the same seeds; the feedback to legal moves sorts them differently on different
seeds. The program's own data flow is :mod:`spade_gym.validation.information_flow`.
"""

from __future__ import annotations

import re
from math import comb
from typing import TYPE_CHECKING, Any

from spade_gym.validation.baselines.zoo import FixedActions, make_baseline
from spade_gym.validation.episodes import Job
from spade_gym.validation.messages import boundary_pattern

if TYPE_CHECKING:
    from spade_gym.validation.context import Context, LevelProbes

#: Fixed probe answers, the same for every seed and every program (no seed's answer in them).
FIXED_PROBES = ("\\boxed{0}", "\\boxed{1}", "\\boxed{50}", "\\boxed{500}", "\\boxed{a}", "\\boxed{yes}",
                "\\boxed{north}", "\\boxed{1 2 3}")
#: Legal moves played as first moves on every probed seed: the first moves that won other seeds.
MAX_LEGAL_MOVES = 16


def sign_test(wins: int, losses: int) -> float:
    """P(at least ``wins`` of ``wins + losses`` fair coin flips): the one-sided sign test."""
    trials = wins + losses
    if trials == 0:
        return 1.0
    return sum(comb(trials, k) for k in range(wins, trials + 1)) / 2 ** trials


def _main_level(ctx: Context, levels: list[tuple[str | None, LevelProbes]]) -> tuple[str | None, LevelProbes] | None:
    """The level the zoo played on the main worker (else the first one probed)."""
    if not levels:
        return None
    return next(((level, p) for level, p in levels if ctx.is_main_level(level)), levels[0])


def readers_against_chance(ctx: Context, levels: list[tuple[str | None, LevelProbes]]) -> dict[str, Any] | None:
    """The zoo's scripts that read the screen and the feedback, against those that do not (``prior``:
    other seeds' answers, most frequent first; ``blind_script``: other seeds' moves) on the same seeds:
    the chance an agent has when what it sees tells it nothing. Per reader, the seeds it won that
    every chance script lost, and the reverse, and the one-sided sign test on them. Returns the
    strongest reader, or None when the zoo has no reader or no chance script. ``levels``: the levels
    the zoo played, with their probes."""
    found = _main_level(ctx, levels)
    if found is None:
        return None
    level, probes = found
    zoo = list(probes.shortcuts)
    readers = [b for b in zoo if make_baseline({"kind": b}, 0).reads_observation]
    chance = [b for b in zoo if b not in readers]
    if not readers or not chance:
        return None
    name = "default" if level is None else level
    intervals = ctx.details.get("shortcut_win_intervals", {}).get(name, {})

    def played_seeds(name: str) -> int:
        interval = intervals.get(name) or {}
        # a rate confirmed on held-out seeds counted those, not the head of the stream played here
        head = 0 if interval.get("held_out") else int(interval.get("seeds", 0))
        return max(head, len(probes.shortcuts[name]))

    best: dict[str, Any] | None = None
    for reader in readers:
        # on the seeds the shortcut check already played the reader and every chance script on:
        # this check plays nothing more
        count = min(played_seeds(name) for name in [reader, *chance])
        played = ctx.level_samples({(level, name): count for name in [reader, *chance]})
        won = {name: {e.seed: e.won for e in played[(level, name)]} for name in [reader, *chance]}
        seeds = [s for s in won[reader] if all(s in won[c] for c in chance)]
        lucky = [any(won[c][s] for c in chance) for s in seeds]
        ahead = sum(won[reader][s] and not hit for s, hit in zip(seeds, lucky))
        behind = sum(hit and not won[reader][s] for s, hit in zip(seeds, lucky))
        found_here = {"baseline": reader, "wins": sum(won[reader][s] for s in seeds), "chance_wins": sum(lucky),
                      "seeds": len(seeds), "ahead": ahead, "behind": behind, "p_value": sign_test(ahead, behind),
                      "level": name}
        if best is None or found_here["p_value"] < best["p_value"]:
            best = found_here
    return best


def unbox(action: str) -> str:
    """What an action boxes (``\\boxed{x}`` -> ``x``), else the action."""
    match = re.search(r"\\boxed\{(.*)\}", action, re.S)
    return match.group(1).strip() if match else action.strip()


def _response(step: Any, action: str) -> tuple | None:
    """What a probe's step told the agent, with the probe's own text masked (an echo of the move is
    not news about the task); None when the step ended the episode (its news comes too late)."""
    if step is None or step.terminated or step.truncated:
        return None
    text = step.obs
    for echo in {action.strip(), unbox(action)}:
        if echo:
            text = boundary_pattern(echo).sub("<move>", text)
    return text, round(step.reward, 6)


def _partition(responses: dict, keys: list) -> tuple:
    """Which of ``keys`` got the same response: a per-seed decoration (a ticket number in every
    reply) leaves it unchanged, feedback that depends on the task does not."""
    classes: dict = {}
    return tuple(classes.setdefault(responses[key], len(classes)) for key in keys)


def legal_move_feedback(ctx: Context, seeds: list[int], answers: dict[int, str | None]) -> dict[str, Any]:
    """Plays, as first moves on every probed seed, the first moves that won other seeds (legal
    moves of the right shape, whatever the game's format) and the fixed probes, and a fixed sequence
    of probes as one episode; then asks whether the feedback *sorts* the moves differently on
    different seeds. Under the null of uninformative feedback (the same verdict for every wrong move,
    decorated however the seed likes) every seed sorts them alike; the program is deterministic, so
    one pair of seeds that sorts them differently refutes it."""
    moves: list[str] = []
    for episode in ctx.oracle():
        if episode.error is None and episode.actions and episode.actions[0] not in moves:
            moves.append(episode.actions[0])
    moves = moves[:MAX_LEGAL_MOVES]
    numbers = sorted(float(s) for s in answers.values() if s and s.strip().lstrip("-").isdigit())
    fixed = list(FIXED_PROBES)
    if numbers:  # the middle of the answers' range: a probe that any higher/lower feedback answers
        fixed.insert(0, f"\\boxed{{{int((numbers[0] + numbers[-1]) / 2)}}}")
    firsts = moves + [p for p in fixed if p not in moves]
    jobs = [Job(seed, f"move:{i}", FixedActions(None, [move]), first_solution=False)
            for seed in seeds for i, move in enumerate(firsts)]
    played = ctx.play(ctx.main, jobs, max_steps=1, what="legal moves")
    sequence = ctx.play(ctx.main, [Job(seed, "fixed", FixedActions(None, fixed), first_solution=False)
                                   for seed in seeds], max_steps=ctx.turn_limit, what="fixed probes")
    responses: dict[int, dict] = {seed: {} for seed in seeds}
    for episode in played:
        move = firsts[int(episode.baseline.split(":")[1])]
        responses[episode.seed][("move", move)] = _response(episode.steps[0] if episode.steps else None, move)
    for episode in sequence:
        for turn, step in enumerate(episode.steps):
            responses[episode.seed][("fixed", turn)] = _response(step, step.action)
    first_action = {e.seed: e.actions[0] for e in ctx.oracle() if e.seed in responses and e.actions}
    compared = differing = 0
    example: dict[str, Any] | None = None
    for i, a in enumerate(seeds):
        for b in seeds[i + 1:]:
            if answers.get(a) == answers.get(b):
                continue
            own = {("move", first_action.get(a)), ("move", first_action.get(b))}
            keys = [k for k in responses[a] if k in responses[b] and k not in own
                    and responses[a][k] is not None and responses[b][k] is not None]
            if len(keys) < 2:
                continue
            compared += 1
            pa, pb = _partition(responses[a], keys), _partition(responses[b], keys)
            if pa != pb:
                differing += 1
                if example is None:
                    x, y = next((keys[m], keys[n]) for m in range(len(keys)) for n in range(m + 1, len(keys))
                                if (pa[m] == pa[n]) != (pb[m] == pb[n]))
                    example = {"seeds": [a, b], "moves": [x[1] if x[0] == "move" else f"fixed probe {x[1] + 1}",
                                                          y[1] if y[0] == "move" else f"fixed probe {y[1] + 1}"],
                               "replies": [[responses[a][x][0], responses[a][y][0]],
                                           [responses[b][x][0], responses[b][y][0]]]}
    return {"legal_moves": len(moves), "probes": len(firsts) + 1, "pairs": compared, "differing_pairs": differing,
            "example": example}


def hidden_code(ctx: Context, lines: list[int]) -> str:
    """The program lines that draw what never reaches the agent, quoted for messages."""
    source = ctx.source.splitlines() if isinstance(ctx.source, str) else []
    shown = [f"line {n}: `{source[n - 1].strip()[:80]}`" for n in lines[:2] if 0 < n <= len(source)]
    return "; ".join(shown) or "a random choice"
