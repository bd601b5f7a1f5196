"""Tool-use programs broken in one way each, written as edits of the sound ``bank_ledger``
program: each one differs from a program the validator accepts by exactly its defect, and a
change to the sound program reaches every broken one.

An edit names text that must occur exactly once in the sound program, so an edit that no
longer applies fails loudly instead of leaving a program that is not broken at all.
"""

from __future__ import annotations

from testkit import PROGRAMS

SOUND = PROGRAMS / "tooluse" / "bank_ledger.py"

_CHECK_ANSWER = '''    def _check_answer(self, answer):
        done = any(c["name"] == "transfer" and "Transferred" in c["result"] for c in self._call_history)
        return done and super()._check_answer(answer)

'''
_SPLIT_SCHEMA = '''            "split": {"description": "Split an amount into equal parts", "parameters": {
                "type": "object", "properties": {"amount": {"type": "number"}, "parts": {"type": "integer"}},
                "required": ["amount", "parts"]}},
'''
_SPLIT_TOOL = '''    def tool_split(self, amount, parts):
        share, left = 0.0, parts
        while left != 0:  # never ends for a negative number of parts
            share += amount
            left -= 1
        return f"{share / parts:.2f}"

'''
_FREEZE_SCHEMA = '            "freeze": {"description": "Freeze an account", "parameters": {\n'
_FREEZE_TOOL = "    def tool_freeze(self, account_id):\n"
_BALANCE_SCHEMA = '''            "get_balance": {"description": "Balance of an account", "parameters": {
                "type": "object", "properties": {"account_id": {"type": "string"}}, "required": ["account_id"]}},
'''
_BALANCE_CALL = '''            f'<tool_call>{{"name": "get_balance", "arguments": {{"account_id": "{self._target}"}}}}</tool_call>',
'''

#: name -> (the defect, as the program's docstring states it; [(sound text, broken text)])
BROKEN: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "answer_alone": ("the answer alone wins (no call required)", [(_CHECK_ANSWER, "")]),
    "answer_in_task": ("the task text gives the answer away, and the answer alone wins", [
        ("f\"{owner_to}'s new balance as <answer>AMOUNT</answer>.\"",
         "f\"{owner_to}'s new balance ({self._expected_answer}) as <answer>AMOUNT</answer>.\""),
        (_CHECK_ANSWER, "")]),
    "answer_second_turn": ("the answer wins from the second turn on, calls or not", [(
        'done = any(c["name"] == "transfer" and "Transferred" in c["result"] for c in self._call_history)',
        'done = self.turn_count >= 2  # "the agent must have done something first"')]),
    "hanging_tool": ("split hangs when called with a negative number of parts", [
        (_FREEZE_SCHEMA, _SPLIT_SCHEMA + _FREEZE_SCHEMA),
        (_FREEZE_TOOL, _SPLIT_TOOL + _FREEZE_TOOL)]),
    "nondeterministic_tool": ("list_accounts shuffles with an unseeded generator", [(
        '        return "\\n".join(f"{account_id} owner={self._owners[account_id]}" for account_id in self._listing)\n',
        '        random.shuffle(self._listing)\n'
        '        return "\\n".join(f"{account_id} owner={self._owners[account_id]}" for account_id in self._listing)\n')]),
    "same_task": ("every seed poses the same task", [("rng = random.Random(seed)", "rng = random.Random(7)")]),
    "schema_mismatch": ("the get_balance schema declares 'account', the method takes 'account_id'", [
        (_BALANCE_SCHEMA, _BALANCE_SCHEMA.replace('"account_id"', '"account"')),
        (_BALANCE_CALL, "")]),
    "solution_loses": ("solution() forgets the transfer", [
        ('            f"<tool_call>{json.dumps(transfer)}</tool_call>",\n', "")]),
}


def broken_source(name: str) -> str:
    """The sound program with ``name``'s defect, its docstring saying which."""
    defect, edits = BROKEN[name]
    source = SOUND.read_text()
    for old, new in edits:
        assert source.count(old) == 1, f"{name}: the edit's text is not once in {SOUND.name}: {old!r}"
        source = source.replace(old, new)
    assert source.startswith('"""'), f"{SOUND.name} lost its docstring"
    return f'"""Broken: {defect}. ' + source[3:]
