"""``spade-gym doctor``: what the sandbox can enforce on this machine."""

from __future__ import annotations

import os
import platform
import sys
import time

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json

_PROBE = '''
class ProbeEnv:
    def __init__(self, max_turns=1, **kwargs):
        pass
    def reset(self, seed=None):
        return "probe", {}
    def solution(self):
        return ""
    def step(self, action):
        return "probe", 0.0, True, False, {}
'''


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@handle_errors
def command(as_json):
    """Check the sandbox on this machine: kernel confinement, limits, start-up time.

    \b
    Example:
      spade-gym doctor
    """
    from spade_gym.sandbox import ProgramHandle, confine

    start = time.perf_counter()
    with ProgramHandle(_PROBE) as handle:
        first = time.perf_counter() - start
        facts = handle.selfcheck()
    start = time.perf_counter()
    ProgramHandle(_PROBE).close()
    warm = time.perf_counter() - start
    support = confine.status()
    report = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "host_uid": os.geteuid(),
        "worker_uid": facts["uid"],
        "landlock_abi": support["landlock_abi"],
        "seccomp": support["seccomp_arch"],
        "worker_can_fork": facts["fork"],
        "worker_can_write_files": facts["writes"],
        "worker_can_open_sockets": facts["socket"],
        "worker_environment": facts["environ"],
        "rlimits": facts["rlimits"],
        "first_env_start_s": round(first, 3),
        "warm_env_start_s": round(warm, 4),
    }
    if as_json:
        echo_json(report)
        return
    ok = lambda good: click.style("ok", fg="green") if good else click.style("missing", fg="yellow")  # noqa: E731
    click.echo(f"Python {report['python']} on {report['platform']}")
    click.echo(f"Landlock ABI {support['landlock_abi']}: {ok(support['landlock_abi'] > 0)}")
    click.echo(f"seccomp filter: {ok(support['seccomp_arch'])}")
    click.echo(f"workers run as uid {facts['uid']} (host uid {os.geteuid()})")
    click.echo(f"fork from a worker: {facts['fork']}")
    click.echo(f"socket from a worker: {facts['socket']}")
    click.echo(f"file writes from a worker: {', '.join(f'{k}: {v}' for k, v in facts['writes'].items())}")
    click.echo(f"worker environment variables: {len(facts['environ'])}")
    click.echo(f"first env start {first * 1000:.0f} ms (starts the sandbox), warm start {warm * 1000:.1f} ms")
