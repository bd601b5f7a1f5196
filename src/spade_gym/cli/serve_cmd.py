"""``spade-gym serve``: registered environments as an OpenEnv server (HTTP + WebSocket sessions)."""

from __future__ import annotations

import click

from spade_gym.cli.app import handle_errors

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command("serve")
@click.argument("patterns", nargs=-1, required=True, metavar="IDS...")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on (0.0.0.0 for every interface; then set a token).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="TCP port.")
@click.option("--max-sessions", type=click.IntRange(min=1), default=16, show_default=True,
              envvar="SPADE_GYM_SERVE_MAX_SESSIONS", show_envvar=True,
              help="WebSocket sessions (each one sandboxed worker process) at once; the next is refused.")
@click.option("--idle-timeout", type=click.FloatRange(min=0), default=300.0, show_default=True,
              envvar="SPADE_GYM_SERVE_IDLE_TIMEOUT", show_envvar=True,
              help="Seconds a session may stay idle before it is closed (0: never).")
@click.option("--token", envvar="SPADE_GYM_SERVE_TOKEN", default=None, show_envvar=True,
              help="Require 'Authorization: Bearer TOKEN' on every request but GET /health "
                   "(prefer the environment variable: a command line is visible to other users).")
@click.option("--allow-hint", is_flag=True, envvar="SPADE_GYM_SERVE_ALLOW_HINT", show_envvar=True,
              help="Let resets ask for the privileged hint (reset argument hint=true). Off by default.")
@click.option("--suite", "suites", multiple=True, type=click.Path(file_okay=False, exists=True),
              help="Also register this suite directory (repeatable).")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug"]),
              default="info", show_default=True, help="uvicorn's log level.")
@handle_errors
def command(patterns, host, port, max_sessions, idle_timeout, token, allow_hint, suites, log_level):
    """Serve environments to OpenEnv clients (TRL, SkyRL, verifiers, GenericEnvClient, curl).

    IDS are registered ids or glob patterns over them ('spade/*', 'spade/Letter*',
    comma-separated or several arguments). Each WebSocket connection to /ws is one
    session with its own sandboxed environment; a reset names the episode:
    {"env_id": ..., "seed": ..., "difficulty": ...}; a step sends {"action": TEXT}.
    Solutions are never sent, hints only with --allow-hint. Needs the openenv extra
    (pip install 'spade-gym[openenv]'). docs/openenv.md has the client side.

    \b
    Example:
      spade-gym serve 'spade/*' --port 8000
      SPADE_GYM_SERVE_TOKEN=$(openssl rand -hex 16) spade-gym serve 'spade/Letter*' --host 0.0.0.0
    """
    from spade_gym.errors import ConfigError
    from spade_gym.registry import register_suite

    try:
        from spade_gym.integrations.openenv import serve
    except ModuleNotFoundError as exc:
        raise ConfigError(f"spade-gym serve needs openenv-core ({exc.name} is missing): "
                          "pip install 'spade-gym[openenv]'") from exc
    for suite in suites:
        register_suite(suite)
    if host not in LOOPBACK and not token:
        click.secho(f"Warning: serving on {host} without a token: anyone who can reach port {port} can play "
                    "(and load) these environments; set SPADE_GYM_SERVE_TOKEN.", fg="yellow", err=True)
    serve(list(patterns), host=host, port=port, log_level=log_level, max_sessions=max_sessions,
          idle_timeout=idle_timeout or None, token=token or None, allow_hint=allow_hint)
