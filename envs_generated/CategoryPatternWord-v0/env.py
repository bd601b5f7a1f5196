"""Crossword-style slot: find the one word that both belongs to a described category (e.g. 'something played
to make music') and satisfies letter clues given as a pattern and as sentences ('its third letter comes right
after M in the alphabet', 'its second and fifth letters are the same')."""

import random
import re

CATEGORIES = {
    "bird": ("a kind of bird", ["a creature with feathers and a beak", "an animal that hatches from an egg and "
                                "grows feathers"]),
    "fish": ("a kind of fish", ["a creature that lives in water and breathes through gills",
                                "something an angler hopes to land"]),
    "insect": ("a kind of insect", ["a small creature with six legs", "a six-legged creature, often with wings"]),
    "tree": ("a kind of tree", ["a plant with a woody trunk and branches", "something that grows bark"]),
    "fruit": ("a kind of fruit", ["something sweet that grows on a plant around its seeds",
                                  "something you might find in a fruit bowl"]),
    "vegetable": ("a kind of vegetable", ["a plant eaten in savoury dishes", "something grown in a kitchen garden "
                                          "for the cooking pot"]),
    "instrument": ("a musical instrument", ["something played to make music", "what a musician plays"]),
    "tool": ("a hand tool", ["something a carpenter, mechanic or gardener works with",
                             "an implement held in the hand to do a job"]),
    "furniture": ("a piece of furniture", ["a large movable item that furnishes a room",
                                           "something you sit, lie or store things on at home"]),
    "utensil": ("a kitchen utensil", ["something a cook handles while preparing food",
                                      "an item from a kitchen drawer or stove top"]),
    "job": ("an occupation", ["what someone does for a living", "a trade or profession"]),
    "weather": ("a kind of weather", ["something a forecaster might predict", "something that happens in the "
                                      "sky or the air outdoors"]),
    "body": ("a part of the human body", ["something every person has on or in their body",
                                          "a part of your anatomy"]),
    "gem": ("a gemstone", ["a precious or semi-precious stone", "a stone a jeweller might set in a ring"]),
    "fabric": ("a fabric", ["a material that clothes are sewn from", "something a tailor cuts from a bolt"]),
    "sport": ("a sport", ["a game played competitively", "an athletic contest with rules and a winner"]),
    "vehicle": ("a vehicle", ["something that carries people or goods from place to place",
                              "a means of transport"]),
    "clothing": ("an item of clothing", ["something you wear", "a garment"]),
    "building": ("a kind of building", ["a structure people build to live, work or worship in",
                                        "something an architect might design"]),
}
WORDS_BY_CAT = {
    "bird": "eagle heron robin raven finch stork swan crow parrot pigeon falcon magpie sparrow penguin ostrich "
            "pelican vulture swallow canary toucan hawk gull wren crane dove goose duck turkey puffin condor "
            "kestrel starling thrush",
    "fish": "salmon trout shark tuna herring sardine carp pike perch mackerel halibut plaice minnow marlin "
            "anchovy haddock guppy goldfish",
    "insect": "beetle wasp hornet moth locust cricket cicada termite mosquito earwig weevil aphid firefly "
              "ladybird mantis flea louse midge gnat dragonfly",
    "tree": "maple birch willow cedar aspen poplar spruce larch beech alder cypress chestnut walnut hazel rowan "
            "sycamore redwood palm pine holly linden baobab",
    "fruit": "banana cherry grape mango peach pear plum lemon lime melon papaya apricot orange kiwi guava date "
             "quince lychee damson nectarine tangerine coconut olive",
    "vegetable": "carrot potato onion leek turnip radish celery cabbage lettuce spinach bean parsnip squash "
                 "pumpkin garlic kale marrow endive shallot beetroot broccoli",
    "instrument": "violin cello viola harp flute oboe tuba drum banjo guitar piano organ bugle cornet trumpet "
                  "clarinet bassoon lute sitar ukulele harmonica fiddle cymbal triangle",
    "tool": "hammer chisel wrench pliers drill spanner mallet trowel shovel spade rake file plane level clamp "
            "vice sander scythe sickle crowbar",
    "furniture": "table chair sofa bench stool desk dresser couch bookcase wardrobe cabinet ottoman cradle "
                 "armchair sideboard futon bureau divan",
    "utensil": "ladle whisk spatula skillet kettle colander grater sieve tongs teapot saucepan cleaver peeler "
               "fork spoon knife",
    "job": "baker butcher tailor farmer doctor nurse lawyer pilot sailor miner plumber painter teacher dentist "
           "judge clerk cashier chef potter weaver mason surgeon banker grocer",
    "weather": "rain snow hail sleet mist drizzle thunder storm breeze gale frost blizzard tornado monsoon "
               "typhoon cyclone sunshine cloud rainbow haze squall tempest",
    "body": "elbow knee ankle wrist shoulder finger thumb heel chin cheek nose liver lung heart kidney spine "
            "skull thigh tongue throat eyebrow palm organ",
    "gem": "ruby emerald diamond sapphire opal pearl topaz garnet jade amber onyx quartz amethyst jasper agate "
           "beryl zircon peridot turquoise",
    "fabric": "cotton silk wool linen velvet denim satin tweed nylon lace felt flannel corduroy muslin chiffon "
              "canvas jersey suede leather cashmere",
    "sport": "tennis golf rugby hockey soccer cricket boxing rowing fencing archery judo karate polo squash "
             "bowling cycling skiing surfing diving netball baseball handball",
    "vehicle": "truck lorry tram train bicycle scooter taxi wagon tractor yacht canoe ferry barge sledge "
               "rickshaw caravan glider airship jeep plane",
    "clothing": "shirt jacket coat scarf glove sock skirt dress blouse sweater trousers jeans vest cloak apron "
                "shawl boot sandal bonnet tunic kilt poncho pyjamas jersey",
    "building": "castle church temple palace cottage barn mill tower abbey chapel cabin lodge manor hospital "
                "school library museum theatre stadium factory warehouse mosque pagoda igloo villa bungalow",
}
LEXICON = {}
for _cat, _text in WORDS_BY_CAT.items():
    for _w in _text.split():
        LEXICON.setdefault(_w, set()).add(_cat)
SORTED_WORDS = sorted(LEXICON)
EDGE_WORDS = {}
for _w in SORTED_WORDS:
    EDGE_WORDS.setdefault(_w[0], []).append(_w)
    if _w[-1] != _w[0]:
        EDGE_WORDS.setdefault(_w[-1], []).append(_w)
ALPHA = "abcdefghijklmnopqrstuvwxyz"
VOWELS = "aeiou"
ORD = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]
# difficulty -> (word lengths, letters shown in the pattern (fraction), indirect category text, fewest sentence clues)
LEVELS = {"easy": ((4, 6), 0.4, False, 0), "medium": ((5, 7), 0.25, True, 1), "hard": ((5, 9), 0.0, True, 3)}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


class CategoryPatternWordEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self._answer = ""
        self.category = "bird"
        self.cat_text = ""
        self.shown = []
        self.clues = []  # (text, kind, args)
        self.turn = 0
        self.done = False

    # ------------------------------------------------------------------ clues
    def _clue_pool(self, w):
        rng = self.rng
        pool = []
        n = len(w)
        for i, c in enumerate(w):
            if c != "a":
                pool.append((f"its {ORD[i]} letter comes right after {ALPHA[ALPHA.index(c) - 1].upper()} in the "
                             f"alphabet", "pos", (i, c)))
            if c != "z":
                pool.append((f"its {ORD[i]} letter comes right before {ALPHA[ALPHA.index(c) + 1].upper()} in the "
                             f"alphabet", "pos", (i, c)))
            src = [x for x in EDGE_WORDS.get(c, []) if x != w]
            if src:
                x = rng.choice(src)
                edge = "first" if x[0] == c else "last"
                pool.append((f"its {ORD[i]} letter is the {edge} letter of '{x.upper()}'", "pos", (i, c)))
        for i in range(n):
            for j in range(i + 1, n):
                if w[i] == w[j]:
                    pool.append((f"its {ORD[i]} and {ORD[j]} letters are the same", "same", (i, j)))
        for c in "eaoistrnl":
            if c not in w:
                pool.append((f"it contains no letter {c.upper()}", "no", (c,)))
        k = sum(ch in VOWELS for ch in w)
        pool.append((f"it has exactly {k} vowel{'s' if k != 1 else ''} (A, E, I, O, U)", "vowels", (k,)))
        return pool

    @staticmethod
    def _ok(word, n, shown, clues):
        if len(word) != n:
            return False
        for i, c in shown:
            if word[i] != c:
                return False
        for _, kind, args in clues:
            if kind == "pos" and word[args[0]] != args[1]:
                return False
            if kind == "same" and word[args[0]] != word[args[1]]:
                return False
            if kind == "no" and args[0] in word:
                return False
            if kind == "vowels" and sum(ch in VOWELS for ch in word) != args[0]:
                return False
        return True

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        (lo, hi), frac, indirect, min_clues = LEVELS[self.difficulty]
        words = sorted(w for w in LEXICON if lo <= len(w) <= hi)
        for attempt in range(400):
            w = rng.choice(words)
            cat = rng.choice(sorted(LEXICON[w]))
            n = len(w)
            positions = list(range(n))
            rng.shuffle(positions)
            shown = [(i, w[i]) for i in positions[:int(round(frac * n))]]
            rest = positions[len(shown):]
            pool = self._clue_pool(w)
            rng.shuffle(pool)
            clues = []
            same_cat = [x for x in words if cat in LEXICON[x] and len(x) == n]

            def pinned():
                return len({i for i, _ in shown} | {a[0] for _, k, a in clues if k == "pos"})

            def rivals():
                return [x for x in same_cat if x != w and self._ok(x, n, shown, clues)]

            need = (n + 2) // 3 if not indirect else (n + 1) // 2
            while pool and (len(clues) < min_clues or rivals() or pinned() < need):
                if frac > 0 and not indirect and rest:
                    i = rest.pop()
                    shown.append((i, w[i]))
                    continue
                clue = pool.pop()
                taken = {i for i, _ in shown} | {a[0] for _, k, a in clues if k == "pos"}
                if clue[1] == "pos" and clue[2][0] in taken:
                    continue
                clues.append(clue)
            if rivals() or pinned() >= n:
                continue
            letter_only = [x for x in words if x != w and self._ok(x, n, shown, clues)]
            if self.difficulty != "easy" and not letter_only and attempt < 300:
                continue
            break
        self._answer = w
        self.category = cat
        plain, fancy = CATEGORIES[cat]
        self.cat_text = rng.choice(fancy) if indirect else plain
        self.shown = sorted(shown)
        self.clues = clues
        self.turn = 0
        self.done = False
        return self._task(), {}

    def _pattern(self):
        cells = ["_"] * len(self._answer)
        for i, c in self.shown:
            cells[i] = c.upper()
        return " ".join(cells)

    def _task(self):
        lines = ["CROSSWORD SLOT",
                 f"Meaning: {self.cat_text}.",
                 f"Length: {len(self._answer)} letters. Pattern: {self._pattern()}"]
        for k, (text, _, _) in enumerate(self.clues, 1):
            lines.append(f"Letter clue {k}: {text}.")
        lines.append(f"Find the single English word that fits the meaning and every letter clue. You have "
                     f"{self.max_turns} attempts. Answer as \\boxed{{your word}}.")
        return "\n".join(lines)

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        if m is None:
            msg = "No answer found: write the word inside \\boxed{...}."
        else:
            guess = re.sub(r"[^a-z]", "", m.group(1).lower())
            n = len(self._answer)
            if guess == self._answer:
                self.done = True
                return "Correct: that word fills the slot!", 1.0, True, False, {}
            if len(guess) != n:
                msg = f"'{guess[:30]}' has {len(guess)} letters; the slot has {n}."
            else:
                bad = [f"pattern letter {i + 1} should be {c.upper()}" for i, c in self.shown if guess[i] != c]
                for k, clue in enumerate(self.clues, 1):
                    if not self._ok(guess, n, [], [clue]):
                        bad.append(f"letter clue {k} fails")
                if bad:
                    msg = f"'{guess}' does not fit: " + "; ".join(bad) + "."
                else:
                    msg = f"'{guess}' fits every letter clue but is not the word meant by '{self.cat_text}'."
        if out:
            self.done = True
            msg += " No attempts left."
        else:
            msg += f" Attempts left: {self.max_turns - self.turn}."
        return msg + "\n\n" + self._task(), 0.0, out, False, {}

    def solution(self):
        return self._answer

    def hint(self):
        w = self._answer
        open_pos = [i for i in range(len(w)) if i not in {j for j, _ in self.shown}]
        i = open_pos[len(w) % len(open_pos)] if open_pos else 0
        return (f"The word is {CATEGORIES[self.category][0]}. Decode every sentence clue into a fixed letter first "
                f"and write the pattern out in full; as a check, letter {i + 1} is {w[i].upper()}.")
