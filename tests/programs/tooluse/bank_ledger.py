"""Transfer money between accounts and report the resulting balance (reference style, numeric answer)."""
import random


class BankLedgerEnv(ToolUseBaseEnv):
    def __init__(self, max_turns=12, difficulty="medium", **kwargs):
        self.difficulty = difficulty
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        self.turn_count = 0
        self._call_history = []
        rng = random.Random(seed)
        count = {"easy": 4, "medium": 8, "hard": 16}.get(self.difficulty, 8)
        names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi",
                 "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil"]
        owners = rng.sample(names, count)
        self._state = {"accounts": {}, "frozen": set()}
        # opaque ids listed in a shuffled order: the id to use is found by its owner in the listing,
        # never at the place it held on another episode
        ids = [f"ACC-{number}" for number in rng.sample(range(1000, 10000), count)]
        self._owners = dict(zip(ids, owners))
        for account_id in ids:
            self._state["accounts"][account_id] = round(rng.uniform(100, 5000), 2)
        self._listing = ids[:]
        rng.shuffle(self._listing)
        self._source = rng.choice(ids)
        self._target = rng.choice([i for i in ids if i != self._source])
        self._amount = round(rng.uniform(10, 90), 2)
        self._tools = {
            "list_accounts": {"description": "List account ids with their owners", "parameters": {"type": "object", "properties": {}}},
            "get_balance": {"description": "Balance of an account", "parameters": {
                "type": "object", "properties": {"account_id": {"type": "string"}}, "required": ["account_id"]}},
            "transfer": {"description": "Move money between two accounts", "parameters": {
                "type": "object",
                "properties": {"from_id": {"type": "string"}, "to_id": {"type": "string"},
                               "amount": {"type": "number"}},
                "required": ["from_id", "to_id", "amount"]}},
            "freeze": {"description": "Freeze an account", "parameters": {
                "type": "object", "properties": {"account_id": {"type": "string"}}, "required": ["account_id"]}},
        }
        after = self._state["accounts"][self._target] + self._amount
        self._expected_answer = f"${after:,.2f}"
        owner_from = self._owners[self._source]
        owner_to = self._owners[self._target]
        return (f"Transfer ${self._amount:.2f} from {owner_from}'s account to {owner_to}'s account, then report "
                f"{owner_to}'s new balance as <answer>AMOUNT</answer>.", {})

    def _account(self, account_id):
        if account_id not in self._state["accounts"]:
            raise KeyError(f"no account {account_id}")
        return account_id

    def tool_list_accounts(self):
        return "\n".join(f"{account_id} owner={self._owners[account_id]}" for account_id in self._listing)

    def tool_get_balance(self, account_id):
        return f"{self._state['accounts'][self._account(account_id)]:.2f}"

    def tool_transfer(self, from_id, to_id, amount):
        a, b = self._account(from_id), self._account(to_id)
        if a in self._state["frozen"]:
            return "Error: account frozen"
        if amount <= 0 or amount > self._state["accounts"][a]:
            return "Error: invalid amount"
        self._state["accounts"][a] = round(self._state["accounts"][a] - amount, 2)
        self._state["accounts"][b] = round(self._state["accounts"][b] + amount, 2)
        return f"Transferred {amount:.2f}"

    def tool_freeze(self, account_id):
        self._state["frozen"].add(self._account(account_id))
        return "Frozen"

    def _check_answer(self, answer):
        done = any(c["name"] == "transfer" and "Transferred" in c["result"] for c in self._call_history)
        return done and super()._check_answer(answer)

    def solution(self):
        transfer = {"name": "transfer", "arguments": {"from_id": self._source, "to_id": self._target,
                                                      "amount": self._amount}}
        return "\n".join([
            '<tool_call>{"name": "list_accounts", "arguments": {}}</tool_call>',
            f"<tool_call>{json.dumps(transfer)}</tool_call>",
            f'<tool_call>{{"name": "get_balance", "arguments": {{"account_id": "{self._target}"}}}}</tool_call>',
            f"<answer>{self._expected_answer}</answer>",
        ])
