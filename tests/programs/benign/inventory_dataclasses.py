"""Dataclasses, properties, static methods, dunder methods, collections, nonlocal, enum."""
import heapq
import random
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from enum import Enum
from typing import Dict, List, Optional


class Rarity(Enum):
    COMMON = 1
    RARE = 2
    EPIC = 3


@dataclass(order=True)
class Item:
    value: int
    name: str = field(compare=False)
    rarity: Rarity = field(default=Rarity.COMMON, compare=False)

    @property
    def label(self) -> str:
        return f"{self.name}({self.rarity.name.lower()})"

    @staticmethod
    def parse_name(text: str) -> str:
        return text.strip().lower()

    def __repr__(self):
        return f"Item<{self.name}:{self.value}>"


class Stack:
    def __init__(self, items):
        self._items = list(items)

    def __len__(self):
        return len(self._items)

    def __eq__(self, other):
        return isinstance(other, Stack) and self._items == other._items

    def __lt__(self, other):
        return len(self) < len(other)

    def __contains__(self, name):
        return any(i.name == name for i in self._items)


class InventoryPackerEnv:
    NAMES = ["gem", "rope", "lamp", "map", "coin", "key", "flask", "scroll", "ring", "bread"]

    def __init__(self, max_turns=6, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.size = {"easy": 5, "medium": 7, "hard": 9}.get(difficulty, 7)
        self.turn_count = 0
        self.rng = random.Random(0)
        self.items: List[Item] = []
        self.capacity = 0
        self._answer: Optional[str] = None
        self.reset()

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self.turn_count = 0
        names = self.rng.sample(self.NAMES, self.size)
        self.items = [Item(self.rng.randint(1, 30), n, self.rng.choice(list(Rarity))) for n in names]
        counts: Dict[str, int] = defaultdict(int)
        for it in self.items:
            counts[it.rarity.name] += 1
        self.capacity = self.rng.randint(2, 4)
        best = heapq.nlargest(self.capacity, self.items)
        self._answer = ",".join(sorted(i.name for i in best))
        tally = Counter(i.rarity.name for i in self.items)
        listing = "; ".join("{}={}".format(i.label, i.value) for i in sorted(self.items, key=lambda i: i.name))
        queue = deque(sorted(counts))
        queue.rotate(1)
        obs = (f"Pick the {self.capacity} most valuable items (comma separated, alphabetical) "
               f"as \\boxed{{a,b}}. Items: {listing}. Rarity tally: {dict(sorted(tally.items()))}. "
               f"Order hint: {list(queue)}")
        return obs, {"items": len(self.items)}

    def solution(self):
        return self._answer

    def step(self, action):
        self.turn_count += 1
        attempts = 0

        def bump():
            nonlocal attempts
            attempts += 1
            return attempts

        bump()
        start = action.find("\\boxed{")
        if start < 0:
            return "Answer as \\boxed{a,b}.", 0.0, False, self.turn_count >= self.max_turns, {}
        body = action[start + 7:].split("}")[0]
        picked = sorted(Item.parse_name(p) for p in body.split(",") if p.strip())
        values = {i.name: i.value for i in self.items}
        try:
            total = sum(values[p] for p in picked)
        except KeyError:
            total = -1
        if ",".join(picked) == self._answer:
            return "Packed perfectly!", 1.0, True, False, {"total": total}
        done = self.turn_count >= self.max_turns
        stack = Stack([i for i in self.items if i.name in picked])
        return (f"Not optimal (value {total}, {len(stack)} known items, attempts {attempts}).",
                0.0, False, done, {"total": total})
