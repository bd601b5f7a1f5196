"""You keep a general store whose opening stock (shop shelf and back storeroom) is shown only once; each turn one
new event (delivery, transfer, return, breakage) and one request arrive, and you must serve or turn away customers
and answer stock audits from your running mental tally, since the store never shows its counts again."""
import random
import re

GOODS = ["lanterns", "ropes", "candles", "blankets", "kettles", "buckets", "hammers", "shovels", "lamps",
         "saddles", "axes", "sieves", "ladles", "barrels"]
PLACES = {"shelf": "on the shop shelf", "store": "in the storeroom"}


def amount(k, good):
    return f"{k} {good[:-1] if k == 1 else good}"

LEVELS = {
    # goods, customer orders, audits, strikes that end the game
    "easy": (3, 4, 1, 2),
    "medium": (4, 6, 2, 2),
    "hard": (5, 7, 3, 1),
}


class GeneralStoreTallyEnv:
    def __init__(self, max_turns=14, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.n_goods, self.n_orders, self.n_audits, self.max_strikes = LEVELS[self.difficulty]
        self.rng = random.Random()
        self.goods = []
        self.initial = {}
        self.events = []
        self.index = 0
        self.news_shown = -1
        self.strikes = 0
        self.turn = 0
        self.done = False
        self.stock = {}

    # ------------------------------------------------------------------ generation
    def _news(self, stock):
        """One background event that changes the stock (applied to `stock`); returns its text."""
        rng = self.rng
        for _ in range(50):
            kind = rng.choice(["delivery", "transfer", "transfer", "return", "breakage", "back"])
            g = rng.choice(self.goods)
            if kind == "delivery":
                k = rng.randint(2, 6)
                stock[("store", g)] += k
                return f"A supplier's cart delivered {amount(k, g)} to the storeroom."
            if kind == "transfer" and stock[("store", g)] >= 1:
                k = rng.randint(1, stock[("store", g)])
                stock[("store", g)] -= k
                stock[("shelf", g)] += k
                return f"Your clerk carried {amount(k, g)} from the storeroom out to the shop shelf."
            if kind == "return":
                k = rng.randint(1, 3)
                stock[("shelf", g)] += k
                return f"A customer returned {amount(k, g)}; it went back on the shop shelf."
            if kind == "breakage" and stock[("shelf", g)] >= 1:
                k = rng.randint(1, min(3, stock[("shelf", g)]))
                stock[("shelf", g)] -= k
                return f"A shelf collapsed: {amount(k, g)} from the shop shelf ruined and thrown away."
            if kind == "back" and stock[("shelf", g)] >= 2:
                k = rng.randint(1, stock[("shelf", g)] - 1)
                stock[("shelf", g)] -= k
                stock[("store", g)] += k
                return f"Your clerk moved {amount(k, g)} from the shop shelf back into the storeroom."
        stock[("store", self.goods[0])] += 1
        return f"A supplier's cart delivered {amount(1, self.goods[0])} to the storeroom."

    def _generate(self):
        rng = self.rng
        for _ in range(200):
            self.goods = rng.sample(GOODS, self.n_goods)
            stock = {}
            for g in self.goods:
                stock[("shelf", g)] = rng.randint(1, 6)
                stock[("store", g)] = rng.randint(0, 6)
            initial = dict(stock)
            kinds = ["order"] * self.n_orders + ["audit"] * self.n_audits
            body = kinds[1:]
            rng.shuffle(body)
            kinds = ["order"] + body + ["final"]
            events = []
            for kind in kinds:
                news = self._news(stock)
                if kind == "order":
                    g = rng.choice(self.goods)
                    have = stock[("shelf", g)]
                    qty = max(1, have + rng.choice([-2, -1, 0, 1, 1, 2]))
                    ok = qty <= have
                    if ok:
                        stock[("shelf", g)] -= qty
                    events.append({"kind": "order", "news": news, "good": g, "qty": qty, "ok": ok})
                else:
                    # ask about a count that differs from the opening stock
                    changed = [key for key in stock if stock[key] != initial[key]]
                    if not changed:
                        break
                    if kind == "final":
                        g = rng.choice(sorted({key[1] for key in changed}))
                        total = stock[("shelf", g)] + stock[("store", g)]
                        events.append({"kind": "final", "news": news, "good": g, "answer": total})
                    else:
                        key = rng.choice(sorted(changed))
                        events.append({"kind": "audit", "news": news, "good": key[1], "place": key[0],
                                       "answer": stock[key]})
            if len(events) != len(kinds):
                continue
            oks = [e["ok"] for e in events if e["kind"] == "order"]
            if sum(oks) < 2 or len(oks) - sum(oks) < 2:
                continue
            self.initial, self.events = initial, events
            return
        # practically unreachable fallback: keep the last draw as it is
        self.initial, self.events = initial, events

    # ------------------------------------------------------------------ text
    def _request_text(self, e):
        if e["kind"] == "order":
            return (f"A customer asks for {amount(e['qty'], e['good'])} from the shop shelf. Serve them with "
                    f"\\boxed{{sell}} if the shelf holds at least that many, otherwise \\boxed{{decline}}.")
        if e["kind"] == "audit":
            return (f"The auditor asks: how many {e['good']} are {PLACES[e['place']]} right now? "
                    f"Reply \\boxed{{count <number>}}.")
        return (f"Closing time. The owner asks: how many {e['good']} do you have in total, shop shelf plus "
                f"storeroom? Reply \\boxed{{count <number>}}. This answer decides the day.")

    def _status(self, msg):
        e = self.events[self.index]
        if self.news_shown == self.index:
            news = "nothing new (the news of this event was already given; do not count it twice)"
        else:
            news = e["news"]
            self.news_shown = self.index
        return (f"{msg}\n"
                f"Turn {self.turn}/{self.max_turns} | Event {self.index + 1}/{len(self.events)} | "
                f"Strikes {self.strikes}/{self.max_strikes}\n"
                f"News: {news}\n"
                f"Request: {self._request_text(e)}\n"
                f"Commands: \\boxed{{sell}}, \\boxed{{decline}} (customer orders), \\boxed{{count <number>}} "
                f"(audits and closing question).")

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        self._generate()
        self.index = 0
        self.news_shown = -1
        self.strikes = 0
        self.turn = 0
        self.done = False
        rows = "\n".join(f"- {g}: {self.initial[('shelf', g)]} on the shop shelf, {self.initial[('store', g)]} in "
                         f"the storeroom" for g in self.goods)
        intro = (
            f"GENERAL STORE. You run the counter for one day. Opening stock, shown ONLY NOW:\n{rows}\n"
            f"Every turn brings one piece of news that changes the stock and one request. Customers are served only "
            f"from the shop shelf: serve a customer exactly when the shelf holds at least the quantity asked for "
            f"(serving removes it from the shelf), turn them away otherwise. Auditors ask exact counts. A wrong "
            f"call or a wrong count is a strike; {self.max_strikes} strike(s) and the owner fires you, and the "
            f"closing question must be answered exactly to win. The store never shows its counts again: keep "
            f"your own tally."
        )
        return self._status(intro), {}

    def step(self, action):
        if self.done:
            return "The day is over. Call reset() to play again.", 0.0, True, False, {}
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        text = action if isinstance(action, str) else str(action)
        match = re.search(r"\\boxed\{([^{}]*)\}", text[:20000])
        e = self.events[self.index]
        if match is None:
            return self._wait("Format reminder: answer inside \\boxed{...}.", out_of_turns)
        cmd = " ".join(match.group(1).lower().split())
        if e["kind"] == "order":
            if cmd in ("sell", "serve", "fill"):
                choice = True
            elif cmd in ("decline", "refuse", "turn away"):
                choice = False
            else:
                return self._wait("A customer is waiting: answer \\boxed{sell} or \\boxed{decline}.", out_of_turns)
            if choice and e["ok"]:
                return self._next(f"You sold {amount(e['qty'], e['good'])}.", out_of_turns)
            if not choice and not e["ok"]:
                return self._next(f"You turned the customer away: the shelf really was short of {e['good']}.",
                                  out_of_turns)
            if choice:
                why = f"you promised {amount(e['qty'], e['good'])} but the shop shelf holds fewer; the customer storms out"
            else:
                why = f"you turned the customer away although the shelf had enough {e['good']}"
            return self._strike(why, out_of_turns)
        m = re.fullmatch(r"(?:count\s*)?(-?\d{1,6})", cmd)
        if m is None:
            return self._wait("The question needs a number: answer \\boxed{count <number>}.", out_of_turns)
        value = int(m.group(1))
        if e["kind"] == "final":
            self.done = True
            if value == e["answer"]:
                return (f"Correct - your tally of {e['good']} is exact. The owner is impressed. You win!"
                        ), 1.0, True, False, {}
            side = "too high" if value > e["answer"] else "too low"
            return (f"Wrong: your count of {e['good']} is {side}. The owner fires you. You lose."
                    ), 0.0, True, False, {}
        if value == e["answer"]:
            return self._next(f"The auditor nods: {amount(value, e['good'])} is right.", out_of_turns)
        side = "too high" if value > e["answer"] else "too low"
        return self._strike(f"the auditor finds your count of {e['good']} {side}", out_of_turns)

    def _strike(self, why, out_of_turns):
        self.strikes += 1
        if self.strikes >= self.max_strikes:
            self.done = True
            return f"Strike {self.strikes}: {why}. The owner fires you. You lose.", 0.0, True, False, {}
        return self._next(f"Strike {self.strikes}: {why}.", out_of_turns)

    def _next(self, msg, out_of_turns):
        self.index += 1
        return self._wait(msg, out_of_turns)

    def _wait(self, msg, out_of_turns):
        if out_of_turns:
            self.done = True
            return msg + "\nOut of turns: the day ends before closing.", 0.0, True, False, {}
        return self._status(msg), 0.0, False, False, {}

    def solution(self):
        e = self.events[min(self.index, len(self.events) - 1)]
        if e["kind"] == "order":
            return "sell" if e["ok"] else "decline"
        return f"count {e['answer']}"

    def hint(self):
        n_short = sum(1 for e in self.events if e["kind"] == "order" and not e["ok"])
        n_questions = sum(1 for e in self.events if e["kind"] in ("audit", "final"))
        return (f"Write the opening stock as a table (one row per good, shelf and storeroom columns) and update it "
                f"after every news line and every customer you serve; a customer you turn away changes nothing. "
                f"In this day {n_short} of the {self.n_orders} customers ask for more than the shelf holds, and "
                f"{n_questions} question(s) will come, about goods you cannot know in advance: keep every row current.")
