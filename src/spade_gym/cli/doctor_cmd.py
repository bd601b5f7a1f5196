"""``spade-gym doctor``: what the sandbox enforces on this machine, as the worker reports it."""

from __future__ import annotations

import os
import sys

import click

from spade_gym.cli.app import handle_errors
from spade_gym.cli.common import echo_json


def collect() -> dict:
    """Start a program's worker and a diagnostic worker; report what each found (the worker
    also tries to read the working directory's ``.env`` and the command's own script)."""
    from spade_gym.executor.nodes import collect as collect_here

    return collect_here(read=[os.path.join(os.getcwd(), ".env"), os.path.abspath(sys.argv[0])])


def collect_cluster(ray: str) -> dict:
    """:func:`collect` on every node of a Ray cluster, with each node's verdict."""
    from spade_gym import __version__
    from spade_gym.executor import DEFAULT_RAY, ray_address
    from spade_gym.executor.nodes import code_digest
    from spade_gym.executor.ray_cluster import connect, import_ray, node_verdict, probe_nodes

    address = ray_address(ray)
    owns = connect(None if address == DEFAULT_RAY else address)
    try:
        probes = probe_nodes(read=[os.path.join(os.getcwd(), ".env")])
    finally:
        if owns:
            import_ray().shutdown()
    digest = code_digest()
    nodes = []
    for node_id, node in sorted(probes.items()):
        refused = node_verdict(node, allow_unprotected=False)
        nodes.append({**node, "node": node_id, "refused": refused, "same_files": node.get("digest") == digest})
    return {"driver": {"spade_gym": __version__, "digest": digest, "python": sys.version.split()[0]}, "nodes": nodes}


@click.command("doctor")
@click.option("--ray", "ray", is_flag=False, flag_value="default", default=None, metavar="[ADDRESS]",
              help="Check every node of a Ray cluster instead: ADDRESS (auto, ray://head:10001) or, alone, "
                   "$RAY_ADDRESS or a Ray started on this machine [default: $SPADE_GYM_RAY]. Exit status 1 "
                   "when a node would be refused.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@handle_errors
def command(ray, as_json):
    """Check the sandbox on this machine: kernel confinement, limits, start-up time.

    With --ray, on every node of a cluster: which protections each node has and lacks,
    and whether validation and eval would use it (a node without the process layer is
    refused unless --allow-unprotected-nodes; a node with another spade-gym release is refused).

    \b
    Example:
      spade-gym doctor
      spade-gym doctor --ray --json
    """
    from spade_gym.executor import ray_address

    if ray_address(ray) is not None:
        _cluster(collect_cluster(ray), as_json)
        return
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


def _cluster(report: dict, as_json: bool) -> None:
    from spade_gym.executor.nodes import PROTECTIONS

    if as_json:
        echo_json(report)
    else:
        driver = report["driver"]
        click.echo(f"driver: spade-gym {driver['spade_gym']} (files {driver['digest'][:12]}), "
                   f"Python {driver['python']}")
        for node in report["nodes"]:
            assessment = node.get("assessment") or {}
            verdict = click.style("refused: " + node["refused"], fg="red") if node["refused"] else \
                click.style("used", fg="green")
            click.echo(f"\nnode {node['node'][:12]} ({node.get('hostname', '?')}, {node.get('cpus', '?')} CPUs, "
                       f"spade-gym {node.get('spade_gym', '?')}, Python {node.get('python', '?')}): {verdict}")
            if not node.get("same_files", True):
                click.echo(click.style(f"  its spade-gym files differ from the driver's "
                                       f"({str(node.get('digest'))[:12]})", fg="yellow"))
            if node.get("error"):
                click.echo(click.style(f"  no sandbox: {node['error']}", fg="red"))
            has = assessment.get("has") or {}
            for key, text, required in PROTECTIONS:
                mark = click.style("yes", fg="green") if has.get(key) else \
                    click.style("NO", fg="red" if required else "yellow")
                click.echo(f"  {mark:>3}  {text}{' (process layer)' if required else ''}")
            click.echo(f"  {assessment.get('summary', '')}")
    if any(node["refused"] for node in report["nodes"]):
        sys.exit(1)
