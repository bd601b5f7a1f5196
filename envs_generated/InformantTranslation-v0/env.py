"""Invented-language translation with informants: a message in an unknown language, a prose grammar note, a
few overheard sentences with their English meaning, and villagers who each know only some kinds of words
(one of them a liar); ask about words within a question budget, then submit the English translation."""

import random
import re

ANIMATE = ["fisherman", "child", "king", "sailor", "farmer", "soldier", "dog", "bird", "horse", "goat", "wolf"]
THINGS = ["boat", "bread", "basket", "drum", "lamp", "bell", "wagon", "mirror", "ladder"]
ANIMALS = ("dog", "bird", "horse", "goat", "wolf")
# (third person, base form, what it can be done to)
VERBS = [("sees", "see", "any"), ("carries", "carry", "any"), ("follows", "follow", "animate"),
         ("feeds", "feed", "animate"), ("paints", "paint", "any"), ("finds", "find", "any"),
         ("chases", "chase", "animate"), ("builds", "build", "built"), ("hides", "hide", "any"),
         ("sells", "sell", "any"), ("washes", "wash", "any"), ("hears", "hear", "heard")]
BUILT = ("boat", "basket", "drum", "wagon", "ladder")
HEARD = ("bell", "drum")
ADJS = ["old", "small", "brave", "quiet", "hungry", "tired", "clever", "young", "proud", "lazy", "happy", "noisy"]
LANGS = ["Velari", "Oskish", "Tamurai", "Quenn", "Draveli", "Morrow-speech"]
NPC_NAMES = ["Tavi", "Nela", "Brin", "Kesh", "Odo", "Ysa", "Marn", "Pell", "Sorra", "Ilk"]
ONSETS = ["k", "t", "v", "r", "m", "n", "l", "s", "d", "b", "g", "z", "p", "sh", "th"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ou"]
CODAS = ["", "", "", "n", "r", "l", "sh", "k"]
ADJ_ENDINGS = ["el", "ish", "oth", "ir", "ax"]
ORDERS = ["SVO", "SOV", "VSO", "VOS", "OSV", "OVS"]
# difficulty -> (sentences in the message, adjectives per sentence, overheard examples, spare questions, liars)
LEVELS = {"easy": (1, 1, 1, 2, 0), "medium": (2, 1, 2, 1, 1), "hard": (2, 2, 2, 0, 1)}
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
ARTICLES = {"the", "a", "an", "and", "then"}


class InformantTranslationEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self.lang = "Velari"
        self.order = "SVO"
        self.adj_after = True
        self.adj_end = "el"
        self.lex = {}          # invented word -> (class, gloss)
        self.message = []      # list of sentences, each a list of invented words
        self.english = []      # list of sentences, each a list of (gloss, variants)
        self.examples = []     # (invented text, english text)
        self.npcs = []
        self.notebook = []
        self.learned = set()   # target words whose true meaning the player has been told
        self.known0 = set()    # target words deducible from the examples
        self.questions_left = 0
        self.wrong = 0
        self.turn = 0
        self.done = False
        self.last = ""

    # ------------------------------------------------------------------ generation
    def _word(self, used, ending=""):
        rng = self.rng
        while True:
            w = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) for _ in range(rng.randint(1, 2))) + rng.choice(CODAS)
            if ending:
                w = w.rstrip("aeiou") + ending
            elif w.endswith(self.adj_end):
                continue
            if 3 <= len(w) <= 9 and w not in used:
                used.add(w)
                return w

    def _fits(self, verb, noun):
        kind = self.lex[verb][3]
        gloss = self.lex[noun][1]
        if kind == "animate":
            return gloss in ANIMATE
        if kind == "built":
            return gloss in BUILT
        if kind == "heard":
            return gloss in ANIMATE or gloss in HEARD
        return True

    def _sentence(self, nadj, pools):
        """One clause: role -> invented word, plus role -> describing word."""
        rng = self.rng
        while True:
            s_noun = rng.choice(pools["animate"])
            verb = rng.choice(pools["verb"])
            objs = [w for w in pools["animate"] + pools["thing"] if w != s_noun and self._fits(verb, w)]
            if objs:
                break
        clause = {"S": s_noun, "V": verb, "O": rng.choice(objs)}
        adjs = dict(zip(rng.sample(["S", "O"], nadj), rng.sample(pools["adj"], nadj)))
        return clause, adjs

    def _linear(self, clause, adjs):
        """Invented word order and English word order of one clause (lists of invented words)."""
        inv = []
        for role in self.order:
            if role in ("S", "O"):
                group = [clause[role]]
                if role in adjs:
                    group = group + [adjs[role]] if self.adj_after else [adjs[role]] + group
                inv += group
            else:
                inv.append(clause["V"])
        eng = []
        for role in "SVO":
            if role in adjs:
                eng.append(adjs[role])
            eng.append(clause[role])
        return inv, eng

    def _english_text(self, eng_words):
        out = []
        for i, w in enumerate(eng_words):
            cls = self.lex[w][0]
            if cls in ("noun",) and (i == 0 or self.lex[eng_words[i - 1]][0] != "adj"):
                out.append("the")
            if cls == "adj":
                out.append("the")
            out.append(self.lex[w][1])
        return " ".join(out)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        nsent, nadj, nex, spare, liars = LEVELS[self.difficulty]
        self.lang = rng.choice(LANGS)
        self.order = rng.choice(ORDERS)
        self.adj_after = rng.random() < 0.5
        used = set()
        self.adj_end = rng.choice(ADJ_ENDINGS)
        self.lex = {}
        pools = {"animate": [], "thing": [], "verb": [], "adj": []}
        for g in rng.sample(ANIMATE, 6):
            w = self._word(used)
            self.lex[w] = ("noun", g, {g}, "")
            pools["animate"].append(w)
        for g in rng.sample(THINGS, 4):
            w = self._word(used)
            self.lex[w] = ("noun", g, {g}, "")
            pools["thing"].append(w)
        for third, base, kind in rng.sample(VERBS, 5):
            w = self._word(used)
            self.lex[w] = ("verb", third, {third, base}, kind)
            pools["verb"].append(w)
        for g in rng.sample(ADJS, 5):
            w = self._word(used, self.adj_end)
            self.lex[w] = ("adj", g, {g}, "")
            pools["adj"].append(w)
        while True:
            self.message, eng_all = [], []
            for _ in range(nsent):
                inv, eng = self._linear(*self._sentence(nadj, pools))
                self.message.append(inv)
                eng_all.append(eng)
            target = {w for s in self.message for w in s}
            self.examples = []
            known = set()
            for _ in range(nex):
                inv, eng = self._linear(*self._sentence(rng.choice([1, 2]), pools))
                self.examples.append((" ".join(inv), self._english_text(eng)))
                known |= set(inv)
            self.known0 = target & known
            unknown = target - known
            if 1 <= len(self.known0) and len(unknown) >= {1: 3, 2: 5}[nsent] and len(unknown) <= 8:
                break
        self.english = eng_all
        # informants: one honest expert per word class, plus an animal-only helper and liars
        names = rng.sample(NPC_NAMES, 5 + liars)
        classes = ["noun", "verb", "adj"]
        rng.shuffle(classes)
        self.npcs = []
        descr = {"noun": ["{n} has named things for travellers all her life, people, beasts and objects alike, but "
                          "never learned a single action word or describing word."],
                 "verb": ["{n} is a dancer; she can tell you what any action word means, and nothing else."],
                 "adj": ["{n} paints portraits and knows every describing word, but no other kind of word."]}
        for cls, n in zip(classes, names):
            self.npcs.append({"name": n, "knows": cls, "liar": False, "text": descr[cls][0].format(n=n)})
        self.npcs.append({"name": names[3], "knows": "animal", "liar": False,
                          "text": f"{names[3]} the shepherd only knows the words for animals."})
        self.npcs.append({"name": names[4], "knows": "none", "liar": False,
                          "text": f"{names[4]} is a visitor from the coast and does not speak {self.lang} at all."})
        for i in range(liars):
            n = names[5 + i]
            self.npcs.append({"name": n, "knows": "all", "liar": True,
                              "text": f"{n} answers every question cheerfully, but everyone knows {n} is a prankster "
                                      f"whose answers are always false."})
        rng.shuffle(self.npcs)
        unknown_n = len(target - self.known0)
        self.questions_left = unknown_n + spare
        self.notebook = []
        self.learned = set()
        self.wrong = 0
        self.turn = 0
        self.done = False
        self.last = "You arrive in the village with the message."
        return self._obs(), {}

    # ------------------------------------------------------------------ text
    def _grammar(self):
        parts = {"SVO": "the doer comes first, then the action word, then the one it is done to",
                 "SOV": "the doer comes first, then the one it is done to, and the action word comes last",
                 "VSO": "the action word comes first, then the doer, then the one it is done to",
                 "VOS": "the action word comes first, then the one it is done to, and the doer comes last",
                 "OSV": "the one it is done to comes first, then the doer, and the action word comes last",
                 "OVS": "the one it is done to comes first, then the action word, and the doer comes last"}
        adj = ("a describing word always comes right after the naming word it describes" if self.adj_after
               else "a describing word always comes right before the naming word it describes")
        return (f"In {self.lang} {parts[self.order]}; {adj}. Every describing word ends in -{self.adj_end}, and "
                f"no other word does. {self.lang} has no words for 'the' or 'a'.")

    def _obs(self):
        msg = " / ".join(" ".join(s) for s in self.message)
        lines = [f"Turn {self.turn}/{self.max_turns} | Questions left: {self.questions_left} | "
                 f"Wrong translations: {self.wrong}/2",
                 "Last: " + self.last,
                 f"The message to translate ({len(self.message)} sentence{'s' if len(self.message) > 1 else ''}, "
                 f"separated by /): {msg}",
                 "Grammar note: " + self._grammar(),
                 "Overheard: " + " ".join(f"'{a}' was explained to you as '{b}'." for a, b in self.examples),
                 "Villagers: " + " ".join(n["text"] for n in self.npcs)]
        if self.notebook:
            lines.append("Notebook: " + "; ".join(self.notebook))
        lines.append("Commands: \\boxed{ask <villager> about <word>} (uses one question), "
                     "\\boxed{translate <English text>} (the whole message in English, sentences in order; 'the' and "
                     "'a' are optional). A second wrong translation ends the game.")
        return "\n".join(lines)

    def _answer_words(self):
        return [w for s in self.english for w in s]

    def _answer_text(self):
        return " ".join(self._english_text(s) + "." for s in self.english).replace(".", "").strip()

    # ------------------------------------------------------------------ play
    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        m = BOX_RE.search(str(action)[:5000])
        reward, term = 0.0, False
        if m is None:
            self.last = "No command found: use \\boxed{ask <villager> about <word>} or \\boxed{translate ...}."
        else:
            reward, term = self._apply(re.sub(r"\s+", " ", m.group(1).strip().lower()))
        if term:
            self.done = True
            return self._obs(), reward, True, False, {}
        if out:
            self.done = True
            self.last += " You ran out of time before the message was translated."
        return self._obs(), 0.0, out, False, {}

    def _apply(self, cmd):
        am = re.match(r"^ask (\w+) (?:about |for |what )?(?:the word )?['\"]?([a-z]+)['\"]?", cmd)
        if cmd.startswith("ask"):
            if am is None:
                self.last = "Say it as: ask <villager> about <word>."
                return 0.0, False
            who, word = am.group(1), am.group(2)
            npc = [n for n in self.npcs if n["name"].lower() == who]
            if not npc:
                self.last = f"There is no villager called '{who[:20]}'."
                return 0.0, False
            if self.questions_left <= 0:
                self.last = "The villagers are tired of your questions: no questions left."
                return 0.0, False
            npc = npc[0]
            self.questions_left -= 1
            name = npc["name"]
            if word not in self.lex:
                self.last = f"{name} frowns: '{word}' is not a {self.lang} word that anyone here uses."
                return 0.0, False
            cls, gloss = self.lex[word][0], self.lex[word][1]
            if npc["liar"]:
                same = sorted(v[1] for v in self.lex.values() if v[0] == cls and v[1] != gloss)
                fake = same[sum(map(ord, word)) % len(same)]
                self.notebook.append(f"{word} = '{fake}' (told by {name})")
                self.last = f"{name} grins: \"'{word}'? That means '{fake}'.\""
                return 0.0, False
            knows = npc["knows"] == cls or (npc["knows"] == "animal" and gloss in ANIMALS)
            if not knows:
                self.last = f"{name} shakes their head: \"I don't know that kind of word.\""
                return 0.0, False
            self.learned.add(word)
            self.notebook.append(f"{word} = '{gloss}' (told by {name})")
            self.last = f"{name} says: \"'{word}' means '{gloss}'.\""
            return 0.0, False
        if cmd.startswith("translate"):
            text = cmd[len("translate"):]
            words = [w for w in re.findall(r"[a-z]+", text) if w not in ARTICLES]
            expected = self._answer_words()
            if not words:
                self.last = "Translate what? Write the English after the word translate."
                return 0.0, False
            ok = [i < len(words) and words[i] in self.lex[w][2] for i, w in enumerate(expected)]
            if all(ok) and len(words) == len(expected):
                self.last = "The elder reads your translation and nods: it is exactly right. You win!"
                return 1.0, True
            self.wrong += 1
            detail = (f"{sum(ok)} of the {len(expected)} content words are right and in the right place"
                      + ("" if len(words) == len(expected) else
                         f"; your text has {len(words)} content words, the message needs {len(expected)}"))
            if self.wrong >= 2:
                self.last = f"Wrong again ({detail}). The elder sends you away. You lose."
                return 0.0, True
            self.last = f"Not quite: {detail}. One more wrong translation ends the game."
            return 0.0, False
        self.last = f"Unknown command '{cmd[:30]}'. Use ask or translate."
        return 0.0, False

    def solution(self):
        for s in self.message:
            for w in s:
                if w in self.known0 or w in self.learned:
                    continue
                cls = self.lex[w][0]
                for n in self.npcs:
                    if n["knows"] == cls and not n["liar"]:
                        return f"ask {n['name'].lower()} about {w}"
        return "translate " + self._answer_text()

    def hint(self):
        expert = {n["knows"]: n["name"] for n in self.npcs if not n["liar"]}
        liars = [n["name"] for n in self.npcs if n["liar"]]
        first = self.message[0]
        roles = []
        for role in self.order:
            if role == "V":
                roles.append("action word")
            else:
                tag = "doer" if role == "S" else "done-to"
                roles.append(f"{tag} naming word")
        text = (f"The first sentence has {len(first)} words; leaving out describing words its order is "
                f"{', '.join(roles)}. For describing words ask {expert['adj']}, for action words {expert['verb']}, "
                f"for naming words {expert['noun']}")
        text += (f"; never trust {', '.join(liars)}" if liars else "") + ". "
        text += (f"{len(self.known0)} of the message's words also occur in the overheard sentences: line those "
                 "up word by word with their English first, so you only spend questions on the rest.")
        return text
