"""Tool-use programs get a shortcut zoo that speaks tool calls (``validation.baselines.tools``).

Every game baseline answers ``\\boxed{}``, which a tool-use program ignores, so before this zoo a
tool-use program had no working shortcut check. Each program in ``tests/programs/tool_shortcut_*``
hands over its answer one way a no-reasoning script exploits (a tool with no parameters that
states it, an error message that states it, a schema description with it glued inside a token, a
small answer space with unlimited answers, a constant answer any successful call unlocks). For
each: the exploit is first proven under plain CPython (the program run as the reference loader
would, on a stand-in base class, by a script that does no reasoning), then the validator rejects
it; its sound twin, which differs in that one place, loses to the same script and is accepted.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from testkit import PROGRAMS, SUPPORT

from spade_gym import toolcalls
from spade_gym.errors import ConfigError
from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.baselines.base import Prior
from spade_gym.validation.baselines.tools import (
    _STOPWORDS,
    CallPlan,
    ToolReplay,
    ToolSweep,
    is_error,
    occurrences,
    plan_for,
    rank_values,
    sources,
)
from spade_gym.validation.baselines.zoo import SHORTCUT_BASELINES, TOOL_SHORTCUT_BASELINES, make_baseline
from spade_gym.validation.config import DEFAULT_CONFIG

SMALL = ValidationConfig(seeds=8, fuzz_examples=8, cost_samples=3, seed=11, long_run_resets=40)
#: The bad programs are judged by the checks that read what a script can do (the sound twins, which
#: differ in one place, pass every check); the full validation of both is in the change's evidence.
JUDGES = SMALL.replace(checks=("static", "load", "solvability", "tools_needed", "shortcut", "agent_probes"))
PLAIN_SEEDS = [0, 1, 7, 42, 1234, 99, 5, 2024]

#: bad program -> (its sound twin, the no-reasoning script that beats it under plain CPython,
#: the check that rejects it, the baseline named in the rejection (None: not a zoo finding)).
HOSTILE = {
    "tool_shortcut_peek": ("tool_shortcut_sound", "sweep", "shortcut", "tool_sweep"),
    "tool_shortcut_error": ("tool_shortcut_sound", "sweep", "shortcut", "tool_sweep"),
    "tool_shortcut_enumerable": ("tool_shortcut_enumerable_sound", "enumerate", "shortcut", "tool_enumerate"),
    "tool_shortcut_done": ("tool_shortcut_done_sound", "sweep", "shortcut", "tool_sweep"),
    "tool_shortcut_schema": ("tool_shortcut_busiest_sound", "schema", "tools_needed", None),
}
SOUND = sorted({twin for twin, *_ in HOSTILE.values()})

#: The no-reasoning scripts, run next to the program in a plain CPython subprocess: each reads the
#: task text, the schemas and the results with regular expressions, never the program's state.
PLAIN_SCRIPT = r'''
import json, re, sys
sys.path.insert(0, sys.argv[3])
import tool_use_standin
from plain_runner import INJECTED, load
INJECTED["ToolUseBaseEnv"] = tool_use_standin.ToolUseBaseEnv
env = load(open(sys.argv[1]).read())()
spec = json.loads(sys.argv[2])

def call(name, **arguments):
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"

def task_words(task):
    region = re.search(r"(\w+) region", task)
    project = re.search(r"project (\w+)", task)
    sku = re.search(r"SKU-\d+", task)
    return {"region": region and region.group(1), "project": project and project.group(1),
            "sku": sku and sku.group(0)}

def sweep(task, tools):
    """Every tool once, string arguments copied from the task by their name, anything else empty."""
    words = task_words(task)
    out = []
    for tool in tools:
        props = tool["function"]["parameters"].get("properties", {})
        out.append(call(tool["function"]["name"], **{p: words.get(p) or "x" for p in props}))
    return out

runs = []
for seed in spec["seeds"]:
    task, _ = env.reset(seed=seed)
    tools = env.get_tools()
    steps, texts = [], []
    def play(action):
        result = list(env.step(action))
        steps.append([action] + result[:4])
        texts.append(result[0])
        return result
    if spec["script"] == "sweep":  # then answer every number, code and line the results showed
        for action in sweep(task, tools):
            play(action)
        candidates = [a for a, _ in json.loads(spec["answers"])] if spec.get("answers") else []
        for text in texts:
            candidates += re.findall(r"\d+|W\d+", text)
        for answer in candidates:
            if play("<answer>" + answer + "</answer>")[2] or len(steps) >= env.max_turns:
                break
    elif spec["script"] == "enumerate":  # the usual first call, then 1, 2, 3...
        play(call("list_warehouses", region=task_words(task)["region"]))
        for n in range(1, 13):
            if play("<answer>%d</answer>" % n)[2] or len(steps) >= env.max_turns:
                break
    elif spec["script"] == "schema":  # the usual first call, then what the schemas spell inside a token
        play(call("list_warehouses", region=task_words(task)["region"]))
        for code in re.findall(r"qx(\w+?)vk", json.dumps(tools)) or ["none"]:
            if play("<answer>" + code + "</answer>")[2]:
                break
    runs.append({"task": task, "won": any(s[3] and s[2] > 0 for s in steps), "steps": steps,
                 "expected": str(env._expected_answer)})
print(json.dumps(runs))
'''


def plain_script(program: str, script: str, **extra) -> list[dict]:
    """``script`` against ``program`` under plain CPython (PYTHONHASHSEED=0), one run per seed."""
    spec = {"seeds": PLAIN_SEEDS, "script": script, **extra}
    proc = subprocess.run([sys.executable, "-c", PLAIN_SCRIPT, str(PROGRAMS / f"{program}.py"), json.dumps(spec),
                           str(SUPPORT)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONHASHSEED="0"))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


_REPORTS: dict[str, object] = {}


def report(name: str):
    """Each program validated once per test session (several tests read the same report): a sound
    twin with every check, a bad program with the checks that judge scripts."""
    if name not in _REPORTS:
        config = SMALL if name in SOUND else JUDGES
        _REPORTS[name] = validate_source((PROGRAMS / f"{name}.py").read_text(), config=config)
    return _REPORTS[name]


# ----------------------------------------------------------------------------- the programs


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_no_reasoning_script_beats_the_bad_program_under_plain_cpython(name):
    twin, script, _, _ = HOSTILE[name]
    answers = json.dumps([["done", 1]]) if "done" in name else None
    bad = plain_script(name, script, answers=answers)
    assert all(run["won"] for run in bad), [run["steps"][-3:] for run in bad if not run["won"]]
    sound = plain_script(twin, script, answers=answers)
    assert sum(run["won"] for run in sound) <= 2, [run["steps"] for run in sound if run["won"]]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_bad_program_is_rejected(name):
    _, _, check, baseline = HOSTILE[name]
    result = report(name)
    failed = {c.name: c for c in result.failures}
    assert check in failed, result.summary()
    assert set(failed) == {check}, result.summary()
    if baseline is not None:
        assert baseline in failed[check].message, failed[check].message
    else:
        assert "glued inside a longer token" in failed[check].message, failed[check].message


@pytest.mark.parametrize("name", SOUND)
def test_the_sound_twin_is_accepted(name):
    result = report(name)
    assert result.valid, result.summary()
    rates = result.check("shortcut").details["win_rates"]
    assert set(next(iter(rates.values()))) == set(TOOL_SHORTCUT_BASELINES), rates


def test_the_answer_glued_inside_a_schema_token_is_not_read_by_the_decoders():
    """Why ``tools_needed`` looks inside tokens of the schemas: the decoders read a digit run inside
    a token (the numeric version of this leak was caught before), not a code between letters."""
    from spade_gym.decoding import reveals

    assert reveals("form qx131vk", "131")
    assert not reveals("form qxW42vk", "W42")


# ----------------------------------------------------------------------------- the zoo on bundled envs


def test_the_replay_wins_a_fixed_pipeline_and_not_its_redesign():
    """The first bundled StaleLockRelease (kept as a test program): the lock error names the holder,
    whose session is the one to end; the replay re-binds the record from the task and the pid from
    the error, and copies the version from the last result, so a generic script wins it and the
    shortcut check rejects it. Its redesign (v1: follow the wait chain to its head, release it the
    way its state requires, among decoy chains) is not beaten."""
    from spade_gym.registry import bundled_suite_path

    config = ValidationConfig(checks=("static", "load", "shortcut"), seed=5, difficulty_levels=("easy",))
    old = validate_source((PROGRAMS / "tool_shortcut_fixed_pipeline.py").read_text(), config=config)
    shortcut = old.check("shortcut")
    assert not shortcut.passed and "tool_replay" in shortcut.message, shortcut.message
    assert shortcut.details["win_rates"]["easy"]["tool_replay"] > 0.5
    redesign = validate_source((bundled_suite_path() / "StaleLockRelease-v1" / "env.py").read_text(), config=config)
    assert redesign.check("shortcut").passed, redesign.check("shortcut").message
    assert redesign.check("shortcut").details["win_rates"]["easy"]["tool_replay"] < 0.5


# ----------------------------------------------------------------------------- the zoo per kind


def test_each_kind_of_program_has_its_own_zoo_and_the_game_zoo_is_unchanged():
    assert DEFAULT_CONFIG.zoo("game") == DEFAULT_CONFIG.shortcut_baselines == SHORTCUT_BASELINES
    assert DEFAULT_CONFIG.zoo("tool-use") == TOOL_SHORTCUT_BASELINES
    assert {"tool_replay", "tool_sweep", "tool_enumerate"} <= set(TOOL_SHORTCUT_BASELINES)
    assert not {"tool_replay", "tool_sweep", "tool_enumerate"} & set(SHORTCUT_BASELINES)
    with pytest.raises(ConfigError, match="unknown tool-use shortcut baseline"):
        ValidationConfig(tool_shortcut_baselines=("tool_replay", "no_such_script"))
    assert ValidationConfig(tool_shortcut_baselines=()).zoo("tool-use") == ()


# ----------------------------------------------------------------------------- the scripts, as functions


def _transcript(task: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A privileged play: (observation, action) pairs, the first observation the task."""
    observations = [task] + [f"Tool result:\n{result}" for _, result in pairs[:-1]]
    return list(zip(observations, [action for action, _ in pairs]))


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9).filter(lambda w: w not in _STOPWORDS)


@given(st.lists(st.tuples(_WORD, _WORD, st.integers(1000, 9999)), min_size=4, max_size=7, unique_by=lambda t: t[1]),
       st.tuples(_WORD, _WORD, st.integers(1000, 9999)))
def test_the_replay_rebinds_each_argument_to_the_value_written_in_the_same_place(others, mine):
    """Where the other seeds' values were written (the same token of the task, the word after the same
    label in a result) decides what this episode's call sends, whatever the values are."""
    def play(noise, item, number):
        task = f"Please {noise} the {item} order now; answer with its code."
        found = f"order {item} has ticket {number} pending"
        return task, [(toolcalls.format_call("find", {"item": item}), found),
                      (toolcalls.format_call("close", {"ticket": number}), "closed, code ok"),
                      ("<answer>ok</answer>", "")]

    transcripts = [_transcript(*play(*other)) for other in others]
    prior = Prior(actions_by_turn=[[t[k][1] for t in transcripts] for k in range(3)], transcripts=transcripts)
    task, _ = play(*mine)
    baseline = ToolReplay(random.Random(0), prior)
    baseline.begin(task)
    first = toolcalls.parse_action(baseline.act(task, 0, None)).calls[0]
    assert first.name == "find" and first.arguments == {"item": mine[1]}
    second = toolcalls.parse_action(baseline.act(f"Tool result:\norder {mine[1]} has ticket {mine[2]} pending", 1,
                                               None)).calls[0]
    assert second.name == "close" and second.arguments == {"ticket": mine[2]}
    assert baseline.act("Tool result:\nclosed, code ok", 2, None) == "<answer>ok</answer>"


def test_the_replay_retries_an_error_with_the_next_binding_unless_the_tool_comes_again():
    task = "Stop the stuck job of queue alpha."
    calls = [toolcalls.format_call("list_jobs", {"queue": "alpha"}), toolcalls.format_call("stop", {"job": 5}),
             "<answer>stopped</answer>"]
    transcripts = [_transcript(task.replace("alpha", q), [(calls[0].replace("alpha", q), f"jobs {j} {j + 1}"),
                                                          (calls[1].replace("5", str(j)), "ok"), (calls[2], "")])
                   for q, j in (("beta", 3), ("gamma", 7), ("delta", 12))]
    prior = Prior(actions_by_turn=[[t[k][1] for t in transcripts] for k in range(3)], transcripts=transcripts)
    baseline = ToolReplay(random.Random(0), prior)
    baseline.begin(task)
    assert toolcalls.parse_action(baseline.act(task, 0, None)).calls[0].arguments == {"queue": "alpha"}
    first = toolcalls.parse_action(baseline.act("Tool result:\njobs 20 21", 1, None)).calls[0]
    retry = toolcalls.parse_action(baseline.act("Tool result:\nError: job 20 is running", 2, None)).calls[0]
    assert (first.name, first.arguments, retry.name, retry.arguments) == ("stop", {"job": 20}, "stop", {"job": 21})
    plan = CallPlan(Prior(actions_by_turn=[[calls[0]], [calls[1]], [calls[0]]]))
    assert not plan.retry_on_error(0) and plan.retry_on_error(1)  # the privileged play calls list_jobs again


def test_the_sweep_calls_every_declared_tool_once_then_answers_what_came_back():
    tools = toolcalls.openai_tools({
        "lookup": {"description": "d", "parameters": {"type": "object", "properties": {"name": {"type": "string"}},
                                                      "required": ["name"]}},
        "peek": {"description": "no parameters", "parameters": {"type": "object", "properties": {}}},
        "flag": {"description": "d", "parameters": {"type": "object", "properties": {
            "on": {"type": "boolean"}, "mode": {"type": "string", "enum": ["fast", "slow"]}}}},
    })
    baseline = ToolSweep(random.Random(0), Prior())
    task = "Find the owner of the asset named orion-7."
    baseline.begin(task)
    baseline.see_tools(tools)
    sent = [toolcalls.parse_action(baseline.act(obs, turn, None)).calls[0]
            for turn, obs in enumerate([task, "Tool result:\nno asset", "Tool result:\nowner is K-88"])]
    assert [c.name for c in sent] == ["lookup", "peek", "flag"]
    assert sent[2].arguments == {"on": True, "mode": "fast"}
    answers = [baseline.act(obs, 3 + i, None) for i, obs in enumerate(["Tool result:\nError calling flag: nope"] * 12)]
    assert "<answer>K-88</answer>" in answers and "<answer>nope</answer>" in answers


@given(st.text(max_size=300), st.lists(st.text(max_size=120), max_size=6))
def test_the_scripts_never_raise_and_always_send_text(task, observations):
    transcripts = [_transcript(task, [(toolcalls.format_call("t", {"a": obs[:5]}), obs), ("<answer>1</answer>", "")])
                   for obs in observations[:3]]
    prior = Prior(actions_by_turn=[[t[k][1] for t in transcripts] for k in range(2)] if transcripts else [],
                  transcripts=transcripts)
    for kind in TOOL_SHORTCUT_BASELINES:
        baseline = make_baseline({"kind": kind}, 0, prior)
        baseline.begin(task)
        if getattr(baseline, "needs_tools", False):
            baseline.see_tools(observations)  # not a tool list: ignored
        for turn, obs in enumerate([task, *observations]):
            if baseline.exhausted:
                break
            assert isinstance(baseline.act(obs, turn, None), str)


@given(st.text(max_size=400).filter(lambda t: t.strip()[:1] not in ("[", "{")))
def test_every_value_a_script_copies_is_written_in_the_text(text):
    for occurrence in occurrences(text):  # (a JSON text adds its decoded leaves)
        assert occurrence.value and occurrence.value.strip() in text


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=6), st.text(max_size=200))
def test_values_are_ranked_of_the_kind_the_other_seeds_sent(known, text):
    written = {int(digits) for digits in re.findall(r"\d+", text)}
    for value in rank_values(sources(text, []), known):
        assert isinstance(value, int) and abs(value) in written


def test_the_plan_is_built_once_per_prior_and_errors_are_read_loosely():
    prior = Prior(actions_by_turn=[[toolcalls.format_call("a", {})]])
    assert plan_for(prior) is plan_for(prior) and plan_for(Prior()) is not plan_for(prior)
    assert is_error("Tool result:\nError calling x: boom") and is_error("Record not found.")
    assert not is_error("Tool result:\nUpdated accounts:12 (3 rows)")
