"""Counter clerk: customers ask for an item from the shop's catalogue in everyday words (negations, either-or,
price bounds, superlatives). When exactly one item fits the request the clerk must hand it over at once; when
several fit, the clerk must ask ONE clarifying question about a feature on which those items differ, and the
customer answers it. Asking when the request is already clear, asking about a shared feature, or guessing among
several items loses."""
import random
import re

BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")
KINDS = ["jug", "lamp", "bowl", "vase", "box", "mug", "kettle", "clock"]
COLOURS = ["red", "blue", "green", "black", "white", "yellow"]
SIZES = ["small", "medium", "large"]
MATERIALS = ["glass", "steel", "wood", "clay"]
FEATURES = ["colour", "size", "material"]
NAMES = ["Mrs Hale", "Tomas", "Aunt Vera", "a student", "Mr Okoro", "a sailor", "Lin", "the baker"]
# difficulty -> (catalogue size, requests, conditions per request (min, max), superlatives allowed)
LEVELS = {"easy": (5, 2, (1, 1), False), "medium": (7, 3, (1, 2), False), "hard": (9, 4, (2, 3), True)}


def _fits(item, cond):
    kind, feat, val = cond
    if kind == "is":
        return item[feat] == val
    if kind == "not":
        return item[feat] != val
    if kind == "either":
        return item[feat] in val
    if kind == "under":
        return item["price"] < val
    if kind == "atmost":
        return item["price"] <= val
    return item["price"] > val  # "over"


class CounterClerkClarifyEnv:
    def __init__(self, max_turns=None, difficulty="medium", **kwargs):
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        req = LEVELS[self.difficulty][1]
        self.max_turns = max_turns if isinstance(max_turns, int) and max_turns >= 4 * req else 4 * req
        self.rng = random.Random()
        self.items = []
        self.requests = []
        self.pos = 0
        self.live = []
        self.done = False

    def _say(self, cond):
        kind, feat, val = cond
        rng = self.rng
        if kind == "is":
            if feat == "colour":
                return rng.choice([f"in {val}", f"a {val} one", f"coloured {val}"])
            if feat == "size":
                return rng.choice([f"a {val} one", f"in the {val} size"])
            return rng.choice([f"made of {val}", f"a {val} one"])
        if kind == "not":
            if feat == "colour":
                return rng.choice([f"anything but {val}", f"not {val}, please", f"any colour except {val}"])
            if feat == "size":
                return rng.choice([f"not the {val} size", f"any size but {val}"])
            return rng.choice([f"nothing made of {val}", f"no {val}, please"])
        if kind == "either":
            a, b = val
            if feat == "colour":
                return rng.choice([f"in either {a} or {b}", f"coloured {a} or {b}"])
            if feat == "size":
                return f"{a} or {b} in size"
            return rng.choice([f"made of either {a} or {b}", f"in {a} or {b} (the material)"])
        if kind == "under":
            return rng.choice([f"for under {val} coins", f"costing less than {val} coins"])
        if kind == "atmost":
            return rng.choice([f"for {val} coins at most", f"for no more than {val} coins"])
        return rng.choice([f"costing more than {val} coins (cheap ones break)", f"over {val} coins"])

    def _cond(self, target):
        rng = self.rng
        kind = rng.choice(["is", "not", "not", "either", "price"])
        feat = rng.choice(FEATURES)
        pool = {"colour": COLOURS, "size": SIZES, "material": MATERIALS}[feat]
        if kind == "is":
            return ("is", feat, target[feat])
        if kind == "not":
            return ("not", feat, rng.choice([v for v in pool if v != target[feat]]))
        if kind == "either":
            return ("either", feat, tuple(sorted([target[feat], rng.choice([v for v in pool if v != target[feat]])])))
        p = target["price"]
        pk = rng.choice(["under", "atmost", "over"])
        if pk == "under":
            return ("under", "price", p + rng.randint(1, 9))
        if pk == "atmost":
            return ("atmost", "price", p + rng.randint(0, 6))
        return ("over", "price", p - rng.randint(1, 9))

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n, req, (cmin, cmax), sup = LEVELS[self.difficulty]
        self.kind = rng.choice(KINDS)
        combos = [(c, s, m) for c in COLOURS for s in SIZES for m in MATERIALS]
        ids = rng.sample([f"{a}{d}" for a in "BCDFGHKMPRSTVW" for d in range(10, 100)], n)
        prices = rng.sample(range(8, 70), n)
        # no two items share all three features, so clarifying questions can always single out one item
        self.items = [{"id": i, "colour": c, "size": s, "material": m, "price": p}
                      for i, (c, s, m), p in zip(ids, rng.sample(combos, n), prices)]
        # about half the requests are ambiguous, so neither "always ask" nor "never ask" wins
        self.requests = []
        for _ in range(req):
            want_ambiguous = rng.random() < 0.55
            for _ in range(300):
                target = rng.choice(self.items)
                conds = []
                for _ in range(rng.randint(cmin, cmax)):
                    c = self._cond(target)
                    # one condition per feature keeps the request free of overlapping or redundant clauses
                    if c[1] not in [d[1] for d in conds]:
                        conds.append(c)
                fit = [it for it in self.items if all(_fits(it, c) for c in conds)]
                superl = None
                if sup and len(fit) > 1 and not want_ambiguous and rng.random() < 0.4:
                    superl = rng.choice(["cheapest", "dearest"])
                    target = min(fit, key=lambda it: it["price"] if superl == "cheapest" else -it["price"])
                    fit = [target]
                if (len(fit) > 1) == want_ambiguous and len(fit) <= 4:
                    break
            words = [self._say(c) for c in conds]
            text = f"a {self.kind}, " + ", ".join(words)
            if superl:
                text = (f"the {'cheapest' if superl == 'cheapest' else 'most expensive'} of your {self.kind}s "
                        + ", ".join(words))
            self.requests.append({"who": rng.choice(NAMES), "text": text, "target": target["id"],
                                  "fit": [it["id"] for it in fit]})
        self.pos = 0
        self.live = list(self.requests[0]["fit"])
        self.done = False
        return self._screen(), {}

    def _catalogue(self):
        return "\n".join(f"  {it['id']}: {it['colour']}, {it['size']}, {it['material']}, {it['price']} coins"
                         for it in self.items)

    def _screen(self, lead=""):
        rq = self.requests[self.pos]
        head = ("COUNTER CLERK\n"
                f"You sell {self.kind}s. Catalogue (id: colour, size, material, price):\n{self._catalogue()}\n"
                "Reply \\boxed{order ID} to hand over an item, or \\boxed{ask colour}, \\boxed{ask size} or "
                "\\boxed{ask material} to ask one clarifying question. Hand over the item as soon as the customer's "
                "words fit exactly one item; ask only when several fit, and only about a feature they differ in. "
                "A guess, a needless question or a useless one loses.\n") if not lead else lead + "\n"
        return head + (f"Customer {self.pos + 1} of {len(self.requests)} ({rq['who']}): "
                       f"\"I would like {rq['text']}.\"")

    def _parse(self, action):
        boxes = BOX_RE.findall(str(action)[:5000])
        if len(boxes) != 1:
            return None
        text = " ".join(boxes[0].strip().lower().split())
        m = re.fullmatch(r"ask (colour|color|size|material)", text)
        if m:
            return ("ask", "colour" if m.group(1) == "color" else m.group(1))
        m = re.fullmatch(r"order ([a-z]\d\d)", text)
        if m:
            return ("order", m.group(1).upper())
        return None

    def _lose(self, why):
        self.done = True
        return why + " The customer leaves unhappy; the game is over.", 0.0, True, False, {}

    def step(self, action):
        if self.done:
            return "The shop is closed.", 0.0, True, False, {}
        act = self._parse(action)
        rq = self.requests[self.pos]
        if act is None:
            return self._lose("That is neither one order nor one question.")
        byid = {it["id"]: it for it in self.items}
        if act[0] == "ask":
            feat = act[1]
            if len(self.live) == 1:
                return self._lose("The request was already clear; the question was needless.")
            if len({byid[i][feat] for i in self.live}) == 1:
                return self._lose(f"Every item that fits has the same {feat}; the question did not help.")
            val = byid[rq["target"]][feat]
            self.live = [i for i in self.live if byid[i][feat] == val]
            reply = self.rng.choice([f"Oh, {val}, please.", f"I'd prefer {val}.", f"{val.capitalize()}, I think."])
            return f"{rq['who']} answers: \"{reply}\"", 0.0, False, False, {}
        if len(self.live) > 1:
            return self._lose("Several items still fit: that was a guess.")
        if act[1] != self.live[0]:
            return self._lose(f"That is not what was asked for: {self.live[0]} was.")
        self.pos += 1
        if self.pos == len(self.requests):
            self.done = True
            return "Served. Every customer got exactly what they asked for: you win!", 1.0, True, False, {}
        self.live = list(self.requests[self.pos]["fit"])
        return self._screen("Served."), 0.0, False, False, {}

    def solution(self):
        byid = {it["id"]: it for it in self.items}
        if len(self.live) == 1:
            return "order " + self.live[0]
        for feat in FEATURES:
            if len({byid[i][feat] for i in self.live}) > 1:
                return "ask " + feat
        return "order " + self.live[0]

    def hint(self):
        amb = sum(1 for rq in self.requests if len(rq["fit"]) > 1)
        return (f"{amb} of the {len(self.requests)} requests fit more than one item. Filter the catalogue by every "
                "condition the customer states: 'anything but' and 'no' exclude, 'either...or' allows two values, "
                "'under' and 'less than' are strict while 'at most' and 'no more than' include the bound. After an "
                "answer, keep only the items with that feature; ask again only if several remain.")
