"""Connective words: which words of a requirement carry its order and time relations.

Error dissection and error anatomy need to name a *word* as the cause of failures
(issue #26, item 17: an agent that misreads only "after"). The grammar stores each
relation's wording as an index into a slot of ``vocabulary`` (``VP<``, ``P>``,
``PT<``, ``SC>`` …); every alternative of a slot has the same meaning. This module
reads those slots off a skeleton — it renders nothing and changes no grammar:

* ``connective_words(phrase)`` — the words of a relational phrase that carry its
  relation ("comes after" → comes, after; "at the latest by" → latest, by): the
  phrase's words minus generic verbs (those of ``VP_NONE``, "is carried out") and
  function words ("of", "than", "at" …), which occur in both directions alike;
* ``worded_atoms(part)`` — each atom a sub-sentence states, with the connective
  words of the phrase that stated it (for anatomy);
* ``without_word(sentence, word, rng)`` — the same sentence with every relational
  phrase that contains ``word`` replaced by another alternative of its slot that does
  not, changing as few words as the slot allows (the minimal pair of the Phrasing
  stage of dissection: "only after" loses "only", not "after").
"""

from __future__ import annotations

import random
from typing import Final

from . import vocabulary as V
from .grammar import (
    Atom,
    Clause,
    MultiClause,
    NounPhrase,
    Relative,
    Sentence,
    SubSentence,
    Time,
    _relate,
)

_GENERIC: Final = frozenset(w for pair in V.VP_NONE for form in pair for w in form.split())
_FUNCTION: Final = frozenset({"a", "the", "of", "to", "than", "or", "at", "in", "some", "point", "time", "moment"})


def _tokens(phrase: str) -> tuple[str, ...]:
    return tuple(phrase.lower().split())


def connective_words(phrase: str) -> tuple[str, ...]:
    """The words of a relational phrase that carry its relation, in order, each once."""
    out: list[str] = []
    for w in _tokens(phrase):
        if w not in _GENERIC and w not in _FUNCTION and w not in out:
            out.append(w)
    return tuple(out)


# -- reading the relational slots of a skeleton ---------------------------------------
# A slot as (its alternatives as rendered text, the index used): verb slots are rendered
# singular or plural by the subject's size.


def _verb_texts(table: tuple[tuple[str, str], ...], plural: bool) -> tuple[str, ...]:
    return tuple(pair[1] if plural else pair[0] for pair in table)


def _rel_slot(rel: Relative, size: int) -> tuple[tuple[str, ...], int]:
    if rel.prep is None:
        return _verb_texts(V.order_verbs(rel.before), size > 1), rel.verb
    return V.preps(rel.before, isinstance(rel.obj, Time)), rel.prep


def _clause_slot(part: Clause) -> tuple[tuple[str, ...], int]:
    if part.form == 1:
        return _verb_texts(V.order_verbs(part.before), len(part.subj.group) > 1), part.verb
    assert part.prep is not None  # forms 2 and 3 have a preposition
    return V.preps(part.before, isinstance(part.obj, Time)), part.prep


def _multi_slot(part: MultiClause) -> tuple[tuple[str, ...], int]:
    return (V.SC_BEFORE if part.before else V.SC_AFTER), part.sc


def worded_atoms(part: SubSentence) -> list[tuple[Atom, tuple[str, ...]]]:
    """The atoms of ``grammar.derive_part``, each with the connective words of the phrase
    that states it."""
    out: list[tuple[Atom, tuple[str, ...]]] = []

    def add(texts: tuple[str, ...], index: int, group: tuple[int, ...], before: bool, obj) -> None:
        atoms: list[Atom] = []
        _relate(group, before, obj, atoms)
        words = connective_words(texts[index])
        out.extend((a, words) for a in atoms)

    def rel(np: NounPhrase) -> None:
        if np.rel is not None:
            add(*_rel_slot(np.rel, len(np.group)), np.group, np.rel.before, np.rel.obj)

    if isinstance(part, Clause):
        rel(part.subj)
        obj = part.obj if isinstance(part.obj, Time) else part.obj.group
        add(*_clause_slot(part), part.subj.group, part.before, obj)
        if not isinstance(part.obj, Time):
            rel(part.obj)
    else:
        rel(part.main)
        rel(part.sub)
        add(*_multi_slot(part), part.main.group, part.before, part.sub.group)
    return out


def sentence_words(sentence: Sentence) -> set[str]:
    """Every connective word the sentence says."""
    return {w for part in sentence.parts for _, words in worded_atoms(part) for w in words}


# -- the minimal pair: the same sentence without one word ------------------------------


def _replacement(texts: tuple[str, ...], index: int, word: str, rng: random.Random) -> int | None:
    """Another alternative of the slot without ``word`` and with the fewest words changed;
    ``index`` itself when its phrase lacks the word; None when every alternative has it."""
    if word not in connective_words(texts[index]):
        return index
    own = set(_tokens(texts[index]))
    options = [j for j, t in enumerate(texts) if word not in connective_words(t)]
    if not options:
        return None
    best = min(len(own ^ set(_tokens(texts[j]))) for j in options)
    return rng.choice([j for j in options if len(own ^ set(_tokens(texts[j]))) == best])


def _np_without(np: NounPhrase, word: str, rng: random.Random) -> NounPhrase | None:
    if np.rel is None:
        return np
    texts, index = _rel_slot(np.rel, len(np.group))
    j = _replacement(texts, index, word, rng)
    if j is None:
        return None
    rel = np.rel._replace(verb=j) if np.rel.prep is None else np.rel._replace(prep=j)
    return np._replace(rel=rel)


def _part_without(part: SubSentence, word: str, rng: random.Random) -> SubSentence | None:
    if isinstance(part, Clause):
        subj = _np_without(part.subj, word, rng)
        obj = part.obj if isinstance(part.obj, Time) else _np_without(part.obj, word, rng)
        j = _replacement(*_clause_slot(part), word, rng)
        if subj is None or obj is None or j is None:
            return None
        if part.form == 1:
            return part._replace(subj=subj, obj=obj, verb=j)
        return part._replace(subj=subj, obj=obj, prep=j)
    main, sub = _np_without(part.main, word, rng), _np_without(part.sub, word, rng)
    j = _replacement(*_multi_slot(part), word, rng)
    if main is None or sub is None or j is None:
        return None
    return part._replace(main=main, sub=sub, sc=j)


def without_word(sentence: Sentence, word: str, rng: random.Random) -> Sentence | None:
    """The sentence with ``word`` reworded away (see the module doc); None when some slot
    has no alternative without it."""
    parts = []
    for part in sentence.parts:
        new = _part_without(part, word, rng)
        if new is None:
            return None
        parts.append(new)
    return sentence._replace(parts=tuple(parts))
