"""``spade-gym generate``: turn a model into new validated environments."""

from __future__ import annotations

import datetime as _dt
import threading
from pathlib import Path

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json, safe_markup
from spade_gym.generate.backends import BackendError
from spade_gym.generate.prompts import SKILLS, TOOL_USE_SKILLS

#: Backend constructor arguments from the command line, per backend.
BACKEND_ARGUMENTS = {
    "openai": lambda o: {"model": o["model"], "base_url": o["base_url"], "api_key_env": o["api_key_env"],
                         "concurrency": o["concurrency"]},
    "transformers": lambda o: {"model": o["model"]},
    "replay": lambda o: {"path": o["model"]},
}
#: Options a replay takes from its log, because they shape the requests (a replay
#: with other values asks for other (target, attempt) completions than were recorded).
REPLAYED_SETTINGS = ("kind", "attempts", "seed", "temperature", "max_tokens", "multi_turn_ratio", "difficulty",
                     "memory_k")


@click.command("generate")
@click.option("--backend", type=click.Choice(list(BACKEND_ARGUMENTS)), required=True,
              help="Where completions come from.")
@click.option("--model", "models", multiple=True,
              help="openai: model name on the server (repeatable: paired in order with --base-url; one --model "
                   "serves every --base-url); transformers: checkpoint directory; replay: the JSONL file of "
                   "completions.")
@click.option("--base-url", "base_urls", multiple=True,
              help="openai backend: e.g. http://localhost:8000/v1 (vLLM, SGLang, OpenAI, OpenRouter...). "
                   "Repeatable: design requests are spread over the endpoints, and each card names the model "
                   "that designed it.")
@click.option("--endpoints", "endpoints_file", type=click.Path(dir_okay=False, exists=True),
              help="openai backend, instead of --base-url/--model: a JSON list (or JSON lines) of "
                   '{"base_url", "model", "concurrency"?, "api_key_env"?} designer endpoints.')
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="openai backend: environment variable holding the API key (may be unset for local servers).")
@click.option("-n", "n", type=click.IntRange(min=0), default=None,
              help="Number of environments to design (default 1; a tagged replay log sets its own).")
@click.option("--suite", type=click.Path(file_okay=False), required=True, help="Suite directory to register into.")
@click.option("--kind", type=click.Choice(["game", "tool-use"]), default="game", show_default=True,
              help="Design games, or tool-use environments (subclasses of ToolUseBaseEnv with simulated tools).")
@click.option("--skill", "skills", multiple=True,
              help="Target skill (repeatable; rotates). Default: all skills of the kind. Games: "
                   + ", ".join(SKILLS) + ". Tool use: " + ", ".join(TOOL_USE_SKILLS) + ".")
@click.option("--corpus", type=click.Path(dir_okay=False, exists=True),
              help="JSONL grounding corpus (a 'text' field per line); one document per design request "
                   "(for tool use: the domain the tools simulate).")
@click.option("--multi-turn-ratio", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="Games: fraction of targets asked to be genuinely multi-turn (tool-use tasks always are).")
@click.option("--attempts", type=click.IntRange(min=1), default=3, show_default=True,
              help="Completions per target: the first design plus repairs fed with the validator's summary "
                   "(a replay takes it, and every other request setting, from its log).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Targets designed and validated at the same time (with several endpoints: each "
                   "endpoint's default cap on requests in flight; the run takes what they take together).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for targets, prompts and sampling.")
@click.option("--temperature", type=float, default=0.7, show_default=True)
@click.option("--max-tokens", type=click.IntRange(min=16), default=8192, show_default=True)
@click.option("--log", "log_path", type=click.Path(dir_okay=False),
              help="Append every request and result here (default: generate-<time>.jsonl next to the suite).")
@click.option("--designer", help="The designer model named on each card with the backend (default: --model; "
              "for a replay, the model recorded in the log).")
@click.option("--ray", "ray", is_flag=False, flag_value="default", default=None, metavar="[ADDRESS]",
              help="Run design requests (openai backend) and validations as units on a Ray cluster: ADDRESS "
                   "(auto, ray://head:10001, head:6379) or, alone, $RAY_ADDRESS or a Ray started here "
                   "(also: $SPADE_GYM_RAY). Alone, it must be the last option, or write --ray=ADDRESS. "
                   "See docs/scale.md.")
@click.option("--output", type=click.Path(file_okay=False, path_type=Path),
              help="Journal the run in DIR/journal.jsonl: every design, report and target result is written "
                   "there before it is counted (the log defaults to DIR/generate.jsonl) [default with --ray: "
                   "a new folder in .spade-generate/ next to the suite].")
@click.option("--resume", is_flag=True,
              help="Continue the run journaled in --output (after a crash or Ctrl-C): finished targets are "
                   "kept, journaled designs are not requested again, the rest is redone. Give the run's options.")
@click.option("--allow-unprotected-nodes", is_flag=True,
              help="With --ray, also validate on nodes whose sandbox lacks the process layer (see spade-gym "
                   "doctor --ray).")
@click.option("--validation-seed", type=int, default=None,
              help="Seed of the validator's probes (default: fresh for every program, so a designer cannot "
                   "learn them); set it to reproduce a run's reports.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
@handle_errors
def command(ctx, backend, models, base_urls, endpoints_file, api_key_env, n, suite, kind, skills, corpus,
            multi_turn_ratio, attempts, concurrency, seed, temperature, max_tokens, log_path, designer, ray, output,
            resume, allow_unprotected_nodes, validation_seed, as_json):
    """Design environments with a model: prompt, parse, validate, repair, register.

    Accepted environments are registered into SUITE at once (gym.make-able) with a card
    recording their provenance; rejected programs are kept with their reports under
    rejected/ next to the suite. Ctrl-C stops cleanly: whatever was accepted stays.

    \b
    Examples:
      spade-gym generate --backend openai --base-url http://localhost:8000/v1 \\
          --model Qwen/Qwen3-8B -n 20 --suite my_suite --skill "Spatial Reasoning"
      spade-gym generate --backend openai --base-url http://localhost:8000/v1 \\
          --model Qwen/Qwen3-8B -n 12 --suite my_tools --kind tool-use --skill "Error Recovery"
      spade-gym generate --backend openai --base-url http://localhost:8000/v1 --model Qwen/Qwen3-8B \\
          --base-url http://localhost:8001/v1 --model meta-llama/Llama-3.1-8B-Instruct -n 20 --suite mixed
      spade-gym generate --backend replay --model generate-20261130.jsonl --suite my_suite
      spade-gym generate --backend openai --base-url http://localhost:8000/v1 --model Qwen/Qwen3-8B \\
          -n 2 --suite journaled --output runs/gen   # after a crash: the same line + --resume; on Ray: + --ray=auto
    """
    from spade_gym.executor import executor_for, ray_address

    suite_path = Path(suite)
    if base_urls and backend != "openai":
        raise click.UsageError(f"--base-url only applies to --backend openai, not {backend}")
    if endpoints_file is not None and (backend != "openai" or base_urls or models):
        raise click.UsageError("--endpoints replaces --base-url/--model, and only applies to --backend openai")
    if not models and endpoints_file is None:
        raise click.UsageError("Missing option '--model'.")
    if len(models) > 1 and backend != "openai":
        raise click.UsageError(f"--model is given once for --backend {backend}")
    options = dict(model=models[0] if models else None, base_url=base_urls[0] if base_urls else None,
                   api_key_env=api_key_env, concurrency=concurrency)
    endpoints = _endpoints(endpoints_file, base_urls, models, api_key_env, concurrency)
    if len(endpoints) == 1:  # one endpoint, however given: exactly the single-server run
        options.update(model=endpoints[0].model, base_url=endpoints[0].base_url,
                       api_key_env=endpoints[0].api_key_env, concurrency=endpoints[0].concurrency)
        concurrency = endpoints[0].concurrency
    if resume and output is None:
        raise click.UsageError("--resume needs --output: the folder of the run to continue")
    if output is None and ray_address(ray) is not None:
        output = suite_path.parent / ".spade-generate" / f"{_dt.datetime.now():%Y%m%d-%H%M%S}"
        click.echo(f"Journal: {output / 'journal.jsonl'} (continue a crashed run with --output {output} --resume)",
                   err=True)
    executor = executor_for(ray, allow_unprotected=allow_unprotected_nodes,
                            on_warning=lambda message: click.echo(f"Warning: {message}", err=True))
    try:
        _generate(ctx, executor, backend, options, endpoints, n, suite_path, kind, skills, corpus, multi_turn_ratio,
                  attempts, concurrency, seed, temperature, max_tokens, log_path, designer, output, resume,
                  validation_seed, as_json)
    finally:
        executor.close()


def _generate(ctx, executor, backend, options, endpoints, n, suite_path, kind, skills, corpus, multi_turn_ratio,
              attempts, concurrency, seed, temperature, max_tokens, log_path, designer, output, resume,
              validation_seed, as_json):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from spade_gym.generate.backends import make_backend
    from spade_gym.generate.backends.replay import ReplayBackend
    from spade_gym.generate.pipeline import GenerateConfig, GenerationPipeline, replay_targets
    from spade_gym.generate.prompts import GroundingCorpus
    from spade_gym.generate.targets import Target
    from spade_gym.generate.units import ExecutorBackend
    from spade_gym.registry import register_suite
    from spade_gym.validation import DEFAULT_CONFIG

    if len(endpoints) > 1:
        designer_backend = _endpoint_pool(endpoints, executor)
        concurrency = designer_backend.capacity
    elif backend == "openai":  # one design request, one unit; a local checkpoint or a log answers here
        designer_backend = ExecutorBackend({"base_url": options["base_url"], "model": options["model"],
                                            "api_key_env": options["api_key_env"]}, executor)
    else:
        designer_backend = make_backend(backend, **BACKEND_ARGUMENTS[backend](options))
    check_endpoint = getattr(designer_backend, "check_endpoint", None)
    if check_endpoint is not None:
        try:
            check_endpoint()
        except BaseException:
            designer_backend.close()
            raise
    settings = dict(kind=kind, multi_turn_ratio=multi_turn_ratio, attempts=attempts, seed=seed, temperature=temperature,
                    max_tokens=max_tokens)
    settings.update(_replayed_settings(ctx, getattr(designer_backend, "settings", None) or {}))
    targets: tuple[Target, ...] = ()
    console = Console(stderr=as_json)
    if backend == "replay" and not skills and n is None:
        targets = tuple(replay_targets(designer_backend) or ())
        if targets and isinstance(designer_backend, ReplayBackend) and not designer_backend.keyed and concurrency > 1:
            concurrency = 1  # an in-order log maps completion i to target i only sequentially
    config = GenerateConfig(n=1 if n is None else n, skills=tuple(skills), concurrency=concurrency,
                            designer=designer, targets=targets, **settings)
    if log_path is None and output is not None:
        log_path = output / "generate.jsonl"  # a resume appends to the run's own log
    if log_path is None:
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        log_path = suite_path.parent / f"generate-{stamp}.jsonl"
    grounding = GroundingCorpus.from_jsonl(corpus) if corpus else None
    total = len(targets) if targets else config.n
    counts = {"accepted": 0, "rejected": 0}
    lock = threading.Lock()
    with Progress(TextColumn("[bold]designing"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TextColumn("[green]{task.fields[accepted]} accepted[/green] [red]{task.fields[rejected]} rejected"),
                  TimeElapsedColumn(), console=console, transient=as_json) as progress:
        task = progress.add_task("generate", total=total, accepted=0, rejected=0)

        def on_result(result):
            with lock:
                counts["accepted" if result.accepted else "rejected"] += 1
                progress.update(task, advance=1, accepted=counts["accepted"], rejected=counts["rejected"])

        validation_config = DEFAULT_CONFIG.replace(seed=validation_seed) if validation_seed is not None else None
        pipeline = GenerationPipeline(designer_backend, suite_path, config, log_path=log_path, corpus=grounding,
                                      progress=on_result, validation_config=validation_config, executor=executor,
                                      output=output, resume=resume)
        try:
            summary = pipeline.run()
        finally:
            designer_backend.close()
    register_suite(suite_path)
    run = {"executor": executor.name}
    if pipeline.journal is not None:
        run.update(journal=str(pipeline.journal.path), reused=dict(pipeline.steps.reused))
    if as_json:
        echo_json({**summary.to_dict(), "log": str(log_path), "suite": str(suite_path), **run})
    else:
        _print_summary(console, summary, log_path, suite_path)
        if pipeline.journal is not None:
            reused = pipeline.steps.reused
            console.print(f"Journal: {pipeline.journal.path} ({reused['targets']} target(s), {reused['designs']} "
                          f"design(s) and {reused['reports']} report(s) taken from it)")
    backend_failures = [r for r in summary.results if r.failures and r.failures[-1] == "backend"]
    if summary.results and len(backend_failures) == len(summary.results):
        raise BackendError(f"the designer backend failed on every target; first error: "
                                 f"{backend_failures[0].last_summary}")


def _endpoints(endpoints_file, base_urls, models, api_key_env, concurrency) -> list:
    """The designer endpoints of an --endpoints file or of several --base-url/--model pairs, with
    the run's --concurrency and --api-key-env where an entry names none; empty for a single pair
    (the plain backend takes and checks it as it always has)."""
    from dataclasses import replace

    from spade_gym.generate.endpoints import pair_endpoints, read_endpoints

    if endpoints_file is not None:
        endpoints = read_endpoints(endpoints_file)
    elif len(base_urls) > 1 or len(models) > 1:
        endpoints = pair_endpoints(base_urls, models)
    else:
        return []
    return [replace(e, concurrency=e.concurrency or concurrency, api_key_env=e.api_key_env or api_key_env)
            for e in endpoints]


def _endpoint_pool(endpoints, executor):
    """Several designer endpoints behind one backend: requests go where there is room, and a
    failed one is retried on another endpoint (the pool retries, not each endpoint). The pool,
    its caps and its backoff live here on the driver; each request it sends is one unit."""
    from spade_gym.generate.endpoints import EndpointPool
    from spade_gym.generate.units import ExecutorBackend

    return EndpointPool(endpoints, lambda e: ExecutorBackend({"base_url": e.base_url, "model": e.model,
                                                              "api_key_env": e.api_key_env, "max_retries": 0},
                                                             executor))


def _replayed_settings(ctx: click.Context, recorded: dict) -> dict:
    """The request settings a replay log recorded; an option given on the command line
    with another value is an error (it would not reproduce the log)."""
    out = {}
    for name in REPLAYED_SETTINGS:
        if name not in recorded:
            continue
        given = ctx.params.get(name)
        if (name in ctx.params and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
                and given != recorded[name]):
            raise click.UsageError(f"--{name.replace('_', '-')} {given} differs from the replayed log's "
                                   f"{recorded[name]}; a replay takes it from the log, so drop the option")
        out[name] = recorded[name]
    return out


def _print_summary(console, summary, log_path, suite_path) -> None:
    from rich.table import Table

    if summary.interrupted:
        console.print("[yellow]Interrupted: stopped after the targets in flight; accepted environments are kept.")
    table = Table(title=f"{len(summary.accepted)} accepted, {len(summary.rejected)} rejected")
    table.add_column("target")
    table.add_column("skill")
    table.add_column("result")
    table.add_column("attempts")
    table.add_column("failed checks")
    for r in summary.results:
        table.add_row(str(r.target.index), r.target.skill, safe_markup(r.env_id) if r.env_id else "[red]rejected",
                      str(r.attempts), ", ".join(r.failures) or "-")
    console.print(table)
    failures = summary.failure_counts()
    if failures:
        console.print("Rejections by check: " + ", ".join(f"{name} x{count}" for name, count in failures.most_common()))
    prompt_tokens, completion_tokens = summary.tokens()
    console.print(f"Tokens: {prompt_tokens:,} prompt + {completion_tokens:,} completion; "
                  f"wall time {summary.seconds:.1f} s")
    console.print(f"Suite: {suite_path}   log: {log_path}   rejected programs: {suite_path.parent / 'rejected'}")
