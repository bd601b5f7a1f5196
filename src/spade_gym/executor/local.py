"""The default executor: a thread pool in this process (what ``validate_many`` has always done).

Threads are enough: a validation's work runs in its sandbox worker processes, and its thread
mostly waits on them. Units still make the JSON round trip of :func:`~spade_gym.executor.base.run_unit`,
so a local result and a Ray result of the same unit are the same bytes.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from spade_gym.executor.base import DEFAULT_ATTEMPTS, Attempt, Dispatcher, ExecutorError, run_unit


def default_workers() -> int:
    """Units at once: twice the CPU cores (each validation's thread mostly waits on its workers)."""
    return 2 * (os.cpu_count() or 1)


class LocalExecutor(Dispatcher):
    """``workers`` units at once in threads of this process."""

    name = "local"

    def __init__(self, workers: int | None = None, *, max_attempts: int = DEFAULT_ATTEMPTS):
        super().__init__(max_attempts=max_attempts)
        self.workers = workers or default_workers()
        if self.workers < 1:
            raise ExecutorError(f"workers must be at least 1, got {self.workers}")
        self._pool: ThreadPoolExecutor | None = None
        # generate runs one unit per call from several threads of its own: one pool for all of them
        self._pool_lock = threading.Lock()

    def _window(self) -> int:
        return self.workers

    def _submit(self, attempt: Attempt) -> Future:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="spade-unit")
        attempt.node = "local"
        return self._pool.submit(run_unit, attempt.unit.task, attempt.unit.wire())

    def _wait(self, handles: list, timeout: float):
        done, _ = wait(handles, timeout=timeout, return_when=FIRST_COMPLETED)
        out = []
        for future in done:
            exc = future.exception()
            out.append((future, None if exc is not None else future.result(), exc))
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
