"""More probe seeds for the rate checks (see :mod:`spade_gym.validation.stats`).

A rate check that cannot decide on its first look asks for the same baseline's episodes on
more seeds of the run's seed stream (:func:`samples`); what the cached probes lack is
played in one lock-step run on the level's worker and kept, so a check pays only for the seeds
it adds and a run with a fixed seed replays them exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from spade_gym.validation.baselines.base import Transcript, Transcripts
from spade_gym.validation.baselines.learned import GUESS_PROBE, answer_of, probe_name, training_specs
from spade_gym.validation.baselines.zoo import Prior, make_baseline
from spade_gym.validation.episodes import Job, ProbeEpisode
from spade_gym.validation.stats import Estimate, Tally

if TYPE_CHECKING:
    from spade_gym.validation.context import Context, LevelProbes

#: The privileged policy's probe spec.
ORACLE = {"kind": "oracle"}
#: A rate's episodes: (difficulty level, or None for the program's default; baseline name).
Key = tuple[str | None, str]


def transcript(episode: ProbeEpisode) -> Transcript:
    """An episode as the plain data a baseline may learn from."""
    return Transcript(episode.seed, episode.baseline, episode.solution0, episode.obs0 or "", episode.actions,
                      [step.obs for step in episode.steps], episode.won)


def prior_for(seed: int, oracle: list[ProbeEpisode], training: Sequence[ProbeEpisode] = ()) -> Prior:
    """What the other seeds' privileged episodes (and training probes, :func:`training_probes`)
    teach a script (this seed left out)."""
    others = [e for e in oracle if e.seed != seed and e.error is None]
    actions_by_turn: list[list[str]] = []
    for episode in others:
        for turn, action in enumerate(episode.actions):
            if turn == len(actions_by_turn):
                actions_by_turn.append([])
            actions_by_turn[turn].append(action)
    transcripts = Transcripts(tuple(zip([e.obs0 or "", *(step.obs for step in e.steps)], e.actions)) for e in others)
    return Prior([e.solution0 for e in others if e.solution0], actions_by_turn, transcripts,
                 hints_and_actions=[(e.hint0, e.actions, e.obs0 or "") for e in others],
                 episodes=[transcript(e) for e in others],
                 probes=[transcript(e) for e in training if e.seed != seed and e.error is None])


def training_probes(ctx: Context, level: str | None, window: list[ProbeEpisode] | None = None, *,
                    handle=None, limit: int | None = None) -> list[ProbeEpisode]:
    """Training probes at ``level`` (cached): on the first ``shortcut_seeds`` seeds of the prior
    window, episodes whose actions are chosen knowing the answer (guesses around it, a fixed
    probe plan; ``validation.baselines.learned``), so the zoo's learned baselines can learn what
    the feedback means before they play fresh seeds. Only the probes the configured zoo needs are
    played, all in one lock-step run; none for a program none of them applies to."""
    main = ctx.is_main_level(level)
    key = (None if main else level, "training probes")
    if key in ctx._extra:
        return list(ctx._extra[key].values())
    window = prior_window(ctx, level) if window is None else window
    usable = [e for e in window if e.error is None][: ctx.config.shortcut_seeds]
    specs = training_specs([transcript(e) for e in usable], ctx.config.zoo(ctx.kind))
    # each seed's probes are built around its answer: what won its privileged episode
    answers = {e.seed: answer_of(transcript(e)) for e in usable}
    jobs = []
    for spec in specs:
        for e in usable:
            seeded = {**spec, "answer": answers[e.seed]} if spec["kind"] == GUESS_PROBE else spec
            baseline = make_baseline(seeded, e.seed, prior_for(e.seed, window), run_seed=ctx.run_seed)
            jobs.append(Job(e.seed, probe_name(spec), baseline))
    played: list[ProbeEpisode] = []
    if jobs:
        if handle is None:
            probes = _probes_at(ctx, level)
            handle, limit = (ctx.main, ctx.turn_limit) if main else (probes.handle, probes.turn_limit)
        where = "" if main else f" at difficulty={level!r}"
        played = ctx.play(handle, jobs, max_steps=limit or ctx.turn_limit, what=f"training probes{where}")
    for episode in played:  # a probe's transcript carries the answer it was built around
        if episode.baseline.startswith(GUESS_PROBE) and answers.get(episode.seed):
            episode.solution0 = answers[episode.seed]
    ctx._extra[key] = dict(enumerate(played))
    return played


def prior_window(ctx: Context, level: str | None) -> list[ProbeEpisode]:
    """The privileged episodes the shortcut zoo learns its priors from at ``level`` (each seed's
    prior leaves that seed out): every seed the main worker's oracle played, at least the
    first ``shortcut_seeds``; the first ``shortcut_seeds`` at another level."""
    if ctx.is_main_level(level):
        return sample(ctx, None, "oracle", max(ctx.config.seeds, ctx.config.shortcut_seeds))
    return _probes_at(ctx, level).oracle


def _known(ctx: Context, level: str | None, baseline: str) -> dict[int, ProbeEpisode]:
    """Episodes of ``baseline`` at ``level`` played so far, by seed: the cached probes, then the extras."""
    main = ctx.is_main_level(level)
    if baseline == "oracle":
        base = ctx.oracle() if main else _probes_at(ctx, level).oracle
    elif baseline in ctx.baseline_specs():
        base = ctx.baselines()[baseline] if main else _probes_at(ctx, level).baselines.get(baseline, [])
    else:
        base = _probes_at(ctx, level).shortcuts.get(baseline, [])
    known = {e.seed: e for e in base}
    known.update(ctx._extra.get((None if main else level, baseline), {}))
    return known


def _probes_at(ctx: Context, level: str | None) -> LevelProbes:
    probes = ctx.level(level)
    if probes is None:
        raise RuntimeError(f"level {level!r} has no probes (its worker did not load)")
    return probes


def sample(ctx: Context, level: str | None, baseline: str, count: int) -> list[ProbeEpisode]:
    """``baseline``'s episodes at ``level`` on the first ``count`` seeds of the run's stream."""
    return samples(ctx, level, {baseline: count})[baseline]


def held_out_start(ctx: Context, level: str | None) -> int:
    """Where the seeds the zoo's priors at ``level`` never saw begin in the run's seed stream: past
    the prior window (:func:`prior_window`) and the training probes, which play its head."""
    if ctx.is_main_level(level):
        return max(ctx.config.seeds, ctx.config.shortcut_seeds)
    return ctx.config.shortcut_seeds


def _seeds(ctx: Context, level: str | None, count: int, held_out: bool) -> list[int]:
    start = held_out_start(ctx, level) if held_out else 0
    return ctx.stream(start + count)[start:]


def samples(ctx: Context, level: str | None, wanted: Mapping[str, int], *,
            held_out: bool = False) -> dict[str, list[ProbeEpisode]]:
    """Episodes of each baseline (``"oracle"``, a cheap baseline's name, a shortcut baseline) at
    ``level`` on the first ``wanted[baseline]`` seeds of the run's seed stream, in stream order
    (``held_out``: of the stream past the prior window, :func:`held_out_start`).

    What the cached probes lack is played now, all baselines in one lock-step run on the
    level's worker, and kept: a rate check that needs more seeds (``validation.stats``) pays
    only for the seeds it adds. The zoo's priors on added seeds come from the same privileged
    episodes as on the first ones (:func:`prior_window`), so a rate means the same throughout."""
    main = ctx.is_main_level(level)
    specs = ctx.baseline_specs()
    known = {baseline: _known(ctx, level, baseline) for baseline in wanted}
    seeds_of = {baseline: _seeds(ctx, level, count, held_out) for baseline, count in wanted.items()}
    missing = {baseline: [s for s in seeds_of[baseline] if s not in known[baseline]] for baseline in wanted}
    jobs: list[Job] = []
    window: list[ProbeEpisode] | None = None
    for baseline, seeds in missing.items():
        if not seeds:
            continue
        if baseline == "oracle":
            spec, priors = ORACLE, None
        elif baseline in specs:
            spec, priors = specs[baseline], None
        else:
            if window is None:
                window = prior_window(ctx, level)
                training = training_probes(ctx, level, window)
            spec, priors = {"kind": baseline}, {seed: prior_for(seed, window, training) for seed in seeds}
        for job in ctx.jobs(spec, seeds, priors=priors):
            job.name = baseline
            jobs.append(job)
    if jobs:
        if main:
            handle, limit = ctx.main, ctx.turn_limit
        else:
            probes = _probes_at(ctx, level)
            handle, limit = probes.handle, probes.turn_limit
        where = "" if main else f" at difficulty={level!r}"
        played = ctx.play(handle, jobs, max_steps=limit, what=f"more probe seeds{where}")
        for episode in played:
            ctx._extra.setdefault((None if main else level, episode.baseline), {})[episode.seed] = episode
            known[episode.baseline][episode.seed] = episode
    return {baseline: [known[baseline][s] for s in seeds_of[baseline] if s in known[baseline]] for baseline in wanted}


def level_samples(ctx: Context, wanted: Mapping[Key, int], *,
                  held_out: bool = False) -> dict[Key, list[ProbeEpisode]]:
    """:func:`samples` for ``(level, baseline)`` keys, one lock-step run per level."""
    by_level: dict[str | None, dict[str, int]] = {}
    for (level, baseline), count in wanted.items():
        by_level.setdefault(level, {})[baseline] = count
    out: dict[Key, list[ProbeEpisode]] = {}
    for level, baselines in by_level.items():
        for baseline, episodes in samples(ctx, level, baselines, held_out=held_out).items():
            out[(level, baseline)] = episodes
    return out


def confirm_held_out(ctx: Context, failed: Iterable[Key], counts: Callable[[ProbeEpisode], bool],
                     limit: float) -> tuple[dict[Key, Estimate], dict[Key, list[ProbeEpisode]]]:
    """Judge again, on seeds held out from the prior window, scripts whose rate FAILED on the first
    seeds of the stream: their estimates and the held-out episodes behind them.

    Why: the zoo's first look plays the very seeds its priors learned from (each leaving its own
    seed out), and those wins are not independent: a window whose answers happen to cluster wins
    most of its own seeds though the script wins rarely elsewhere (a prior that wins 18% of fresh
    seeds wins 7 or 8 of its own 8 about once in 1,300 runs). That bias only inflates a rate, so a
    PASS on the first look stands; a FAIL is rejected only if it holds where every episode is an
    independent draw given what the script learned, which is what the confidence rule assumes."""
    keys = list(failed)
    episodes: dict[Key, list[ProbeEpisode]] = {}

    def measure(targets: Mapping[Key, int]) -> dict[Key, Tally]:
        episodes.update(level_samples(ctx, targets, held_out=True))
        return {key: Tally.of([counts(e) for e in episodes[key]]) for key in targets}

    if not keys:
        return {}, {}
    first = measure({key: ctx.config.shortcut_seeds for key in keys})
    return ctx.config.rate_rule.settle(first, measure, limit), episodes


__all__ = ["ORACLE", "Key", "confirm_held_out", "held_out_start", "level_samples", "prior_for", "prior_window",
           "sample", "samples", "training_probes", "transcript"]
