"""``spade-gym play``: play an episode yourself, in the terminal."""

from __future__ import annotations

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import printable, resolve_entry


def tool_action(text: str) -> str:
    """What a human types, as a tool-use action: ``name {"arg": ...}`` calls a tool, ``= text``
    answers, anything starting with ``<`` is sent as written."""
    import json

    from spade_gym import toolcalls

    text = text.strip()
    if text.startswith("<"):
        return text
    if text.startswith("="):
        return toolcalls.format_answer(text[1:].strip().replace(toolcalls.ANSWER_CLOSE, ""))
    name, _, rest = text.partition(" ")
    try:
        arguments = json.loads(rest) if rest.strip() else {}
    except ValueError:
        return text  # the environment answers with its format error
    return toolcalls.format_call(name, arguments) if isinstance(arguments, dict) else text


def _show_tools(tools: list[dict]) -> None:
    click.secho("Tools:", bold=True)
    for tool in tools:
        function = tool["function"]
        properties = (function.get("parameters") or {}).get("properties") or {}
        click.echo(printable(f"  {function['name']}({', '.join(properties)}): {function.get('description', '')}"))
    click.echo('Call a tool as: name {"argument": value}   Answer as: = your answer')


def _input(prompt: str) -> str:
    try:
        import readline  # noqa: F401 - line editing and history for input()
    except ImportError:
        pass
    return input(prompt)


@click.command("play")
@click.argument("env_id")
@click.option("--seed", type=int, default=None, help="Task seed (same seed, same task).")
@click.option("--hint", is_flag=True, help="Show the privileged hint with the first observation.")
@click.option("--difficulty", default=None, help="easy, medium or hard (if the environment has the knob).")
@click.option("--suite", type=click.Path(file_okay=False), help="Look the id up in this suite directory.")
@click.option("--show-solution", is_flag=True, help="Reveal the solution after the episode ends.")
@handle_errors
def command(env_id, seed, hint, difficulty, suite, show_solution):
    """Play an environment as a human. Answers are usually typed as \\boxed{...};
    plain text is boxed for you. In a tool-use environment, type a tool call as
    name {"argument": value} and the answer as = answer. Ctrl-D or Ctrl-C quits.

    \b
    Example:
      spade-gym play spade/LetterFeedbackHunt-v0 --seed 3 --hint
    """
    from typing import cast

    from spade_gym.env import privileged
    from spade_gym.env.spade_env import SpadeEnv
    from spade_gym.registry import make_env

    entry = resolve_entry(env_id, suite)
    kwargs = {"difficulty": difficulty} if difficulty else {}
    env = make_env(env_dir=str(entry.directory), hint=hint, **kwargs)
    total = 0.0
    try:
        obs, info = env.reset(seed=seed)
        program = cast(SpadeEnv, env.unwrapped)
        click.secho(f"{entry.id}  (seed {program.last_program_seed}, up to {program.max_turns} turns)", bold=True)
        click.echo(printable(obs))
        tools = info.get("tools") if isinstance(info.get("tools"), list) else None
        if tools is not None:
            _show_tools(tools)
        while True:
            try:
                text = _input("\n> ")
            except (EOFError, KeyboardInterrupt):
                click.echo("\nBye.")
                return
            if not text.strip():
                continue
            if tools is not None:
                action = tool_action(text)
            else:
                action = text if "\\boxed{" in text else "\\boxed{" + text.strip() + "}"
            obs, reward, terminated, truncated, info = env.step(action)
            reward = float(reward)  # already a float: gymnasium types it SupportsFloat
            total += reward
            click.echo(printable(obs))
            if reward:
                click.secho(f"[reward {reward:+g}]", fg="cyan")
            if terminated or truncated:
                if "error" in info:
                    click.secho(f"The environment failed: {printable(info['error']['message'])}", fg="red")
                won = terminated and reward > 0
                click.secho(f"\n{'You won' if won else 'Episode over'} after {info['turn']} turn(s); "
                            f"total reward {total:g}.", fg="green" if won else "yellow", bold=True)
                if show_solution and not won and "error" not in info:
                    click.echo(f"(the solution for the final state: {printable(privileged(env).solution())})")
                return
    finally:
        env.close()
