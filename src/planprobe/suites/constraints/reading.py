"""A requirement as the independent readers (``reader``, ``reader_fast``) take it in: the paragraph of
a task text, its sentences, their tokens, and how the readings of each sentence add up to the
requirement's ``Reading`` (one way for both readers to count a sentence as unparsed, ambiguous or read).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from .reader_phrases import Atoms

# A token, or (last alternative) any other visible character: one left over makes the text
# unreadable. One pass yields the tokens and shows the leftovers as one-character tokens
# that are neither a letter nor "," / ";".
_TOKEN_OR_OTHER: Final = re.compile(r"\d{1,2}:\d{2}|[a-z]+|[,;]|\S")
_ONE_CHAR_TOKENS: Final = frozenset("abcdefghijklmnopqrstuvwxyz,;")


@dataclass
class Reading:
    atoms: frozenset = frozenset()
    unparsed: list[str] = field(default_factory=list)  # sentences with no reading
    ambiguous: list[str] = field(default_factory=list)  # sentences with several different readings
    readings: list[set] = field(default_factory=list)  # every reading of each sentence, in order

    @property
    def ok(self) -> bool:
        return not self.unparsed and not self.ambiguous


def read_sentences(requirement: str, sentence_readings: Callable[[str], set[Atoms]]) -> Reading:
    """A requirement's Reading from each sentence's readings: one way for both readers (this
    reference one and reader_fast's) to count a sentence as unparsed, ambiguous or read."""
    result = Reading()
    atoms: set = set()
    for sentence in split_sentences(requirement):
        readings = sentence_readings(sentence)
        result.readings.append(readings)
        if not readings:
            result.unparsed.append(sentence)
        elif len(readings) > 1:
            result.ambiguous.append(sentence)
        else:
            atoms |= next(iter(readings))
    result.atoms = frozenset(atoms)
    return result


def _tokens(text: str) -> tuple[str, ...] | None:
    """Lower-case tokens; None when the text has characters the reader cannot read."""
    toks = _TOKEN_OR_OTHER.findall(text.lower())
    for tok in toks:
        if len(tok) == 1 and tok not in _ONE_CHAR_TOKENS:
            return None
    return tuple(toks)


def split_sentences(text: str) -> list[str]:
    return [s.strip() + "." for s in re.split(r"\.(?:\s+|$)", text.strip()) if s.strip()]


def requirement_of(task: str) -> str:
    """The requirement paragraph of a constraint case's task text."""
    marker = "Here is the requirement:"
    k = task.rfind(marker)
    return task[k + len(marker):].strip() if k >= 0 else task
