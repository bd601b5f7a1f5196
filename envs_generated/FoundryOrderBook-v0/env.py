"""Run a one-machine foundry for a fixed number of days: each day cast one product (or idle), paying for
setup changeovers and for stock held overnight, while orders ship automatically on their due day only if
enough stock is on hand; the goal is to finish with the best possible profit."""
import random
import re

PRODUCT_NAMES = ["anchors", "bells", "cogs", "hinges", "kettles", "pulleys", "rivets", "valves", "wheels"]


class FoundryOrderBookEnv:
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in ("easy", "medium", "hard") else "medium"
        self.days, self.n_products, self.n_orders = {
            "easy": (6, 2, 5),
            "medium": (8, 3, 7),
            "hard": (10, 3, 9),
        }[self.difficulty]
        self.rng = random.Random()
        self.products = []
        self.rate_list = []
        self.due_today = {}
        self.changeover = 0
        self.holding = 1
        self.orders = []  # dicts: id, product, qty, due, price
        self.day = 1
        self.setup = 0
        self.stock = ()
        self.profit = 0
        self.target = 0
        self.turn = 0
        self.done = False
        self.status = {}
        self._memo = {}
        self._best_fn = None
        self._plan_stats = {}

    # ------------------------------------------------------------------ dynamics
    def _advance(self, day, setup, stock, action):
        """Apply one day. action: product index or -1 (idle). Returns (setup, stock, gain, events)."""
        stock = list(stock)
        gain = 0
        events = []
        if action >= 0:
            if action != setup:
                gain -= self.changeover
                events.append(("changeover", action, -self.changeover))
                setup = action
            stock[action] += self.rate_list[action]
            events.append(("made", action, self.rate_list[action]))
        for o in self.due_today[day]:
            p = o["p"]
            if stock[p] >= o["qty"]:
                stock[p] -= o["qty"]
                gain += o["price"]
                events.append(("shipped", o["id"], o["price"]))
            else:
                events.append(("missed", o["id"], 0))
        held = sum(stock) * self.holding
        if held:
            gain -= held
            events.append(("holding", -1, -held))
        return setup, tuple(stock), gain, events

    def _solve(self):
        """Exact DP over (day, setup, stock); fills self._memo with (best future gain, best action).

        A lean copy of _advance() runs inside the recursion (no event log) to keep reset() fast."""
        memo = {}
        days = self.days
        n = self.n_products
        actions = list(range(n)) + [-1]
        rates = list(self.rate_list)
        change = self.changeover
        hold = self.holding
        due = {d: [(o["p"], o["qty"], o["price"]) for o in self.due_today[d]] for d in range(1, days + 1)}
        # demand[d][p]: units of p still ordered for day d or later. Casting p beyond that is strictly worse
        # than idling (the extra units only pay storage), so the search skips it; _future() fills in any
        # such state lazily if a player goes there.
        demand = {d: [sum(o["qty"] for o in self.orders if o["p"] == p and o["due"] >= d) for p in range(n)]
                  for d in range(1, days + 2)}

        def best(day, setup, stock):
            key = (day, setup, stock)
            hit = memo.get(key)
            if hit is not None:
                return hit[0]
            if day > days:
                memo[key] = (0, None)
                return 0
            top, arg = None, None
            todays = due[day]
            left = demand[day]
            for a in actions:
                if a >= 0 and stock[a] >= left[a]:
                    continue
                st = list(stock)
                g = 0
                ns = setup
                if a >= 0:
                    if a != setup:
                        g -= change
                        ns = a
                    st[a] += rates[a]
                for p, q, price in todays:
                    if st[p] >= q:
                        st[p] -= q
                        g += price
                g -= sum(st) * hold
                v = g + best(day + 1, ns, tuple(st))
                if top is None or v > top:
                    top, arg = v, a
            memo[key] = (top, arg)
            return top

        self._memo = memo
        self._best_fn = best
        return best(1, self.setup, self.stock)

    def _future(self, day, setup, stock):
        hit = self._memo.get((day, setup, stock))
        if hit is None:  # a state the pruned search skipped: solve it now
            self._best_fn(day, setup, stock)
            hit = self._memo.get((day, setup, stock), (0, -1))
        return hit

    def _play_plan(self, chooser):
        setup, stock, total = self.setup, self.stock, 0
        for day in range(1, self.days + 1):
            a = chooser(day, setup, stock)
            setup, stock, g, _ = self._advance(day, setup, stock, a)
            total += g
        return total

    def _edf_choice(self, day, setup, stock):
        """Myopic: cast the product of the most urgent order not yet covered by stock."""
        need = list(stock)
        for o in sorted(self.orders, key=lambda o: (o["due"], -o["price"])):
            if o["due"] < day:
                continue
            if need[o["p"]] >= o["qty"]:
                need[o["p"]] -= o["qty"]
                continue
            return o["p"]
        return -1

    # ------------------------------------------------------------------ episode
    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        n = self.n_products
        for _ in range(100):
            self.products = rng.sample(PRODUCT_NAMES, n)
            self.rate_list = [rng.randint(3, 6) for _ in range(n)]
            self.changeover = rng.randint(6, 14)
            self.holding = 1
            orders = []
            for k in range(self.n_orders):
                p = k % n if k < n else rng.randrange(n)
                qty = rng.randint(2, 2 * self.rate_list[p])
                due = rng.randint(2, self.days)
                price = qty * rng.randint(3, 8) + rng.randint(0, 8)
                orders.append({"p": p, "qty": qty, "due": due, "price": price})
            orders.sort(key=lambda o: (o["due"], o["p"], o["qty"]))
            for i, o in enumerate(orders):
                o["id"] = i + 1
            self.orders = orders
            self.due_today = {d: [] for d in range(1, self.days + 1)}
            for o in sorted(orders, key=lambda o: (-o["price"], o["id"])):
                self.due_today[o["due"]].append(o)
            self.setup = rng.randrange(n)
            self.stock = tuple(rng.randint(0, 2) for _ in range(n))
            self.target = self._solve()
            if self.target <= 0:
                continue
            # every constant plan and the myopic earliest-due plan must fall short of the optimum
            consts = [self._play_plan(lambda d, s, st, a=a: a) for a in list(range(n)) + [-1]]
            if max(consts) >= self.target:
                continue
            if self._play_plan(self._edf_choice) >= self.target:
                continue
            # the optimal plan must involve several different kinds of days
            plan = self._optimal_plan()
            if len(set(plan)) < min(3, n + 1):
                continue
            break
        self.day = 1
        self.profit = 0
        self.turn = 0
        self.done = False
        self.status = {o["id"]: "open" for o in self.orders}
        plan = self._optimal_plan()
        self._plan_stats = self._describe_plan(plan)
        return self._render("The order book is open. Plan carefully: you cannot undo a day."), {}

    def _optimal_plan(self):
        setup, stock, plan = self.setup, self.stock, []
        for day in range(1, self.days + 1):
            a = self._future(day, setup, stock)[1]
            plan.append(a)
            setup, stock, _, _ = self._advance(day, setup, stock, a)
        return plan

    def _describe_plan(self, plan):
        setup, stock = self.setup, self.stock
        missed, changes = [], 0
        for day, a in enumerate(plan, 1):
            setup, stock, _, events = self._advance(day, setup, stock, a)
            for kind, ref, _ in events:
                if kind == "missed":
                    missed.append(ref)
                if kind == "changeover":
                    changes += 1
        return {"missed": missed, "changes": changes, "idle": plan.count(-1)}

    # ------------------------------------------------------------------ text
    def _commands(self):
        return " ".join(f"\\boxed{{make {p}}}" for p in self.products) + " \\boxed{idle}"

    def _render(self, result):
        stock = ", ".join(f"{self.products[i]} {self.stock[i]}" for i in range(self.n_products))
        rates = ", ".join(f"{self.products[i]} {self.rate_list[i]}/day" for i in range(self.n_products))
        lines = []
        for o in self.orders:
            st = self.status[o["id"]]
            lines.append(f"  #{o['id']}: {o['qty']} {self.products[o['p']]}, due end of day {o['due']}, "
                         f"pays {o['price']}  [{st}]")
        shown_day = min(self.day, self.days)
        return (
            f"FOUNDRY ORDER BOOK | Day {shown_day}/{self.days} | Turn {self.turn}/{self.max_turns} | "
            f"Profit {self.profit} | Target {self.target}\n"
            f"Result: {result}\n"
            f"Machine set up for: {self.products[self.setup]} | Stock: {stock}\n"
            f"Casting rates: {rates}. Switching the machine to a different product costs {self.changeover} "
            f"(paid on the day you switch; idling keeps the current setup). Every unit in stock at the end of a "
            f"day costs {self.holding} for storage. At the end of each day, orders due that day ship "
            "automatically if stock covers them (higher-paying first); an order that cannot be covered on its "
            "due day is lost.\n"
            "Orders:\n" + "\n".join(lines) + "\n"
            f"Goal: finish day {self.days} with profit at least {self.target} (the best achievable). "
            "If your choices make the target unreachable, the game ends.\n"
            f"Commands (one per day): {self._commands()}"
        )

    def _describe_events(self, action, events):
        parts = []
        what = "idled" if action < 0 else f"cast {self.rate_list[action]} {self.products[action]}"
        parts.append(f"Day {self.day}: {what}")
        for kind, ref, amount in events:
            if kind == "changeover":
                parts.append(f"changeover {amount}")
            elif kind == "shipped":
                parts.append(f"shipped order #{ref} +{amount}")
            elif kind == "missed":
                parts.append(f"order #{ref} LOST (not enough stock)")
            elif kind == "holding":
                parts.append(f"storage {amount}")
        return "; ".join(parts) + "."

    # ------------------------------------------------------------------ play
    def _parse(self, action):
        found = re.findall(r"\\boxed\{([^{}]*)\}", str(action))
        if not found:
            return None
        text = " ".join(found[-1].lower().split())
        if text in ("idle", "rest", "wait"):
            return -1
        if text.startswith("make "):
            text = text[5:].strip()
        elif text.startswith("cast "):
            text = text[5:].strip()
        for i, p in enumerate(self.products):
            if text == p or (len(text) >= 3 and p.startswith(text)) or text + "s" == p:
                return i
        return -2

    def step(self, action):
        if self.done:
            return "The game is over. Call reset() to start a new one.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        choice = self._parse(action)
        if choice is None or choice == -2:
            msg = ("No command found: put exactly one command in \\boxed{...}." if choice is None else
                   "Unknown command. Name a product you can cast or idle.")
            if out:
                self.done = True
                return self._render(msg + " Out of turns."), 0.0, True, False, {}
            return self._render(msg + " The day did not advance."), 0.0, False, False, {}
        setup, stock, gain, events = self._advance(self.day, self.setup, self.stock, choice)
        text = self._describe_events(choice, events)
        for kind, ref, _ in events:
            if kind == "shipped":
                self.status[ref] = "shipped"
            elif kind == "missed":
                self.status[ref] = "lost"
        self.setup, self.stock = setup, stock
        self.profit += gain
        self.day += 1
        if self.day > self.days:
            self.done = True
            if self.profit >= self.target:
                return self._render(text + f" Final profit {self.profit}: target reached, optimal plan!"), 1.0, True, False, {}
            return self._render(text + f" Final profit {self.profit}, below the target {self.target}."), 0.0, True, False, {}
        reachable = self.profit + self._future(self.day, self.setup, self.stock)[0]
        if reachable < self.target:
            self.done = True
            return self._render(text + f" The target is now out of reach: the best still possible is {reachable}. "
                                       "Game over."), 0.0, True, False, {}
        if out:
            self.done = True
            return self._render(text + " Out of turns."), 0.0, True, False, {}
        return self._render(text), 0.0, False, False, {}

    def solution(self):
        if self.done:
            return "idle"
        a = self._future(self.day, self.setup, self.stock)[1]
        return "idle" if a is None or a < 0 else f"make {self.products[a]}"

    def hint(self):
        st = self._plan_stats
        missed = st.get("missed", [])
        if missed:
            listed = ", ".join(f"#{m}" for m in missed)
            first = f"One optimal plan deliberately lets order{'s' if len(missed) > 1 else ''} {listed} go unshipped."
        else:
            first = "One optimal plan ships every single order."
        return (f"{first} It switches the machine {st.get('changes', 0)} time(s) and leaves it unused on "
                f"{st.get('idle', 0)} day(s). Work backwards from the due dates: cast each batch as late as possible (storage is "
                "charged per unit per night), group same-product work to save changeovers, and drop an order "
                "when its price does not cover the casting day, changeover and storage it costs.")
