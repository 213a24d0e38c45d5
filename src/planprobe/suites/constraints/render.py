"""Skeleton → English (the seed's "text filling").

Grammar the output keeps: the first word of a sentence is capitalised, verbs
agree with plural subjects ("A and B come before C"), groups of three read
"A, B and C", two tasks after a fronted task read "both B and C" ("Before A,
both B and C happen": no list "A, B and C" to back out of), a relative clause is set off by commas, names its antecedent's size
("which", "both of which", "all three of which") and its closing comma is merged
with any comma that follows, and every sentence ends with a full stop.

Each piece of text comes with its word count (``word_count``: the case's "words"
difficulty), summed from the counts of the names and terminal words it is built
from, so the generator never scans its whole requirement with a regular
expression. This is exact because every piece is joined to the next by a space,
comma, semicolon or full stop, which no word contains; ``test_render`` compares
the sum with ``word_count`` of the text on many suites.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from . import vocabulary as V
from .grammar import Clause, NounPhrase, Relative, Sentence, SubSentence, Time

_WORD: Final = re.compile(r"[A-Za-z]+|\d{2}:\d{2}")

# The vocabulary's slots as module constants (compiled, each is one load, not a call) and
# picked with if/else: indexing a pair of tables or a (singular, plural) pair by a variable
# makes the compiled build box a fresh tuple every time.
_VP_BEFORE: Final = V.order_verbs(True)
_VP_AFTER: Final = V.order_verbs(False)
_VP_END: Final = V.time_verbs(True)
_VP_FROM: Final = V.time_verbs(False)
_P_BEFORE: Final = V.preps(True, time=False)
_P_AFTER: Final = V.preps(False, time=False)
_PT_BEFORE: Final = V.preps(True, time=True)
_PT_AFTER: Final = V.preps(False, time=True)
_SC_BEFORE: Final = V.SC_BEFORE
_SC_AFTER: Final = V.SC_AFTER
_VP_NONE: Final = V.VP_NONE
_VP_NONE_SUBORDINATE: Final = V.VP_NONE_SUBORDINATE
_CONJUNCTIONS: Final = V.CONJUNCTIONS
_MARKERS: Final = V.RELATIVE_MARKERS
_HOURS: Final = tuple(V.format_hour(h) for h in range(25))

_counts: dict[str, int] = {}  # word_count of names and terminal words seen so far
_MAX_COUNTS = 1 << 16  # names come from a lexicon; a bound in case a caller renders endless new ones


def word_count(text: str) -> int:
    """How many words a text has, as a case's "words" difficulty counts them:
    runs of ASCII letters, and times such as 07:00."""
    return len(_WORD.findall(text))


def _words(piece: str) -> int:
    """``word_count`` of a name or terminal word, remembered (the same few recur in every case)."""
    n = _counts.get(piece)
    if n is None:
        n = word_count(piece)
        if len(_counts) < _MAX_COUNTS:
            _counts[piece] = n
    return n


def hour_text(hour: int) -> str:
    return _HOURS[hour] if 0 <= hour < len(_HOURS) else V.format_hour(hour)


def _group(group: Sequence[int], names: Sequence[str]) -> tuple[str, int]:
    """"A", "A and B" or "A, B and C", and its word count ("and" is one word)."""
    if len(group) == 1:
        name = names[group[0]]
        return name, _words(name)
    words = [names[i] for i in group]
    n = 1
    for w in words:
        n += _words(w)
    return ", ".join(words[:-1]) + " and " + words[-1], n


def group_text(group: Sequence[int], names: Sequence[str]) -> str:
    return _group(group, names)[0]


def _verb(table: tuple[tuple[str, str], ...], index: int, plural: bool) -> str:
    """A verb phrase of a slot, agreeing with its subject."""
    pair = table[index]
    return pair[1] if plural else pair[0]


def _obj(obj: tuple[int, ...] | Time, names: Sequence[str]) -> tuple[str, int]:
    if isinstance(obj, Time):
        text = hour_text(obj.hour)
        return text, _words(text)
    return _group(obj, names)


def _relative(rel: Relative, size: int, names: Sequence[str]) -> tuple[str, int]:
    plural = size > 1
    marker = _MARKERS[size]
    obj, n = _obj(rel.obj, names)
    if rel.prep is None:
        verb = _verb(_VP_BEFORE if rel.before else _VP_AFTER, rel.verb, plural)
        return f"{marker} {verb} {obj}", _words(marker) + _words(verb) + n
    if isinstance(rel.obj, Time):
        verb = _verb(_VP_END if rel.before else _VP_FROM, rel.verb, plural)
        prep = (_PT_BEFORE if rel.before else _PT_AFTER)[rel.prep]
    else:
        verb = _verb(_VP_NONE, rel.verb, plural)
        prep = (_P_BEFORE if rel.before else _P_AFTER)[rel.prep]
    return f"{marker} {verb} {prep} {obj}", _words(marker) + _words(verb) + _words(prep) + n


def _np(np: NounPhrase, names: Sequence[str], closing_comma: bool) -> tuple[str, int]:
    text, n = _group(np.group, names)
    if np.rel is None:
        return text, n
    rel, m = _relative(np.rel, len(np.group), names)
    return (f"{text}, {rel}," if closing_comma else f"{text}, {rel}"), n + m


def _part(part: SubSentence, names: Sequence[str]) -> tuple[str, int]:
    """``part_text`` and its word count."""
    if isinstance(part, Clause):
        plural = len(part.subj.group) > 1
        subj, n = _np(part.subj, names, closing_comma=True)
        time = isinstance(part.obj, Time)
        if isinstance(part.obj, Time):
            obj = hour_text(part.obj.hour)
            m = _words(obj)
        else:
            obj, m = _np(part.obj, names, closing_comma=False)
        if part.form == 1:
            verb = _verb(_VP_BEFORE if part.before else _VP_AFTER, part.verb, plural)
            return f"{subj} {verb} {obj}", n + _words(verb) + m
        assert part.prep is not None  # forms 2 and 3 have a preposition
        if time:
            verb = _verb(_VP_END if part.before else _VP_FROM, part.verb, plural)
            prep = (_PT_BEFORE if part.before else _PT_AFTER)[part.prep]
        else:
            verb = _verb(_VP_NONE, part.verb, plural)
            prep = (_P_BEFORE if part.before else _P_AFTER)[part.prep]
        n += _words(verb) + _words(prep) + m
        if part.form == 2:
            return f"{subj} {verb} {prep} {obj}", n
        if len(part.subj.group) == 2 and not time:  # "before A, B and C happen" first reads as the list "A, B and C"
            return f"{prep} {obj}, both {subj} {verb}", n + 1
        return f"{prep} {obj}, {subj} {verb}", n
    sc = (_SC_BEFORE if part.before else _SC_AFTER)[part.sc]
    main_verb = _verb(_VP_NONE, part.main_verb, len(part.main.group) > 1)
    sub_verb = _verb(_VP_NONE_SUBORDINATE, part.sub_verb, len(part.sub.group) > 1)
    main, n = _np(part.main, names, closing_comma=True)
    sub, m = _np(part.sub, names, closing_comma=True)
    n += m + _words(sc) + _words(main_verb) + _words(sub_verb)
    if part.form == 1:
        return f"{main} {main_verb} {sc} {sub} {sub_verb}", n
    return f"{sc} {sub} {sub_verb}, {main} {main_verb}", n


def part_text(part: SubSentence, names: Sequence[str]) -> str:
    """One sub-sentence, uncapitalised and without final punctuation."""
    return _part(part, names)[0]


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def render_counted(sentence: Sentence, names: Sequence[str]) -> tuple[str, list[tuple[int, int]], int]:
    """``render_sentence`` and the sentence's ``word_count``."""
    first, n = _part(sentence.parts[0], names)
    text = capitalise(first)
    exact = first[:1].isascii()  # upper() may turn a non-ASCII letter into ASCII ones ("ß" -> "SS")
    spans = [(0, len(text))]
    for conj, part in zip(sentence.conjs, sentence.parts[1:]):
        piece, m = _part(part, names)
        joint = _CONJUNCTIONS[conj]
        start = len(text) + len(joint)
        text = f"{text}{joint}{piece}"
        spans.append((start, len(text)))
        n += _words(joint) + m
    text += "."
    return text, spans, n if exact else word_count(text)


def render_sentence(sentence: Sentence, names: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence text, and where each sub-sentence lies in it (start, end offsets)."""
    text, spans, _ = render_counted(sentence, names)
    return text, spans
