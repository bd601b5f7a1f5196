"""A plain-CPython stand-in for the SPADE reference's ``ToolUseBaseEnv``, for tests only.

Written from the reference's documented behaviour, as ordinary Python: the tests run
reference-style tool-use programs on it with plain ``exec`` (the way the reference loader
does) and require the sandboxed run to pose the same tasks and give the same results.
"""

import json
import re


class ToolUseBaseEnv:
    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._tools = {}
        self._state = {}
        self._call_history = []
        self._expected_answer = None
        self.reset()

    def reset(self, seed=None):
        raise NotImplementedError("Subclass must implement reset()")

    def solution(self):
        raise NotImplementedError("Subclass must implement solution()")

    def get_tools(self):
        return [{"type": "function", "function": {
            "name": name, "description": info.get("description", ""),
            "parameters": info.get("parameters", {"type": "object", "properties": {}})}}
            for name, info in self._tools.items()]

    def step(self, action):
        self.turn_count += 1
        truncated = self.turn_count >= self.max_turns
        answer_match = re.search(r"<answer>(.*?)</answer>", action, re.DOTALL)
        if answer_match:
            if self._check_answer(answer_match.group(1).strip()):
                return ("Correct!", 1.0, True, False, {})
            if truncated:
                return (f"Wrong answer. Solution:\n{self.solution()}", 0.0, False, True, {})
            return (self._incorrect_answer_feedback(), 0.0, False, False, {})
        tc_match = re.search(r"<tool_call>(.*?)</tool_call>", action, re.DOTALL)
        if not tc_match:
            if truncated:
                return (f"Time up. Solution:\n{self.solution()}", 0.0, False, True, {})
            return ("Format error: use tools to call a function, or <answer>result</answer> to submit.",
                    -0.1, False, False, {})
        try:
            call = json.loads(tc_match.group(1))
            tool_name = call.get("name", "")
            arguments = call.get("arguments", {})
            if not isinstance(arguments, dict):
                arguments = {}
        except (json.JSONDecodeError, AttributeError):
            if truncated:
                return (f"Time up. Solution:\n{self.solution()}", 0.0, False, True, {})
            return ("Format error: invalid tool call arguments.", -0.1, False, False, {})
        method = getattr(self, f"tool_{tool_name}", None)
        if method is None:
            if truncated:
                return (f"Time up. Solution:\n{self.solution()}", 0.0, False, True, {})
            return (f"Unknown tool '{tool_name}'. Available: {', '.join(self._tools.keys())}", 0.0, False, False, {})
        try:
            result = method(**arguments)
            self._call_history.append({"name": tool_name, "arguments": arguments, "result": str(result)})
        except Exception as e:
            result = f"Error calling {tool_name}: {e}"
        obs = f"Tool result:\n{result}"
        if truncated:
            return (obs + f"\n\nTime up. Solution:\n{self.solution()}", 0.0, False, True, {})
        return (obs, 0.0, False, False, {})

    def _incorrect_answer_feedback(self):
        base = "Incorrect. Keep using tools."
        msgs = getattr(self, "_user_messages", None)
        idx = getattr(self, "_current_msg", None)
        if isinstance(msgs, (list, tuple)) and isinstance(idx, int) and 0 <= idx < len(msgs):
            return (f"{base} Not all steps are complete \u2014 you are still on step {idx + 1}/{len(msgs)}: "
                    f"\"{msgs[idx]}\" Complete this step with the tools before submitting <answer>done</answer>.")
        return base

    def _check_answer(self, answer):
        a, e = str(answer).strip(), str(self._expected_answer).strip()
        if a.lower() == e.lower():
            return True
        try:
            return abs(float(a.replace("$", "").replace(",", "").strip())
                       - float(e.replace("$", "").replace(",", "").strip())) < 0.01
        except (ValueError, TypeError):
            return False

    def close(self):
        pass
