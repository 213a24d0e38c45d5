"""Skeleton → English (the seed's "text filling").

Grammar the output keeps: the first word of a sentence is capitalised, verbs
agree with plural subjects ("A and B come before C"), groups of three read
"A, B and C", a relative clause is set off by commas, names its antecedent's size
("which", "both of which", "all three of which") and its closing comma is merged
with any comma that follows, and every sentence ends with a full stop.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import vocabulary as V
from .grammar import Clause, NounPhrase, Relative, Sentence, SubSentence, Time


def group_text(group: Sequence[int], names: Sequence[str]) -> str:
    words = [names[i] for i in group]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def _obj_text(obj: tuple[int, ...] | Time, names: Sequence[str]) -> str:
    return V.format_hour(obj.hour) if isinstance(obj, Time) else group_text(obj, names)


def _relative_text(rel: Relative, size: int, names: Sequence[str]) -> str:
    plural = int(size > 1)
    marker = V.RELATIVE_MARKERS[size]
    if rel.prep is None:
        verb = V.order_verbs(rel.before)[rel.verb][plural]
        return f"{marker} {verb} {_obj_text(rel.obj, names)}"
    time = isinstance(rel.obj, Time)
    verb = (V.time_verbs(rel.before) if time else V.VP_NONE)[rel.verb][plural]
    prep = V.preps(rel.before, time)[rel.prep]
    return f"{marker} {verb} {prep} {_obj_text(rel.obj, names)}"


def _np_text(np: NounPhrase, names: Sequence[str], closing_comma: bool) -> str:
    text = group_text(np.group, names)
    if np.rel is None:
        return text
    text += ", " + _relative_text(np.rel, len(np.group), names)
    return text + "," if closing_comma else text


def part_text(part: SubSentence, names: Sequence[str]) -> str:
    """One sub-sentence, uncapitalised and without final punctuation."""
    if isinstance(part, Clause):
        plural = int(len(part.subj.group) > 1)
        subj = _np_text(part.subj, names, closing_comma=True)
        time = isinstance(part.obj, Time)
        if isinstance(part.obj, Time):
            obj = V.format_hour(part.obj.hour)
        else:
            obj = _np_text(part.obj, names, closing_comma=False)
        preps = V.preps(part.before, time)
        if part.form == 1:
            verb = V.order_verbs(part.before)[part.verb][plural]
            return f"{subj} {verb} {obj}"
        verb = (V.time_verbs(part.before) if time else V.VP_NONE)[part.verb][plural]
        assert part.prep is not None  # forms 2 and 3 have a preposition
        if part.form == 2:
            return f"{subj} {verb} {preps[part.prep]} {obj}"
        return f"{preps[part.prep]} {obj}, {subj} {verb}"
    main_plural = int(len(part.main.group) > 1)
    sub_plural = int(len(part.sub.group) > 1)
    sc = (V.SC_BEFORE if part.before else V.SC_AFTER)[part.sc]
    main_verb = V.VP_NONE[part.main_verb][main_plural]
    sub_verb = V.VP_NONE_SUBORDINATE[part.sub_verb][sub_plural]
    main = _np_text(part.main, names, closing_comma=True)
    sub = _np_text(part.sub, names, closing_comma=True)
    if part.form == 1:
        return f"{main} {main_verb} {sc} {sub} {sub_verb}"
    return f"{sc} {sub} {sub_verb}, {main} {main_verb}"


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def render_sentence(sentence: Sentence, names: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence text, and where each sub-sentence lies in it (start, end offsets)."""
    parts = [part_text(p, names) for p in sentence.parts]
    parts[0] = capitalise(parts[0])
    text = parts[0]
    spans = [(0, len(text))]
    for conj, part in zip(sentence.conjs, parts[1:]):
        text += V.CONJUNCTIONS[conj]
        spans.append((len(text), len(text) + len(part)))
        text += part
    return text + ".", spans
