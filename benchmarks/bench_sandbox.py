"""Sandbox cost, measured against baselines taken in the same run.

    python benchmarks/bench_sandbox.py [--quick]

Prints a table of ratios (machines here are noisy; ratios against a baseline
measured seconds earlier are what carry over):

* per-call cost of a sandboxed ``step`` vs a bare round-trip of a small framed
  message between two processes over a socketpair (the floor of any process boundary);
* batched probe episodes in the worker vs plain in-process ``exec`` of the same
  program (the SPADE reference implementation's unsandboxed way), same policy;
* attribute-heavy code under the guards vs plain ``exec``, in one process (the cost of
  the language layer alone);
* env start-up latency with a warm zygote, and ``import spade_gym`` time.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENIGN, load_plain, plain_episode, print_table  # noqa: E402

from spade_gym.sandbox import ProgramHandle, framing  # noqa: E402
from spade_gym.sandbox.policy import compile_program  # noqa: E402
from spade_gym.sandbox.instance import build_namespace  # noqa: E402
from spade_gym.sandbox.runtime import ProgramRuntime  # noqa: E402
from spade_gym.sandbox.limits import Limits  # noqa: E402


def bare_round_trip(n: int, spin: bool) -> float:
    """Seconds per round-trip of a small framed JSON message between two processes.

    The baseline uses the plainest client: one blocking ``recv`` (``spin=False``), or
    the same busy-poll window the sandbox host uses (``spin=True``).
    """
    host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        host.close()
        try:
            while True:
                framing.recv_blocking(child, 1 << 20)
                framing.send(child, {"ok": True, "result": ["obs text of typical length " * 3, 0.0, False, False, {}]})
        except Exception:
            os._exit(0)
    child.close()
    request = {"op": "step", "i": 0, "action": "\\boxed{42}"}

    def receive():
        if spin:
            return framing.recv_deadline(host, time.monotonic() + 5, 1 << 20)
        host.setblocking(True)
        return framing.recv_blocking(host, 1 << 20)

    for _ in range(200):
        framing.send(host, request)
        receive()
    start = time.perf_counter()
    for _ in range(n):
        framing.send(host, request)
        receive()
    elapsed = time.perf_counter() - start
    host.close()
    os.waitpid(pid, 0)
    return elapsed / n


def sandboxed_step(source: str, n: int) -> float:
    handle = ProgramHandle(source)
    handle.reset(seed=1)
    for _ in range(200):
        handle.step("\\boxed{42}")
    start = time.perf_counter()
    done = 0
    while done < n:
        _, _, term, trunc, _ = handle.step("\\boxed{42}")
        done += 1
        if term or trunc:
            handle.reset(seed=done)
    elapsed = time.perf_counter() - start
    handle.close()
    return elapsed / n


def plain_step_cost(source: str, n: int) -> float:
    env = load_plain(source)()
    env.reset(seed=1)
    start = time.perf_counter()
    for i in range(n):
        _, _, term, trunc, _ = env.step("\\boxed{42}")
        if term or trunc:
            env.reset(seed=i)
    return (time.perf_counter() - start) / n


def batched_throughput(source: str, seeds: list[int], max_steps: int) -> tuple[float, float]:
    """(sandboxed steps/s, plain in-process steps/s) for the random-numbers probe policy, the
    sandboxed side played from the host in lock-step (as the validator plays)."""
    from spade_gym.validation.episodes import Job, play
    from spade_gym.validation.policies import make_policy

    slots = 16
    handle = ProgramHandle(source, count=slots)
    policy = {"kind": "random_numbers", "low": 0, "high": 300}

    def jobs(which):
        return [Job(seed, "random_numbers", make_policy(policy, seed)) for seed in which]

    play(handle, jobs(seeds[:4]), max_steps=max_steps, slots=slots, timeout_for=lambda n: 10.0 + n)
    start = time.perf_counter()
    results = play(handle, jobs(seeds), max_steps=max_steps, slots=slots, timeout_for=lambda n: 10.0 + n)
    sandbox_time = time.perf_counter() - start
    sandbox_steps = sum(r.turns + 1 for r in results)
    handle.close()
    cls = load_plain(source)
    env = cls()
    start = time.perf_counter()
    plain_steps = sum(plain_episode(env, seed, policy, max_steps) for seed in seeds)
    plain_time = time.perf_counter() - start
    return sandbox_steps / sandbox_time, plain_steps / plain_time


ATTRIBUTE_HEAVY = '''
class Particle:
    def __init__(self, x, v):
        self.x = x
        self.v = v
        self._mass = 1.0

class SwarmEnv:
    def __init__(self, max_turns=10, **kwargs):
        self.particles = [Particle(i * 0.5, 1.0 - i * 0.01) for i in range(50)]
        self.t = 0

    def tick(self):
        for p in self.particles:
            p.x = p.x + p.v * 0.1
            if p.x > 10.0:
                p.v = -p.v
            p._mass = p._mass * 0.999
        self.t += 1
        return sum(p.x for p in self.particles)
'''


def attribute_heavy(n: int) -> tuple[float, float]:
    """(guarded seconds, plain seconds) for n ticks of attribute-heavy code, in-process."""
    compiled = compile_program(ATTRIBUTE_HEAVY)
    runtime = ProgramRuntime(Limits())

    class Owner:
        recursion_limit = sys.getrecursionlimit()

    ns = build_namespace(runtime.guards, runtime.surfaces.for_instance(Owner()))
    exec(compiled.code, ns)
    guarded = ns["SwarmEnv"]()
    plain_ns = {"__name__": "plain"}
    exec(compile(ATTRIBUTE_HEAVY, "<plain>", "exec"), plain_ns)
    plain = plain_ns["SwarmEnv"]()
    times = {}
    for label, env in (("guarded", guarded), ("plain", plain)):
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(n):
                env.tick()
            best = min(best, time.perf_counter() - start)
        times[label] = best
    return times["guarded"], times["plain"]


def startup_latency(source: str, n: int) -> float:
    ProgramHandle(source).close()  # warm the zygote
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        handle = ProgramHandle(source)
        samples.append(time.perf_counter() - start)
        handle.close()
    return statistics.median(samples)


def import_time(n: int) -> tuple[float, float]:
    def run(code):
        samples = []
        for _ in range(n):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    return run("import spade_gym"), run("pass")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()
    scale = 0.2 if args.quick else 1.0
    # A typical generated step: ~5-8 us in plain Python (the table reports it).
    source = (BENIGN / "injected_names.py").read_text()

    bare = bare_round_trip(int(5000 * scale), spin=False)
    bare_spin = bare_round_trip(int(5000 * scale), spin=True)
    step = sandboxed_step(source, int(5000 * scale))
    plain_step = plain_step_cost(source, int(20000 * scale))
    sandbox_sps, plain_sps = batched_throughput(source, list(range(int(400 * scale))), 12)
    guarded, plain = attribute_heavy(int(2000 * scale))
    startup = startup_latency(source, int(30 * scale) or 5)
    imp, python_start = import_time(5)

    rows = [
        ("sandboxed step vs bare round-trip (blocking recv)", f"{step * 1e6:.1f} us", f"{bare * 1e6:.1f} us",
         f"{step / bare:.2f}x", "<= 1.5x"),
        ("sandboxed step vs bare round-trip (same 50 us spin)", f"{step * 1e6:.1f} us",
         f"{bare_spin * 1e6:.1f} us", f"{step / bare_spin:.2f}x", "(info)"),
        ("  the same step in plain Python, in-process", f"{plain_step * 1e6:.1f} us", "", "", "(info)"),
        ("batched probe episodes vs plain exec (steps/s)", f"{sandbox_sps:,.0f}", f"{plain_sps:,.0f}",
         f"{sandbox_sps / plain_sps:.2f} of plain", ">= 0.33"),
        ("attribute-heavy code: guards vs plain exec", f"{guarded / (2000 * scale) * 1e6:.1f} us/tick",
         f"{plain / (2000 * scale) * 1e6:.1f} us/tick", f"{guarded / plain:.2f}x", "(info)"),
        ("env start-up (warm zygote, median)", f"{startup * 1e3:.1f} ms", "", "", "< 50 ms"),
        ("import spade_gym (minus bare interpreter)", f"{(imp - python_start) * 1e3:.0f} ms",
         f"{python_start * 1e3:.0f} ms", "", "< 300 ms"),
    ]
    print_table("Sandbox benchmark", ("measure", "spade-gym", "baseline", "ratio", "target"), rows)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "bare_round_trip_s": bare, "sandboxed_step_s": step, "step_ratio": step / bare,
            "batched_steps_per_s": sandbox_sps, "plain_steps_per_s": plain_sps,
            "batched_fraction_of_plain": sandbox_sps / plain_sps, "guard_ratio": guarded / plain,
            "startup_s": startup, "import_s": imp - python_start,
        }, indent=2))


if __name__ == "__main__":
    main()
