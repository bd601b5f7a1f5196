"""Difficulty levels of Reasoning Gym tasks: the reference's hard split and points on each task's curriculum.

Data and pure functions only (``reasoning_gym`` is imported inside them, when a level is
resolved); :mod:`spade_gym.adapters.reasoning_gym` checks and caches what they choose.
See that module's docstring for what each level means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The difficulty levels, spelt as bundled environments spell theirs.
LEVELS = ("easy", "medium", "hard")
#: Where each level sits on a task's curriculum: the fraction of each attribute's levels.
CURRICULUM_POINTS = {"easy": 0.0, "medium": 0.5, "hard": 1.0}
#: How far a rejected curriculum point steps down (a fraction of each attribute's levels).
CURRICULUM_STEP = 0.125

#: The reference's hard split, by the group its game table reports it under: the 100 tasks of
#: the SPADE reference's RG evaluation (spade-rl/spade, ``eval_offline/configs/_games_gem.yaml``,
#: ``rg:<task>-hard``), each at the configuration the reference registers for it
#: (``spade/core/eval/rg_a3_hard.py``): the Reasoning Gym paper's Appendix A.3 "hard" column
#: (arXiv:2505.24760). An empty configuration is the dataset's defaults (as A.3 lists them).
_HARD_SPLIT_BY_GROUP: dict[str, dict[str, dict[str, Any]]] = {
    "Math": {
        "complex_arithmetic": dict(max_imag=100, max_real=100, min_imag=-100, min_real=-100,
            operations_weights=[0.25, 0.25, 0.25, 0.25]),
        "intermediate_integration": dict(problem_type_weights=[0, 0, 0, 1, 0, 0, 0, 0]),
        "polynomial_equations": dict(max_degree=3, max_terms=4, min_degree=2, min_terms=3),
        "polynomial_multiplication": dict(max_degree=4, max_polynomials=6, max_terms=8, max_value=10000, min_degree=1,
            min_polynomials=3, min_terms=4, min_value=10),
        "simple_equations": dict(max_terms=10, max_value=10000, min_terms=3, min_value=10,
            operators_weights=[0.35, 0.35, 0.3]),
        "simple_integration": dict(max_terms=4, min_terms=3),
        "basic_arithmetic": dict(max_digits=5, max_terms=10, min_digits=2, min_terms=5),
        "bitwise_arithmetic": dict(difficulty=5),
        "calendar_arithmetic": dict(offset_upper_bound=200,
            tasks=["weekday_of_date", "is_leap_year", "weekday_offset", "count_days", "count_business_days"]),
        "chain_sum": dict(max_digits=6, max_terms=8, min_digits=4, min_terms=5),
        "count_bits": dict(max_n=100000000, min_n=1000000),
        "decimal_arithmetic": dict(max_num_decimal_places=8, max_terms=8, min_num_decimal_places=5, min_terms=5,
            precision=10),
        "decimal_chain_sum": dict(max_decimal_places=6, max_digits=8, max_terms=8, min_decimal_places=4, min_digits=4,
            min_terms=5),
        "dice": dict(max_dice_size=25, num_dice=6),
        "fraction_simplification": dict(max_factor=100, max_value=1000, min_factor=10, min_value=100),
        "gcd": dict(max_numbers=4, max_value=10000, min_numbers=3, min_value=1000),
        "gsm_symbolic": dict(),
        "lcm": dict(max_numbers=4, max_value=10000, min_numbers=3, min_value=1000),
        "leg_counting": dict(max_animals=30, max_instances=256, min_animals=20, min_instances=64),
        "number_format": dict(max_delta=0.001, max_n=1000000, max_num_candidates=100, min_n=100000,
            min_num_candidates=25),
        "power_function": dict(max_exponent=8, min_exponent=4),
        "prime_factorization": dict(max_value=5000, min_value=1000),
        "products": dict(max_digits=8, max_terms=8, min_digits=4, min_terms=4),
        "time_intervals": dict(max_date_difference_days=30, max_time_difference_seconds=21600),
        "advanced_geometry": dict(max_coord=100, min_coord=-100),
        "simple_geometry": dict(max_sides=15, min_sides=10),
        "course_schedule": dict(max_cycle_length=4, max_num_courses=50, max_num_prerequisites=4, min_cycle_length=3,
            min_num_courses=25, min_num_prerequisites=3),
        "family_relationships": dict(max_family_size=9, min_family_size=5),
        "largest_island": dict(max_cols=50, max_island_size=20, max_num_islands=10, max_rows=50, min_cols=25,
            min_island_size=5, min_num_islands=5, min_rows=25),
        "quantum_lock": dict(difficulty=5),
        "shortest_path": dict(max_cols=50, max_rows=50, min_cols=25, min_rows=25),
    },
    "Algorithmic": {
        "ab": dict(length=25),
        "base_conversion": dict(max_base=18, max_value=100000, min_base=9, min_value=10000),
        "binary_alternation": dict(max_n=500, min_n=50),
        "binary_matrix": dict(max_n=50, min_n=25, p_zero=0.25),
        "caesar_cipher": dict(max_rotation=25, max_words=25, min_rotation=15, min_words=15),
        "count_primes": dict(max_n=50000, min_n=10000),
        "cryptarithm": dict(max_words=10, min_words=5),
        "game_of_life": dict(filled_cells_weights=0.2, grid_size_x=50, grid_size_y=50, simulation_steps=2),
        "game_of_life_halting": dict(difficulty=2, grid_size_x=50, grid_size_y=50, max_simulation_steps=50,
            num_oscillators=7),
        "graph_color": dict(max_num_vertices=20, min_num_vertices=10, num_colors=4),
        "group_anagrams": dict(max_anagram_groups=50, max_words_per_group=5, min_anagram_groups=10,
            min_words_per_group=2),
        "isomorphic_strings": dict(max_string_length=100, min_string_length=50),
        "jugs": dict(difficulty=10, num_jugs=4),
        "letter_counting": dict(max_words=50, min_words=25),
        "letter_jumble": dict(max_corruption_level=0.6, max_word_len=30, max_words=50, min_corruption_level=0.3,
            min_word_len=5, min_words=25),
        "manipulate_matrix": dict(max_cols=50, max_rows=50, max_transforms=10, min_cols=25, min_rows=25,
            min_transforms=3),
        "number_filtering": dict(max_decimals=4, max_numbers=100, max_value=500, min_decimals=2, min_numbers=50,
            min_value=-500),
        "number_sorting": dict(max_decimals=4, max_numbers=100, max_value=500, min_decimals=2, min_numbers=50,
            min_value=-500),
        "palindrome_generation": dict(max_length=100, min_length=50),
        "palindrome_partitioning": dict(max_string_len=15, max_substring_palindrome_len=5, min_string_len=5,
            min_substring_palindrome_len=1),
        "pool_matrix": dict(max_cols=50, max_pool_size=7, max_rows=50, min_cols=25, min_pool_size=5, min_rows=25),
        "ransom_note": dict(max_magazine_length=500, max_note_length=100, min_magazine_length=100, min_note_length=50),
        "rotate_matrix": dict(max_n=50, max_rotations=15, min_n=25, min_rotations=5),
        "rotten_oranges": dict(max_n=50, min_n=25),
        "sentence_reordering": dict(max_words_in_sentence=50, min_words_in_sentence=20),
        "spell_backward": dict(max_word_len=20, min_word_len=5),
        "spiral_matrix": dict(max_n=50, min_n=25),
        "string_insertion": dict(max_string_length=100, min_string_length=50),
        "string_manipulation": dict(max_string_length=100, min_string_length=50),
        "string_splitting": dict(max_initial_machines=100, min_initial_machines=50),
        "string_synthesis": dict(max_initial_blocks=100, min_initial_blocks=50),
        "word_ladder": dict(max_word_length=5, min_word_length=3),
        "word_sequence_reversal": dict(max_words=50, min_words=25),
        "word_sorting": dict(max_word_length=10, max_words=50, min_word_length=5, min_words=25),
        "bf": dict(difficulty=2),
        "codeio": dict(difficulty=7),
    },
    "Cognition": {
        "arc_1d": dict(max_size=50, min_size=25),
        "arc_agi": dict(mirrors_weights=[0.2, 0.2, 0.2, 0.2, 0.2], rotations_weights=[0.15, 0.3, 0.25, 0.3]),
        "rearc": dict(pso_difficulty_weights=[0, 0, 0, 1, 0, 0, 0], rng_difficulty_weights=[0, 0, 0, 1, 0, 0, 0]),
        "color_cube_rotation": dict(max_rotations=50, min_rotations=10),
        "figlet_font": dict(max_word_len=10, min_word_len=5),
        "modulo_grid": dict(max_divisor=7, max_holes=5, max_target=3, size_x=40, size_y=40),
        "needle_haystack": dict(max_num_statements=500, min_num_statements=100),
        "number_sequence": dict(max_complexity=3, max_terms=10, max_value=500, min_terms=5, min_value=-500),
        "rectangle_count": dict(max_rectangles=15),
        "rubiks_cube": dict(cube_size=5, max_scramble_steps=50, min_scramble_steps=25),
        "countdown": dict(max_numbers=9, max_target=1000, max_value=100, min_numbers=3, min_target=100, min_value=1),
        "emoji_mystery": dict(max_words_in_sentence=30, min_words_in_sentence=10),
        "futoshiki": dict(max_board_size=7, max_difficulty=2, min_board_size=6, min_difficulty=1),
        "knight_swap": dict(max_nodes=8, max_pieces=4, max_steps=20, min_nodes=6, min_pieces=3, min_steps=1),
        "mahjong_puzzle": dict(max_num_rounds=100, min_num_rounds=50),
        "maze": dict(max_dist=15, max_grid_size=50, min_dist=10, min_grid_size=25),
        "mini_sudoku": dict(max_empty=10, min_empty=6),
        "n_queens": dict(max_remove=6, min_remove=4, n=8),
        "puzzle24": dict(max_value=6, min_value=1),
        "rush_hour": dict(max_moves=50, min_moves=25),
        "sokoban": dict(max_h=15, max_w=15, min_h=10, min_w=10),
        "sudoku": dict(max_empty=50, min_empty=30),
        "tower_of_hanoi": dict(max_disks=10, max_pegs=4, min_disks=5, min_pegs=3),
        "tsumego": dict(max_board_size=15, max_stones=10, min_board_size=5),
    },
    "Logic": {
        "acre": dict(),
        "list_functions": dict(),
        "aiw": dict(max_entities=10, task_type_weights=[0.5, 0.25, 0.25]),
        "circuit_logic": dict(max_inputs=8, max_terms=20, min_inputs=4, min_terms=10),
        "knights_knaves": dict(depth_constraint=3, n_people=3, width_constraint=3),
        "propositional_logic": dict(max_complexity=4, max_statements=8, max_vars=8, min_complexity=2, min_statements=4,
            min_vars=4),
        "self_reference": dict(difficulty=5),
        "syllogism": dict(allow_all=True, allow_no=True, allow_some=False, allow_some_not=False),
        "zebra_puzzles": dict(num_characteristics=5, num_people=5),
    },
}

#: Task -> its hard configuration, for the tasks of the reference's hard split.
HARD_SPLIT: dict[str, dict[str, Any]] = {
    task: config for group in _HARD_SPLIT_BY_GROUP.values() for task, config in group.items()}
#: Task -> the group (Math, Algorithmic, Cognition, Logic) the reference reports it under.
HARD_SPLIT_GROUPS: dict[str, str] = {
    task: group for group, tasks in _HARD_SPLIT_BY_GROUP.items() for task in tasks}


def curriculum_config(task: str, point: float) -> dict[str, Any] | None:
    """The task's configuration fields at ``point`` (0..1) of its curriculum, or None without one.

    Each attribute is set to the level at that fraction of its own levels and read back
    through Reasoning Gym's default curriculum context (the one ``generate_configuration``
    uses), so ranges come out as the curriculum's authors meant them. (A narrower reading,
    one segment per level, asks e.g. puzzle24 for four numbers in 7..8 that make 24, which
    its generator searches for forever.)
    """
    from reasoning_gym.coaching import RangeAttributeDefinition
    from reasoning_gym.coaching.base_curriculum import DefaultCurriculumContext
    from reasoning_gym.factory import create_curriculum, has_curriculum

    if not has_curriculum(task):
        return None
    curriculum = create_curriculum(task)
    if not curriculum.attributes:
        return None
    for name, attribute in curriculum.attributes.items():
        curriculum.set_attr_level(name, round(point * (len(attribute.levels) - 1)))
    context = DefaultCurriculumContext()
    config: dict[str, Any] = {}
    for attribute in curriculum.attributes.values():
        value = context.get_attr_value(curriculum, attribute)
        if isinstance(attribute, RangeAttributeDefinition):
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            config[attribute.lower_field_name] = min(values)
            config[attribute.upper_field_name] = max(values)
        else:
            config[attribute.field_name] = value
    return config


def resolve_level(task: str, level: str, builds: Callable[[str, dict[str, Any]], bool]) -> tuple[dict[str, Any], str]:
    """(configuration, where it came from) of ``task`` at ``level``; ``builds`` says whether the
    dataset accepts a configuration and generates its first item from it."""
    if level == "hard" and task in HARD_SPLIT:
        return HARD_SPLIT[task], "the reference's hard split (Reasoning Gym paper, Appendix A.3)"
    point = CURRICULUM_POINTS[level]
    tried: list[dict[str, Any]] = []
    steps = round(point / CURRICULUM_STEP)
    for step in range(steps, -1, -1):
        at = step * CURRICULUM_STEP
        config = curriculum_config(task, at)
        if config is None:
            return {}, "the dataset's defaults (the task has no curriculum)"
        if config in tried:
            continue
        tried.append(config)
        if builds(task, config):
            moved = "" if step == steps else f" (the curriculum at {point:g} is refused by the dataset)"
            return config, f"the task's curriculum at {at:g}{moved}"
    return {}, "the dataset's defaults (the dataset refuses every curriculum level)"
