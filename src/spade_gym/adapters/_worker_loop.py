"""The worker side of the benchmark workers' protocol (``_bfcl_worker.py``, ``_tau2_worker.py``).

A worker reads one JSON request per line on stdin and writes one JSON reply per line. Whatever
goes wrong with one request (a line that is not JSON, a request its session refuses or fails, a
reply that cannot be written as JSON) becomes a ``{"failure": "..."}`` reply to that request and
the loop goes on: what a failure means is the host's to decide
(:mod:`spade_gym.adapters.worker_client`).

Standard library only: a worker runs as a script and loads this file as a sibling
(``from _worker_loop import ...``), so nothing of the spade_gym package is imported into it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO


def limit_memory(limit_bytes: int) -> None:
    """Cap the worker's address space, where the platform allows it (a blow-up then fails one request)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    except (ImportError, ValueError, OSError):
        pass


def take_stdout() -> TextIO:
    """The real stdout, for the protocol alone; anything the benchmark's code prints goes to stderr."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def serve(handle: Callable[[Any], dict], requests: Iterable[str], protocol: TextIO, *,
          default: Callable[[Any], Any] | None = None) -> None:
    """Answer each request line with one reply line, flushed at once (the host waits for it).

    ``default`` is handed to :func:`json.dumps` for values a reply may hold that JSON has no type for.
    """
    for line in requests:
        try:
            reply = handle(json.loads(line))
        except Exception as exc:
            reply = {"failure": f"{type(exc).__name__}: {exc}"}
        try:
            text = json.dumps(reply, ensure_ascii=False, default=default)
        except (TypeError, ValueError) as exc:
            text = json.dumps({"failure": f"reply is not JSON: {exc}"})
        protocol.write(text + "\n")
        protocol.flush()
