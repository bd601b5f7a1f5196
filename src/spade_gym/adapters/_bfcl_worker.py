"""Runs BFCL's multi-turn API simulators for one episode, in a process of its own.

Started by :mod:`spade_gym.adapters.bfcl_multi_turn` as ``python _bfcl_worker.py``; it reads
one JSON request per line on stdin and writes one JSON reply per line. The simulators are
BFCL's trusted code, but they run with arguments a model chose, and some of them hang or
exhaust memory on such arguments (``MathAPI.power`` with a huge exponent): a process of its
own, a memory limit and the host's deadline per request keep that away from the host.
Only JSON crosses back.

Requests (``op``): ``start`` (config, classes) builds the model's and the ground truth's
simulators from the task's initial configuration; ``call`` (name, arguments, allowed) runs
a model's call; ``ground_truth`` (calls) runs BFCL's ground-truth call texts; ``compare``
says whether the two sets of simulators are in the same state; ``plan`` (turns) turns
ground-truth call texts into ``{"name", "arguments"}``.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING or __package__:  # imported as spade_gym.adapters._bfcl_worker (tests, the type checker)
    from spade_gym.adapters._worker_loop import limit_memory, serve, take_stdout
else:  # run as a script, as the host starts it: this file's folder is first on sys.path
    from _worker_loop import limit_memory, serve, take_stdout

MODULE_PREFIX = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code."
CLASS_MODULES = {
    "GorillaFileSystem": "gorilla_file_system", "MathAPI": "math_api", "MessageAPI": "message_api",
    "TwitterAPI": "posting_api", "TicketAPI": "ticket_api", "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking", "VehicleControlAPI": "vehicle_control",
}
#: Simulators without a scenario to load.
STATELESS = {"MathAPI"}
MEMORY_LIMIT_BYTES = 2 << 30


def _build(config: dict, classes: list[str]) -> tuple[dict, dict]:
    instances, methods = {}, {}
    for class_name in classes:
        if class_name not in CLASS_MODULES:
            raise ValueError(f"unknown BFCL simulator {class_name!r}")
        instance = getattr(importlib.import_module(MODULE_PREFIX + CLASS_MODULES[class_name]), class_name)()
        if class_name not in STATELESS:
            instance._load_scenario(copy.deepcopy(config.get(class_name, {})), long_context=False)
        instances[class_name] = instance
        for name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
            if not name.startswith("_"):
                methods[name] = method
    return instances, methods


def _text(value) -> str:
    """A result as BFCL turns it into text for the model."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def _run(methods: dict, name: str, arguments: dict) -> str:
    method = methods.get(name)
    if method is None:
        return f"Error during execution: name '{name}' is not defined"
    try:
        return _text(method(**arguments))
    except Exception as exc:  # a failing call is a result the model sees, as in BFCL
        return f"Error during execution: {exc}"


def _parse_call(text: str, methods: dict) -> tuple[str, dict]:
    """``cd(folder='x')`` or ``sort('a.txt')`` -> (name, keyword arguments); literals only, never evaluated."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain function call: {text!r}")
    name = node.func.id
    arguments = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None}
    if node.args:
        parameters = [p for p in inspect.signature(methods[name]).parameters]
        for parameter, value in zip(parameters, node.args):
            arguments[parameter] = ast.literal_eval(value)
    return name, arguments


def _public_state(instance) -> dict:
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


class BfclSession:
    """One multi-turn episode: the API simulators the model's calls run on, and a twin set that replays
    the ground truth, so the two end states can be compared."""

    def __init__(self) -> None:
        self.model: tuple[dict, dict] = ({}, {})
        self.truth: tuple[dict, dict] = ({}, {})

    def handle(self, request: dict) -> dict:
        op = request.get("op")
        if op == "start":
            self.model = _build(request["config"], request["classes"])
            self.truth = _build(request["config"], request["classes"])
            return {"ok": True}
        if op == "call":
            name, arguments = request["name"], request["arguments"]
            if name not in request["allowed"]:
                return {"result": f"Error during execution: name '{name}' is not defined"}
            return {"result": _run(self.model[1], name, arguments)}
        if op == "ground_truth":
            results = []
            for text in request["calls"]:
                try:
                    name, arguments = _parse_call(text, self.truth[1])
                except Exception as exc:
                    results.append(f"Error during execution: {exc}")
                    continue
                results.append(_run(self.truth[1], name, arguments))
            return {"results": results}
        if op == "compare":
            differences = []
            for class_name, truth in self.truth[0].items():
                model = self.model[0][class_name]
                for attribute, expected in _public_state(truth).items():
                    if getattr(model, attribute, None) != expected:
                        differences.append(f"{class_name}.{attribute}")
            return {"valid": not differences, "differences": differences}
        if op == "plan":
            return {"turns": [[dict(zip(("name", "arguments"), _parse_call(text, self.truth[1]))) for text in turn]
                              for turn in request["turns"]]}
        raise ValueError(f"unknown request {op!r}")


def main() -> None:
    limit_memory(MEMORY_LIMIT_BYTES)
    protocol = take_stdout()  # anything a simulator prints goes to stderr
    serve(BfclSession().handle, sys.stdin, protocol)


if __name__ == "__main__":
    main()
