"""AIME and GPQA envs (spade/aime-*, spade/gpqa-*) and the benchmark data loader, on fixture files the tests build."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import types
import warnings

import gymnasium as gym
import pytest
from click.testing import CliRunner
from gymnasium.utils.env_checker import check_env
from hypothesis import given
from hypothesis import strategies as st

from spade_gym import privileged
from spade_gym.adapters import datafiles
from spade_gym.adapters.aime import answers_match
from spade_gym.adapters.benchmarks import BenchmarkDataWarning, register_benchmarks
from spade_gym.adapters.datafiles import BenchmarkDataError, BenchmarkDataUnavailable, DataSpec, HubSource
from spade_gym.adapters.gpqa import LETTERS, choice_order, chosen_letter
from spade_gym.cli import main
from spade_gym.evaluation import select_envs

#: AIME rows in the three shapes the loader reads: the reference's prepared files, MathArena's, HuggingFaceH4's.
AIME_ROWS = [
    {"prompt": [{"role": "user", "content": "Compute 70+3.\nPlease reason step by step, and put your final "
                                            "answer within \\boxed{}."}], "label": "73"},
    {"problem_idx": 2, "problem": "What is the remainder of 2024 divided by 1000?", "answer": 24},
    {"id": 60, "problem": "How many positive divisors does 12 have?", "solution": "...", "answer": "6"},
]
GPQA_ROWS = [
    {"Record ID": "rec1", "Question": "Which of these is a noble gas?", "Correct Answer": "Neon",
     "Incorrect Answer 1": "Iron", "Incorrect Answer 2": "Sodium", "Incorrect Answer 3": "Carbon"},
    {"Record ID": "rec2", "Question": "What is the SI unit of force?", "Correct Answer": "newton",
     "Incorrect Answer 1": "joule", "Incorrect Answer 2": "watt", "Incorrect Answer 3": "pascal"},
]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture()
def data_dir(tmp_path, monkeypatch):
    """A $SPADE_GYM_BENCHMARK_DATA directory with AIME 2025 and GPQA Diamond (no other year or subset)."""
    write_jsonl(tmp_path / "aime-2025.jsonl", AIME_ROWS)
    write_jsonl(tmp_path / "gpqa-diamond.jsonl", GPQA_ROWS)
    monkeypatch.setenv(datafiles.DATA_DIR_ENV, str(tmp_path))
    register_benchmarks()
    return tmp_path


def test_aime_from_a_data_directory_oracle_wins_and_wrong_answers_lose(data_dir):
    env = gym.make("spade/aime-2025-v0")
    check_env(env.unwrapped, skip_render_check=True)
    for seed in range(6):  # two rounds of the three problems
        obs, info = env.reset(seed=seed)
        assert info["index"] == seed % 3 and info["round"] == seed // 3 and info["num_tasks"] == 3
        assert obs.count("\\boxed{}") == 1  # the instruction once, also where the file already has it
        solution = privileged(env).solution()
        assert env.step(solution)[1:3] == (1.0, True)
        env.reset(seed=seed)
        gold = solution[len("\\boxed{"):-1]
        obs, reward, terminated, _, info = env.step("\\boxed{" + str(int(gold) + 1) + "}")
        assert (reward, terminated, info["correct"]) == (0.0, True, False) and gold not in obs
        env.reset(seed=seed)
        assert env.step(f"The answer is {gold}.")[1] == 0.0  # no \boxed{}: no answer
    env.reset(seed=0)
    assert env.step("so \\boxed{073}")[1] == 1.0  # compared as numbers, as math-verify does
    env.close()


@given(st.integers(0, 999), st.integers(1, 999))
def test_aime_answers_compare_as_numbers(gold, offset):
    assert answers_match(str(gold), str(gold)) and answers_match(str(gold), f"{gold:03d}")
    assert answers_match(str(gold), f"{gold}.0") and answers_match(str(gold), f"\\text{{{gold}}}")
    assert not answers_match(str(gold), str(gold + offset))
    assert not answers_match(str(gold), None)


def test_gpqa_shuffles_choices_per_seed_and_scores_the_letter(data_dir):
    env = gym.make("spade/gpqa-diamond-v0")
    check_env(env.unwrapped, skip_render_check=True)
    correct_letters = []
    for seed in range(16):
        obs, info = env.reset(seed=seed)
        solution = privileged(env).solution()
        letter = solution[len("\\boxed{"):-1]
        row = GPQA_ROWS[seed % 2]
        assert f"{letter}: {row['Correct Answer']}" in obs  # the oracle's letter is the correct answer's
        assert env.step(solution)[1] == 1.0
        for wrong in (x for x in LETTERS if x != letter):
            env.reset(seed=seed)
            assert env.step("\\boxed{" + wrong + "}")[1] == 0.0
        env.reset(seed=seed)
        assert env.step("I cannot decide.")[1] == 0.0
        correct_letters.append(letter)
    assert set(correct_letters) == set(LETTERS)  # no letter prior survives the rounds
    env.close()


def test_gpqa_choice_order_is_the_same_in_any_process():
    code = "import json; from spade_gym.adapters.gpqa import choice_order; print(json.dumps([choice_order(s) for s in range(50)]))"
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": str(h), "PATH": "/usr/bin:/bin"}).stdout for h in (1, 2)]
    assert json.loads(runs[0]) == json.loads(runs[1]) == [choice_order(s) for s in range(50)]
    assert all(sorted(order) == [0, 1, 2, 3] for order in json.loads(runs[0]))


@given(st.sampled_from(LETTERS), st.sampled_from(["{x}", "\\text{{{x}}}", "({x})", "{x}: 2.4 eV", "\\mathrm{{{x}}}",
                                                  " {x} ", "{x}."]), st.text(alphabet="abc xyz.,", max_size=30))
def test_gpqa_reads_the_boxed_letter_in_the_wrappers_models_write(letter, form, prose):
    assert chosen_letter(prose + "\\boxed{" + form.format(x=letter) + "}") == letter
    assert chosen_letter(f"{prose}\\boxed{{A}} on reflection \\boxed{{{letter}}}") == letter  # the last box
    assert chosen_letter(f"{prose} so the answer is {letter}") == letter  # no box: "answer is X"


def test_gpqa_letters_are_not_read_out_of_words():
    assert chosen_letter("\\boxed{Both}") is None and chosen_letter("\\boxed{Carbon}") is None
    assert chosen_letter("\\boxed{}") is None and chosen_letter("nothing chosen") is None


def test_gpqa_rows_with_choices_and_an_answer_index(tmp_path):
    path = write_jsonl(tmp_path / "g.jsonl", [{"question": "2+2?", "choices": ["3", "4", "5", "6"], "answer": 1},
                                              {"question": "Red?", "choices": ["red", "b", "c", "d"], "answer": "A"}])
    register_benchmarks()
    env = gym.make("spade/gpqa-main-v0", data_file=str(path))
    for seed, correct in ((0, "4"), (1, "red")):
        obs, _ = env.reset(seed=seed)
        letter = privileged(env).solution()[len("\\boxed{"):-1]
        assert f"{letter}: {correct}" in obs


def test_data_files_in_every_format_read_the_same_rows(tmp_path):
    rows = AIME_ROWS
    write_jsonl(tmp_path / "a.jsonl", rows)
    (tmp_path / "b.json").write_text(json.dumps(rows))
    with gzip.open(tmp_path / "c.jsonl.gz", "wt") as handle:
        handle.write("\n".join(json.dumps(r) for r in rows) + "\n\n")
    names = ["a.jsonl", "b.json", "c.jsonl.gz"]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([{"problem": r.get("problem", "q"), "answer": str(r.get("answer", r.get("label")))}
                                      for r in rows])
        pq.write_table(table, tmp_path / "d.parquet")
        names.append("d.parquet")
    except ImportError:
        pass
    spec = DataSpec("aime-2025")
    for name in names:
        loaded = datafiles.load_rows(spec, tmp_path / name)
        assert len(loaded) == 3 and loaded.origin.endswith(name)
        answers = [str(row.get("answer", row.get("label"))) for row in loaded]
        assert answers == ["73", "24", "6"]
    # the same file is opened once; an edited file is new data (another identity, so no cached results reused)
    assert datafiles.load_rows(spec, tmp_path / "a.jsonl") is datafiles.load_rows(spec, tmp_path / "a.jsonl")
    before = datafiles.load_rows(spec, tmp_path / "a.jsonl").identity
    write_jsonl(tmp_path / "a.jsonl", rows[:2])
    assert datafiles.load_rows(spec, tmp_path / "a.jsonl").identity != before


def test_bad_data_is_named_with_its_file_and_row(tmp_path, monkeypatch):
    register_benchmarks()
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"problem": "fine", "answer": 1}) + "\n" + json.dumps({"problem": "no answer"}) + "\n")
    env = gym.make("spade/aime-2024-v0", data_file=str(path))
    env.reset(seed=0)
    with pytest.raises(BenchmarkDataError, match=r"bad.jsonl, row 2: no answer"):
        env.reset(seed=1)
    with pytest.raises(BenchmarkDataError, match="does not exist"):
        gym.make("spade/aime-2024-v0", data_file=str(tmp_path / "missing.jsonl"))
    monkeypatch.setenv("SPADE_GYM_AIME_2024_FILE", str(tmp_path / "missing.jsonl"))
    with pytest.raises(BenchmarkDataError, match=r"\$SPADE_GYM_AIME_2024_FILE"):
        gym.make("spade/aime-2024-v0")


def test_the_hub_is_read_through_datasets_lazily(monkeypatch):
    """No hub is reachable here: a stand-in ``datasets`` module records what would be loaded."""
    calls = []

    def load_dataset(path, name=None, *, split, data_files=None):
        calls.append((path, name, split, data_files))
        return [{"problem": "1+1?", "answer": "2"}]

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    monkeypatch.setattr(datafiles, "_opened", {})  # what the stand-in served is forgotten after the test
    monkeypatch.delenv(datafiles.DATA_DIR_ENV, raising=False)
    spec = DataSpec("aime-test-hub", HubSource("MathArena/aime_2026"))
    rows = datafiles.load_rows(spec)
    assert len(rows) == 1 and rows[0]["answer"] == "2" and rows.origin.startswith("hub dataset MathArena/aime_2026")
    from spade_gym.adapters import gpqa, livecodebench

    gpqa_hub = gpqa.FAMILY.variants["diamond"].hub
    datafiles.load_rows(DataSpec("gpqa-test-hub", gpqa_hub))
    lcb_hub = livecodebench.FAMILY.variants["v6"].hub
    datafiles.load_rows(DataSpec("lcb-test-hub", lcb_hub))
    assert calls == [
        ("MathArena/aime_2026", None, "train", None),
        ("Idavidrein/gpqa", "gpqa_diamond", "train", None),
        ("json", None, "train", [f"hf://datasets/livecodebench/code_generation_lite/test{n}.jsonl"
                                 for n in ("", "2", "3", "4", "5", "6")]),
    ]


def test_without_a_file_or_the_datasets_package_the_error_says_how_to_point_at_one(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # as if not installed
    monkeypatch.setattr(datafiles, "_opened", {})
    monkeypatch.delenv(datafiles.DATA_DIR_ENV, raising=False)
    with pytest.raises(BenchmarkDataUnavailable, match=r"datasets package is not installed.*SPADE_GYM_AIME_2026_FILE=PATH"):
        datafiles.load_rows(DataSpec("aime-2026-none", HubSource("MathArena/aime_2026"),
                                     file_env="SPADE_GYM_AIME_2026_FILE"))


def test_selection_keeps_what_is_here_and_names_what_is_not(data_dir):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chosen = select_envs("spade/aime-*,spade/gpqa-*")
    assert [(e.env_id, e.skill, e.tasks) for e in chosen] == [
        ("spade/aime-2025-v0", "AIME 2025", 3 * 64), ("spade/gpqa-diamond-v0", "GPQA diamond", 2 * 8)]
    left_out = sorted(str(w.message).split(" ")[0] for w in caught if issubclass(w.category, BenchmarkDataWarning))
    assert left_out == ["spade/aime-2024-v0", "spade/aime-2026-v0", "spade/gpqa-extended-v0", "spade/gpqa-main-v0"]
    assert all(e.program.startswith("data:") for e in chosen)
    assert not [e for e in select_envs("spade/*") if "aime" in e.env_id or "gpqa" in e.env_id]  # the suite only
    with pytest.raises(BenchmarkDataUnavailable, match="aime-2026"):
        select_envs("spade/aime-2026-v0")  # named exactly: an error, not a warning


@pytest.mark.filterwarnings("ignore::spade_gym.adapters.benchmarks.BenchmarkDataWarning")
def test_eval_plays_the_benchmarks_from_their_files(data_dir, tmp_path):
    out = tmp_path / "eval.json"
    result = CliRunner().invoke(main, ["eval", "--agent", "oracle", "--envs", "spade/aime-*,spade/gpqa-*",
                                       "--episodes", "5", "--json", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    rows = {row["env_id"]: row["no_hint"] for row in report["envs"]}
    # seeds 0..4: AIME's 3 problems then two of them again; GPQA's 2 questions in rounds
    assert {k: (v["episodes"], v["successes"]) for k, v in rows.items()} == {
        "spade/aime-2025-v0": (5, 5), "spade/gpqa-diamond-v0": (5, 5)}
    result = CliRunner().invoke(main, ["eval", "--agent", "random", "--envs", "spade/aime-2025-v0",
                                       "--episodes", "3", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["overall"]["no_hint"]["successes"] == 0


def test_import_spade_gym_does_not_import_datasets():
    code = ("import sys, spade_gym, spade_gym.adapters, spade_gym.adapters.benchmarks, spade_gym.evaluation; "
            "spade_gym.adapters.benchmarks.register_benchmarks(); print('datasets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
