"""``spade-gym doctor``: what the sandbox enforces on this machine, as the worker reports it."""

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


def collect() -> dict:
    """Start a program's worker and a diagnostic worker; report what each found."""
    from spade_gym.sandbox import ProgramHandle, confine, diagnose

    start = time.perf_counter()
    with ProgramHandle(_PROBE) as handle:
        first = time.perf_counter() - start
        confinement = handle.confinement
    start = time.perf_counter()
    ProgramHandle(_PROBE).close()
    warm = time.perf_counter() - start
    probe = diagnose(read=[os.path.join(os.getcwd(), ".env"), os.path.abspath(sys.argv[0])])
    facts = probe["facts"]
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "host_uid": os.geteuid(),
        "kernel_landlock_abi": confine.status()["landlock_abi"],
        "worker": confinement,
        "worker_can_fork": facts["fork"],
        "worker_can_write_files": facts["writes"],
        "worker_can_read": facts["reads"],
        "worker_can_open_sockets": facts["socket"],
        "worker_can_signal_host": facts["signal_parent"],
        "worker_environment": facts["environ"],
        "rlimits": facts["rlimits"],
        "first_env_start_s": round(first, 3),
        "warm_env_start_s": round(warm, 4),
    }


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@handle_errors
def command(as_json):
    """Check the sandbox on this machine: kernel confinement, limits, start-up time.

    \b
    Example:
      spade-gym doctor
    """
    report = collect()
    if as_json:
        echo_json(report)
        return
    worker = report["worker"]

    def status(good: bool, text: str) -> str:
        return click.style(text, fg="green" if good else "yellow")

    landlock = worker.get("landlock_abi", 0)
    click.echo(f"Python {report['python']} on {report['platform']}")
    click.echo(f"Landlock (file reads limited to the runtime, no writes): "
               f"{status(landlock > 0, f'ABI {landlock}' if landlock else 'not available')}"
               + (" — signal scoping needs ABI 6" if 0 < landlock < 6 else ""))
    seccomp = bool(worker.get("seccomp"))
    click.echo(f"seccomp allow-list (signals only to the worker itself): "
               f"{status(seccomp, 'active' if seccomp else 'not active')}")
    no_new_privs, pdeathsig = worker.get("no_new_privs"), worker.get("pdeathsig")
    click.echo(f"no_new_privs: {status(bool(no_new_privs), str(no_new_privs))}; "
               f"die with the sandbox (pdeathsig): {status(bool(pdeathsig), str(pdeathsig))}")
    isolation = worker.get("uid_isolation", "unknown")
    click.echo(f"worker identity: {status(isolation.startswith('distinct') or landlock >= 6, isolation)}"
               f" (uid {worker.get('uid')}, host uid {report['host_uid']})")
    if "pid_namespace" in worker:
        click.echo(f"PID namespace per worker: {status(bool(worker['pid_namespace']), str(worker['pid_namespace']))}")
    click.echo(f"fork from a worker: {report['worker_can_fork']}")
    click.echo(f"socket from a worker: {report['worker_can_open_sockets']}")
    click.echo(f"signal to the host from a worker: {report['worker_can_signal_host']}")
    click.echo("file reads from a worker: " + ", ".join(f"{k}: {v}" for k, v in report["worker_can_read"].items()))
    click.echo("file writes from a worker: "
               + ", ".join(f"{k}: {v}" for k, v in report["worker_can_write_files"].items()))
    click.echo(f"worker environment variables: {len(report['worker_environment'])}")
    click.echo(f"first env start {report['first_env_start_s'] * 1000:.0f} ms (starts the sandbox), "
               f"warm start {report['warm_env_start_s'] * 1000:.1f} ms")
