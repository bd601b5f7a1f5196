"""The fuzz corpus: texts every program's ``step()`` must survive.

Inputs are sorted into *realistic* texts (empty, free text, malformed or nested boxes,
wrong answers, the observation echoed, Unicode: an agent sends these) and *degenerate*
ones (a 5,000-digit number, a 100,000-character action). A program that fails only on
degenerate inputs gets a warning, not a rejection: sound LLM-written programs call
``int()`` on parsed numbers and echo the action, and the runtime contains what follows.
"""

from __future__ import annotations

import random

from spade_gym.validation.observations import WORDS, boxed, observation_candidates

#: Longer than any realistic action (an LLM reply with its reasoning stays well below).
DEGENERATE_CHARS = 20_000
#: Digits beyond which a number is degenerate (Python's int-string limit is 4,300).
DEGENERATE_DIGITS = 1_000


def is_degenerate(text: str) -> bool:
    """Inputs no agent sends: huge texts, huge numbers, deep nesting."""
    if len(text) > DEGENERATE_CHARS or text.count(BOX_NEST) > 50:
        return True
    run = 0
    for char in text:
        run = run + 1 if char.isdigit() else 0
        if run > DEGENERATE_DIGITS:
            return True
    return False


BOX_NEST = "\\boxed{"

# Why not hypothesis' engine here: it is a test-time library. Run inside the validator it
# writes a ``.hypothesis`` directory into the user's working directory, seeds generation
# from constants it harvests from whatever modules happen to be loaded (so the "same" seed
# gives different texts in the CLI and in a test run), and fails with a nested-@given
# health check when a user's own hypothesis test calls the validator. Instead the same
# strategy families are drawn here from a ``random.Random`` seeded by the config: the
# corpus is a pure function of (fuzz_examples, fuzz_seed), identical in every process.
# The test-suite still throws hypothesis-generated text at the validator and at step().

#: Inputs every program sees, whatever the seed: the cases generated code most often mishandles.
FIXED_FUZZ: tuple[str, ...] = (
    "", " ", "\n", "\t \n ", "hello", "\\boxed{}", "\\boxed{ }", "\\boxed{", "\\boxed", "}", "{}",
    "\\boxed{}}", "\\boxed{{}}", "\\boxed{{1}}", "\\boxed{\\boxed{1}}", "\\boxed{\\boxed{}}",
    "\\boxed{1}\\boxed{2}", "\\boxed{-1}", "\\boxed{0}", "\\boxed{007}", "\\boxed{1.5}", "\\boxed{1e309}",
    "\\boxed{nan}", "\\boxed{inf}", "\\boxed{-0}", "\\boxed{" + "9" * 5000 + "}", "\\boxed{\\frac{1}{2}}",
    "\\boxed{(1, 2)}", "\\boxed{[1, 2]}", "\\boxed{None}", "\\boxed{True}", "\\boxed{%s%d}", "\\boxed{{0}}",
    "\\boxed{\n}", "\\boxed {1}", "$\\boxed{1}$", "The answer is \\boxed{42}.", "\\boxed{yes}",
    "\\boxed{north}", "\\boxed{a,b}", "\\boxed{🙂}", "\\boxed{漢字}", "\u202e\\boxed{1}", "\x00", "\\boxed{\x00}",
    "\ud800", "\\boxed{" * 300 + "}" * 300, "x" * 100_000, "\\boxed{" + "a" * 100_000 + "}",
)

_WHITESPACE = " \t\n\r\x0b\x0c\u00a0\u2003\u3000"
_CHAR_RANGES = (  # (low, high) code points: ASCII, controls, Latin-1, combining, CJK, emoji, astral
    (0x20, 0x7E), (0x00, 0x1F), (0x80, 0xFF), (0x300, 0x36F), (0x4E00, 0x4FFF), (0x1F300, 0x1F64F),
    (0x10000, 0x10FFFF), (0x2000, 0x206F),
)


def _random_text(rng: random.Random, max_size: int) -> str:
    size = min(int(rng.expovariate(1 / 12)), max_size)
    return "".join(chr(rng.randint(*rng.choice(_CHAR_RANGES))) for _ in range(size))


def _draw_fuzz(rng: random.Random) -> str:
    family = rng.randrange(9)
    if family == 0:  # arbitrary unicode text
        return _random_text(rng, 200)
    if family == 1:  # whitespace only
        return "".join(rng.choice(_WHITESPACE) for _ in range(rng.randint(1, 8)))
    if family == 2:  # boxed arbitrary text
        return boxed(_random_text(rng, 60))
    if family == 3:  # boxed integers, any size or sign
        return boxed(str(rng.choice([rng.randint(-10, 10), rng.randint(-10**6, 10**6), rng.getrandbits(200)])))
    if family == 4:  # boxed floats, including awkward renderings
        return boxed(rng.choice([repr(rng.uniform(-1e6, 1e6)), f"{rng.random():.3e}", "-.5", "1_000"]))
    if family == 5:  # boxed words and phrases
        return boxed(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))))
    if family == 6:  # malformed boxes: cut anywhere
        text = boxed(rng.choice(WORDS))
        return text[: rng.randint(0, len(text) - 1)] + _random_text(rng, 5)
    if family == 7:  # nested boxes
        inner = rng.choice(["", str(rng.randint(0, 99)), rng.choice(WORDS)])
        for _ in range(rng.randint(2, 6)):
            inner = rng.choice([boxed(inner), "{" + inner + "}", inner + boxed("")])
        return inner
    return rng.choice(WORDS) + rng.choice(["", " ", "\n"]) + boxed(str(rng.randint(0, 9)))  # box after prose


_fuzz_cache: dict[tuple[int, int], tuple[str, ...]] = {}


def fuzz_corpus(examples: int, seed: int) -> tuple[str, ...]:
    """The fixed edge cases plus ``examples`` drawn texts; the same for the same arguments."""
    key = (examples, seed)
    corpus = _fuzz_cache.get(key)
    if corpus is None:
        rng = random.Random(f"spade-gym-fuzz:{seed}")
        corpus = _fuzz_cache[key] = FIXED_FUZZ + tuple(_draw_fuzz(rng) for _ in range(examples))
    return corpus


def program_fuzz(observation: str, solution: str | None) -> list[str]:
    """Inputs built from one episode: the observation itself, tokens copied from it, and the
    solution in odd but reasonable formats (a sound program must not crash on any of them)."""
    texts = [observation, boxed(observation[:200])]
    texts += [boxed(c) for c in observation_candidates(observation)[:4]]
    if solution:
        texts += [boxed(f" {solution} "), boxed(solution.upper()), boxed(boxed(solution)),
                  solution, boxed(solution) * 2]
    return texts
