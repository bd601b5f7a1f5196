"""This process's place among the training ranks, and the few collectives the loop needs.

TRL calls ``rollout_func`` on every rank with that rank's own prompt slots. Ranks must
therefore draw different designs and tasks (their RNG streams include the rank), write
shared files from one process (the main one) and log once. Every collective here is
called by every rank the same number of times per iteration, whatever its own work.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world: int = 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @classmethod
    def current(cls, *, cpu: bool = False) -> "Ranks":
        """From accelerate's process state (a single process when not launched by it).

        The state is a process-wide singleton that the trainer shares later, so it must be
        created with the trainer's device choice: on CPU (``use_cpu``) only ``cpu=True``
        makes a ``torchrun``/``accelerate launch`` job a multi-process (gloo) one.
        """
        try:
            from accelerate import PartialState
        except ImportError:
            return cls()
        state = PartialState(cpu=cpu)
        return cls(state.process_index, state.num_processes)

    def gather(self, items: list) -> list:
        """Every rank's ``items`` concatenated in rank order, on every rank."""
        if self.world == 1:
            return list(items)
        from accelerate.utils import gather_object

        return list(gather_object(list(items)))

    def broadcast(self, value):
        """The main process's ``value`` on every rank."""
        if self.world == 1:
            return value
        from accelerate.utils import broadcast_object_list

        box = [value]
        broadcast_object_list(box, from_process=0)
        return box[0]

    def barrier(self) -> None:
        if self.world > 1:
            from accelerate import PartialState

            PartialState().wait_for_everyone()
