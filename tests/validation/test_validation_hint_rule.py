"""The hint rule: a hint may help a reasoning agent; it must not let a script win.

Each bad program in ``tests/programs/hint_rule_*.py`` has a hint that makes its game mechanical
without ever stating the current answer (so the ``hint`` check has nothing to catch): it names the
winning sequence of moves, the first move of a two-step game, the final holding, the arithmetic
recipe over the screen's numbers, the rival's fixed habit. For each, a script that reads only the
hint and the screen is first shown to win under plain CPython (the program run as the reference
loader runs it); then the validator rejects it with the ``hint_rule`` check alone, naming the
script that won. The sound twins, whose hints give a strategy idea or a partial constraint, give
the same script nothing and are accepted, with the hint's lift recorded for the card.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from testkit import GUESS_SOURCE, PROGRAMS, SUPPORT

from spade_gym import toolcalls
from spade_gym.decoding import reveals
from spade_gym.env.wrappers import HINT_TEMPLATE, HintWrapper
from spade_gym.errors import ConfigError
from spade_gym.sandbox import ProgramHandle
from spade_gym.validation import ValidationConfig, validate_source
from spade_gym.validation.baselines.base import Baseline, Prior
from spade_gym.validation.baselines.hinted import Hinted, HintMoves, recipes, shown_with_hint
from spade_gym.validation.baselines.zoo import (
    HINT_BASELINES,
    SHORTCUT_BASELINES,
    TOOL_SHORTCUT_BASELINES,
    FixedActions,
    make_baseline,
)
from spade_gym.validation.episodes import Job, play

SMALL = ValidationConfig(seeds=8, fuzz_examples=8, cost_samples=3, seed=11, long_run_resets=40)
PLAIN_SEEDS = [0, 1, 7, 42, 1234]
#: bad program -> (the script the validator names, the plain-CPython script that reads its hint).
BAD = {
    "hint_rule_levers": ("hint_moves", "levers"),
    "hint_rule_doors": ("hint_first", "doors"),
    "hint_rule_pack": ("hint_options", "pack"),
    "hint_rule_guild": ("hint_arithmetic", "guild"),
    "hint_rule_rival": ("hint_learned", "rival"),
    # the screen lists the moves in order too, in a form no zoo baseline plays (numbers, not "pull N")
    "hint_rule_levers_shown": ("hint_moves", "levers"),
}
#: sound twin -> the bad program it differs from only in its hint.
SOUND = {"hint_rule_levers_sound": "hint_rule_levers", "hint_rule_pack_sound": "hint_rule_pack",
         "hint_rule_guild_sound": "hint_rule_guild"}

#: Scripts that read the hint and the screen (nothing else), run next to the program under plain
#: CPython; each prints, per seed, whether it won, the hint and the solution after reset.
_SCRIPTS = r'''
import json, re, sys
sys.path.insert(0, sys.argv[3])
from plain_runner import load

BEATS = {"rock": "paper", "paper": "scissors", "scissors": "rock"}
WORDS = {"two": 2, "three": 3}

# Each script: the next action, from the first screen, the hint and the feedback so far (None: nothing to play).

def levers(obs, hint, feedback):
    numbers = re.findall(r"\d+", hint)
    return f"\\boxed{{pull {numbers[len(feedback)]}}}" if len(feedback) < len(numbers) else None

def doors(obs, hint, feedback):
    door = re.search(r"The (\w+) door", hint)
    code = re.search(r"\b\d{4}\b", feedback[0]) if feedback else None
    return f"\\boxed{{open {door.group(1)}}}" if door and not feedback else (f"\\boxed{{{code.group(0)}}}" if code else None)

def pack(obs, hint, feedback):
    names = re.findall(r"the (\w+)", hint.split("holds", 1)[1]) if "holds" in hint else []
    labels = {name: label for label, name in re.findall(r"^\s+([a-f]): (\w+),", obs, re.M)}
    return f"\\boxed{{{labels[names[len(feedback)]]}}}" if len(feedback) < len(names) else None

def guild(obs, hint, feedback):
    m = re.search(r"Add the (\w+) largest .* by (\d+)", hint)
    catches = sorted((int(n) for n in re.findall(r"^\s+\w+: (\d+)$", obs, re.M)), reverse=True)
    return f"\\boxed{{{int(m.group(2)) * sum(catches[:WORDS[m.group(1)]])}}}" if m and not feedback else None

def rival(obs, hint, feedback):
    initials = re.findall(r"\b([RPS])\b", hint.split(":", 1)[-1])
    moves = {"R": "rock", "P": "paper", "S": "scissors"}
    return f"\\boxed{{{BEATS[moves[initials[len(feedback) % 3]]]}}}" if len(initials) == 3 else None

cls = load(open(sys.argv[1]).read())
script = globals()[sys.argv[2]]
out = []
for seed in json.loads(sys.argv[4]):
    env = cls()
    obs, _ = env.reset(seed=seed)
    solution, hint = str(env.solution()), env.hint()
    feedback, won = [], False
    for _ in range(12):
        action = script(obs, hint, feedback)
        if action is None:
            break
        text, reward, terminated, truncated, _ = env.step(action)
        feedback.append(text)
        if terminated or truncated:
            won = terminated and reward > 0
            break
    out.append({"seed": seed, "won": won, "hint": hint, "solution": solution, "screen": obs})
print(json.dumps(out))
'''


def _script_run(program: str, script: str) -> list[dict]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, "-c", _SCRIPTS, str(PROGRAMS / f"{program}.py"), script, str(SUPPORT),
                           json.dumps(PLAIN_SEEDS)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# ----------------------------------------------------------------------------- proven under plain CPython


@pytest.mark.parametrize("name", sorted(BAD))
def test_the_hint_hands_a_script_the_win_under_plain_cpython(name):
    for run in _script_run(name, BAD[name][1]):
        assert run["won"], run
        # ...while never stating the current answer, in any spelling: the hint check has nothing to see.
        assert not reveals(run["hint"], run["solution"], min_chars=1), (run["hint"], run["solution"])


@pytest.mark.parametrize("name", sorted(SOUND))
def test_the_sound_twins_hint_gives_the_same_script_nothing(name):
    script = BAD[SOUND[name]][1]
    for run, bad in zip(_script_run(name, script), _script_run(SOUND[name], script)):
        assert not run["won"] and bad["won"], (run, bad)
        assert run["screen"] == bad["screen"], "the twin differs from its bad program only in the hint"
        assert not reveals(run["hint"], run["solution"], min_chars=1)


# ----------------------------------------------------------------------------- the validator


@pytest.fixture(scope="module")
def reports():
    return {name: validate_source((PROGRAMS / f"{name}.py").read_text(), config=SMALL)
            for name in [*BAD, *SOUND, "hint_rule_guild_plain"]}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_hint_that_makes_the_game_mechanical_is_rejected_by_the_hint_rule(name, reports):
    report = reports[name]
    assert not report.valid and {c.name for c in report.failures} == {"hint_rule"}, report.summary()
    message = report.check("hint_rule").message
    script = BAD[name][0]
    for fragment in (f"- {script} (", "level default", "with the hint", "% > 50%", "interval", "shown the hint",
                     "fix: "):
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    lift = report.details["hint_lift"]["default"]
    if name == "hint_rule_levers_shown":  # copying moves off the screen is no excuse: it fails all the same
        assert "(it reads the moves off the screen too)" in message and lift["lift"] == 0.0, (message, lift)
    else:
        assert lift["lift"] > 0.5 and lift["hinted"] > 0.5, lift
    assert report.card_summary()["hint_lift"] == report.details["hint_lift"]


@pytest.mark.parametrize("name", sorted(SOUND))
def test_the_sound_twin_is_accepted_and_the_card_records_the_lift(name, reports):
    report = reports[name]
    assert report.valid, report.summary()
    check = report.check("hint_rule")
    assert "the hint lifts the best script by default +0%" in check.message, check.message
    rates = check.details["win_rates"]["default"]
    assert set(HINT_BASELINES) <= set(rates) and max(rates.values()) <= 0.25, rates
    assert report.card_summary()["hint_lift"]["default"]["lift"] == 0.0


def test_a_hint_that_restates_what_the_screen_says_hands_over_nothing(reports):
    # The screen states the recipe and the hint restates it: the arithmetic script wins with the hint
    # and as often reading the screen in its place, so the hint is not what makes the game mechanical.
    report = reports["hint_rule_guild_plain"]
    assert report.valid, report.summary()
    check = report.check("hint_rule")
    assert check.details["win_rates"]["default"]["hint_arithmetic"] == 1.0
    assert check.details["also_without_hint"]["default"]["hint_arithmetic"]["verdict"] == "fail"
    assert "also win(s) without the hint" in check.message and "+0%" in check.message
    assert report.details["hint_lift"]["default"]["lift"] == 0.0


def test_a_program_without_a_hint_passes_trivially():
    report = validate_source(GUESS_SOURCE, config=SMALL.replace(checks=("static", "load", "shortcut", "hint_rule")))
    check = report.check("hint_rule")
    assert check.passed and "no hint" in check.message and check.details == {"hinted": False}, check.message
    assert "hint_lift" not in report.details


def test_a_hint_that_states_the_answer_is_the_hint_checks_finding_only():
    # The Roman-numeral hint is decoded by the hint_decode script too; its wins are set aside, so the
    # program fails once, with the spelling named, by the check that owns leaks.
    report = validate_source((PROGRAMS / "leaks" / "hint_roman.py").read_text(), config=SMALL)
    assert {c.name for c in report.failures} == {"hint"}, report.summary()
    check = report.check("hint_rule")
    assert check.details["answer_stated"]["default"]["hint_decode"] >= 1, check.details
    assert "are the hint check's to judge" in check.message


def test_the_rule_plays_the_zoo_of_the_programs_kind_with_the_hint_shown():
    tool = validate_source((PROGRAMS / "tooluse" / "file_organizer.py").read_text(),
                           config=SMALL.replace(checks=("static", "load", "shortcut", "hint_rule")))
    names = set(tool.check("hint_rule").details["win_rates"]["default"])
    # prior and blind_script never read a screen: shown the hint they would play the same
    assert {f"hinted:{k}" for k in _reading(TOOL_SHORTCUT_BASELINES)} | set(HINT_BASELINES) == names
    assert any(k.startswith("hinted:tool_") for k in names)
    game = validate_source((PROGRAMS / "leaks" / "vault_sound.py").read_text(),
                           config=SMALL.replace(checks=("static", "load", "shortcut", "hint_rule")))
    names = set(game.check("hint_rule").details["win_rates"]["default"])
    assert {"prior", "blind_script"}.isdisjoint(_reading(SHORTCUT_BASELINES))
    assert {f"hinted:{k}" for k in _reading(SHORTCUT_BASELINES)} | set(HINT_BASELINES) == names


def _reading(zoo) -> list[str]:
    return [k for k in zoo if make_baseline({"kind": k}, 0).reads_observation]


def test_every_admission_path_judges_the_hint_the_same_way():
    # generate, import, revalidate and self-play validate with every check; what they may change
    # (self-play's cheaper presets lower ``seeds``) leaves the hint rule's scripts, first look and limit.
    from spade_gym.registry import admission
    from spade_gym.selfplay.presets import PRESETS, load_preset

    default = ValidationConfig()
    changes = [dict(rules.validation) for rules in vars(admission).values()
               if hasattr(rules, "validation") and hasattr(rules, "require_hint")]
    changes += [{"seeds": load_preset(name).validation_seeds} for name in PRESETS]
    assert len(changes) > len(PRESETS)
    for change in changes:
        config = default.replace(**change)
        assert config.enabled("hint_rule")
        assert (config.hint_baselines, config.hint_rule_seeds, config.max_shortcut_win_rate, config.rate_rule) == (
            default.hint_baselines, default.hint_rule_seeds, default.max_shortcut_win_rate, default.rate_rule)


def test_config_names_the_unknown_hint_baseline():
    with pytest.raises(ConfigError, match="unknown hint baseline"):
        ValidationConfig(hint_baselines=("hint_moves", "hint_vibes"))
    assert ValidationConfig().to_dict()["hint_baselines"] == list(HINT_BASELINES)


# ----------------------------------------------------------------------------- what a script sees


class _Recorder(Baseline):
    def __init__(self, rng=None):
        super().__init__(rng)
        self.seen: list[str] = []

    def begin(self, observation):
        self.seen.append(("begin", observation))

    def act(self, observation, turn, solution):
        self.seen.append(("act", observation))
        return "\\boxed{1}"


class _StubEnv(gym.Env):
    observation_space = gym.spaces.Text(4000)
    action_space = gym.spaces.Text(4000)

    def __init__(self, hint):
        self.hint = hint

    def reset(self, *, seed=None, options=None):
        return "the screen", {}

    def _privileged_solution(self):
        return "1"

    def _privileged_hint(self):
        return self.hint


@pytest.mark.parametrize("given_hint, method_hint, shown", [
    ("the given hint", None, "the given hint"),
    ("the given hint", "", "the given hint"),
    ("the given hint", "hint() text", "hint() text"),
    (None, "hint() text", "hint() text"),
    (None, None, None),
])
def test_a_hinted_script_sees_the_first_observation_an_agent_sees(given_hint, method_hint, shown):
    inner = _Recorder()
    baseline = Hinted(random.Random(0), inner)
    baseline.offer_hint(given_hint, given=True)  # the host: the given hint first, at job creation...
    baseline.begin("the screen")
    baseline.offer_hint(method_hint)  # ...then hint() after reset, as SpadeEnv prefers it
    baseline.act("the screen", 0, None)
    baseline.act("feedback", 1, None)
    agent_sees = HintWrapper(_StubEnv(shown)).reset()[0] if shown else "the screen"
    assert inner.seen == [("begin", agent_sees), ("act", agent_sees), ("act", "feedback")]
    assert agent_sees == (HINT_TEMPLATE.format(observation="the screen", hint=shown) if shown else "the screen")
    assert shown_with_hint("the screen", shown) == agent_sees


def test_play_goes_on_when_every_live_episode_stops_at_once():
    class Stops(Baseline):
        exhausted = False

        def begin(self, observation):
            self.exhausted = False

        def act(self, observation, turn, solution):
            self.exhausted = True
            return ""

    with ProgramHandle(GUESS_SOURCE, count=4) as handle:
        jobs = [Job(s, "stops", Stops(None)) for s in range(4)] + [Job(s, "fixed", FixedActions(None, ["1"]))
                                                                  for s in range(6)]
        episodes = play(handle, jobs, max_steps=3, slots=4, timeout_for=lambda n: 60.0)
    assert [e.baseline for e in episodes] == ["stops"] * 4 + ["fixed"] * 6


# ----------------------------------------------------------------------------- the scripts, property-tested

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


@settings(max_examples=60)
@given(values=st.lists(st.integers(1, 500), min_size=3, max_size=10, unique=True), data=st.data())
def test_the_arithmetic_a_hint_states_is_the_first_answer_tried(values, data):
    k = data.draw(st.integers(1, min(5, len(values) - 1)))
    m = data.draw(st.integers(2, 9))
    spelled = data.draw(st.sampled_from([str(k), _NUMBER_WORDS[k]]))
    phrasing = data.draw(st.sampled_from([
        ("Add the {k} largest values and multiply the total by {m}.", m * sum(sorted(values)[-k:])),
        ("Sum the {k} smallest numbers, then add {m}.", sum(sorted(values)[:k]) + m),
        ("The answer is the total of the first {k} numbers times {m}.", m * sum(values[:k])),
    ]))
    table = "\n".join(f"  item {chr(65 + i)}: {v}" for i, v in enumerate(values))
    screen = f"Values on the table:\n{table}\nAnswer with \\boxed{{N}}."
    answers = recipes(phrasing[0].format(k=spelled, m=m), screen)
    assert answers[0] == str(phrasing[1]), (phrasing, answers[:5])


def _prior(forms: list[str], seeds: int = 5) -> Prior:
    rng = random.Random(len(forms))
    actions = [[form.format(rng.randint(10, 99)) for form in forms] for _ in range(seeds)]
    return Prior([a[0] for a in actions], [list(turn) for turn in zip(*actions)])


@settings(max_examples=60)
@given(moves=st.lists(st.integers(10, 99), min_size=2, max_size=6),
       form=st.sampled_from(["\\boxed{{pull {}}}", "\\boxed{{{}}}", "\\boxed{{move {} north}}",
                             '<tool_call>{{"name": "open", "arguments": {{"drawer": {}}}}}</tool_call>']),
       phrase=st.sampled_from(["The right order is {}.", "Play {} and you win", "Moves, in order: {}"]))
def test_the_moves_a_hint_names_are_played_in_its_order(moves, form, phrase):
    prior = _prior([form] * 3)
    baseline = HintMoves(random.Random(0), prior)
    baseline.offer_hint(phrase.format(", then ".join(map(str, moves))))
    baseline.begin("Levers: " + " ".join(map(str, moves)))
    played = [baseline.act("", turn, None) for turn in range(len(moves))]
    expected = [form.format(n) for n in moves]
    if form.startswith("<tool_call>"):  # the call is written anew, the same call
        played = [toolcalls.parse_action(a).calls for a in played]
        expected = [toolcalls.parse_action(a).calls for a in expected]
    assert played == expected
    assert baseline.act("", len(moves), None) == "" and baseline.exhausted


@settings(max_examples=80)
@given(hint=st.text(max_size=300), screen=st.text(max_size=300), feedback=st.text(max_size=100),
       kind=st.sampled_from([*HINT_BASELINES, "hinted:enumeration", "hinted:decode"]))
def test_the_scripts_take_any_text(hint, screen, feedback, kind):
    prior = _prior(["\\boxed{{pull {}}}", "\\boxed{{{}}}"])
    baseline = make_baseline({"kind": kind}, 1, prior)
    baseline.offer_hint(hint)
    baseline.begin(screen)
    for turn in range(4):
        if baseline.exhausted:
            break
        assert isinstance(baseline.act(screen if turn == 0 else feedback, turn, None), str)
