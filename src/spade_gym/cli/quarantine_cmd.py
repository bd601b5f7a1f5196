"""``spade-gym quarantine``: programs a deployment monitor stopped, and releasing them."""

from __future__ import annotations

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json
from spade_gym.errors import ConfigError


@click.group("quarantine")
def command():
    """Programs stopped for breaking the contract while running.

    Wherever a registered program runs (gym.make, vector envs, eval, self-play), the
    host keeps checking the contract: reward range, the episode-end rule, host-only
    info keys, and how often the task screen reveals the answer. A program that breaks
    it is quarantined: gym.make refuses it until it is released with
    `spade-gym quarantine release SHA256_PREFIX` (8+ hex digits, as `list` shows).

    \b
    Example:
      spade-gym quarantine list
    """


@command.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@handle_errors
def list_marks(as_json):
    """The quarantined programs: id, rule broken, when."""
    from spade_gym.registry.quarantine import marks, quarantine_dir

    found = marks()
    if as_json:
        echo_json({"directory": str(quarantine_dir()), "programs": found})
        return
    if not found:
        click.echo(f"No quarantined programs (in {quarantine_dir()}).")
        return
    for mark in found:
        click.echo(f"{mark['sha256'][:12]}  {mark.get('id') or '(no id)'}  {mark.get('time')}  {mark.get('rule')}")
        click.echo(f"    {mark.get('message')}")


@command.command("release")
@click.argument("sha256_prefix")
@handle_errors
def release_mark(sha256_prefix):
    """Let a quarantined program run again (give 8+ hex digits of its sha256)."""
    from spade_gym.registry.quarantine import release

    try:
        released = release(sha256_prefix.lower())
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if not released:
        raise ConfigError(f"no quarantined program's sha256 starts with {sha256_prefix!r}")
    for sha in released:
        click.echo(f"released {sha}")
