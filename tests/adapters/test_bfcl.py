"""BFCL adapter: the checker's rules, the environments, registration and eval planning.

The checker tests need nothing installed; the environment tests read BFCL's data from
the bfcl-eval package (in the dev extra) and are skipped without it.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spade_gym
from spade_gym.adapters import bfcl
from spade_gym.adapters.bfcl_checker import check, check_value, standardize
from spade_gym.errors import ConfigError
from spade_gym.toolcalls import ToolCall, format_answer, format_calls, solution_actions

HAS_DATA = importlib.util.find_spec("bfcl_eval") is not None
needs_data = pytest.mark.skipif(not HAS_DATA, reason="needs the bfcl-eval package (pip install --no-deps bfcl-eval)")

WEATHER = {"name": "weather.get", "description": "Weather for a city.", "parameters": {
    "type": "dict", "required": ["city"],
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"type": "string"},
                   "scale": {"type": "float"}, "detailed": {"type": "boolean"},
                   "hours": {"type": "array", "items": {"type": "integer"}},
                   "filters": {"type": "dict", "properties": {"rain": {"type": "boolean"}}},
                   "stops": {"type": "array", "items": {"type": "dict"}}}}}
TIME = {"name": "time_now", "description": "Local time.", "parameters": {
    "type": "dict", "required": ["city"], "properties": {"city": {"type": "string"}}}}
EXPECTED = {"weather.get": {"city": ["New York, NY", "NYC"], "days": [3], "unit": ["celsius", ""]}}


def simple(call: ToolCall, expected=EXPECTED):
    return check("simple", [WEATHER], [call], [expected])


# ----------------------------------------------------------------------------- checker


def test_a_possible_answer_passes_and_either_name_spelling_counts():
    assert simple(ToolCall("weather.get", {"city": "NYC", "days": 3})).valid
    assert simple(ToolCall("weather_get", {"city": "NYC", "days": 3, "unit": "celsius"})).valid


def test_wrong_function_name():
    verdict = simple(ToolCall("weather.fetch", {"city": "NYC", "days": 3}))
    assert not verdict.valid and verdict.error_type == "wrong_func_name"


def test_missing_required_parameter():
    verdict = simple(ToolCall("weather.get", {"days": 3}))
    assert not verdict.valid and verdict.error_type == "missing_required"


def test_expected_parameter_left_out_fails_unless_marked_optional():
    verdict = simple(ToolCall("weather.get", {"city": "NYC"}))
    assert not verdict.valid and verdict.error_type == "missing_optional"  # days has no "" option


def test_unexpected_and_undeclared_parameters():
    assert simple(ToolCall("weather.get", {"city": "NYC", "days": 3, "detailed": True})).error_type == "unexpected_param"
    assert simple(ToolCall("weather.get", {"city": "NYC", "days": 3, "color": "red"})).error_type == "unexpected_param"


@pytest.mark.parametrize("days", ["3", 3.0, True, [3], None])
def test_wrong_type(days):
    verdict = simple(ToolCall("weather.get", {"city": "NYC", "days": days}))
    assert not verdict.valid and verdict.error_type.startswith("type_error")


def test_disallowed_value():
    verdict = simple(ToolCall("weather.get", {"city": "Boston", "days": 3}))
    assert not verdict.valid and verdict.error_type == "value_error:string"
    assert simple(ToolCall("weather.get", {"city": "NYC", "days": 4})).error_type == "value_error:others"


def test_strings_compare_without_case_spaces_and_punctuation():
    assert standardize("New York, NY") == standardize("new york ny") == standardize("NEW-YORK/NY.")
    assert simple(ToolCall("weather.get", {"city": "new york ny", "days": 3})).valid
    assert not simple(ToolCall("weather.get", {"city": "new york", "days": 3})).valid


def test_an_integer_is_accepted_for_a_float_and_booleans_are_not_integers():
    schema = WEATHER["parameters"]["properties"]
    assert check_value("scale", 2, [2.0], schema["scale"]).valid
    assert not check_value("days", True, [1], schema["days"]).valid
    assert not check_value("detailed", 1, [True], schema["detailed"]).valid


def test_arrays_check_item_types_and_values_in_order():
    schema = WEATHER["parameters"]["properties"]["hours"]
    assert check_value("hours", [1, 2], [[1, 2]], schema).valid
    assert not check_value("hours", [2, 1], [[1, 2]], schema).valid
    assert check_value("hours", ["1", 2], [[1, 2]], schema).error_type == "type_error:nested"


def test_check_value_compares_values_when_the_type_is_a_json_schema_union():
    # A type list is not hashable: it used to crash the dict lookup of BFCL types.
    union = {"type": ["string", "null"]}
    assert check_value("city", "Paris", ["Paris"], union).valid
    assert not check_value("city", "Rome", ["Paris"], union).valid
    nested = {"type": "array", "items": {"type": ["string", "null"]}}
    assert check_value("cities", ["Paris"], [["Paris"]], nested).valid


def test_dict_and_list_of_dict_values():
    props = WEATHER["parameters"]["properties"]
    assert check_value("filters", {"rain": True}, [{"rain": [True]}], props["filters"]).valid
    assert check_value("filters", {}, [{"rain": [True, ""]}], props["filters"]).valid
    assert not check_value("filters", {}, [{"rain": [True]}], props["filters"]).valid
    assert not check_value("filters", {"snow": True}, [{"rain": [True, ""]}], props["filters"]).valid
    allowed = [[{"city": ["Paris"]}, {"city": ["Rome"]}]]
    assert check_value("stops", [{"city": "paris"}, {"city": "Rome"}], allowed, props["stops"]).valid
    assert not check_value("stops", [{"city": "Rome"}, {"city": "Paris"}], allowed, props["stops"]).valid
    assert not check_value("stops", [{"city": "Paris"}], allowed, props["stops"]).valid


def test_simple_and_multiple_need_exactly_one_call():
    call = ToolCall("weather.get", {"city": "NYC", "days": 3})
    assert check("simple", [WEATHER], [call, call], [EXPECTED]).error_type == "wrong_count"
    assert check("multiple", [WEATHER, TIME], [], [EXPECTED]).error_type == "wrong_count"
    assert check("multiple", [WEATHER, TIME], [call], [EXPECTED]).valid
    assert check("multiple", [WEATHER, TIME], [ToolCall("time_now", {"city": "NYC"})], [EXPECTED]).error_type == \
        "wrong_func_name"


def test_parallel_calls_match_in_any_order_but_each_call_once():
    expected = [{"time_now": {"city": ["Paris"]}}, {"time_now": {"city": ["Rome"]}},
                {"weather.get": {"city": ["NYC"], "days": [1]}}]
    calls = [ToolCall("weather_get", {"city": "NYC", "days": 1}), ToolCall("time_now", {"city": "Rome"}),
             ToolCall("time_now", {"city": "Paris"})]
    assert check("parallel", [WEATHER, TIME], calls, expected).valid
    assert check("parallel", [WEATHER, TIME], list(reversed(calls)), expected).valid
    twice = [calls[0], calls[1], calls[1]]
    verdict = check("parallel", [WEATHER, TIME], twice, expected)
    assert not verdict.valid and "'time_now'" in verdict.error
    assert check("parallel", [WEATHER, TIME], calls[:2], expected).error_type == "wrong_count"


def test_parallel_matching_is_not_greedy():
    # The first call fits both expected calls, the second only the first: a greedy
    # pairing (expected 0 takes call 0) would reject this correct reply.
    expected = [{"time_now": {"city": ["Paris", "Rome"]}}, {"time_now": {"city": ["Paris"]}}]
    calls = [ToolCall("time_now", {"city": "Paris"}), ToolCall("time_now", {"city": "Rome"})]
    assert check("parallel", [TIME], calls, expected).valid


def test_irrelevance_needs_no_call_and_relevance_some_call():
    call = ToolCall("time_now", {"city": "Paris"})
    assert check("irrelevance", [TIME], []).valid
    assert check("irrelevance", [TIME], [call]).error_type == "irrelevance"
    assert check("relevance", [TIME], [call]).valid
    assert not check("relevance", [TIME], []).valid
    with pytest.raises(ValueError):
        check("nonsense", [TIME], [])


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                      max_size=3), max_leaves=8)
hostile_calls = st.lists(st.builds(ToolCall, st.sampled_from(["weather.get", "weather_get", "time_now", "x"]),
                                   st.dictionaries(st.sampled_from(list(WEATHER["parameters"]["properties"]) + ["z"]),
                                                   json_values, max_size=6)), max_size=3)


@settings(max_examples=100)
@given(hostile_calls, st.sampled_from(["simple", "multiple", "parallel", "irrelevance", "relevance"]))
def test_checker_is_total_on_any_calls(calls, mode):
    expected = [{"weather.get": {"city": ["NYC"], "days": [1, ""], "hours": [[1, 2], ""], "filters": [{"rain": [True]}],
                                 "stops": [[{"city": ["Rome"]}]], "scale": [1.5], "detailed": [False, ""]}}]
    verdict = check(mode, [WEATHER, TIME], calls, expected if mode != "parallel" else expected * len(calls))
    assert isinstance(verdict.valid, bool)
    assert WEATHER["parameters"]["properties"]["days"] == {"type": "integer"}


# ----------------------------------------------------------------------------- registration


def test_import_spade_gym_neither_registers_nor_reads_bfcl():
    code = ("import sys, gymnasium as gym, spade_gym\n"
            "print(any(i.startswith('spade/bfcl-') for i in gym.registry), "
            "'spade_gym.adapters.bfcl' in sys.modules, 'bfcl_eval' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


def test_registration_needs_no_data_and_a_missing_package_is_a_clear_error(monkeypatch):
    ids = bfcl.register_bfcl()
    assert ids == [f"spade/bfcl-{c}-v0" for c in [*bfcl.CATEGORIES, *bfcl.MULTI_TURN_CATEGORIES]]
    assert bfcl.registered_ids() == sorted(ids)
    assert bfcl.category_of("spade/bfcl-live_simple-v0") == "live_simple"
    assert bfcl.category_of("spade/not-bfcl-v0") is None
    bfcl._category.cache_clear()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    try:
        with pytest.raises(bfcl.BfclUnavailable, match=r"pip install 'spade-gym\[bfcl\]'"):
            gym.make("spade/bfcl-simple_python-v0")
    finally:
        monkeypatch.undo()
        bfcl._category.cache_clear()
    with pytest.raises(spade_gym.RegistryError, match="unknown BFCL category"):
        bfcl.register_bfcl(["simple"])


# ----------------------------------------------------------------------------- environments


def sample_seeds(category: str, k: int = 12) -> list[int]:
    n = bfcl.num_tasks(category)
    return sorted({0, n - 1, *random.Random(category).sample(range(n), min(k, n))})


@needs_data
@pytest.mark.parametrize("category", list(bfcl.CATEGORIES))
def test_oracle_solution_scores_one_on_a_sample(category):
    bfcl.register_bfcl([category])
    env = gym.make(bfcl.env_id(category))
    for seed in sample_seeds(category):
        obs, info = env.reset(seed=seed)
        assert info["category"] == category and info["index"] == seed and info["tools"]
        solution = spade_gym.privileged(env).solution()
        _, reward, terminated, truncated, step_info = env.step(solution)
        assert (reward, terminated, truncated) == (1.0, True, False), (info["task_id"], step_info["reason"])
        assert step_info["valid"] and "error" not in step_info  # "error" would mean the env failed


def play(env, actions) -> tuple[float, dict, int]:
    """Step ``actions`` until the episode ends; (final reward, final info, steps)."""
    for steps, action in enumerate(actions, 1):
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return reward, info, steps
    raise AssertionError("the episode did not end")


@needs_data
@pytest.mark.parametrize("category", ["parallel", "live_parallel_multiple", "irrelevance", "live_relevance"])
def test_solution_played_one_call_per_step_scores_one(category):
    # Tool-calling agents send a reply's parallel calls as one step each.
    env = bfcl.BfclEnv(category)
    for seed in sample_seeds(category, 6):
        env.reset(seed=seed)
        actions = solution_actions(env._privileged_solution())
        reward, info, steps = play(env, actions)
        assert reward == 1.0, info["reason"]
        assert steps == (1 if bfcl.CATEGORIES[category] in ("irrelevance", "relevance") else len(actions))


@needs_data
def test_calls_are_recorded_until_a_reply_without_a_call():
    env = bfcl.BfclEnv("parallel")
    env.reset(seed=0)  # two spotify.play calls expected
    first, second = bfcl.reference_calls(env.tasks[0])
    obs, reward, terminated, _, info = env.step(first.to_text())
    assert (reward, terminated, info["recorded"]) == (0.0, False, 1) and obs.startswith("Tool result:")
    env.step(second.to_text())
    reward, info, _ = play(env, ["All done."])
    assert reward == 1.0 and [c["name"] for c in info["calls"]] == ["spotify_play", "spotify_play"]
    with pytest.raises(gym.error.ResetNeeded):
        env.step("again")
    # the verdict is settled without waiting once it cannot change
    env.reset(seed=0)
    assert play(env, [first.to_text()] * 3)[2] == 3  # a third call is one too many
    env.reset(seed=0)
    reward, info, steps = play(env, ["<tool_call>{broken</tool_call>"])
    assert (reward, info["reason_type"], steps) == (0.0, "malformed_call", 1)
    irrelevant = bfcl.BfclEnv("irrelevance")
    _, info = irrelevant.reset(seed=0)
    call = format_calls([ToolCall(info["tools"][0]["function"]["name"], {})])
    assert play(irrelevant, [call])[:1] == (0.0,)
    irrelevant.reset(seed=0)
    assert play(irrelevant, [format_answer("I cannot help with that.")])[0] == 1.0


def random_reply(rng: random.Random, info: dict) -> str:
    """A reply that ignores the request: random text, or a random function with random arguments."""
    if rng.random() < 0.3:
        return rng.choice(["", "I don't know.", "<answer>42</answer>", "\\boxed{yes}", "<tool_call>{oops</tool_call>"])
    tool = rng.choice(info["tools"])["function"]
    values = {"string": lambda: rng.choice(["a", "foo", "10"]), "integer": lambda: rng.randint(-5, 5),
              "number": lambda: rng.random(), "boolean": lambda: rng.random() < 0.5,
              "array": lambda: [rng.randint(0, 3)], "object": dict}
    arguments = {name: values.get(spec.get("type"), lambda: None)()
                 for name, spec in tool["parameters"].get("properties", {}).items() if rng.random() < 0.7}
    return format_calls([ToolCall(tool["name"], arguments)])


@needs_data
@pytest.mark.parametrize("category", list(bfcl.CATEGORIES))
def test_random_replies_score_about_zero(category):
    env = bfcl.BfclEnv(category)
    rng = random.Random(0)
    scores = []
    for seed in sample_seeds(category, 40):
        _, info = env.reset(seed=seed)
        scores.append(play(env, (random_reply(rng, info) for _ in range(bfcl.MAX_STEPS)))[0])
    mean = sum(scores) / len(scores)
    if bfcl.CATEGORIES[category] == "irrelevance":  # replies without a call are right there
        assert mean < 0.6
    elif bfcl.CATEGORIES[category] == "relevance":  # any call counts there
        assert 0.3 < mean < 1.0
    else:
        assert mean < 0.05


@needs_data
def test_excluded_tasks_are_exactly_the_ones_whose_own_answer_breaks_bfcls_rules():
    # Pinned so that a checker regression cannot quietly drop more tasks.
    excluded = {c: [task_id for task_id, _ in bfcl.excluded_tasks(c)] for c in bfcl.CATEGORIES}
    assert {c: ids for c, ids in excluded.items() if ids} == {
        "live_simple": ["live_simple_106-63-0", "live_simple_112-68-0"],
        "live_multiple": ["live_multiple_862-181-3", "live_multiple_964-207-0"],
    }
    assert (bfcl.num_tasks("simple_python"), bfcl.num_tasks("live_simple"), bfcl.num_tasks("live_multiple")) == \
        (400, 256, 1051)


@needs_data
def test_observation_and_tools():
    env = bfcl.BfclEnv("simple_python")
    obs, info = env.reset(seed=1)
    assert obs.startswith("Calculate the factorial of 5")
    assert "<tool_call>" in obs and '"math_factorial"' in obs
    tool = info["tools"][0]
    assert tool["type"] == "function" and tool["function"]["name"] == "math_factorial"
    assert tool["function"]["parameters"]["type"] == "object"
    assert info["bfcl_version"] == bfcl.data_version()
    text = json.dumps(info["tools"])
    assert '"type": "dict"' not in text and '"type": "float"' not in text  # JSON Schema types only
    bare, _ = bfcl.BfclEnv("simple_python", show_tools=False).reset(seed=1)
    assert '"math_factorial"' not in bare and bare.startswith("Calculate the factorial of 5")
    assert env.reset(seed=1 + bfcl.num_tasks("simple_python"))[1]["index"] == 1  # seeds wrap around


@needs_data
def test_spade_gym_tools_sees_a_bfcl_env_as_tool_use():
    bfcl.register_bfcl(["multiple"])
    env = gym.make("spade/bfcl-multiple-v0", hint=True)
    with pytest.raises(spade_gym.SpadeError, match="reset"):
        spade_gym.tools(env)
    _, info = env.reset(seed=3)
    assert env.unwrapped.kind == "tool-use"
    assert spade_gym.tools(env) == info["tools"] and len(info["tools"]) > 1
    info["tools"].clear()  # callers get copies
    assert spade_gym.tools(env)


@needs_data
def test_hint_settings_are_read_as_for_every_other_env():
    bfcl.register_bfcl(["multiple"])
    assert "hint" in gym.make("spade/bfcl-multiple-v0", hint="info").reset(seed=3)[1]
    assert "hint" not in gym.make("spade/bfcl-multiple-v0", hint=False).reset(seed=3)[1]
    with pytest.raises(ConfigError, match="hint must be"):
        gym.make("spade/bfcl-multiple-v0", hint="everywhere")


@needs_data
def test_multi_message_questions_show_every_role():
    env = bfcl.BfclEnv("live_multiple")
    task = next(t for t in env.tasks if t.messages[0]["role"] == "system")
    obs, _ = env.reset(seed=env.tasks.index(task))
    assert obs.startswith("System: ") and "\n\nUser: " in obs


@needs_data
@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300) | st.sampled_from(["<tool_call>[]</tool_call>", "<tool_call>" * 50,
                                                '<tool_call>{"name": "math.factorial"}</tool_call>']))
def test_step_never_raises_on_any_text(action):
    env = bfcl.BfclEnv("simple_python")
    env.reset(seed=1)
    reward, info, _ = play(env, [action, "done"])
    assert reward in (0.0, 1.0) and isinstance(info["valid"], bool)


@needs_data
def test_eval_selects_bfcl_only_on_request_and_plays_each_task_once_in_order():
    from spade_gym.evaluation import AgentConfig, Evaluation, select_envs

    chosen = select_envs("spade/bfcl-*parallel*")
    assert [e.env_id for e in chosen] == ["spade/bfcl-live_parallel-v0", "spade/bfcl-live_parallel_multiple-v0",
                                          "spade/bfcl-parallel-v0", "spade/bfcl-parallel_multiple-v0"]
    assert chosen[0].skill == "BFCL (live_parallel)" and chosen[0].tasks == 16
    assert all(not e.env_id.startswith("spade/bfcl-") for e in select_envs("spade/*"))
    evaluation = Evaluation(AgentConfig("oracle"), chosen[:1], episodes=100, results_path="/dev/null")
    assert [s.seed for s in evaluation.specs] == list(range(16))


@needs_data
def test_eval_agents_oracle_wins_and_random_loses_through_the_driver():
    from spade_gym.agents import EpisodeSpec, OracleAgent, RandomAgent, play_episodes

    ids = bfcl.register_bfcl()
    specs = [EpisodeSpec(env_id, seed) for env_id in ids for seed in range(3)]
    oracle = play_episodes(OracleAgent(), specs)
    assert all(e.won and e.error is None for e in oracle), [(e.spec.env_id, e.spec.seed) for e in oracle if not e.won]
    # (not the (ir)relevance categories: there a reply without a call, or any call, is right)
    random_play = play_episodes(RandomAgent(seed=0), [s for s in specs if "relevance" not in s.env_id])
    assert sum(e.won for e in random_play) / len(random_play) < 0.05


# ----------------------------------------------------------------------------- against BFCL's own checker


@pytest.fixture
def bfcl_ast_checker(monkeypatch):
    """BFCL's own ast_checker, as a reference to compare verdicts with (never used for scoring).

    Its module imports BFCL's model registry only to look up whether a model's API turns
    dots into underscores; a stand-in answers "no", so names are compared as BFCL writes them.
    """
    import types

    stub = types.ModuleType("bfcl_eval.constants.model_config")

    class NoUnderscoreToDot:
        underscore_to_dot = False

    stub.MODEL_CONFIG_MAPPING = {"reference": NoUnderscoreToDot()}
    monkeypatch.setitem(sys.modules, "bfcl_eval.constants.model_config", stub)
    monkeypatch.delitem(sys.modules, "bfcl_eval.eval_checker.ast_eval.ast_checker", raising=False)
    try:
        from bfcl_eval.constants.enums import Language
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    except Exception as exc:  # its layout changed: nothing to compare with
        pytest.skip(f"BFCL's ast_checker cannot be loaded: {exc!r}")
    yield lambda functions, calls, answers, category: ast_checker(
        list(functions), [{c.name: c.arguments} for c in calls], list(answers), Language.PYTHON, category,
        "reference")["valid"]
    sys.modules.pop("bfcl_eval.eval_checker.ast_eval.ast_checker", None)


def _mutations(task, calls: list[ToolCall], rng: random.Random):
    """The reference reply and a few ways to get it (mostly) wrong."""
    yield calls
    for _ in range(6):
        out = [ToolCall(c.name, json.loads(json.dumps(c.arguments))) for c in calls]
        i = rng.randrange(len(out))
        name, arguments = out[i].name, out[i].arguments
        kind = rng.choice(["drop", "value", "add", "name", "order", "duplicate", "remove"])
        if kind == "drop" and arguments:
            arguments.pop(rng.choice(sorted(arguments)))
        elif kind == "value" and arguments:
            key = rng.choice(sorted(arguments))
            value = arguments[key]
            arguments[key] = (not value if isinstance(value, bool) else
                              rng.choice([value + 1, str(value), float(value)]) if isinstance(value, int) else
                              rng.choice([value * 2 + 1, str(value)]) if isinstance(value, float) else
                              rng.choice([value + "x", value.upper(), f" {value}.", 7]) if isinstance(value, str) else
                              rng.choice([value[::-1], value + value[:1], "x"]) if isinstance(value, list) else
                              rng.choice([{}, {**value, "zz": 1}]) if isinstance(value, dict) else value)
        elif kind == "add":
            arguments["zz_extra"] = 1
        elif kind == "name":
            name += "_v2"
        elif kind == "order":
            rng.shuffle(out)
        elif kind == "duplicate":
            out.append(out[i])
        elif kind == "remove" and len(out) > 1:
            out.pop(i)
            yield out
            continue
        if kind not in ("order", "duplicate"):
            out[i] = ToolCall(name, arguments)
        yield out


@needs_data
@pytest.mark.parametrize("category", [c for c, m in bfcl.CATEGORIES.items() if m not in ("irrelevance", "relevance")])
def test_verdicts_agree_with_bfcls_own_checker(category, bfcl_ast_checker):
    rng = random.Random(category)
    tasks = bfcl.load_tasks(category)
    verdicts = []
    for task in rng.sample(tasks, min(25, len(tasks))):
        shown_to_bfcl = {shown: name for name, shown in bfcl.shown_names(task.functions).items()}
        reference = [ToolCall(shown_to_bfcl.get(c.name, c.name), c.arguments) for c in bfcl.reference_calls(task)]
        for calls in _mutations(task, reference, rng):
            ours = check(bfcl.CATEGORIES[category], task.functions, calls, task.ground_truth).valid
            assert ours == bfcl_ast_checker(task.functions, calls, task.ground_truth, category), (task.id, calls)
            verdicts.append(ours)
    assert any(verdicts) and not all(verdicts)  # both verdicts were exercised


@needs_data
def test_the_one_difference_bfcl_pairs_parallel_calls_greedily(bfcl_ast_checker):
    functions = [TIME]
    expected = [{"time_now": {"city": ["Paris", "Rome"]}}, {"time_now": {"city": ["Paris"]}}]
    calls = [ToolCall("time_now", {"city": "Paris"}), ToolCall("time_now", {"city": "Rome"})]
    assert check("parallel", functions, calls, expected).valid
    assert not bfcl_ast_checker(functions, calls, expected, "parallel")
    assert bfcl_ast_checker(functions, calls[::-1], expected, "parallel")  # the same calls, the other order
