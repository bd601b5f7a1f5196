"""What a no-reasoning script reads off an observation: boxed examples, tokens and numbers
to copy, higher/lower feedback, the coarse shape of an answer.

Shared by the probe baselines (:mod:`spade_gym.validation.baselines.zoo`), the fuzz inputs and
the novelty check's behaviour fingerprint, so all three read a screen the same way. Besides
what is written, a script copies what is *spelled*: every reading :mod:`spade_gym.decoding`
takes off the screen ("4821" from "MMMMDCCCXXI", "４８２１" or "1284, reversed") comes after
the tokens as written.
"""

from __future__ import annotations

import functools
import re

from spade_gym import decoding
from spade_gym.decoding.decoders import plain as read_plainly
from spade_gym.decoding.decoders import run

BOX_OPEN = "\\boxed{"

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_BOXED_EXAMPLE = re.compile(r"\\boxed\{([^{}\n]{1,60})\}")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_PLACEHOLDERS = frozenset({"answer", "your answer", "action", "...", "number", "word", "x", "n", "boxed"})

#: A small vocabulary for the random-words baseline: common answer words of text games.
WORDS = tuple(
    """
    yes no true false left right up down north south east west red green blue yellow black
    white one two three four five six seven eight nine ten first last a b c d e x y z alpha
    beta cat dog apple house tree river stone fire water key door box sword gold silver
    open close take drop go wait buy sell move push pull read write start stop help look
    hello world answer none all even odd more less same different guess secret code puzzle
    """.split()
)


def boxed(text: str) -> str:
    return BOX_OPEN + text + "}"


def observation_candidates(observation: str) -> list[str]:
    """What a lazy agent could copy from the screen: boxed examples first, else the tokens,
    then what they spell (:func:`decoded_candidates`)."""
    examples = [m.strip() for m in _BOXED_EXAMPLE.findall(observation)]
    examples = [e for e in examples if e and e.lower() not in _PLACEHOLDERS]
    if examples:
        return examples
    text = observation[:20_000]
    tokens = _TOKEN.findall(text)
    return tokens + list(_decoded_only(text, tuple(dict.fromkeys(tokens)))) or ["0"]


def all_candidates(observation: str) -> list[str]:
    """Every distinct boxed example, token and number of an observation, in order of appearance,
    then every further reading a decoder takes off it (Roman numerals, number words, other
    scripts and bases, reversed, joined...)."""
    return list(_all_candidates(observation[:20_000]))


def decoded_candidates(observation: str) -> list[str]:
    """The readings of an observation that are not written in it as such come first ("4821" from
    "MMMMDCCCXXI"), then the rest of :func:`all_candidates`."""
    text = observation[:20_000]
    plain = _plain_candidates(text)
    decoded = _decoded_only(text, plain)
    as_written = set(run(read_plainly, text))  # "4821" of "4821." is written, not decoded
    first = [c for c in decoded if c not in as_written]
    return first + [c for c in plain + decoded if c not in first]


@functools.lru_cache(maxsize=4096)
def _plain_candidates(text: str) -> tuple[str, ...]:
    found = [m.strip() for m in _BOXED_EXAMPLE.findall(text)] + NUMBER.findall(text) + _TOKEN.findall(text)
    return tuple(dict.fromkeys(c for c in found if c and c.lower() not in _PLACEHOLDERS))


@functools.lru_cache(maxsize=4096)
def _decoded_only(text: str, written: tuple[str, ...]) -> tuple[str, ...]:
    """Readings of ``text`` that no written candidate already is (compared case-insensitively)."""
    seen = {c.casefold() for c in written}
    return tuple(c for c in decoding.candidates(text) if c not in seen and c not in _PLACEHOLDERS)


@functools.lru_cache(maxsize=4096)
def _all_candidates(text: str) -> tuple[str, ...]:
    plain = _plain_candidates(text)
    return plain + _decoded_only(text, plain)


@functools.lru_cache(maxsize=65536)
def shape(text: str) -> str:
    """A coarse answer shape: runs of digits, letters and other characters, with their lengths
    (``"4821"`` -> ``"d4"``, ``"blue fox"`` -> ``"a4 a3"``); answers of a game share a shape."""
    parts = re.findall(r"\d+|[^\W\d_]+|\s+|.", text.strip().lower())
    out = []
    for part in parts:
        if part.isdigit():
            out.append(f"d{len(part)}")
        elif part.isalpha():
            out.append(f"a{len(part)}")
        elif part.isspace():
            out.append(" ")
        else:
            out.append(part)
    return "".join(out)



HIGHER_FEEDBACK = re.compile(r"\b(higher|larger|bigger|greater|more|too (low|small|few|little)|go up|increase|"
                     r"below (the|it)|not enough)\b", re.IGNORECASE)
LOWER_FEEDBACK = re.compile(r"\b(lower|smaller|less|fewer|too (high|big|large|many|much)|go down|decrease|"
                    r"above (the|it)|exceeds?)\b", re.IGNORECASE)


def as_number(text: str) -> float | None:
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    return value if value == value and abs(value) < 1e15 else None


def render_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"

