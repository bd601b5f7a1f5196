"""A diagnostic worker: confined exactly like a program's worker, runs no program.

``spade-gym doctor`` and the tests ask the zygote for a worker in the ``diagnose``
role; it sends its :class:`~spade_gym.sandbox.wire.protocol.Hello`, tries what an escaped
program would try (fork, write, open sockets, read the given paths, signal its
parent) and reports, then exits. Programs' workers never have this code path: it is
chosen when the worker is born, not by a request a program's worker would answer.
"""

from __future__ import annotations

import os
import resource
import socket

from spade_gym.sandbox.wire import framing


def answer(sock: socket.socket, hello) -> None:
    framing.send(sock, hello.to_wire())
    request = framing.recv_blocking(sock, 1 << 20)
    request = request if isinstance(request, dict) else {}
    paths = [p for p in request.get("read", []) if isinstance(p, str)]
    pids = [p for p in request.get("signal", []) if type(p) is int and p > 0]
    framing.send(sock, selfcheck(paths, pids))


def selfcheck(read_paths: list, signal_pids: list) -> dict:
    """Try the things a program that escaped the language layer would try, with
    unrestricted code, and report what happened."""

    facts: dict = {"uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd()}
    try:
        facts["cwd_entries"] = os.listdir(".")
    except OSError as exc:
        facts["cwd_entries"] = f"error: {exc.strerror}"
    facts["environ"] = sorted(os.environ)
    facts["rlimits"] = {
        name: resource.getrlimit(getattr(resource, name))
        for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE")
    }
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        facts["fork"] = "allowed"
    except OSError as exc:
        facts["fork"] = f"refused: {exc.strerror}"
    for path in ("probe.txt", "/tmp/spade-selfcheck-probe.txt"):
        try:
            with open(path, "w") as handle:
                handle.write("x" * 10)
            facts.setdefault("writes", {})[path] = "allowed"
            os.unlink(path)
        except OSError as exc:
            facts.setdefault("writes", {})[path] = f"refused: {exc.strerror}"
    for path in ["/proc/1/environ", "/etc/hostname", *read_paths]:
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            facts.setdefault("reads", {})[path] = "allowed"
        except OSError as exc:
            facts.setdefault("reads", {})[path] = f"refused: {exc.strerror}"
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
        facts["socket"] = "allowed"
    except OSError as exc:
        facts["socket"] = f"refused: {exc.strerror}"
    try:
        os.kill(os.getppid(), 0)
        facts["signal_parent"] = "allowed"
    except OSError as exc:
        facts["signal_parent"] = f"refused: {exc.strerror}"
    try:  # a harmless call outside the seccomp allow-list
        os.getpriority(os.PRIO_PROCESS, 0)
        facts["getpriority"] = "allowed"
    except OSError as exc:
        facts["getpriority"] = f"refused: {exc.strerror}"
    for pid in signal_pids:
        try:
            os.kill(pid, 0)
            facts.setdefault("signals", {})[str(pid)] = "allowed"
        except OSError as exc:
            facts.setdefault("signals", {})[str(pid)] = f"refused: {exc.strerror}"
    return facts
