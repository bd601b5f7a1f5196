"""A multi-turn warehouse task: instructions revealed one by one (the reference's multi-turn style).

The first instruction names three candidate items and a rule, not the call: which item to reserve
depends on the stock the tool reports, and how many units is worked out from that stock, so no
replayed call sequence with arguments copied from the task fits another task."""
from tool_use_base_env import ToolUseBaseEnv


class WarehouseStepsEnv(ToolUseBaseEnv):
    def reset(self, seed=None):
        self.turn_count = 0
        self._call_history = []
        self.rng = random.Random(seed)
        items = ["bolts", "nuts", "gears", "pipes", "valves", "cables"]
        self._candidates = self.rng.sample(items, 3)
        self._bin = f"B{self.rng.randint(10, 99)}"
        self._keep = self.rng.randint(2, 9)
        levels = self.rng.sample(range(20, 61), len(items))  # distinct: "the most stocked" is never a tie
        self._state = {"stock": dict(zip(items, levels)), "bins": {}, "shipped": 0}
        self._item = max(self._candidates, key=lambda i: self._state["stock"][i])
        self._qty = self._state["stock"][self._item] - self._keep
        self._tools = {
            "check_stock": {"description": "Units in stock of an item", "parameters": {
                "type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}},
            "reserve": {"description": "Reserve units of an item into a bin", "parameters": {
                "type": "object", "properties": {"item": {"type": "string"}, "qty": {"type": "integer"},
                                                 "bin": {"type": "string"}}, "required": ["item", "qty", "bin"]}},
            "ship": {"description": "Ship the contents of a bin", "parameters": {
                "type": "object", "properties": {"bin": {"type": "string"}}, "required": ["bin"]}},
        }
        a, b, c = self._candidates
        self._user_messages = [
            f"Of {a}, {b} and {c}, take the one with the most units in stock and reserve all of its units but "
            f"{self._keep} into bin {self._bin}.",
            f"Now ship bin {self._bin}.",
        ]
        self._message_criteria = [
            lambda s: s["bins"].get(self._bin) == {self._item: self._qty},
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
        checks = [json.dumps({"name": "check_stock", "arguments": {"item": i}}) for i in self._candidates]
        reserve = json.dumps({"name": "reserve", "arguments": {"item": self._item, "qty": self._qty, "bin": self._bin}})
        ship = json.dumps({"name": "ship", "arguments": {"bin": self._bin}})
        return "\n".join(f"<tool_call>{call}</tool_call>" for call in checks + [reserve, ship]) + "\n<answer>done</answer>"
