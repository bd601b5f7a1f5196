"""Look up a conversion factor and convert; uses the default answer check (numbers within 0.01)."""
import random


class UnitConverterEnv(ToolUseBaseEnv):
    def reset(self, seed=None):
        self.turn_count = 0
        self._call_history = []
        random.seed(seed)
        units = {"inch": 2.54, "foot": 30.48, "yard": 91.44, "hand": 10.16, "span": 22.86, "cubit": 45.72}
        self._unit = random.choice(sorted(units))
        self._value = random.randint(3, 400)
        self._factors = units
        self._tools = {
            "factor": {"description": "Centimetres in one unit", "parameters": {
                "type": "object", "properties": {"unit": {"type": "string"}}, "required": ["unit"]}},
            "multiply": {"description": "Multiply two numbers", "parameters": {
                "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]}},
        }
        self._expected_answer = round(self._value * units[self._unit], 2)
        return (f"How many centimetres are {self._value} {self._unit}es/s? Answer with <answer>NUMBER</answer>.", {})

    def tool_factor(self, unit):
        return str(self._factors[unit])

    def tool_multiply(self, a, b):
        return str(round(a * b, 2))

    def solution(self):
        f = self._factors[self._unit]
        return (f'<tool_call>{{"name": "factor", "arguments": {{"unit": "{self._unit}"}}}}</tool_call>\n'
                f'<tool_call>{{"name": "multiply", "arguments": {{"a": {self._value}, "b": {f}}}}}</tool_call>\n'
                f"<answer>{self._expected_answer}</answer>")
