"""``spade-gym eval``: success rates of an agent on suite and Reasoning Gym environments."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from spade_gym.cli.app import handle_errors
from spade_gym.errors import ConfigError
from spade_gym.evaluation.runner import AGENT_KINDS


def _arms(hint: bool, no_hint: bool, both: bool) -> str:
    chosen = [name for name, flag in (("hint", hint), ("no-hint", no_hint), ("both", both)) if flag]
    if len(chosen) > 1:
        raise click.UsageError(f"--{' and --'.join(chosen)} are mutually exclusive; give at most one")
    return chosen[0] if chosen else "no-hint"


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


@click.command("eval")
@click.option("--agent", "kind", type=click.Choice(AGENT_KINDS), required=True,
              help="Who plays: a local checkpoint, an OpenAI-compatible endpoint, the oracle "
                   "(privileged solution; upper bound), random play (lower bound) or the validator's "
                   "no-reasoning shortcut baselines, the zoo of each env's kind, game or tool-use "
                   "(--model picks one; default: dealt in turn).")
@click.option("--envs", "patterns", required=True, metavar="PATTERN",
              help="Glob(s) over registered ids, comma-separated: 'spade/*' (the suite), "
                   "'spade/rg-*' (Reasoning Gym tasks), 'spade/rg-leg_counting-v0', "
                   "'spade/rg-*-hard-v0' (a level of each), '@rg-hard' (the reference's hard split), "
                   "'spade/bfcl-*' (BFCL categories), 'spade/aime-*', 'spade/gpqa-*', 'spade/lcb-*' "
                   "(AIME, GPQA, LiveCodeBench from local files or the hub; docs/benchmarks.md), "
                   "'spade/tau2-*' (tau2-bench domains; docs/tau2.md).")
@click.option("--episodes", type=click.IntRange(min=1), default=10, show_default=True,
              help="Episodes (seeds) per environment and arm. BFCL categories play their "
                   "first N tasks in order; use a large N (e.g. 2000) for all of them.")
@click.option("--trials", type=click.IntRange(min=1), default=1, show_default=True,
              help="tau2-bench: play each task this many times and report pass^1..pass^k (the reference "
                   "uses 4). Other environments ignore it.")
@click.option("--user-base-url", help="tau2-bench: the user simulator's OpenAI-compatible API root "
                                      "(airline and retail need one; telecom runs solo).")
@click.option("--user-model", help="tau2-bench: the user simulator's model name, as its server knows it.")
@click.option("--user-api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="tau2-bench: environment variable holding the user simulator's API key.")
@click.option("--hint", "hint_arm", is_flag=True, help="Play with the privileged hint shown.")
@click.option("--no-hint", "no_hint_arm", is_flag=True, help="Play without the hint (the default).")
@click.option("--both", "both_arms", is_flag=True,
              help="Play both arms on the same seeds and report the paired hint gain.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Derives the task seeds (and the random/transformers agent's sampling seed).")
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True,
              help="Episodes played at once (HTTP requests in flight, or the local batch size).")
@click.option("--model", help="transformers: checkpoint path or hub id; openai: served model name; "
                               "baselines: one of the game zoo (prior, blind_script, bisection, enumeration, "
                               "copy_every, decode, marks, opponent, probe_plan) or of the tool-use zoo "
                               "(blind_script, tool_replay, tool_sweep, tool_enumerate); a name the env's kind "
                               "has no use for is an error.")
@click.option("--base-url", help="openai: the API root, e.g. http://localhost:8000/v1.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="openai: environment variable holding the API key (unset: no key sent).")
@click.option("--temperature", type=click.FloatRange(min=0), default=0.6, show_default=True,
              help="Sampling temperature of model agents.")
@click.option("--max-tokens", type=click.IntRange(min=1), default=None,
              help="Tokens per turn for model agents [default: 2048 openai, 512 transformers].")
@click.option("--max-turns", type=click.IntRange(min=1), default=None,
              help="Cap on turns per episode, on top of each environment's own limit.")
@click.option("--suite", "suites", multiple=True, type=click.Path(file_okay=False, exists=True),
              help="Also register this suite directory (repeatable).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report as JSON to FILE.")
@click.option("--markdown", "markdown_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report as markdown to FILE.")
@click.option("--publish", "publish_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Merge the per-skill success counts, with the command that reproduces them, into FILE under "
                   "this agent's name: a suite's EVAL.json, which `spade-gym list --markdown` renders as the "
                   "suite README's evaluation table.")
@click.option("--results", "results_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Episode cache (JSONL) to resume from and append to "
                   "[default: next to --json FILE, else .spade-eval/<agent>.jsonl].")
@click.option("--ray", "ray", is_flag=False, flag_value="default", default=None, metavar="[ADDRESS]",
              help="Play on a Ray cluster, in batches of --concurrency episodes: ADDRESS (auto, ray://head:10001) "
                   "or, alone, $RAY_ADDRESS or a Ray started on this machine [default: $SPADE_GYM_RAY]. "
                   "See docs/scale.md.")
@click.option("--allow-unprotected-nodes", is_flag=True,
              help="With --ray, also play on nodes whose sandbox lacks the process layer (see spade-gym doctor --ray).")
@handle_errors
def command(kind, patterns, episodes, trials, user_base_url, user_model, user_api_key_env, hint_arm, no_hint_arm,
            both_arms, seed, concurrency, model, base_url,
            api_key_env, temperature, max_tokens, max_turns, suites, json_path, markdown_path, publish_path,
            results_path, ray, allow_unprotected_nodes):
    """Evaluate an agent: success rate (95% Wilson interval) and mean turns per environment
    and per skill, and with --both the hint gain paired by seed.

    Finished episodes are cached in a results file (fsynced as each finishes: it is the
    run's journal); re-running the same command plays only what is missing (after a crash,
    Ctrl-C, or with more --episodes), with --ray too. Reasoning Gym
    tasks (`spade/rg-<task>-v0`) need the reasoning-gym package, BFCL categories
    (`spade/bfcl-<category>-v0`) the bfcl-eval package; AIME, GPQA and LiveCodeBench
    (`spade/aime-<year>-v0`, `spade/gpqa-diamond-v0`, `spade/lcb-v6-v0`) read a local file
    ($SPADE_GYM_BENCHMARK_DATA) or the hub, and play N questions x the reference's samples
    with --episodes large (docs/benchmarks.md).

    \b
    Example:
      spade-gym eval --agent oracle --envs 'spade/*' --episodes 5
      spade-gym eval --agent baselines --envs 'spade/*' --episodes 10 --publish envs_generated/EVAL.json
      spade-gym eval --agent oracle --envs @rg-hard --episodes 8 --json out/rg-hard.json
      spade-gym eval --agent oracle --envs 'spade/*' --episodes 50 --ray=auto --json out/oracle.json
      spade-gym eval --agent openai --model Qwen/Qwen3-4B --base-url http://localhost:8000/v1 \\
          --envs 'spade/*,spade/rg-leg_counting-v0' --both --json out/eval.json --markdown out/eval.md
    """
    from rich.console import Console

    from spade_gym.evaluation import AgentConfig, Evaluation, build_report, print_report, select_envs, to_markdown
    from spade_gym.evaluation.runner import EvaluationError, default_results_path, split_patterns
    from spade_gym.registry import register_suite

    arms = _arms(hint_arm, no_hint_arm, both_arms)
    config = AgentConfig(kind, model=model, temperature=temperature, max_tokens=max_tokens, max_turns=max_turns,
                         seed=seed, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency)
    for suite in suites:
        register_suite(suite)
    if bool(user_base_url) != bool(user_model):
        raise click.UsageError("--user-base-url and --user-model go together")
    # Offline, tau2's user-facing domains can only be replayed, and only the oracle wins a replay.
    tau2 = {"user_base_url": user_base_url, "user_model": user_model, "user_api_key_env": user_api_key_env,
            "replay": kind == "oracle" and not user_base_url}
    envs = select_envs(patterns, env_options=tau2)
    evaluation = Evaluation(config, envs, episodes=episodes, seed=seed, arms=arms, trials=trials,
                            results_path=results_path or default_results_path(config.fingerprint, json_path))
    from spade_gym.executor import ray_address

    executor = None
    if ray_address(ray) is not None and evaluation.pending():
        from spade_gym.executor import executor_for

        evaluation.units([])  # refuses what cannot run on Ray before Ray starts
        executor = executor_for(ray, allow_unprotected=allow_unprotected_nodes,
                                on_warning=lambda message: click.echo(f"Warning: {message}", err=True))
    try:
        run = _run_with_progress(evaluation, Console(stderr=True), executor)
    finally:
        if executor is not None:
            executor.close()
    report = build_report(evaluation, run, split_patterns(patterns))
    print_report(report)
    if json_path is not None:
        _write(json_path, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if markdown_path is not None:
        _write(markdown_path, to_markdown(report))
    if publish_path is not None and run.agent_errors:
        click.echo(f"Not published to {publish_path}: {run.agent_errors} episode(s) ended by an agent failure "
                   "(rerun to replay them).", err=True)
    elif publish_path is not None:
        from spade_gym.evaluation.publish import eval_command, publish
        from spade_gym.evaluation.runner import AGENTS

        takes_model = AGENTS[kind].model is not None
        publish(publish_path, report, eval_command(
            kind=kind, model=model, patterns=patterns, episodes=episodes, seed=seed, arms=arms,
            max_turns=max_turns, suites=suites, publish_path=str(publish_path),
            temperature=temperature if takes_model else None, max_tokens=max_tokens if takes_model else None))
    click.echo(f"{run.played} episode(s) played, {run.reused} reused; results in {run.results_path}", err=True)
    failed = [r for r in run.records if r["agent_error"] is not None]
    if failed and len(failed) == len(run.records):
        raise EvaluationError(f"the agent failed on all {len(failed)} episode(s): {failed[0]['agent_error']}")
    if failed:
        click.echo(f"Warning: the agent failed on {len(failed)} episode(s) (first: {failed[0]['agent_error']}); "
                   "they count as losses now and are replayed on the next run.", err=True)


def _run_with_progress(evaluation, console, executor=None):
    """Play with a progress bar on stderr: episodes done of total, and wins so far."""
    done = evaluation.completed()
    wins = sum(r["success"] for r in done)
    agent = None
    if evaluation.pending():
        # Loading a checkpoint or checking an endpoint can take a while; say so, and fail
        # (dead server, bad checkpoint) before the progress bar starts.
        status = console.status(f"Starting the {evaluation.config.kind} agent...") if console.is_terminal \
            else contextlib.nullcontext()
        with status:
            agent = evaluation.config.build()
    try:
        return _play(evaluation, console, done, wins, agent, executor)
    finally:
        if agent is not None:
            agent.close()


def _play(evaluation, console, done, wins, agent, executor=None):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("wins {task.fields[wins]}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(f"Evaluating ({evaluation.config.kind})", total=len(evaluation.specs),
                                 completed=len(done), wins=wins)

        def advance(record: dict) -> None:
            nonlocal wins
            wins += bool(record["success"])
            progress.update(task, advance=1, wins=wins)

        return evaluation.run(on_record=advance, agent=agent, executor=executor)
