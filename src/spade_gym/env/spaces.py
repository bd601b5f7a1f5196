"""A text space for free-form Unicode observations and actions.

Gymnasium's ``spaces.Text`` is defined by a character set (alphanumeric by default)
and its flatten/shared-memory code maps characters to indices in that set: emoji,
newlines or punctuation in a generated observation make ``check_env`` fail, and
``AsyncVectorEnv``'s shared memory silently drops such characters. :class:`UnicodeText`
accepts any string up to a length limit, and registers its own batching and
shared-memory handlers with gymnasium (code points in an int32 buffer, with the length
stored first), so ``gym.make_vec(..., vectorization_mode="async")`` returns exactly the
strings the environments produced.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.spaces import Space, Tuple
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array
from gymnasium.vector.utils.shared_memory import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

_WORDS = ("north", "south", "east", "west", "yes", "no", "left", "right", "up", "down", "buy", "sell",
          "wait", "open", "take", "red", "blue", "green", "alpha", "beta", "gamma", "answer")
_PUNCTUATION = " .,;:!?-()[]{}'\"\n"
_UNICODE = "éüßçñøΩπ∑√≈→★♞🙂🎲漢字"


class UnicodeText(Space[str]):
    """Any ``str`` of length ``min_length..max_length`` (characters, not bytes)."""

    def __init__(self, max_length: int = 65_536, *, min_length: int = 0, seed: int | np.random.Generator | None = None):
        if not (0 <= min_length <= max_length):
            raise ValueError(f"need 0 <= min_length <= max_length, got {min_length}, {max_length}")
        self.min_length = int(min_length)
        self.max_length = int(max_length)
        super().__init__(dtype=str, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """Useful random text: mostly ``\\boxed{...}`` answers (numbers, words, commands),
        sometimes free text with punctuation, newlines and non-ASCII characters."""
        rng = self.np_random
        kind = rng.integers(0, 10)
        if kind < 4:
            text = "\\boxed{" + str(int(rng.integers(-10, 1000))) + "}"
        elif kind < 7:
            words = [_WORDS[i] for i in rng.integers(0, len(_WORDS), size=rng.integers(1, 3))]
            text = "\\boxed{" + " ".join(words) + "}"
        elif kind < 9:
            pool = list(_WORDS) + list(_PUNCTUATION) + list(_UNICODE)
            text = "".join(pool[i] if len(pool[i]) == 1 else pool[i] + " "
                           for i in rng.integers(0, len(pool), size=rng.integers(1, 24)))
        else:
            text = ""
        if len(text) < self.min_length:
            text = text + "x" * (self.min_length - len(text))
        return text[: self.max_length]

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, UnicodeText) and other.min_length == self.min_length
                and other.max_length == self.max_length)

    def __hash__(self) -> int:
        return hash((UnicodeText, self.min_length, self.max_length))

    def to_jsonable(self, sample_n):
        return list(sample_n)

    def from_jsonable(self, sample_n):
        return list(sample_n)


# ---------------------------------------------------------------------------- vector support


@batch_space.register(UnicodeText)
def _batch_unicode_text(space: UnicodeText, n: int = 1) -> Tuple:
    return Tuple([UnicodeText(space.max_length, min_length=space.min_length) for _ in range(n)])


@create_empty_array.register(UnicodeText)
def _empty_unicode_text(space: UnicodeText, n: int = 1, fn=np.zeros) -> tuple[str, ...]:
    return tuple("" for _ in range(n))


@concatenate.register(UnicodeText)
def _concatenate_unicode_text(space: UnicodeText, items, out) -> tuple[str, ...]:
    return tuple(items)


# Shared memory: per environment one slot of (1 + max_length) int32 values, the length
# first, then the code points. Enough for any Unicode string, no character set needed.


@create_shared_memory.register(UnicodeText)
def _create_unicode_shared_memory(space: UnicodeText, n: int = 1, ctx=mp):
    return ctx.Array(np.dtype(np.int32).char, n * (space.max_length + 1))


@write_to_shared_memory.register(UnicodeText)
def _write_unicode_shared_memory(space: UnicodeText, index: int, value: str, shared_memory) -> None:
    size = space.max_length + 1
    if len(value) > space.max_length:
        raise ValueError(f"observation of {len(value)} characters exceeds the space's {space.max_length}")
    buffer = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    slot = buffer[index * size : (index + 1) * size]
    slot[0] = len(value)
    if value:
        slot[1 : 1 + len(value)] = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype=np.int32)


class SharedTextView(Sequence):
    """Live view of the strings in shared memory.

    ``AsyncVectorEnv`` reads its shared buffer *once*, at construction, and returns
    (a deep copy of) that object after every step, relying on it being a view that the
    workers update in place. A tuple of decoded strings would be frozen at its
    construction-time contents — the silent wrong-strings bug of ``spaces.Text``.
    This view decodes on access; ``deepcopy`` (what callers get with ``copy=True``)
    turns it into an ordinary tuple of strings.
    """

    def __init__(self, buffer: np.ndarray):
        self._buffer = buffer

    def __len__(self) -> int:
        return self._buffer.shape[0]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        row = self._buffer[index]
        return row[1 : 1 + int(row[0])].tobytes().decode("utf-32-le", "surrogatepass")

    def __deepcopy__(self, memo) -> tuple[str, ...]:
        return tuple(self)

    def __eq__(self, other) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    def __repr__(self) -> str:
        return f"SharedTextView({tuple(self)!r})"


@read_from_shared_memory.register(UnicodeText)
def _read_unicode_shared_memory(space: UnicodeText, shared_memory, n: int = 1) -> SharedTextView:
    size = space.max_length + 1
    return SharedTextView(np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape(n, size))
