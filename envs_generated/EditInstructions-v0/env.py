"""Edit instructions: a sentence and a list of editing instructions in plain English (move, swap, delete,
replace, reverse a word, capitalise words that start with a vowel...) that refer to words by position, by
their letters or by each other; apply them in order and write the final sentence."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
WORDS = ["amber", "river", "quiet", "stone", "eagle", "orange", "little", "market", "under", "violet", "ocean",
         "garden", "silver", "honest", "lantern", "island", "tiger", "maple", "echo", "pepper", "umbrella", "winter",
         "candle", "anchor", "fable", "olive", "rapid", "meadow", "ivory", "basket"]
ORD = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
# difficulty -> (sentence length, instructions)
LEVELS = {"easy": (6, 3), "medium": (7, 5), "hard": (8, 7)}


class EditInstructionsEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.start = []
        self.steps = []
        self._answer = ""
        self.turn = 0
        self.done = False

    def _instruction(self, words):
        """A random applicable instruction: (text, new word list)."""
        rng = self.rng
        n = len(words)
        kinds = ["swap", "move_front", "move_end", "delete", "reverse", "replace", "vowel_upper", "dup"]
        for _ in range(50):
            kind = rng.choice(kinds)
            i, j = sorted(rng.sample(range(n), 2))
            w = list(words)
            if kind == "swap":
                w[i], w[j] = w[j], w[i]
                return f"Swap the {ORD[i]} and the {ORD[j]} word.", w
            if kind == "move_front" and j > 0:
                x = w.pop(j)
                return f"Move the {ORD[j]} word to the front.", [x] + w
            if kind == "move_end" and i < n - 1:
                x = w.pop(i)
                return f"Move the {ORD[i]} word to the end.", w + [x]
            if kind == "delete" and n > 4:
                target = w[j]
                if w.count(target) == 1:
                    w.pop(j)
                    return f"Delete the word that comes right after '{words[j - 1]}'." if j > 0 and words.count(words[j - 1]) == 1 \
                        else f"Delete the {ORD[j]} word.", w
            if kind == "reverse":
                if w[i] != w[i][::-1]:
                    w[i] = w[i][::-1]
                    return f"Write the {ORD[i]} word backwards.", w
            if kind == "replace":
                new = rng.choice([x for x in WORDS if x not in w])
                longest = max(len(x) for x in w)
                ks = [k for k, x in enumerate(w) if len(x) == longest]
                if len(ks) == 1:
                    w[ks[0]] = new
                    return f"Replace the longest word with '{new}'.", w
            if kind == "vowel_upper":
                if any(x[0] in "aeiou" for x in w) and any(x[0] not in "aeiou" for x in w):
                    w = [x.upper() if x[0].lower() in "aeiou" else x for x in w]
                    return "Write every word that starts with a vowel (a, e, i, o, u) in capital letters.", w
            if kind == "dup" and n < 10:
                w.insert(i + 1, w[i])
                return f"Repeat the {ORD[i]} word right after itself.", w
        return "Leave the sentence as it is.", list(words)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        n, k = LEVELS[self.difficulty]
        for _ in range(100):
            self.start = self.rng.sample(WORDS, n)
            words = list(self.start)
            self.steps = []
            for _ in range(k):
                text, words = self._instruction(words)
                self.steps.append(text)
            if words != self.start and "Leave the sentence as it is." not in self.steps:
                break
        self._answer = " ".join(words)
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _task(self):
        return ("EDIT INSTRUCTIONS\n"
                f"Sentence: {' '.join(self.start)}\n"
                "Apply these instructions in order; each one refers to the sentence as it stands after the previous "
                "ones (positions count words from the left):\n"
                + "\n".join(f"  {i + 1}. {t}" for i, t in enumerate(self.steps)) + "\n"
                "Write the final sentence, words separated by single spaces, keeping letter case, e.g. "
                f"\\boxed{{word word word}}. You have {self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        guess = " ".join(m.group(1).split()) if m else ""
        if guess == self._answer:
            self.done = True
            return "Correct: that is the edited sentence. You win!", 1.0, True, False, {}
        if not m:
            msg = "No sentence found inside \\boxed{...}."
        else:
            got, want = guess.split(" "), self._answer.split(" ")
            same = sum(1 for a, b in zip(got, want) if a == b)
            msg = f"Not the final sentence: {same} of its {len(want)} words are right and in place."
        if out:
            self.done = True
            return msg + " No attempts left.", 0.0, True, False, {}
        return msg + f" Attempts left: {self.max_turns - self.turn}.\n\n" + self._task(), 0.0, False, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        n = len(self._answer.split(" "))
        return (f"Rewrite the whole sentence after every instruction and renumber the words each time: positions "
                f"refer to the current sentence, not the original one. The final sentence has {n} words.")
