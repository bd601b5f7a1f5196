"""One rank of a faked multi-rank self-play iteration (tests/selfplay/test_selfplay_ranks.py starts them).

    python selfplay_rank_worker.py SCENARIO OUT_DIR RANK WORLD PORT

Ranks form a gloo group the way ``accelerate launch`` does on CPU (RANK/WORLD_SIZE/
MASTER_ADDR/MASTER_PORT), through :meth:`Ranks.current`. The generation backend is the
vLLM stand-in of tests/support/fakes.py in server mode, behind a fake of TRL's ``sync_weights``:
the main process "pushes" for PUSH_S seconds (longer than any request), the others return
at once, as TRL's do under DDP. Then, as TRL's ``_generate`` does, every rank calls the
rollout. Each rank writes OUT_DIR/rank<R>.json: what it generated and when, and its batch.

Scenarios: ``iteration`` (one self-play iteration: batch, regret balance, the push),
``timeout`` (rank 0 is late at a collective; the others must give up after the configured
timeout), ``bound`` (a payload over the object-collective bound fails on every rank).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

PUSH_S = 3.0


def main() -> None:
    scenario, out_dir, rank, world, port = sys.argv[1], Path(sys.argv[2]), *map(int, sys.argv[3:6])
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world),
                      LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world), OMP_NUM_THREADS="1")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from spade_gym.selfplay.distributed import Ranks

    out: dict = {"rank": rank}
    if scenario == "timeout":
        ranks = Ranks.current(cpu=True, timeout_s=3)
        if rank == 0:
            time.sleep(9)
        started = time.monotonic()
        try:
            ranks.barrier(what="the timeout test")
            out["error"] = None
        except Exception as exc:  # noqa: BLE001 - the test reads what was raised
            out["error"] = f"{type(exc).__name__}: {exc}"
        out["waited_s"] = time.monotonic() - started
    elif scenario == "bound":
        from spade_gym.selfplay import distributed

        ranks = Ranks.current(cpu=True, timeout_s=60)
        distributed.MAX_OBJECT_BYTES = 1000
        out["small"] = ranks.gather([rank])
        try:
            ranks.gather(["x" * (5000 if rank == 1 else 10)])
            out["error"] = None
        except Exception as exc:  # noqa: BLE001
            out["error"] = f"{type(exc).__name__}: {exc}"
        ranks.barrier()
    else:
        out.update(iteration(Ranks.current(cpu=True, timeout_s=120), out_dir))
    (out_dir / f"rank{rank}.json").write_text(json.dumps(out))
    # The report is written: leave without the interpreter's teardown, where gloo's C++ threads
    # can abort the process ("terminate called without an active exception", -6) after a
    # collective failed on purpose.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def iteration(ranks, out_dir: Path) -> dict:
    from fakes import FakeVLLM, stable_choice

    from spade_gym.registry import Suite, bundled_suite_path
    from spade_gym.selfplay.batch import batch_layout
    from spade_gym.selfplay.demo_designs import DEMO_DESIGNS
    from spade_gym.selfplay.presets import load_preset
    from spade_gym.selfplay.records import RunState
    from spade_gym.selfplay.rollout import SpadeRollout
    from spade_gym.selfplay.warmstart import designer_completion
    from spade_gym.validation import novelty

    novelty.registered_suites = lambda: [Suite(bundled_suite_path())]
    mod_sum = DEMO_DESIGNS[0]
    requests: list[dict] = []

    def model(prompt: str, seed: int) -> str:
        design = "Design a " in prompt
        requests.append({"t": time.time(), "design": design})
        if design:  # every design is ModSum: one is registered, the others are copies of it
            return designer_completion(mod_sum.source, mod_sum.hint)
        return "\\boxed{" + str(stable_choice(list(range(7)), prompt, seed)) + "}"

    config = load_preset("cpu-test")
    config.designer_groups, config.agent_groups = 2, 3
    config.validation_seeds = 4
    config.max_program_tokens = 4000  # one token per character (the stand-in's tokenizer)
    config.validate(world=ranks.world)
    layout = batch_layout(config, ranks.world)
    fake = FakeVLLM(model)
    pushed = {}

    def sync_weights():  # TRL's VLLMGeneration.sync_weights: only the main process pushes
        if ranks.is_main:
            time.sleep(PUSH_S)
            pushed["end"] = time.time()

    trainer = fake.trainer("server")
    trainer.vllm_generation.sync_weights = sync_weights
    trainer.processing_class = fake.tokenizer
    trainer.args.temperature = 0.8
    run_dir = out_dir / "run"
    rollout = SpadeRollout(config, run_dir, Suite(bundled_suite_path()).entries(), RunState(), ranks=ranks)
    phase = ["tasks"]
    plays: list[dict] = []
    stage = rollout.play_stage
    play, measure = stage._play, stage.measure_regret

    def counting_play(policy, specs, temperature, seed):
        plays.append({"phase": phase[0], "episodes": len(specs), "hinted": sum(1 for s in specs if s.hint)})
        return play(policy, specs, temperature, seed)

    def counting_measure(*args, **kwargs):
        phase[0] = "regret"
        try:
            return measure(*args, **kwargs)
        finally:
            phase[0] = "tasks"

    stage._play, stage.measure_regret = counting_play, counting_measure
    prompts = [{"prompt": "slot"}] * layout.slots_per_rank
    ranks.barrier()
    started = time.time()
    trainer.vllm_generation.sync_weights()  # as TRL's _generate: the push, then rollout_func
    out = rollout(prompts, trainer)
    metrics = rollout.last_metrics
    regret = [p for p in plays if p["phase"] == "regret"]
    return {"started": started, "push_end": pushed.get("end"), "first_request": min((r["t"] for r in requests),
                                                                                     default=None),
            "rows": len(out["completion_ids"]), "padding": sum(1 for ids in out["completion_ids"] if len(ids) == 1),
            "designed": metrics["designed"], "samples": metrics["samples"], "agent_samples": metrics["agent_samples"],
            "valid": metrics["valid"], "regret_mean": metrics["regret_mean"],
            "regret_episodes": sum(p["episodes"] for p in regret), "regret_hinted": sum(p["hinted"] for p in regret),
            "task_episodes": sum(p["episodes"] for p in plays if p["phase"] == "tasks"),
            "trained_regret_groups": metrics["trained_regret_groups"],
            "my_designs": len(rollout.last_designs), "roles": out["spade_role"]}


if __name__ == "__main__":
    main()
