"""Observations full of non-ASCII text (emoji, accents, CJK, newlines) and a per-episode hint()."""
import random


class EmojiTrailEnv:
    SYMBOLS = ["🍎", "🍌", "🍒", "🥝", "🍇", "🍋"]
    NAMES = {"🍎": "pomme", "🍌": "plátano", "🍒": "さくらんぼ", "🥝": "kiwi", "🍇": "trauben", "🍋": "limón"}

    def __init__(self, max_turns=6, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.length = {"easy": 3, "medium": 4, "hard": 6}.get(difficulty, 4)
        self.turn_count = 0
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self.trail = [rng.choice(self.SYMBOLS) for _ in range(self.length)]
        self.position = 0
        lines = "\n".join(f"  • {s} « {self.NAMES[s]} »" for s in self.SYMBOLS)
        return (f"Répète la séquence, un fruit à la fois — naming each one.\nFruits:\n{lines}\n"
                f"Séquence: {' → '.join(self.trail)}\nAnswer with \\boxed{{name}}."), {"length": self.length}

    def solution(self):
        return self.NAMES[self.trail[self.position]] if self.position < len(self.trail) else ""

    def hint(self):
        return f"The sequence has {self.length} fruits; the first is « {self.NAMES[self.trail[0]][0]}… »."

    def step(self, action):
        self.turn_count += 1
        wanted = self.solution()
        if f"\\boxed{{{wanted}}}" in action:
            self.position += 1
            if self.position == len(self.trail):
                return "✅ Parfait ! 🎉", 1.0, True, False, {}
            return f"✔ {wanted} — next one ({self.position + 1}/{self.length})", 0.0, False, self.turn_count >= self.max_turns, {}
        return f"✘ non… still at {self.position + 1}/{self.length}", 0.0, False, self.turn_count >= self.max_turns, {}
