"""Letter-feedback word relay: several secret words, one after another, each drawn from a listed word bank;
every five-letter guess is marked letter by letter as right, elsewhere or absent, and each secret must be
found within a small allowance of guesses, too few for trying every word that still fits one by one."""

import random
import re

BANK = """
    about actor adopt after agent agree alarm album alert align alive alley along alter amber anger
    angle angry ankle apart argue aroma arrow aside audio audit avoid awake award aware bacon bagel
    basin beach beard beast bench berry blame bland blank blast blaze bleak blend blink bliss block
    bloom board boost booth bound brake brass brave bread brick bride brief bring broom brown brush
    build built bunch burst cabin cable candy canoe cargo carry catch cedar chain chair chalk chart
    chase cheap check cheek chess chest chief child chill choir claim clamp clash class clear clerk
    click cloak cloud clown coach cobra court cover crack crane crash crate cream crisp crumb crush
    daily dairy delta dense depth diary digit draft dream dress drink drive eagle early earth easel
    elbow elder elite enjoy entry equal exact exile fable faint ferry fever fiber field fight final
    flame flash fleet flesh float flock flood flour fluid flute focus forge forum fresh fruit giant
    given glide glory glove grand grant grape grave gravy great grief grill groan grove growl guard
    guest guide habit happy haven heavy hedge honey horse hotel hound human humor hurry ideal image
    index ivory jelly joint juice knife label labor large laser latch later layer lemon light limit
    liver lunar lunch magic major maker manor match mayor medal melon mercy merit meter minor moral
    mount mouth movie music night noise novel nurse ocean olive onion orbit order ounce owner panel
    party patch pause peace pearl pedal penny perch phone photo pilot pinch pixel place plane plate
    plead plumb plump point polar power press price pride print prize proud pulse punch queen quest
    quilt quota radio rally ranch rapid raven reach ready realm rebel rider ridge rifle rival roast
    robin robot rocky rouge rough route royal salad sauce scarf scene scone scout screw seize sense
    shake shark sharp shelf shell shine shirt shock short shout shrub silky skate skirt skull slate
    sleep slide smart smile snack snake solar solve sonic space spade spark spear spine staff stage
    stain stair stake stamp stand steam steel steep stern still sting stock stool straw strip study
    stump style sugar suite surge swamp table taste thick thief thing thorn tiger toast today token
    torch touch tower toxic trace track trade trail train tribe trick truly trust truth tumor twice
    twist uncle under unity urban usage usual value valve vault verse vigor virus visit vital vivid
    vocal voice waltz waste watch wheat wheel where whole widow width woman worry worth would wrist
    yield young youth zebra
""".split()
# difficulty -> (bank size, rounds, guesses per round the bank is checked to need at most)
LEVELS = {"easy": (60, 4, 3), "medium": (80, 4, 3), "hard": (90, 5, 3)}
WIN = 242  # code of five 'right' marks
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
MARK = {0: "absent", 1: "elsewhere", 2: "right"}


def marks(guess, target):
    """Wordle marks as a list (2 right, 1 elsewhere, 0 absent); repeated letters are counted fairly."""
    res = [0] * 5
    spare = {}
    for i in range(5):
        if guess[i] == target[i]:
            res[i] = 2
        else:
            spare[target[i]] = spare.get(target[i], 0) + 1
    for i in range(5):
        if res[i] == 0 and spare.get(guess[i], 0) > 0:
            res[i] = 1
            spare[guess[i]] -= 1
    return res


def code(guess, target):
    r = marks(guess, target)
    return r[0] + 3 * r[1] + 9 * r[2] + 27 * r[3] + 81 * r[4]


def opener(bank):
    """Deterministic first guess: the bank word covering the most frequent letters (and places)."""
    freq = {}
    pos = [{} for _ in range(5)]
    for w in bank:
        for c in set(w):
            freq[c] = freq.get(c, 0) + 1
        for i, c in enumerate(w):
            pos[i][c] = pos[i].get(c, 0) + 1
    return max(sorted(bank), key=lambda w: 2 * sum(freq[c] for c in set(w)) + sum(pos[i][c] for i, c in enumerate(w)))


def minimax(cands):
    """Consistent guess whose worst feedback class is smallest (ties: more classes, then alphabetical)."""
    if len(cands) <= 2:
        return cands[0]
    best, best_score = cands[0], None
    for g in cands:
        cnt = {}
        for t in cands:
            k = code(g, t)
            cnt[k] = cnt.get(k, 0) + 1
        score = (max(cnt.values()), -len(cnt))
        if best_score is None or score < best_score:
            best, best_score = g, score
    return best


def policy(cands, first):
    return opener(cands) if first else minimax(cands)


def worst_case(bank):
    """Most guesses the policy ever needs over every possible secret in the bank."""
    def rec(cands, depth, first):
        g = policy(cands, first)
        parts = {}
        for t in cands:
            parts.setdefault(code(g, t), []).append(t)
        deepest = depth
        for k, part in parts.items():
            if k != WIN:
                deepest = max(deepest, rec(part, depth + 1, False))
        return deepest
    return rec(sorted(bank), 1, True)


class LetterFeedbackHuntEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        _, rounds, cap = LEVELS[self.difficulty]
        # the budget is rounds x cap: every bank is checked so that the policy needs at most `cap` per secret
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns > 0 else rounds * cap
        self.cap = cap
        self.rng = random.Random()
        self.bank = []
        self.secrets = []
        self.round = 0
        self.history = []
        self.solved = []
        self.turn = 0
        self.done = False
        self.last = ""

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        size, rounds, cap = LEVELS[self.difficulty]
        cap = min(cap, max(1, self.max_turns // rounds))
        self.cap = cap
        for _ in range(200):
            self.bank = sorted(self.rng.sample(BANK, size))
            if worst_case(self.bank) <= cap:
                break
        self.secrets = [self.rng.choice(self.bank) for _ in range(rounds)]
        self.round = 0
        self.history = []
        self.solved = []
        self.turn = 0
        self.done = False
        self.last = "new game"
        return self._obs(), {}

    def _obs(self):
        rounds = len(self.secrets)
        shown = min(self.round + 1, rounds)
        lines = [f"Guess {self.turn}/{self.max_turns} | Secret {shown} of {rounds} | "
                 f"Found: {', '.join(w.upper() for w in self.solved) or 'none'} | Last: {self.last}",
                 f"Find {rounds} secret words in a row; each is drawn independently from the word bank below (a "
                 "word may come up again). Every guess (any five letters) is marked against the CURRENT secret, "
                 "letter by letter: 'right' = this letter sits in this place, 'elsewhere' = the secret has this "
                 "letter in another place, 'absent' = the secret has no (further) copy of this letter. Once a "
                 f"secret is guessed exactly the next one starts. You have at most {self.cap} guesses per secret "
                 f"(the exact hit included); a secret not found within them loses the game.",
                 "Word bank: " + " ".join(self.bank)]
        if self.history:
            lines.append(f"Guesses at secret {shown}:")
            for i, (g, r) in enumerate(self.history, 1):
                lines.append(f"  {i}. {g.upper()}  ->  " + "  ".join(f"{c.upper()}:{MARK[m]}" for c, m in zip(g, r)))
        lines.append(f"Guesses left for this secret: {self.cap - len(self.history)}. Reply with one guess as "
                     "\\boxed{your guess}.")
        return "\n".join(lines)

    def candidates(self):
        return [w for w in self.bank if all(marks(g, w) == r for g, r in self.history)]

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {}
        self.turn += 1
        m = BOX_RE.search(str(action)[:5000])
        reward, term = 0.0, False
        if m is None:
            self.last = "no guess found: write five letters inside \\boxed{...} (this used up a guess)"
        else:
            guess = re.sub(r"[^a-z]", "", m.group(1).lower())
            if len(guess) != 5:
                self.last = f"'{guess[:20]}' is not five letters (this used up a guess)"
            else:
                secret = self.secrets[self.round]
                r = marks(guess, secret)
                if guess == secret:
                    self.solved.append(secret)
                    self.round += 1
                    self.history = []
                    if self.round >= len(self.secrets):
                        self.last = f"{guess.upper()} is right. All {len(self.secrets)} secrets found: you win!"
                        reward, term = 1.0, True
                    else:
                        self.last = f"{guess.upper()} is secret {self.round}. Secret {self.round + 1} starts now"
                else:
                    self.history.append((guess, r))
                    right, near = r.count(2), r.count(1)
                    self.last = f"{guess.upper()}: {right} right, {near} elsewhere, {5 - right - near} absent"
        if not term and len(self.history) >= self.cap:
            # each secret has its own small allowance: guessing every word that still fits, one after
            # another, runs out of it; choosing guesses that split the remaining words does not
            self.last += f". That was your last guess at secret {self.round + 1}: you lose"
            term = True
        if not term and self.turn >= self.max_turns:
            self.last += ". Out of guesses: you lose"
            term = True
        if term:
            self.done = True
        return self._obs(), reward, term, False, {}

    def solution(self):
        if self.round >= len(self.secrets):
            return self.secrets[-1]
        cands = self.candidates()
        if not cands:
            return self.secrets[self.round]
        return policy(cands, not self.history)

    def hint(self):
        facts = []
        used = set()
        for i in range(self.round, len(self.secrets)):
            secret = self.secrets[i]
            cands = self.candidates() if i == self.round else list(self.bank)
            best = None
            for c in "abcdefghijklmnopqrstuvwxyz":
                if c in used:
                    continue
                n = sum(c in w for w in cands)
                if 0 < n < len(cands):
                    score = abs(2 * n - len(cands))
                    if best is None or score < best[0]:
                        best = (score, c)
            if best is not None:
                used.add(best[1])
                has = best[1] in secret
                facts.append(f"secret {i + 1} {'contains' if has else 'does not contain'} the letter {best[1].upper()}")
        return ("Privileged facts: " + "; ".join(facts) + ". Filter the bank with these before guessing, then "
                "choose guesses that split the remaining words into many small groups.")
