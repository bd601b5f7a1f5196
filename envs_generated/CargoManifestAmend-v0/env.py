"""A long ship's cargo manifest lists many look-alike crates (owner, goods, port, deck, weight), followed by late
amendments that sell, re-route, re-stow or unload some of them, each naming the new owner, port or deck only through
another crate ("sold to the owner of crate 31", "re-stowed onto the deck where crate 58 sits") as that crate stands at
that moment; the harbour master asks for the total weight of the crates that belong to one owner and sit on one deck
after all amendments, so the answer needs every crate's state carried through the amendments in order."""
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
        self.refs = []
        self.amendments = []
        self.target = None
        self.criteria = {}
        self.turn = 0
        self.done = False
        self.text = ""
        self._members = []
        self._answer = 0
        self._printed_total = 0

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
            refs = self._references(crates, amendments)
            if refs is None:
                continue
            self.refs = refs
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

    def _references(self, crates, amendments):
        """For each amendment, another crate that holds the new value at that moment (preferring crates that were
        amended before, so their printed line is stale); None when some amendment has no such crate."""
        state = {c["id"]: dict(c) for c in crates}
        touched, refs = set(), []
        for kind, cid, new in amendments:
            if kind == "unload":
                refs.append(None)
                state.pop(cid, None)
                continue
            holders = [i for i, c in sorted(state.items()) if i != cid and c[kind] == new]
            if not holders:
                return None
            stale = [i for i in holders if i in touched]
            refs.append(self.rng.choice(stale or holders))
            state[cid][kind] = new
            touched.add(cid)
        return refs

    def _lookup_totals(self):
        """Totals that transcript readers get: the printed manifest; the printed owner/deck of each crate with
        unloads applied; and each amendment resolved with the referenced crate's printed value."""
        crit, weight = self.criteria, {c["id"]: c["weight"] for c in self.crates}
        printed = {c["id"]: dict(c) for c in self.crates}
        unloaded = {cid for kind, cid, _ in self.amendments if kind == "unload"}
        hop = {c["id"]: dict(c) for c in self.crates}
        for (kind, cid, _), ref in zip(self.amendments, self.refs):
            if kind != "unload" and cid in hop:
                hop[cid][kind] = printed[ref][kind]
        totals = []
        for table in (printed, {i: c for i, c in printed.items() if i not in unloaded},
                      {i: c for i, c in hop.items() if i not in unloaded}):
            totals.append(sum(weight[i] for i, c in table.items()
                              if c["owner"] == crit["owner"] and c["deck"] == crit["deck"]))
        return totals

    def _group(self, crates):
        crit = self.criteria
        return sorted(c["id"] for c in crates if c["owner"] == crit["owner"] and c["deck"] == crit["deck"])

    def _set_question(self):
        """The asked group (owner + deck) must hold several crates at the end, and the amendments must
        change its total: reading the printed manifest alone, or one crate, gives a wrong answer."""
        final = self._group(self.final.values())
        printed = self._group(self.crates)
        weight = {c["id"]: c["weight"] for c in self.crates}
        self._members = final
        self._answer = sum(weight[i] for i in final)
        self._printed_total = sum(weight[i] for i in printed)
        return (len(final) >= 2 and final != printed and self._answer != self._printed_total
                and self._answer not in self._lookup_totals())

    # ------------------------------------------------------------------ text
    def _amend_text(self, k, am, ref):
        kind, cid, new = am
        if kind == "unload":
            return f"A{k}. Crate {cid} was unloaded at the last stop and is no longer aboard."
        if kind == "owner":
            return f"A{k}. Crate {cid} has been sold to the owner of crate {ref}."
        if kind == "port":
            return f"A{k}. Crate {cid} is re-routed to the port crate {ref} is bound for."
        return f"A{k}. Crate {cid} was re-stowed onto the deck where crate {ref} sits."

    def _compose(self):
        lines = []
        for c in self.crates:
            tpl = self.rng.choice(TEMPLATES)
            lines.append(tpl.format(id=c["id"], w=c["weight"], g=c["goods"], o=c["owner"], p=c["port"], d=c["deck"]))
        amends = [self._amend_text(k, am, ref) for k, (am, ref) in enumerate(zip(self.amendments, self.refs), 1)]
        crit = self.criteria
        return (
            f"CARGO MANIFEST of the coaster *{self.rng.choice(['Kittiwake', 'Sea Lark', 'Marguerite', 'Northern Star', 'Albatross'])}* "
            f"({len(self.crates)} crates).\n" + "\n".join(lines) +
            "\n\nLATE AMENDMENTS (apply them in order; a crate named for its owner, port or deck counts as it stands at "
            "that moment, after the amendments before it):\n" +
            "\n".join(amends) +
            f"\n\nHarbour master's question: after ALL amendments, what is the total weight in kg of the crates still "
            f"aboard that belong to {crit['owner']} and sit on deck {crit['deck']} (whatever their port)?\n"
            f"Answer with the number only, as \\boxed{{<total kg>}}. You have {self.max_turns} attempt(s)."
        )

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        for _ in range(400):
            self._generate()
            if self._set_question():
                break
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
        if value == self._answer:
            self.done = True
            return f"Correct: {value} kg is the total the harbour master needs. You win!", 1.0, True, False, {}
        if value == self._printed_total:
            note = f"{value} kg is the total of that group in the printed manifest, before the amendments."
        else:
            note = f"{value} kg is not the total weight of that group after all amendments."
        return self._reply(note, out_of_turns)

    def _reply(self, note, out_of_turns):
        if out_of_turns:
            self.done = True
            return note + " No attempts left.", 0.0, True, False, {}
        left = self.max_turns - self.turn
        return note + f" Try again ({left} attempt(s) left).", 0.0, False, False, {}

    def solution(self):
        return str(self._answer)

    def hint(self):
        crit = self.criteria
        moved = sorted({k for k, am in enumerate(self.amendments, 1)
                        if am[0] in ("owner", "deck", "unload")})
        return (f"After all amendments {len(self._members)} crate(s) of {crit['owner']} sit on deck {crit['deck']}. "
                f"Amendments that can move a crate into or out of such a group (sales, re-stowing, unloading) are "
                f"number(s) {', '.join('A' + str(k) for k in moved)}; re-routing never matters here. Keep a running "
                "list of the group's crate numbers while you replay them in order, then add up the weights.")
