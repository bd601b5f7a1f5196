"""Resource limits for sandboxed programs, with the defaults in one place."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace


@dataclass(frozen=True)
class Limits:
    """Limits applied to every worker process and every call into a program.

    The wall-clock deadlines are enforced twice: inside the worker (a timer that
    interrupts Python code and reports the line it stopped at) and by the host,
    which kills the worker's whole process group ``kill_grace`` seconds later if
    the worker is stuck in C code or swallows the interruption. A result that
    arrives after its deadline never counts, whatever the grace.
    """

    #: Deadline for compiling, executing and instantiating the program.
    load_timeout: float = 10.0
    #: Deadline for each reset/step/solution/hint call.
    call_timeout: float = 5.0
    #: Extra seconds the host waits past a deadline before killing the worker.
    kill_grace: float = 1.0
    #: Address-space limit of a worker (bytes); includes the ~150 MiB the runtime maps.
    memory_bytes: int = 1 << 30
    #: CPU seconds a worker may use per episode (counted from each reset).
    cpu_seconds_per_episode: int = 60
    #: Longest observation passed on (characters); a longer one is cut by the runtime,
    #: with a visible marker, and a worker that sends more anyway is killed.
    max_observation_chars: int = 65_536
    #: Largest JSON-encoded ``info`` dict (bytes).
    max_info_bytes: int = 65_536
    #: Largest exception message passed back (characters); longer ones are cut.
    max_error_chars: int = 4_000
    #: Open file descriptors a worker may hold.
    max_open_files: int = 32
    #: When the host runs as root, run workers as ``nobody`` (uid/gid 65534).
    drop_privileges: bool = True

    def replace(self, **changes) -> Limits:
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> Limits:
        if not data:
            return cls()
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown sandbox limit(s): {', '.join(sorted(unknown))}")
        return cls(**data)


DEFAULT_LIMITS = Limits()
