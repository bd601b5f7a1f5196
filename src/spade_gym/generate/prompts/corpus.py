"""Grounding corpora: documents designs are grounded in, one drawn fresh for every design."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from spade_gym.errors import ConfigError


@dataclass
class GroundingCorpus:
    """Documents that designs are grounded in, one drawn fresh for every design.

    Grounding keeps a long self-play run from collapsing onto a few favourite games:
    each prompt brings a different concept from the outside world.
    """

    documents: list[str]
    max_words: int = 3000
    #: Lines of the source file that held no usable document (blank, bad JSON, no text).
    skipped: int = 0

    def __post_init__(self) -> None:
        if not self.documents:
            raise ConfigError("a grounding corpus needs at least one document")
        if self.max_words < 1:
            raise ConfigError(f"max_words must be at least 1, got {self.max_words}")

    @classmethod
    def from_jsonl(cls, path: str | Path, max_words: int = 3000) -> GroundingCorpus:
        """Read a JSONL file whose lines are objects with a ``text`` field.

        Unusable lines are counted in :attr:`skipped` rather than fatal, since corpora
        scraped from the web always have a few; a file without a single usable document
        is a configuration mistake and raises :class:`ConfigError`.
        """
        path = Path(path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"cannot read grounding corpus {path}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"grounding corpus {path} is not UTF-8 text: {exc}") from exc
        documents: list[str] = []
        skipped = 0
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                skipped += 1
                continue
            text = record.get("text") if isinstance(record, dict) else None
            if isinstance(text, str) and text.strip():
                documents.append(text.strip())
            else:
                skipped += 1
        if not documents:
            raise ConfigError(
                f"grounding corpus {path} has no usable document ({skipped} line(s) skipped); "
                'expected one JSON object per line with a non-empty "text" field, e.g. '
                '{"text": "Ferries cross the river every 40 minutes..."}'
            )
        return cls(documents, max_words=max_words, skipped=skipped)

    def sample(self, rng: random.Random) -> str:
        """Draw one document uniformly, truncated to :attr:`max_words` words."""
        return _truncate_words(rng.choice(self.documents), self.max_words)


def _truncate_words(text: str, max_words: int) -> str:
    """Cut ``text`` after ``max_words`` whitespace-separated words, keeping its layout."""
    for count, match in enumerate(re.finditer(r"\S+", text), start=1):
        if count == max_words:
            rest = text[match.end():]
            if rest.strip():
                return f"{text[:match.end()]}\n[document truncated at {max_words} words]"
            break
    return text
