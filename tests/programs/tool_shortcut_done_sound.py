"""Sound: archive the oldest report of a project, then submit <answer>done</answer>. The answer is
a constant protocol word; what wins is the state: exactly the oldest report archived, which the
agent finds by comparing the dates a listing shows. Its twin tool_shortcut_done.py accepts "done"
after any successful call."""
import random

PROJECTS = ["apollo", "borealis", "cedar", "delta", "ember", "falcon", "granite", "harbor"]


class OldestReportEnv(ToolUseBaseEnv):
    def __init__(self, max_turns=10, **kwargs):
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self._call_history = []
        self._project = rng.choice(PROJECTS)
        ids = sorted(rng.sample(range(100, 999), 6))
        days = rng.sample(range(1, 28 * 12), 6)
        self._state = {"reports": {f"R-{i}": f"2024-{d // 28 + 1:02d}-{d % 28 + 1:02d}" for i, d in zip(ids, days)},
                       "archived": []}
        self._oldest = min(self._state["reports"], key=lambda r: self._state["reports"][r])
        self._expected_answer = "done"
        text = {"type": "string"}
        self._tools = {
            "list_reports": {"description": "Reports of a project with their dates",
                             "parameters": {"type": "object", "properties": {"project": text},
                                            "required": ["project"]}},
            "archive_report": {"description": "Move a report to the archive",
                               "parameters": {"type": "object", "properties": {"report_id": text},
                                              "required": ["report_id"]}},
        }
        return (f"Archive the oldest report of project {self._project}, then submit <answer>done</answer>.", {})

    def tool_list_reports(self, project):
        if str(project).strip().lower() != self._project:
            raise KeyError(f"no project {project!r}")
        return "\n".join(f"{r} dated {d}" for r, d in sorted(self._state["reports"].items()))

    def tool_archive_report(self, report_id):
        if report_id not in self._state["reports"]:
            raise KeyError(f"unknown report {report_id!r}")
        self._state["archived"].append(report_id)
        return f"{report_id} archived"

    def _check_answer(self, answer):
        return str(answer).strip().lower() == "done" and self._state["archived"] == [self._oldest]

    def solution(self):
        calls = [{"name": "list_reports", "arguments": {"project": self._project}},
                 {"name": "archive_report", "arguments": {"report_id": self._oldest}}]
        lines = [f"<tool_call>{json.dumps(call)}</tool_call>" for call in calls]
        return "\n".join(lines + ["<answer>done</answer>"])

    def hint(self):
        return "Compare the dates in the listing; only one report goes."
