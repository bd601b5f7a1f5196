"""Evaluating agents on the generated suite and on held-out benchmarks (``spade-gym eval``).

``runner`` plans and plays episodes (resumably, through the shared episode driver) of the
environments ``selection`` chooses, by the agent ``agent_config`` builds, into the ``results`` file;
``stats`` turns outcomes into rates with confidence intervals and the paired hint gain,
``report`` renders the numbers as JSON, rich tables and markdown.
"""

from spade_gym.evaluation.report import build_report, print_report, to_markdown
from spade_gym.evaluation.runner import (
    AgentConfig,
    EnvInfo,
    EvalRun,
    Evaluation,
    EvaluationError,
    ResultsStore,
    default_results_path,
    episode_seeds,
    select_envs,
)
from spade_gym.evaluation.stats import ArmSummary, HintGain, hint_gain, paired_difference_interval, wilson_interval

__all__ = [
    "AgentConfig", "ArmSummary", "EnvInfo", "EvalRun", "Evaluation", "EvaluationError", "HintGain", "ResultsStore",
    "build_report",
    "default_results_path", "episode_seeds", "hint_gain", "paired_difference_interval", "print_report",
    "select_envs", "to_markdown", "wilson_interval",
]
