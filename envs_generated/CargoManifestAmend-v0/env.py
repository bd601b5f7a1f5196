"""A long ship's cargo manifest lists many look-alike crates (owner, goods, port, deck, weight), followed by late
amendments that sell, re-route, re-stow or unload some of them; you must find the one crate that matches the
harbour master's description after all amendments and report its weight."""
import random
import re

OWNERS = ["Halvorsen", "Marek", "Okafor", "Lindqvist", "Dubois", "Sato", "Moreau", "Petrova", "Alvarez",
          "Keller", "Nakamura", "Brennan"]
PORTS = ["Oslo", "Lisbon", "Bergen", "Genoa", "Tallinn", "Cadiz", "Rostock", "Antwerp", "Gdansk", "Porto"]
GOODS = ["copper wire", "olive oil", "wool bales", "tin plates", "coffee beans", "marble tiles", "rope coils",
         "dried cod", "glassware", "salt", "timber planks", "tea chests", "machine parts", "wine casks"]
TEMPLATES = [
    "Crate {id}: {w} kg of {g}, owned by {o}, bound for {p}, stowed on deck {d}.",
    "Crate {id} holds {g} for {o}; it weighs {w} kg, sits on deck {d} and goes to {p}.",
    "Crate {id} ({o}) - {g}, deck {d}, destination {p}, gross weight {w} kg.",
    "Crate {id}, deck {d}: {o}'s {g}, {w} kg, to be landed at {p}.",
    "Crate {id} is consigned to {p} by {o}: {g}, {w} kg, deck {d}.",
]

LEVELS = {
    # crates, owners, ports, decks, random extra amendments, near misses, chained target amendment
    "easy": (14, 5, 5, 3, 1, 2, False),
    "medium": (20, 6, 6, 4, 2, 3, False),
    "hard": (28, 7, 7, 4, 3, 4, True),
}
ATTRS = ("owner", "port", "deck")


class CargoManifestAmendEnv:
    def __init__(self, max_turns=3, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        (self.n_crates, self.n_owners, self.n_ports, self.n_decks, self.n_extra, self.n_near,
         self.chained) = LEVELS[self.difficulty]
        self.rng = random.Random()
        self.owners = []
        self.ports = []
        self.crates = []
        self.final = {}
        self.amendments = []
        self.target = None
        self.criteria = {}
        self.turn = 0
        self.done = False
        self.text = ""

    # ------------------------------------------------------------------ generation
    def _value(self, attr):
        if attr == "owner":
            return self.rng.choice(self.owners)
        if attr == "port":
            return self.rng.choice(self.ports)
        return self.rng.randint(1, self.n_decks)

    def _other(self, attr, value):
        for _ in range(50):
            v = self._value(attr)
            if v != value:
                return v
        return value

    def _apply(self, crates, amendments):
        state = {c["id"]: dict(c) for c in crates}
        for kind, cid, new in amendments:
            if cid not in state:
                continue
            if kind == "unload":
                del state[cid]
            else:
                state[cid][kind] = new
        return state

    def _matches(self, crate, crit):
        return all(crate[a] == crit[a] for a in ATTRS)

    def _generate(self):
        rng = self.rng
        for _ in range(200):
            self.owners = rng.sample(OWNERS, self.n_owners)
            self.ports = rng.sample(PORTS, self.n_ports)
            ids = rng.sample(range(10, 100), self.n_crates)
            weights = rng.sample(range(120, 990), self.n_crates)
            crates = []
            for i in range(self.n_crates):
                crates.append({"id": ids[i], "owner": self._value("owner"), "port": self._value("port"),
                               "deck": self._value("deck"), "goods": rng.choice(GOODS), "weight": weights[i]})
            crit = {"owner": self._value("owner"), "port": self._value("port"), "deck": self._value("deck")}
            target, decoy = crates[0], crates[1]
            amendments = []
            # the target only matches thanks to an amendment (possibly a chain of two)
            fix = rng.choice(ATTRS)
            for a in ATTRS:
                target[a] = crit[a]
            target[fix] = self._other(fix, crit[fix])
            if self.chained:
                detour = self._other(fix, crit[fix])
                if detour == target[fix]:
                    continue
                amendments.append((fix, target["id"], detour))
            amendments.append((fix, target["id"], crit[fix]))
            # the decoy matches in the printed manifest but an amendment takes it away
            for a in ATTRS:
                decoy[a] = crit[a]
            kind = rng.choice(ATTRS + ("unload",))
            amendments.append((kind, decoy["id"], None if kind == "unload" else self._other(kind, crit[kind])))
            # near misses: share exactly two of the three described attributes
            for crate in crates[2: 2 + self.n_near]:
                off = rng.choice(ATTRS)
                for a in ATTRS:
                    crate[a] = crit[a]
                crate[off] = self._other(off, crit[off])
            # extra amendments on other crates
            others = crates[2:]
            for crate in rng.sample(others, self.n_extra):
                kind = rng.choice(ATTRS + ("unload",))
                amendments.append((kind, crate["id"], None if kind == "unload" else self._other(kind, crate.get(kind))))
            rng.shuffle(amendments)
            # keep the chain of the target in order
            chain = [i for i, am in enumerate(amendments) if am[1] == target["id"]]
            chain_items = [am for am in amendments if am[1] == target["id"]]
            if self.chained and len(chain_items) == 2 and chain_items[0][2] == crit[fix]:
                amendments[chain[0]], amendments[chain[1]] = chain_items[1], chain_items[0]
            final = self._apply(crates, amendments)
            matching = [cid for cid, c in final.items() if self._matches(c, crit)]
            printed = [c["id"] for c in crates if self._matches(c, crit)]
            if matching != [target["id"]] or target["id"] in printed or decoy["id"] not in printed:
                continue
            rng.shuffle(crates)
            self.crates, self.amendments, self.final = crates, amendments, final
            self.target, self.criteria = target, crit
            return True
        return False

    # ------------------------------------------------------------------ text
    def _amend_text(self, k, am, state):
        kind, cid, new = am
        old = state[cid]
        if kind == "unload":
            return f"A{k}. Crate {cid} was unloaded at the last stop and is no longer aboard."
        if kind == "owner":
            return f"A{k}. Crate {cid} has been sold by {old['owner']} to {new}."
        if kind == "port":
            return f"A{k}. Crate {cid} is re-routed from {old['port']} to {new}."
        return f"A{k}. Crate {cid} was re-stowed from deck {old['deck']} to deck {new}."

    def _compose(self):
        lines = []
        for c in self.crates:
            tpl = self.rng.choice(TEMPLATES)
            lines.append(tpl.format(id=c["id"], w=c["weight"], g=c["goods"], o=c["owner"], p=c["port"], d=c["deck"]))
        state = {c["id"]: dict(c) for c in self.crates}
        amends = []
        for k, am in enumerate(self.amendments, 1):
            amends.append(self._amend_text(k, am, state))
            kind, cid, new = am
            if kind == "unload":
                state.pop(cid, None)
            else:
                state[cid][kind] = new
        crit = self.criteria
        return (
            f"CARGO MANIFEST of the coaster *{self.rng.choice(['Kittiwake', 'Sea Lark', 'Marguerite', 'Northern Star', 'Albatross'])}* "
            f"({len(self.crates)} crates).\n" + "\n".join(lines) +
            "\n\nLATE AMENDMENTS (apply them in order; each refers to the crate as it stands at that moment):\n" +
            "\n".join(amends) +
            f"\n\nHarbour master's question: after ALL amendments, exactly one crate aboard belongs to {crit['owner']}, "
            f"is bound for {crit['port']} and sits on deck {crit['deck']}. What is its weight in kg?\n"
            f"Answer with the number only, as \\boxed{{<weight>}}. You have {self.max_turns} attempt(s); a wrong weight "
            f"gets a note on which crate you picked and why it does not fit."
        )

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.turn = 0
        self.done = False
        self.text = self._compose()
        return self.text, {}

    def step(self, action):
        if self.done:
            return "The task is over. Call reset() for a new manifest.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        if match is None:
            return self._reply("Format reminder: give the weight as a whole number inside \\boxed{...}.", out_of_turns)
        raw = match.group(1).strip().lower().replace("kg", "").replace(",", "").strip()
        if not re.fullmatch(r"\d{1,6}", raw):
            return self._reply(f"'{match.group(1)[:30]}' is not a whole number of kilograms.", out_of_turns)
        value = int(raw)
        if value == self.target["weight"]:
            self.done = True
            return f"Correct: that is the crate the harbour master means. You win!", 1.0, True, False, {}
        owner = [c for c in self.crates if c["weight"] == value]
        if not owner:
            note = f"No crate in the manifest weighs {value} kg; read the weight off the matching crate's entry."
        else:
            c = owner[0]
            cid = c["id"]
            if cid not in self.final:
                note = f"Crate {cid} weighs {value} kg, but an amendment took it off the ship."
            else:
                f = self.final[cid]
                wrong = []
                if f["owner"] != self.criteria["owner"]:
                    wrong.append(f"it belongs to {f['owner']}, not {self.criteria['owner']}")
                if f["port"] != self.criteria["port"]:
                    wrong.append(f"it is bound for {f['port']}, not {self.criteria['port']}")
                if f["deck"] != self.criteria["deck"]:
                    wrong.append(f"it sits on deck {f['deck']}, not deck {self.criteria['deck']}")
                note = f"Crate {cid} weighs {value} kg, but after the amendments " + " and ".join(wrong) + "."
        return self._reply(note, out_of_turns)

    def _reply(self, note, out_of_turns):
        if out_of_turns:
            self.done = True
            return note + " No attempts left.", 0.0, True, False, {}
        left = self.max_turns - self.turn
        return note + f" Try again ({left} attempt(s) left).", 0.0, False, False, {}

    def solution(self):
        return str(self.target["weight"]) if self.target else "0"

    def hint(self):
        owner = self.criteria["owner"]
        mine_printed = sum(1 for c in self.crates if c["owner"] == owner)
        mine_final = sum(1 for c in self.final.values() if c["owner"] == owner)
        relevant = [k for k, am in enumerate(self.amendments, 1)
                    if am[1] == self.target["id"] or (am[1] in {c["id"] for c in self.crates
                                                                if self._matches(c, self.criteria)})]
        return (f"The printed manifest lists {mine_printed} crate(s) of {owner}; after the amendments {owner} owns "
                f"{mine_final}. The amendments that decide the answer are number(s) "
                f"{', '.join('A' + str(k) for k in relevant)}: one of them disqualifies the crate that looks right in "
                f"the printed list. Replay them in order before filtering by port and deck.")
