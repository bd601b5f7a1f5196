"""This process's place among the training ranks, and the few collectives the loop needs.

TRL calls ``rollout_func`` on every rank with that rank's own prompt slots. Ranks must
therefore draw different designs and tasks (their RNG streams include the rank), write
shared files from one process (the main one) and log once. Every collective here is
called by every rank the same number of times per iteration, whatever its own work.

**Timeout.** Every collective waits at most ``grpo.ddp_timeout`` seconds. The process
group is created by :meth:`Ranks.current` (accelerate's state is a process-wide singleton,
created before TRL's ``GRPOConfig`` exists, and later configs reuse it), so the timeout is
passed there explicitly: set later, by ``GRPOConfig``, it would be ignored.

**Object collectives** (designs, decisions, outcomes, metrics) go over a CPU (gloo)
group, never NCCL: they are plain host data of varying size, and NCCL object collectives
stage them through GPU memory and hang rather than time out. They are JSON, not pickles
(nothing unpickled crosses between processes), and bounded: a rank whose payload exceeds
:data:`MAX_OBJECT_BYTES` makes every rank raise at the same collective (the sizes are
exchanged first), so no rank is left waiting.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from spade_gym.errors import SpadeError

#: The largest payload one rank may contribute to one object collective.
MAX_OBJECT_BYTES = 64 * 2**20

#: The CPU group of the object collectives, created once per process (collectively, at the first one).
_OBJECT_GROUP: dict[str, object] = {}


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world: int = 1
    #: Seconds a collective may wait (None: the process group's own).
    timeout_s: float | None = field(default=None, compare=False)

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @classmethod
    def current(cls, *, cpu: bool = False, timeout_s: float | None = None) -> Ranks:
        """From accelerate's process state (a single process when not launched by it).

        The state is a process-wide singleton that the trainer shares later, so it must be
        created with the trainer's device choice: on CPU (``use_cpu``) only ``cpu=True``
        makes a ``torchrun``/``accelerate launch`` job a multi-process (gloo) one. It creates
        the process group, so ``timeout_s`` (``grpo.ddp_timeout``) is given to it here.
        """
        try:
            from accelerate import PartialState
        except ImportError:
            return cls()
        kwargs = {}
        if timeout_s is not None:
            from datetime import timedelta

            kwargs["timeout"] = timedelta(seconds=float(timeout_s))
        state = PartialState(cpu=cpu, **kwargs)
        return cls(state.process_index, state.num_processes, timeout_s)

    # ------------------------------------------------------------------ collectives

    def gather(self, items: list, *, what: str = "gathering the ranks' results") -> list:
        """Every rank's ``items`` concatenated in rank order, on every rank (JSON values:
        tuples arrive as lists)."""
        if self.world == 1:
            return list(items)
        out: list = []
        for part in self._all_gather_bytes(_encode(list(items)), what):
            out += json.loads(part)
        return out

    def broadcast(self, value, *, what: str = "receiving the main process's decisions"):
        """The main process's ``value`` on every rank (a JSON value)."""
        if self.world == 1:
            return value
        import torch

        dist, group = self._group()
        payload = _encode(value) if self.is_main else b""
        size = torch.tensor([len(payload)], dtype=torch.long)
        self._call(what, dist.broadcast, size, src=0, group=group)
        n = int(size.item())
        if n > MAX_OBJECT_BYTES:
            raise SpadeError(f"{what}: the main process's payload is {n:,} bytes, over the "
                             f"{MAX_OBJECT_BYTES:,}-byte bound of one object collective")
        buffer = torch.zeros(n, dtype=torch.uint8)
        if self.is_main:
            buffer[:] = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
        self._call(what, dist.broadcast, buffer, src=0, group=group)
        return json.loads(buffer.numpy().tobytes())

    def barrier(self, *, what: str = "waiting for the other ranks") -> None:
        if self.world == 1:
            return
        dist, group = self._group()
        self._call(what, dist.barrier, group=group)

    # ------------------------------------------------------------------ internals

    def _group(self):
        """(torch.distributed, the CPU group of object collectives: the default group when it is
        gloo already, else a gloo group with the same timeout)."""
        import torch.distributed as dist

        if not dist.is_initialized():
            raise SpadeError(f"rank {self.rank} of {self.world}: no process group (launch with accelerate/torchrun)")
        if dist.get_backend() == "gloo":
            return dist, None
        if "gloo" not in _OBJECT_GROUP:
            from datetime import timedelta

            kwargs: dict[str, Any] = {"timeout": timedelta(seconds=self.timeout_s)} if self.timeout_s else {}
            _OBJECT_GROUP["gloo"] = dist.new_group(backend="gloo", **kwargs)
        return dist, _OBJECT_GROUP["gloo"]

    def _all_gather_bytes(self, payload: bytes, what: str) -> list[bytes]:
        import torch

        dist, group = self._group()
        size = torch.tensor([len(payload)], dtype=torch.long)
        sizes = [torch.zeros(1, dtype=torch.long) for _ in range(self.world)]
        self._call(what, dist.all_gather, sizes, size, group=group)
        counts = [int(s.item()) for s in sizes]
        if max(counts) > MAX_OBJECT_BYTES:  # every rank sees the sizes: all raise here, none waits
            worst = max(range(self.world), key=lambda r: counts[r])
            raise SpadeError(f"{what}: rank {worst} sent {counts[worst]:,} bytes, over the "
                             f"{MAX_OBJECT_BYTES:,}-byte bound of one object collective")
        width = max(counts) or 1
        buffer = torch.zeros(width, dtype=torch.uint8)
        if payload:
            buffer[:len(payload)] = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
        buffers = [torch.zeros(width, dtype=torch.uint8) for _ in range(self.world)]
        self._call(what, dist.all_gather, buffers, buffer, group=group)
        return [b[:n].numpy().tobytes() for b, n in zip(buffers, counts)]

    def _call(self, what: str, op, *args, **kwargs):
        try:
            return op(*args, **kwargs)
        except RuntimeError as exc:  # gloo reports a timeout or a dead peer as a RuntimeError
            limit = f"{self.timeout_s:g} s (grpo.ddp_timeout)" if self.timeout_s else "the process group's timeout"
            raise SpadeError(f"rank {self.rank} of {self.world}, {what}: the other ranks did not arrive within "
                             f"{limit}, or one of them died ({str(exc).splitlines()[0][:300]})") from exc


def _encode(value) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")
