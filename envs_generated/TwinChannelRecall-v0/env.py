"""Two radio channels were recorded into one interleaved log, word by word, with SCRATCH signals that cancel a
channel's most recent standing word; you must rebuild each channel's list in your head and name the words at two
asked positions (one counted from the end of one channel, one from the start of the other), which the scratches
always shift by two places or more from where a reader of the raw log would count; one attempt."""
import random
import re

VOCAB = [
    "falcon", "copper", "maple", "violet", "harbor", "lantern", "cobalt", "meadow", "thistle", "garnet", "willow",
    "ember", "quarry", "saffron", "badger", "crescent", "marble", "juniper", "pewter", "orchard", "tundra",
    "vessel", "beacon", "canyon", "dagger", "fennel", "glacier", "hazel", "indigo", "jasper", "kettle", "lotus",
    "mantis", "nutmeg", "oyster", "pepper", "quiver", "raven", "sorrel", "timber", "umber", "velvet", "walnut",
    "yarrow", "zephyr", "acorn", "bramble", "cinder", "drizzle", "ferret", "gravel", "heron", "ivory", "lichen",
    "mortar", "nectar", "otter", "pebble", "ribbon", "spindle",
]
CHANNELS = ["RED", "BLUE", "GOLD", "GREEN", "GREY", "AMBER"]

LEVELS = {
    # words per channel, scratches on the asked-from-end channel, scratches on the other channel
    "easy": (7, 5, 5),
    "medium": (9, 6, 6),
    "hard": (12, 7, 7),
}


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class TwinChannelRecallEnv:
    def __init__(self, max_turns=1, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_words, self.scr_a, self.scr_b = LEVELS[self.difficulty]
        self.rng = random.Random()
        self.chan_a = ""
        self.chan_b = ""
        self.stream = []
        self.lists = {}
        self.scratched = set()
        self.k_end = 1
        self.k_start = 1
        self.answer = []
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ generation
    def _generate(self):
        for _ in range(300):
            if self._draw():
                return

    def _draw(self):
        rng = self.rng
        self.chan_a, self.chan_b = rng.sample(CHANNELS, 2)
        words = rng.sample(VOCAB, 2 * self.n_words + self.scr_a + self.scr_b)
        # each channel transmits its words in order; a SCRATCH may follow any of its words
        seqs = {}
        cursor = 0
        for chan, scr in ((self.chan_a, self.scr_a), (self.chan_b, self.scr_b)):
            own = words[cursor: cursor + self.n_words + scr]
            cursor += self.n_words + scr
            seq = [("word", w) for w in own]
            # insert scratches after random words (never two in a row, never at the very start)
            spots = rng.sample(range(1, len(seq) + 1), scr)
            for s in sorted(spots, reverse=True):
                seq.insert(s, ("scratch", None))
            seqs[chan] = seq
        # interleave in random runs of 1-3 tokens
        stream = []
        ia = ib = 0
        a, b = seqs[self.chan_a], seqs[self.chan_b]
        turn = rng.choice([self.chan_a, self.chan_b])
        while ia < len(a) or ib < len(b):
            run = rng.randint(1, 3)
            if turn == self.chan_a:
                for _ in range(run):
                    if ia < len(a):
                        stream.append((self.chan_a,) + a[ia])
                        ia += 1
                turn = self.chan_b
            else:
                for _ in range(run):
                    if ib < len(b):
                        stream.append((self.chan_b,) + b[ib])
                        ib += 1
                turn = self.chan_a
        self.stream = stream
        lists = {self.chan_a: [], self.chan_b: []}
        scratched = set()
        for chan, kind, w in stream:
            if kind == "word":
                lists[chan].append(w)
            elif lists[chan]:
                scratched.add(lists[chan].pop())
        self.lists, self.scratched = lists, scratched
        n_a, n_b = len(lists[self.chan_a]), len(lists[self.chan_b])
        # pick positions where the word sits two or more places away from where a reader of the raw log counts,
        # and not exactly as far as that channel's number of scratches (a reader who shifts by the count)
        raw = {c: [w for ch, k, w in stream if ch == c and k == "word"] for c in lists}
        ra, rb = raw[self.chan_a], raw[self.chan_b]
        ends, starts = {}, {}
        for k in range(2, n_a):
            ends.setdefault(abs((len(ra) - ra.index(lists[self.chan_a][n_a - k])) - k), []).append(k)
        for k in range(2, n_b):
            starts.setdefault(abs(rb.index(lists[self.chan_b][k - 1]) - (k - 1)), []).append(k)
        for table, scr in ((ends, self.scr_a), (starts, self.scr_b)):
            for shift in (0, 1, scr):
                table.pop(shift, None)
        # the shift itself is drawn evenly from those available, so no fixed shift is a good guess
        self.k_end = rng.choice(ends[rng.choice(sorted(ends))]) if ends else rng.randint(2, n_a - 1)
        self.k_start = rng.choice(starts[rng.choice(sorted(starts))]) if starts else rng.randint(2, n_b - 1)
        self.answer = [lists[self.chan_a][n_a - self.k_end], lists[self.chan_b][self.k_start - 1]]
        return len(ends) >= 2 and len(starts) >= 2

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.turn = 0
        self.done = False
        log = []
        for i, (chan, kind, w) in enumerate(self.stream, 1):
            log.append(f"[{chan}] {w if kind == 'word' else '~SCRATCH~'}")
        lines = []
        for i in range(0, len(log), 6):
            lines.append("  ".join(log[i:i + 6]))
        obs = (
            f"TWIN-CHANNEL LOG. Two operators, {self.chan_a} and {self.chan_b}, each sent a list of words; the "
            f"recorder merged them into one log in order of arrival. A ~SCRATCH~ on a channel cancels that "
            f"channel's most recent word that is still standing (it is removed from that channel's list).\n\n"
            + "\n".join(lines) +
            f"\n\nQuestion: after all scratches, what is the {ordinal(self.k_end)} word of the {self.chan_a} list "
            f"counting from the END, and the {ordinal(self.k_start)} word of the {self.chan_b} list counting from the "
            f"START? Answer with the two words in that order, separated by a space, as \\boxed{{<word> <word>}}. "
            f"You have {self.max_turns} attempt(s); a wrong answer is judged word by word."
        )
        return obs, {}

    def _judge(self, word, chan, other, position_text, idx_wanted, from_end):
        lst = self.lists[chan]
        if word in lst:
            idx = lst.index(word)
            if idx == idx_wanted:
                return "correct"
            return f"'{word}' is on the {chan} list but not at the {position_text}"
        if word in self.scratched:
            return f"'{word}' was cancelled by a scratch"
        if word in self.lists[other]:
            return f"'{word}' was sent on {other}, not {chan}"
        return f"'{word[:30]}' does not appear in the log"

    def step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new log.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return self._reply("Format reminder: give two words inside \\boxed{...}, separated by a space.",
                               out_of_turns)
        words = [w.strip(".;:'\"") for w in match.group(1).lower().replace(",", " ").split()]
        words = [w for w in words if w]
        if len(words) != 2:
            return self._reply(f"Give exactly two words (you gave {len(words)}): the {self.chan_a} word first, "
                               f"then the {self.chan_b} word.", out_of_turns)
        if words == self.answer:
            self.done = True
            return "Both words are right. You win!", 1.0, True, False, {}
        n_a = len(self.lists[self.chan_a])
        first = self._judge(words[0], self.chan_a, self.chan_b, f"{ordinal(self.k_end)} from the end",
                            n_a - self.k_end, True)
        second = self._judge(words[1], self.chan_b, self.chan_a, f"{ordinal(self.k_start)} from the start",
                             self.k_start - 1, False)
        return self._reply(f"First word: {first}. Second word: {second}.", out_of_turns)

    def _reply(self, note, out_of_turns):
        if out_of_turns:
            self.done = True
            return note + " No attempts left.", 0.0, True, False, {}
        return note + f" Try again ({self.max_turns - self.turn} attempt(s) left).", 0.0, False, False, {}

    def solution(self):
        return " ".join(self.answer)

    def hint(self):
        n_a, n_b = len(self.lists[self.chan_a]), len(self.lists[self.chan_b])
        scr_a = sum(1 for c, k, _ in self.stream if c == self.chan_a and k == "scratch")
        scr_b = sum(1 for c, k, _ in self.stream if c == self.chan_b and k == "scratch")
        return (f"Copy each channel into its own list, one token at a time, popping the last standing word of that "
                f"channel at each of its scratches ({self.chan_a} has {scr_a}, {self.chan_b} has {scr_b}). After the "
                f"scratches the {self.chan_a} list has {n_a} words, so the asked {self.chan_a} word is number "
                f"{n_a - self.k_end + 1} from its start; the {self.chan_b} list has {n_b} words.")
