"""Play *trusted* tool-use test programs under plain CPython on the stand-in base class.

Run as a script in a subprocess (PYTHONHASHSEED=0):
``python plain_tooluse_runner.py PROGRAM.py '{"seeds": [...], "before": [...], "kwargs": {...}}'``.
For each seed: reset, the tools, the solution, then the ``before`` actions followed by the
solution's own actions (one per turn), until the episode ends. Prints one JSON document.
"""

import json
import re
import sys
import types

import tool_use_standin
from plain_runner import INJECTED, load, play_steps  # noqa: F401  (INJECTED: the names the reference injects)

SCRIPT_ACTION = re.compile(r"<tool_call>.*?</tool_call>|<answer>.*?</answer>", re.DOTALL)


def solution_actions(solution: str) -> list[str]:
    return SCRIPT_ACTION.findall(solution)


def main():
    source = open(sys.argv[1]).read()
    spec = json.loads(sys.argv[2])
    module = types.ModuleType("tool_use_base_env")
    module.ToolUseBaseEnv = tool_use_standin.ToolUseBaseEnv
    sys.modules["tool_use_base_env"] = module
    INJECTED["ToolUseBaseEnv"] = tool_use_standin.ToolUseBaseEnv
    env = load(source)(**spec.get("kwargs", {}))
    out = []
    for seed in spec["seeds"]:
        obs, info = env.reset(seed=seed)
        solution = env.solution()
        out.append({"reset": [obs, info], "tools": env.get_tools(), "solution": solution,
                    "steps": play_steps(env, spec.get("before", []) + solution_actions(solution))})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
