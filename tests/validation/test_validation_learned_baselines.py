"""Shortcut baselines that learn what the feedback means on training seeds, instead of reading keywords.

Keyword-reading baselines are defeated by phrasing: a guess-the-number game whose feedback repeats a
log ("500->lower, 250->higher") validated with bisection at 0%, though bisection wins every episode.
The learned baselines (``validation.baselines.learned``, ``validation.feedback_model``) probe other
seeds with guesses whose relation to the answer the host knows, learn what the feedback signals, and
search on fresh seeds: ``bisection`` (above/below, warmer/colder, a bound the screen states),
``marks`` (codes and words under learned marks or counts), ``opponent`` (an n-gram model of the
opponent's moves), ``probe_plan`` (a fixed probe plan whose feedback spells the answer).

For each purpose-built program in ``tests/programs/learned_*.py`` (module constants select the
variant): the exploit is first proven under plain CPython (a script with the program's semantics
written in, no validator code), then the validator rejects the bad variant with the ``shortcut``
check naming the learned baseline, and accepts the sound twin (same surface, too few attempts or no
habit to learn). The same programs pass the validator before these baselines existed (recorded in
the change's report). Property tests close the classes: any phrasing, any mark symbols, any move
names, simulated in-process without a sandbox.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from testkit import PROGRAMS, SUPPORT

from spade_gym.validation import CHECK_NAMES, ValidationConfig, validate_source
from spade_gym.validation.baselines.base import Prior, Transcript
from spade_gym.validation.baselines.learned import (
    GUESS_PROBE,
    PLAN_PROBE,
    Bisection,
    MarkSearch,
    OpponentModel,
    probe_name,
    probe_plan,
    training_specs,
)
from spade_gym.validation.baselines.zoo import SHORTCUT_BASELINES, make_baseline
from spade_gym.validation.feedback_marks import answer_form, mark_labels
from spade_gym.validation.feedback_model import Bayes, new_part, units
from spade_gym.validation.feedback_numeric import ScreenBound

SMALL = ValidationConfig(seeds=8, fuzz_examples=8, cost_samples=3, seed=11, long_run_resets=40)
#: Every check but novelty (which compares with the registered suites, nothing these programs vary).
WHOLE = SMALL.replace(checks=tuple(name for name in CHECK_NAMES if name != "novelty"))
SHORTCUT_ONLY = SMALL.replace(checks=("static", "load", "shortcut"))

#: variant -> (program, constants, the baseline that wins it; None for a sound twin)
VARIANTS = {
    "log": ("learned_guess_phrasing", {"STYLE": "log", "ATTEMPTS": 12}, "bisection"),
    "arrows": ("learned_guess_phrasing", {"STYLE": "arrows", "ATTEMPTS": 12}, "bisection"),
    "warmth": ("learned_guess_phrasing", {"STYLE": "warmth", "ATTEMPTS": 16}, "bisection"),
    "numberline": ("learned_guess_phrasing", {"STYLE": "numberline", "ATTEMPTS": 12}, "bisection"),
    "french": ("learned_guess_phrasing", {"STYLE": "french", "ATTEMPTS": 12}, "bisection"),
    "code_counts": ("learned_code_breaker", {"STYLE": "counts", "ATTEMPTS": 10}, "marks"),
    "code_marks": ("learned_code_breaker", {"STYLE": "marks", "ATTEMPTS": 10}, "marks"),
    "habit_duel": ("learned_habit_duel", {"MODE": "habit"}, "opponent"),
    "screen_bound": ("learned_screen_bound", {"EXTRA": 1}, "bisection"),
    "dial_copy": ("learned_probe_plan", {"MODE": "copy"}, "probe_plan"),
    # sound twins: the same surface, the exploit cannot win
    "log_few": ("learned_guess_phrasing", {"STYLE": "log", "ATTEMPTS": 6}, None),
    "arrows_few": ("learned_guess_phrasing", {"STYLE": "arrows", "ATTEMPTS": 6}, None),
    "warmth_few": ("learned_guess_phrasing", {"STYLE": "warmth", "ATTEMPTS": 6}, None),
    "numberline_few": ("learned_guess_phrasing", {"STYLE": "numberline", "ATTEMPTS": 6}, None),
    "french_few": ("learned_guess_phrasing", {"STYLE": "french", "ATTEMPTS": 6}, None),
    "code_counts_few": ("learned_code_breaker", {"STYLE": "counts", "ATTEMPTS": 3}, None),
    "code_marks_few": ("learned_code_breaker", {"STYLE": "marks", "ATTEMPTS": 2}, None),
    "random_duel": ("learned_habit_duel", {"MODE": "random"}, None),
    "screen_bound_few": ("learned_screen_bound", {"EXTRA": -3}, None),
    "dial_sum": ("learned_probe_plan", {"MODE": "sum"}, None),
}
BAD = sorted(k for k, v in VARIANTS.items() if v[2])
TWINS = sorted(k for k, v in VARIANTS.items() if not v[2])
#: One variant per program gets the whole validation (the others the shortcut check only).
FULL = {"log", "warmth", "code_counts", "habit_duel", "screen_bound", "dial_copy",
        "log_few", "warmth_few", "code_counts_few", "random_duel", "screen_bound_few", "dial_sum"}


def variant_source(name: str) -> str:
    program, constants, _ = VARIANTS[name]
    source = (PROGRAMS / f"{program}.py").read_text()
    for key, value in constants.items():
        source, count = re.subn(rf"^{key} = .*$", f"{key} = {value!r}", source, count=1, flags=re.M)
        assert count == 1, (program, key)
    return source


# ----------------------------------------------------------------------------- proofs under plain CPython

#: Plays a program under plain CPython (``plain_runner.load``, the reference loader) with a script
#: that has the program's semantics written in: no validator code, no privileged information.
EXPLOIT = r'''
import itertools, json, math, re, sys
from collections import Counter
sys.path.insert(0, sys.argv[2])
from plain_runner import load

def box(text):
    return "\\boxed{%s}" % text

def guess_game(env, obs, style):
    low, high = 1, 1000
    if style == "warmth":  # warmer/colder: mirror the previous guess around a half-integer middle
        prev = 1
        obs, reward, done, cut, _ = env.step(box(prev))
        while not (done or cut):
            if low >= high:
                g = low
            else:
                split = (low + high) // 2 + 0.5
                g = int(2 * split - prev)
                g = g if 1 <= g <= 1000 and g != prev else (low + high) // 2
            obs, reward, done, cut, _ = env.step(box(g))
            if reward > 0:
                return True
            mid = (g + prev) / 2
            if obs.startswith("Same"):
                low = high = int(mid)
            elif (g > prev) == obs.startswith("Warmer"):
                low = max(low, math.floor(mid) + 1)
            else:
                high = min(high, math.ceil(mid) - 1)
            prev = g
        return False
    while True:
        g = (low + high) // 2
        obs, reward, done, cut, _ = env.step(box(g))
        if reward > 0:
            return True
        if done or cut:
            return False
        if style == "log":
            up = re.findall(r"(\d+)->(higher|lower)", obs)[-1][1] == "higher"
        elif style == "arrows":
            up = "↑" in obs
        elif style == "numberline":
            bar = re.search(r"\S*G\S*", obs).group(0)
            up = "~" in bar[bar.index("G"):]
        else:
            up = "plus" in obs
        low, high = (g + 1, high) if up else (low, g - 1)

def marks_of(guess, code):
    right = [g == c for g, c in zip(guess, code)]
    spare = Counter(c for c, hit in zip(code, right) if not hit)
    out = []
    for g, hit in zip(guess, right):
        if hit:
            out.append("●")
        elif spare[g] > 0:
            spare[g] -= 1
            out.append("○")
        else:
            out.append("·")
    return "".join(out)

def code_game(env, obs, style):
    alive = ["".join(c) for c in itertools.product("ABCDEF", repeat=4)]
    while alive:
        g = alive[0]
        obs, reward, done, cut, _ = env.step(box(g))
        if reward > 0:
            return True
        if done or cut:
            return False
        if style == "marks":
            seen = re.search(r": ([●○·]{4})", obs).group(1)
            alive = [c for c in alive if marks_of(g, c) == seen]
        else:
            b, w = map(int, re.search(r"(\d+) ◆ (\d+) ◇", obs).groups())
            alive = [c for c in alive if (marks_of(g, c).count("●"), marks_of(g, c).count("○")) == (b, w)]
    return False

MOVES = ("fire", "water", "grass")
BEATS = {"fire": "water", "water": "grass", "grass": "fire"}

def duel_game(env, obs):
    # every habit of the announced kinds (cycles of four or five, reply tables) that fits the record
    habits = [("cycle", c) for n in (4, 5) for c in itertools.product(MOVES, repeat=n)]
    habits += [("reply", (o, t)) for o in MOVES for t in itertools.product(MOVES, repeat=3)]
    def predict(habit, mine_last, rnd):
        kind, h = habit
        if kind == "cycle":
            return h[rnd % len(h)]
        opening, table = h
        return opening if mine_last is None else table[MOVES.index(mine_last)]
    mine_last, rnd = None, 0
    while True:
        votes = Counter(predict(h, mine_last, rnd) for h in habits)
        mine = BEATS[votes.most_common(1)[0][0]] if votes else "fire"
        obs, reward, done, cut, _ = env.step(box(mine))
        if reward > 0:
            return True
        if done or cut:
            return False
        theirs = re.search(r"rival (\w+)", obs).group(1)
        habits = [h for h in habits if predict(h, mine_last, rnd) == theirs]
        mine_last, rnd = mine, rnd + 1

def bound_game(env, obs):
    low, high = 1, int(re.search(r"from 1 to (\d+)", obs).group(1))
    while True:
        g = (low + high) // 2
        obs, reward, done, cut, _ = env.step(box(g))
        if reward > 0:
            return True
        if done or cut:
            return False
        low, high = (g + 1, high) if "higher" in obs else (low, g - 1)

def plan_game(env, obs):
    digits = []
    for k in range(1, 5):
        obs, reward, done, cut, _ = env.step(box(f"listen {k}"))
        digits.append(re.findall(r"\d", obs)[-1])
    obs, reward, done, cut, _ = env.step(box("open " + "".join(digits)))
    return reward > 0

rates = {}
for name, (path, spec) in json.loads(sys.argv[1]).items():
    env = load(open(path).read())()
    wins = 0
    for seed in spec["seeds"]:
        obs, _ = env.reset(seed=seed)
        game = spec["game"]
        if game == "guess":
            wins += guess_game(env, obs, spec["style"])
        elif game == "code":
            wins += code_game(env, obs, spec["style"])
        elif game == "duel":
            wins += duel_game(env, obs)
        elif game == "bound":
            wins += bound_game(env, obs)
        else:
            wins += plan_game(env, obs)
    rates[name] = wins / len(spec["seeds"])
print(json.dumps(rates))
'''

GAMES = {"learned_guess_phrasing": "guess", "learned_code_breaker": "code", "learned_habit_duel": "duel",
         "learned_screen_bound": "bound", "learned_probe_plan": "plan"}


def exploit_rates(program: str, tmp_path) -> dict[str, float]:
    """Each variant of ``program`` played by the exploit on 20 seeds, in one plain CPython process."""
    jobs = {}
    for name, (prog, constants, _) in VARIANTS.items():
        if prog == program:
            path = tmp_path / f"{name}.py"
            path.write_text(variant_source(name))
            jobs[name] = (str(path), {"game": GAMES[program], "style": constants.get("STYLE"), "seeds": list(range(20))})
    proc = subprocess.run([sys.executable, "-c", EXPLOIT, json.dumps(jobs), str(SUPPORT)],
                          capture_output=True, text=True, timeout=300, env={"PYTHONHASHSEED": "0"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("program", sorted(GAMES))
def test_the_exploit_is_real_under_plain_cpython(program, tmp_path):
    """A script with the feedback's meaning written in wins every bad variant and few of the twins."""
    rates = exploit_rates(program, tmp_path)
    for name, rate in rates.items():
        if VARIANTS[name][2]:
            assert rate == 1.0, (name, rate)
        else:
            assert rate <= 0.25, (name, rate)


# ----------------------------------------------------------------------------- the validator


@pytest.mark.parametrize("name", BAD)
def test_the_learned_baseline_rejects_the_bad_variant(name):
    baseline = VARIANTS[name][2]
    report = validate_source(variant_source(name), config=WHOLE if name in FULL else SHORTCUT_ONLY)
    failed = {c.name for c in report.failures}
    assert failed == {"shortcut"}, report.summary()
    shortcut = report.check("shortcut")
    rates = shortcut.details["win_rates"]["default"]
    assert rates[baseline] > 0.5, rates
    assert f"- {baseline} (" in shortcut.message, shortcut.message
    assert all(rates[b] <= 0.5 for b in rates if b not in ("bisection", "marks", "opponent", "probe_plan")), rates


@pytest.mark.parametrize("name", TWINS)
def test_the_sound_twin_is_accepted(name):
    report = validate_source(variant_source(name), config=WHOLE if name in FULL else SHORTCUT_ONLY)
    assert report.valid, report.summary()


def test_the_learned_baselines_are_in_the_zoo_and_described():
    from spade_gym.validation.baselines.zoo import DESCRIPTIONS
    from spade_gym.validation.checks.shortcut import REPAIRS

    for name in ("bisection", "marks", "opponent", "probe_plan"):
        assert name in SHORTCUT_BASELINES and name in DESCRIPTIONS and name in REPAIRS


def test_no_training_probes_are_played_for_a_zoo_without_learned_baselines():
    config = SHORTCUT_ONLY.replace(shortcut_baselines=("prior", "enumeration"))
    report = validate_source(variant_source("log"), config=config)
    assert report.valid, report.summary()  # without bisection nothing finds the log's meaning
    assert training_specs([], ("prior",)) == []


# ----------------------------------------------------------------------------- in-process simulations

def _transcript(baseline, game, seed: int, answer: str) -> Transcript:
    """Play ``game`` (a generator taking actions, yielding observations) with ``baseline``."""
    obs0 = next(game)
    baseline.begin(obs0)
    actions, observations = [], []
    obs, won = obs0, False
    for turn in itertools.count():
        if baseline.exhausted:
            break
        action = baseline.act(obs, turn, answer if baseline.needs_solution else None)
        actions.append(action)
        try:
            obs, won = game.send(action)
        except StopIteration:
            break
        observations.append(obs)
        if won:
            break
    return Transcript(seed, getattr(baseline, "name", "policy"), answer, obs0, actions, observations, won)


def _trained_prior(make_game, answers: list[str]) -> Prior:
    """The prior of the validator's zoo: the privileged policy's episodes (answering at once) and
    training probes (the real ``GuessProbe``) on the training answers."""
    episodes = [Transcript(seed, "oracle", answer, next(make_game(answer)), [f"\\boxed{{{answer}}}"], ["yes"], True)
                for seed, answer in enumerate(answers)]
    base = Prior(list(answers), episodes=episodes)
    [spec] = [spec for spec in training_specs(episodes, SHORTCUT_BASELINES) if spec["kind"] == GUESS_PROBE]
    probes = []
    for seed, answer in enumerate(answers):
        probe = make_baseline({**spec, "answer": answer}, seed, base, run_seed=3)
        probe.name = probe_name(spec)
        probes.append(_transcript(probe, make_game(answer), seed, answer))
    return Prior(list(answers), episodes=episodes, probes=probes)


_LETTERS = st.sampled_from(list("abcdefghijklmnopqrstuvwxyzαβγδλπστωабвгдежзиклмн大小高低上下"))
_SYMBOLS = st.sampled_from(list("↑↓←→▲▼△▽+-<>!?*#@%&=~^"))
_VERDICT = st.one_of(st.text(_LETTERS, min_size=1, max_size=7), st.text(_SYMBOLS, min_size=1, max_size=3))


def _numeric_game(up: str, down: str, layout: str, attempts: int):
    def make(answer: str):
        def game():
            secret, log = int(answer), []
            action = yield f"Pick a number from 1 to 1000 in {attempts} tries. Answer \\boxed{{n}}."
            for left in range(attempts - 1, -1, -1):
                m = re.search(r"\\boxed\{(-?\d+)\}", action)
                g = int(m.group(1)) if m else None
                if g == secret:
                    yield "yes", True
                    return
                verdict = up if g is not None and g < secret else down
                log.append(f"{g} {verdict}")
                if layout == "bare":
                    text = f"{verdict}! {left} left"
                elif layout == "log":
                    text = "History: " + "; ".join(log) + f" ({left} left)"
                else:  # the task re-rendered with a "last" line
                    text = f"Pick a number from 1 to 1000 in {attempts} tries. Last: {g} {verdict}. Left: {left}"
                if left == 0:
                    yield text, False
                    return
                action = yield text, False
        gen = game()
        return gen
    return make


@settings(max_examples=25)
@given(up=_VERDICT, down=_VERDICT, layout=st.sampled_from(["bare", "log", "rerender"]), seed=st.integers(0, 10**6))
def test_learned_bisection_reads_any_phrasing(up, down, layout, seed):
    """Whatever two texts say "higher" and "lower" (any script, symbols), in a bare reply, a log that
    repeats every verdict or a re-rendered screen, bisection learns them and wins within 12 guesses."""
    assume(units(up) != units(down) and units(up) and units(down) and not any(c.isdigit() for c in up + down))
    rng = random.Random(seed)
    make = _numeric_game(up, down, layout, 12)
    prior = _trained_prior(make, [str(rng.randint(1, 1000)) for _ in range(7)])
    wins = 0
    for episode in range(6):
        answer = str(rng.randint(1, 1000))
        baseline = Bisection(random.Random(episode), prior)
        assert baseline.semantics is not None and baseline.semantics.side is not None
        wins += _transcript(baseline, make(answer), 100 + episode, answer).won
    assert wins == 6


def test_bisection_without_training_probes_keeps_the_keyword_reading():
    make = _numeric_game("go higher", "go lower", "bare", 12)
    prior = Prior([str(v) for v in (3, 500, 997, 250, 750)])
    baseline = Bisection(random.Random(0), prior)
    assert baseline.semantics is None
    assert _transcript(baseline, make("613"), 0, "613").won
    prior = _trained_prior(_numeric_game("↑", "↓", "bare", 12), ["3", "500", "997", "250", "750"])
    assert Bisection(random.Random(0), prior).semantics is not None


def _code_game(mark_units: tuple[str, str, str] | None, count_words: tuple[str, str] | None, attempts: int):
    def make(answer: str):
        def game():
            action = yield f"A code of 4 symbols from A to F, {attempts} tries: \\boxed{{ABCD}}."
            for left in range(attempts - 1, -1, -1):
                m = re.search(r"\\boxed\{([a-fA-F]{4})\}", action)
                g = m.group(1).lower() if m else None
                if g == answer:
                    yield "open", True
                    return
                if g is None:
                    text = "four symbols please"
                else:
                    labels = mark_labels(tuple(g), tuple(answer))
                    if mark_units is not None:
                        text = f"{g.upper()} " + " ".join(mark_units[2 - v] for v in labels["wordle"])
                    else:
                        text = f"{g.upper()}: {labels['b']} {count_words[0]}, {labels['w']} {count_words[1]}"
                if left == 0:
                    yield text, False
                    return
                action = yield f"{text} [{left}]", False
        return game()
    return make


@settings(max_examples=15)
@given(marks=st.lists(st.one_of(st.text(_LETTERS, min_size=1, max_size=6), _SYMBOLS), min_size=3, max_size=3,
                      unique_by=lambda t: units(t)),
       per_position=st.booleans(), seed=st.integers(0, 10**6))
def test_marks_reads_any_mark_symbols_or_count_words(marks, per_position, seed):
    """Per-position marks in any three symbols or words, or two counts named by any words: the
    learned marks model reads them and the first consistent code wins within 10 tries."""
    assume(all(len(units(m)) == 1 for m in marks))
    rng = random.Random(seed)
    make = _code_game(tuple(marks) if per_position else None, None if per_position else (marks[0], marks[1]), 10)
    codes = ["".join(rng.choice("abcdef") for _ in range(4)) for _ in range(8)]
    if len({c for code in codes for c in code}) < 6:
        codes.append("abcdef"[:4])
        codes.append("cdef")
    prior = _trained_prior(make, codes)
    wins = 0
    for episode in range(4):
        answer = "".join(rng.choice("abcdef") for _ in range(4))
        baseline = MarkSearch(random.Random(episode), prior)
        assert not baseline.exhausted
        wins += _transcript(baseline, make(answer), 100 + episode, answer).won
    assert wins == 4


def _duel(names: tuple[str, str, str], habit, rounds: int = 20, needed: int = 11):
    beats = {names[0]: names[1], names[1]: names[2], names[2]: names[0]}

    def game(know: bool):
        mine, wins = None, 0
        text = f"Moves: {', '.join(names)}. Win {needed} of {rounds}. \\boxed{{{names[0]}}}"
        for r in range(rounds):
            theirs = habit(r, mine)
            action = yield (text, False) if r else text
            m = re.search(r"\\boxed\{(\w+)\}", action)
            mine = m.group(1) if m else None
            wins += mine == beats[theirs]
            text = f"Round {r + 1}: you {mine}, rival {theirs}. Wins {wins}."
            if wins >= needed:
                yield text, True
                return
        yield text, False
    return game, beats


@settings(max_examples=10)
@given(names=st.lists(st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8), min_size=3, max_size=3,
                      unique=True), seed=st.integers(0, 10**6))
def test_opponent_model_learns_a_habit_whatever_the_moves_are_called(names, seed):
    rng = random.Random(seed)
    names = tuple(names)

    def habit_for(r_seed):
        r = random.Random(r_seed)
        cycle = [r.choice(names) for _ in range(r.choice([3, 4, 5]))]
        return lambda rnd, mine: cycle[rnd % len(cycle)]

    # the privileged policy's episodes on other seeds: it knows the rival's next move
    episodes = []
    for s in range(6):
        habit = habit_for(rng.random())
        game, beats = _duel(names, habit)
        gen = game(True)
        obs0 = next(gen)
        actions, observations, won, mine = [], [], False, None
        for rnd in range(20):
            action = f"\\boxed{{{beats[habit(rnd, mine)]}}}"
            mine = beats[habit(rnd, mine)]
            actions.append(action)
            obs, won = gen.send(action)
            observations.append(obs)
            if won:
                break
        episodes.append(Transcript(s, "oracle", actions[0], obs0, actions, observations, won))
    prior = Prior([e.solution for e in episodes], episodes=episodes)
    wins = 0
    for episode in range(4):
        game, _ = _duel(names, habit_for(rng.random()))
        baseline = OpponentModel(random.Random(episode), prior)
        assert not baseline.exhausted
        wins += _transcript(baseline, game(False), 100 + episode, "").won
    assert wins >= 3


# ----------------------------------------------------------------------------- the pieces


@settings(max_examples=60)
@given(rows=st.lists(st.tuples(st.frozensets(st.sampled_from("abcdefgh"), max_size=5), st.sampled_from([0, 1, 2])),
                     min_size=2, max_size=25))
def test_bayes_leave_one_out_scores_are_exact(rows):
    """The closed-form leave-one-out scores equal a model refitted without the example (on the
    full model's vocabulary, as the closed form keeps it)."""
    model = Bayes(rows)
    size = len(model.vocab)
    for i, (feats, _) in enumerate(rows):
        rest = rows[:i] + rows[i + 1:]
        n_of = Counter(lab for _, lab in rest)
        expected = {}
        for lab, n in n_of.items():
            counts = Counter(f for fs, other in rest if other == lab for f in fs & model.vocab)
            expected[lab] = (math.log(n + 1) - size * math.log(n + 2)
                             + sum(math.log(counts[f] + 1 if f in feats else n + 1 - counts[f]) for f in model.vocab))
        got = model.loo_scores(i)
        assert set(got) == set(expected)
        for lab in expected:
            assert got[lab] == pytest.approx(expected[lab], abs=1e-9)


def test_new_part_is_what_a_step_added():
    assert new_part("Log: 500->lower (3 left)", "Log: 500->lower, 250->higher (2 left)") == (
        ",", "250", "-", ">", "higher", "2")
    screen = "Guess the number between 1 and 100; I answer higher or lower."
    assert new_part(screen, "Lower.") == ("lower", ".")  # a bare reply is all new
    assert new_part("Too low.", "Too low.") == ("too", "low", ".")  # nothing new: all of it


def test_screen_bound_prefers_a_bound_that_moves_with_the_task():
    screens = [(f"A number from 1 to {top}. You have 8 guesses.", str(answer))
               for answer, top in [(40, 90), (700, 4000), (12, 50), (90000, 200000)]]
    bound = ScreenBound.learn(screens)
    assert bound is not None
    assert bound.bounds("A number from 1 to 777. You have 11 guesses.") == (1.0, 777.0)


def test_training_specs_follow_the_answers_and_the_zoo():
    numbers = [Transcript(s, "oracle", str(v), "screen", ["\\boxed{%d}" % v], ["ok"], True)
               for s, v in enumerate([4, 80, 512, 9])]
    zoo = SHORTCUT_BASELINES
    assert training_specs(numbers, zoo) == [{"kind": GUESS_PROBE, "serves": ["bisection"]}]
    codes = [Transcript(s, "oracle", c, "screen", ["\\boxed{%s}" % c], ["ok"], True)
             for s, c in enumerate(["1234", "4321", "2222", "1313"])]
    assert training_specs(codes, zoo) == [{"kind": GUESS_PROBE, "serves": ["bisection", "marks"]}]
    assert training_specs(numbers, ("prior", "decode")) == []
    same = [Transcript(s, "oracle", "listen 1", "screen", ["a"], ["ok"], True) for s in range(4)]
    assert training_specs(same, zoo) == []  # a multi-step game's first move is no answer to probe
    probing = [Transcript(s, "oracle", "x", "screen", ["\\boxed{ask 1}", "\\boxed{ask 2}", f"\\boxed{{say {s}}}"],
                          ["a", "b", "win"], True) for s in range(4)]
    assert probe_plan(probing) == ["\\boxed{ask 1}", "\\boxed{ask 2}"]
    assert {"kind": PLAN_PROBE, "plan": ["\\boxed{ask 1}", "\\boxed{ask 2}"], "serves": ["probe_plan"]} in (
        training_specs(probing, zoo))


def test_answer_forms():
    assert answer_form(["3, 2, 3", "1, 4, 2", "2, 2, 1"]).joiner == ", "
    assert answer_form(["cafe", "bead", "face"]).length == 4
    assert answer_form(["crane", "at", "stone"]) is None
    assert answer_form(["a"] * 2) is None


@pytest.mark.parametrize("name", SHORTCUT_BASELINES)
def test_every_zoo_baseline_plays_with_nothing_learned(name):
    """``spade-gym eval --agent baselines`` builds each baseline from what earlier episodes taught it
    (nothing, at first) and asks it for an action whatever ``exhausted`` says."""
    baseline = make_baseline({"kind": name}, 0, Prior())
    baseline.begin("Guess a number from 1 to 10.")
    assert isinstance(baseline.act("Guess a number from 1 to 10.", 0, None), str)
    assert isinstance(baseline.act("Higher.", 1, None), str)


def test_the_learning_caches_are_safe_across_validation_threads():
    """validate_many runs programs on threads that share these caches: a key evicted by another
    thread between storing and returning it was a KeyError inside a check (seen in CI on two
    bundled games). Hammered with a tiny switch interval, every call gets its own value."""
    import sys
    import threading

    from spade_gym.validation.feedback_model import cached

    cache: dict = {}
    errors: list[str] = []

    def work(thread: int) -> None:
        try:
            for i in range(3000):
                key = (thread, i % 200)
                assert cached(cache, key, lambda key=key: key) == key
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[:3]
    assert len(cache) <= 64
