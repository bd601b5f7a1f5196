"""Tool-use step cost against a game step, both through the sandbox, measured in the same run.

    python benchmarks/bench_tool_use.py [--quick] [--json out.json]

A tool-use step runs more code than a typical game step (the base class's ``<answer>`` and
``<tool_call>`` regular expressions, a JSON decode, a guarded ``getattr`` dispatch, the
program's tool), all inside the worker. The claim checked here: that work disappears in the
process round trip, so a tool-use step costs no more than a game step. Rounds alternate
between the two programs and the medians are compared, so machine noise hits both alike.

Also reported, for context: each step in plain Python in-process (the unsandboxed
reference way, the tool-use program on the plain stand-in base class of the tests), and
``reset`` + ``get_tools()`` for a new tool-use episode.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BENIGN, ROOT, load_plain, print_table  # noqa: E402

from spade_gym.sandbox import ProgramHandle  # noqa: E402

TOOL_USE = ROOT / "tests" / "programs" / "tooluse" / "bank_ledger.py"
GAME = BENIGN / "injected_names.py"
#: A query tool whose result (eight account ids) is a realistic observation size.
TOOL_ACTION = '<tool_call>{"name": "list_accounts", "arguments": {}}</tool_call>'
GAME_ACTION = "\\boxed{42}"
#: Long episodes, so that the measured calls are steps, not resets.
KWARGS = {"max_turns": 10**9}


def per_step(handle: ProgramHandle, action: str, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        handle.step(action)
    return (time.perf_counter() - start) / n


def alternating(rounds: int, per_round: int) -> tuple[list[float], list[float]]:
    """Seconds per step of the game and the tool-use program, one round of each in turn."""
    game = ProgramHandle(GAME.read_text(), kwargs=KWARGS)
    tool = ProgramHandle(TOOL_USE.read_text(), kwargs=KWARGS)
    game.reset(seed=1)
    tool.reset(seed=1)
    for handle, action in ((game, GAME_ACTION), (tool, TOOL_ACTION)):  # warm up both workers
        per_step(handle, action, 300)
    game_times, tool_times = [], []
    for _ in range(rounds):
        game_times.append(per_step(game, GAME_ACTION, per_round))
        tool_times.append(per_step(tool, TOOL_ACTION, per_round))
    game.close()
    tool.close()
    return game_times, tool_times


def plain_costs(n: int) -> tuple[float, float]:
    """(game, tool-use) seconds per step in plain Python, in-process."""
    sys.path.insert(0, str(ROOT / "tests"))  # the tests' plain stand-in for the base class
    costs = []
    for path, action, prefix in ((GAME, GAME_ACTION, ""),
                                 (TOOL_USE, TOOL_ACTION, "from tool_use_standin import ToolUseBaseEnv\n")):
        env = load_plain(prefix + path.read_text())(**KWARGS)
        env.reset(seed=1)
        for _ in range(200):
            env.step(action)
        start = time.perf_counter()
        for _ in range(n):
            env.step(action)
        costs.append((time.perf_counter() - start) / n)
    return costs[0], costs[1]


def new_episode(n: int) -> float:
    """Seconds for reset() plus get_tools() of a tool-use episode (what gym's reset does)."""
    handle = ProgramHandle(TOOL_USE.read_text())
    handle.reset(seed=0)
    handle.tools()
    start = time.perf_counter()
    for seed in range(n):
        handle.reset(seed=seed)
        handle.tools()
    handle.close()
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()
    scale = 0.2 if args.quick else 1.0
    rounds, per_round = max(5, int(20 * scale)), max(200, int(1000 * scale))
    game_times, tool_times = alternating(rounds, per_round)
    game_step, tool_step = statistics.median(game_times), statistics.median(tool_times)
    ratio = tool_step / game_step
    plain_game, plain_tool = plain_costs(int(20000 * scale))
    episode = new_episode(int(500 * scale))
    rows = [
        ("tool-use step vs game step, sandboxed (median of rounds)", f"{tool_step * 1e6:.1f} us",
         f"{game_step * 1e6:.1f} us", f"{ratio:.2f}x", "<= 1.0x (+ noise)"),
        ("  the same steps in plain Python, in-process", f"{plain_tool * 1e6:.1f} us", f"{plain_game * 1e6:.1f} us",
         f"{plain_tool / plain_game:.2f}x", "(info)"),
        ("new tool-use episode: reset() + get_tools()", f"{episode * 1e6:.1f} us", "", "", "(info)"),
    ]
    print_table(f"Tool-use benchmark ({rounds} alternating rounds of {per_round} steps)",
                ("measure", "tool-use", "game", "ratio", "target"), rows)
    if args.json:
        Path(args.json).write_text(json.dumps({
            "game_step_s": game_step, "tool_step_s": tool_step, "tool_over_game": ratio,
            "game_rounds_s": game_times, "tool_rounds_s": tool_times,
            "plain_game_step_s": plain_game, "plain_tool_step_s": plain_tool, "new_episode_s": episode,
        }, indent=2))


if __name__ == "__main__":
    main()
