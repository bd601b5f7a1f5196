"""Sound: the total stock of one SKU over the warehouses of one region. The agent lists the
region's warehouses, looks each one up and adds the counts: no tool states the total, so copying
what came back never wins. Its twins tool_shortcut_peek/error/enumerable.py and agent_probe_tool_sentence.py
differ in one place."""
import random

REGIONS = ["north", "south", "east", "west", "central"]


class RegionStockEnv(ToolUseBaseEnv):
    def __init__(self, max_turns=12, **kwargs):
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self._call_history = []
        self._region = rng.choice(REGIONS)
        self._sku = f"SKU-{rng.randint(1000, 9999)}"
        codes = [f"W{c}" for c in rng.sample(range(10, 99), 10)]
        home = rng.randint(3, 4)
        region_of = {w: (self._region if i < home else rng.choice([r for r in REGIONS if r != self._region]))
                     for i, w in enumerate(codes)}
        self._state = {"region_of": region_of, "stock": {w: rng.randint(5, 60) for w in codes}}
        self._mine = sorted(w for w in codes if region_of[w] == self._region)
        self._expected_answer = str(sum(self._state["stock"][w] for w in self._mine))
        text = {"type": "string"}
        self._tools = {
            "list_warehouses": {"description": "Warehouse codes of a region",
                                "parameters": {"type": "object", "properties": {"region": text},
                                               "required": ["region"]}},
            "get_stock": {"description": "Units of a SKU held in one warehouse",
                          "parameters": {"type": "object", "properties": {"warehouse": text, "sku": text},
                                         "required": ["warehouse", "sku"]}},
        }
        return (f"How many units of {self._sku} are in stock across all warehouses of the {self._region} region? "
                f"Answer with <answer>N</answer>.", {})

    def tool_list_warehouses(self, region):
        found = sorted(w for w, r in self._state["region_of"].items() if r == str(region).strip().lower())
        return ", ".join(found) if found else "no warehouses in that region"

    def tool_get_stock(self, warehouse, sku):
        if warehouse not in self._state["stock"]:
            raise KeyError(f"unknown warehouse {warehouse!r}")
        if sku != self._sku:
            return f"{warehouse}: 0 units of {sku}"
        return f"{warehouse}: {self._state['stock'][warehouse]} units of {sku}"

    def _check_answer(self, answer):
        listed = any(c["name"] == "list_warehouses" and c["arguments"].get("region") == self._region
                     for c in self._call_history)
        return listed and super()._check_answer(answer)

    def solution(self):
        calls = [{"name": "list_warehouses", "arguments": {"region": self._region}}]
        calls += [{"name": "get_stock", "arguments": {"warehouse": w, "sku": self._sku}} for w in self._mine]
        lines = [f"<tool_call>{json.dumps(call)}</tool_call>" for call in calls]
        return "\n".join(lines + [f"<answer>{self._expected_answer}</answer>"])

    def hint(self):
        return "List the region's warehouses first, then add up what each one holds."
