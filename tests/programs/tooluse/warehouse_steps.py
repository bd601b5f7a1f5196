"""A multi-turn warehouse task: instructions revealed one by one (the reference's multi-turn style)."""
from tool_use_base_env import ToolUseBaseEnv


class WarehouseStepsEnv(ToolUseBaseEnv):
    def reset(self, seed=None):
        self.turn_count = 0
        self._call_history = []
        self.rng = random.Random(seed)
        items = ["bolts", "nuts", "gears", "pipes", "valves", "cables"]
        self._item = self.rng.choice(items)
        self._bin = f"B{self.rng.randint(10, 99)}"
        self._qty = self.rng.randint(2, 9)
        self._state = {"stock": {i: self.rng.randint(20, 60) for i in items}, "bins": {}, "shipped": 0}
        self._tools = {
            "check_stock": {"description": "Units in stock of an item", "parameters": {
                "type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}},
            "reserve": {"description": "Reserve units of an item into a bin", "parameters": {
                "type": "object", "properties": {"item": {"type": "string"}, "qty": {"type": "integer"},
                                                 "bin": {"type": "string"}}, "required": ["item", "qty", "bin"]}},
            "ship": {"description": "Ship the contents of a bin", "parameters": {
                "type": "object", "properties": {"bin": {"type": "string"}}, "required": ["bin"]}},
        }
        self._user_messages = [
            f"Reserve {self._qty} {self._item} into bin {self._bin}.",
            f"Now ship bin {self._bin}.",
        ]
        self._message_criteria = [
            lambda s: s["bins"].get(self._bin, {}).get(self._item, 0) == self._qty,
            lambda s: s["shipped"] == self._qty,
        ]
        self._current_msg = 0
        self._expected_answer = "done"
        return (self._user_messages[0], {})

    def _advance_if_done(self):
        if self._current_msg >= len(self._user_messages):
            return ""
        if self._message_criteria[self._current_msg](self._state):
            self._current_msg += 1
            if self._current_msg >= len(self._user_messages):
                return "\n\n[ALL STEPS COMPLETE] Submit <answer>done</answer>."
            return f"\n\n[STEP {self._current_msg} COMPLETE - NEW INSTRUCTION] {self._user_messages[self._current_msg]}"
        return ""

    def _check_answer(self, answer):
        return answer.strip().lower() == "done" and self._current_msg >= len(self._user_messages)

    def tool_check_stock(self, item=""):
        return str(self._state["stock"].get(item, 0)) + self._advance_if_done()

    def tool_reserve(self, item="", qty=0, bin=""):
        if self._state["stock"].get(item, 0) < qty:
            return "Error: not enough stock" + self._advance_if_done()
        self._state["stock"][item] -= qty
        self._state["bins"].setdefault(bin, {})[item] = self._state["bins"].get(bin, {}).get(item, 0) + qty
        return f"Reserved {qty} {item} in {bin}" + self._advance_if_done()

    def tool_ship(self, bin=""):
        contents = self._state["bins"].pop(bin, None)
        if not contents:
            return f"Error: bin {bin} is empty" + self._advance_if_done()
        self._state["shipped"] += sum(contents.values())
        return f"Shipped {bin}" + self._advance_if_done()

    def solution(self):
        reserve = json.dumps({"name": "reserve", "arguments": {"item": self._item, "qty": self._qty, "bin": self._bin}})
        ship = json.dumps({"name": "ship", "arguments": {"bin": self._bin}})
        return f"<tool_call>{reserve}</tool_call>\n<tool_call>{ship}</tool_call>\n<answer>done</answer>"
