"""Get a car ready for a trip: fill the tank to the litres the task names, then submit the fuel
level. The answer is a number the task states; winning needs the state change (the answer
check reads the tank), so answering it straight away loses."""
import random


class FuelTankEnv(ToolUseBaseEnv):
    def __init__(self, max_turns=10, difficulty="medium", **kwargs):
        self.difficulty = difficulty
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        self.turn_count = 0
        self._call_history = []
        rng = random.Random(seed)
        cars = {"easy": 2, "medium": 4, "hard": 8}.get(self.difficulty, 4)
        plates = [f"{rng.choice('ABCDEFGH')}{rng.randint(100, 999)}" for _ in range(cars)]
        self._state = {"fuel": {p: rng.randint(2, 20) for p in plates}, "pumps": rng.randint(1, 3)}
        self._car = rng.choice(plates)
        self._needed = rng.randint(30, 60)
        self._tools = {
            "list_cars": {"description": "Plates of the cars in the garage",
                          "parameters": {"type": "object", "properties": {}}},
            "fuel_level": {"description": "Litres in a car's tank", "parameters": {
                "type": "object", "properties": {"plate": {"type": "string"}}, "required": ["plate"]}},
            "refuel": {"description": "Add litres to a car's tank", "parameters": {
                "type": "object", "properties": {"plate": {"type": "string"}, "litres": {"type": "integer"}},
                "required": ["plate", "litres"]}},
        }
        self._expected_answer = str(self._needed)
        return (f"Get car {self._car} ready for a trip that needs {self._needed} litres in its tank, then submit "
                f"its fuel level as <answer>LITRES</answer>.", {})

    def tool_list_cars(self):
        return ", ".join(sorted(self._state["fuel"]))

    def tool_fuel_level(self, plate):
        if plate not in self._state["fuel"]:
            return f"Error: no car {plate}"
        return str(self._state["fuel"][plate])

    def tool_refuel(self, plate, litres):
        if plate not in self._state["fuel"]:
            return f"Error: no car {plate}"
        if not isinstance(litres, int) or litres <= 0 or litres > 80:
            return "Error: litres must be a whole number between 1 and 80"
        self._state["fuel"][plate] += litres
        return f"{plate} now holds {self._state['fuel'][plate]} litres"

    def _check_answer(self, answer):
        return (self._state["fuel"][self._car] == self._needed) and super()._check_answer(answer)

    def solution(self):
        missing = self._needed - self._state["fuel"][self._car]
        calls = [{"name": "fuel_level", "arguments": {"plate": self._car}}]
        if missing > 0:
            calls.append({"name": "refuel", "arguments": {"plate": self._car, "litres": missing}})
        lines = [f"<tool_call>{json.dumps(call)}</tool_call>" for call in calls]
        return "\n".join(lines + [f"<answer>{self._needed}</answer>"])

    def hint(self):
        return "Read the car's current level first; add exactly the difference."
