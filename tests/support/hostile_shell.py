"""A program shell with a hostile body in one place (module level, __init__, reset or step)."""

ENV_SHELL = '''\
{prelude}

class HostileEnv:
    def __init__(self, max_turns=3, **kwargs):
{init}
        self.max_turns = max_turns

    def reset(self, seed=None):
{reset}
        return "ready", {{}}

    def solution(self):
        return "1"

    def step(self, action):
{step}
        return "ok", 0.0, False, False, {{}}
'''


def hostile(prelude="", init="pass", reset="pass", step="pass") -> str:
    def indent(code):
        return "\n".join("        " + line for line in code.strip("\n").splitlines())

    return ENV_SHELL.format(prelude=prelude, init=indent(init), reset=indent(reset), step=indent(step))


LOOP = "while True:\n    pass"
SWALLOWING_LOOP = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
