"""Where the text first names each task says nothing about the plan order (issue #11).

Alg. 1 accepts sentences one after another, and a group such as "A and B come before C"
names its members side by side, so the order in which a paragraph first names the tasks
was a valid plan about twice as often as a random order (``shortcut:mention-order``).
A paragraph's meaning does not depend on the order of its sentences, of the sub-sentences
of a sentence (the conjunctions carry no order), of the tasks in a group, or on which side
of a relation is the subject ("A comes before B" / "B comes after A"). This module draws
re-arrangements of that kind and picks one whose first-mention order is a valid plan with
the probability that a uniformly random order is one — chance, case by case where the
arrangements allow it. It uses its own random stream, so synthesis is untouched.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache

from . import draws
from . import vocabulary as V
from .grammar import (
    Clause,
    MultiClause,
    NounPhrase,
    Relative,
    Sentence,
    SubSentence,
    Time,
    derive_part,
)

# a NamedTuple's own __new__ is an interpreted frame even when this module is compiled; tuple.__new__
# on the class builds the same node in about half the time (fields in order, as the class declares them;
# nothing checks their number here: test_fast_paths compares every re-arranged node with the class's build)
_new = tuple.__new__

CANDIDATES = 24  # arrangements drawn per paragraph
MAX_EXACT = 12  # above this many actions the chance of a random order is not computed (no re-arranging)


def _shuffled(group: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    if len(group) == 1:  # shuffling one item draws nothing from the stream: same output, no list
        return group
    out = list(group)
    draws.shuffle(rng, out)
    return tuple(out)


def _np(np: NounPhrase, rng: random.Random) -> NounPhrase:
    rel = np.rel
    if rel is None:
        if len(np.group) == 1:  # nothing to shuffle: the phrase itself (no random draw either way)
            return np
        return _new(NounPhrase, (_shuffled(np.group, rng), None))
    if not isinstance(rel.obj, Time):
        rel = _new(Relative, (rel.before, _shuffled(rel.obj, rng), rel.verb, rel.prep))
    return _new(NounPhrase, (_shuffled(np.group, rng), rel))


def _mirror(part: SubSentence) -> SubSentence | None:
    """The same relation with subject and object exchanged, or None where the grammar has
    no such form (a time object; a fronted or subordinate slot that would get a relative
    clause or three tasks). The mirror states exactly the atoms of the part: exchanging
    the sides and flipping ``before`` gives the same (earlier, later) pairs, and each
    relative clause stays on its own group (``test_mentions`` checks this on every
    sub-sentence of many paragraphs), so ``_variant`` does not derive both to compare."""
    flip = not part.before
    if isinstance(part, Clause):
        if isinstance(part.obj, Time):
            return None
        if part.form == 1:
            verb = part.verb % len(V.order_verbs(flip))
            return _new(Clause, (1, flip, part.obj, part.subj, verb, None))
        assert part.prep is not None  # forms 2 and 3 have a preposition
        prep = part.prep % len(V.preps(flip, False))
        if part.form == 2:
            return _new(Clause, (2, flip, part.obj, part.subj, part.verb, prep))
        if part.subj.rel is not None or len(part.subj.group) > 2:
            return None
        return _new(Clause, (3, flip, part.obj, part.subj, part.verb, prep))
    if part.main.rel is not None or len(part.main.group) > 2:
        return None
    sc = part.sc % len(V.SC_BEFORE if flip else V.SC_AFTER)
    return _new(MultiClause, (part.form, flip, part.sub, part.main, part.main_verb % len(V.VP_NONE),
                              part.sub_verb % len(V.VP_NONE_SUBORDINATE), sc))


def _variant(part: SubSentence, rng: random.Random) -> SubSentence:
    if rng.random() < 0.5:
        mirrored = _mirror(part)
        if mirrored is not None:
            part = mirrored
    # the nodes are built directly (``_replace`` costs several times more); fields in order
    if isinstance(part, Clause):
        obj = part.obj if isinstance(part.obj, Time) else _np(part.obj, rng)  # the object's shuffle first
        subj = _np(part.subj, rng)
        return _new(Clause, (part.form, part.before, subj, obj, part.verb, part.prep))
    main = _np(part.main, rng)
    return _new(MultiClause, (part.form, part.before, main, _np(part.sub, rng), part.main_verb, part.sub_verb,
                              part.sc))


def _arrangement(sentences: Sequence[Sentence], rng: random.Random) -> list[tuple[int, Sentence]]:
    order = list(range(len(sentences)))
    draws.shuffle(rng, order)
    out = []
    for k in order:
        parts = [_variant(p, rng) for p in sentences[k].parts]
        draws.shuffle(rng, parts)
        out.append((k, _new(Sentence, (tuple(parts), sentences[k].conjs))))
    return out


def _np_order(np: NounPhrase, out: list[int]) -> None:
    out.extend(np.group)
    if np.rel is not None and not isinstance(np.rel.obj, Time):
        out.extend(np.rel.obj)


def _part_order(part: SubSentence, out: list[int]) -> None:
    """Actions in the order ``render.part_text`` names them."""
    if isinstance(part, Clause):
        if part.form == 3:  # the fronted object comes first
            if not isinstance(part.obj, Time):
                out.extend(part.obj.group)
            _np_order(part.subj, out)
            return
        _np_order(part.subj, out)
        if not isinstance(part.obj, Time):
            _np_order(part.obj, out)
        return
    if part.form == 2:
        out.extend(part.sub.group)
        _np_order(part.main, out)
        return
    _np_order(part.main, out)
    out.extend(part.sub.group)


def _first_mentions(sentences: Sequence[Sentence], n: int) -> list[int]:
    """Action indices in the order the text first names them (unnamed ones last)."""
    seen: list[int] = []
    for s in sentences:
        for p in s.parts:
            _part_order(p, seen)
    first = list(dict.fromkeys(seen))
    return first + [i for i in range(n) if i not in first]


def _valid(order: Sequence[int], before: Sequence[tuple[int, int]]) -> bool:
    pos = {a: i for i, a in enumerate(order)}
    return all(pos[a] < pos[b] for a, b in before)


def _needs(n: int, before: Sequence[tuple[int, int]]) -> list[int]:
    """Each action's predecessors as a bitmask: bit a of entry b for every (a before b)."""
    need = [0] * n
    for a, b in before:
        need[b] |= 1 << a
    return need


def _mentions_valid(sentences: Sequence[Sentence], need: list[int]) -> bool:
    """``_valid(_first_mentions(sentences, n), before)`` with ``need = _needs(n, before)``, in one
    pass and without the order list, the dict of positions or the search for unnamed actions: an
    order respects every (a before b) when each action comes after all of its predecessors
    (``test_mentions`` compares the two). The innermost check of ``arrange``: 1.9 per case."""
    seen: list[int] = []
    for s in sentences:
        for p in s.parts:
            _part_order(p, seen)
    placed = 0  # bit a: action a is placed
    for a in seen:
        bit = 1 << a
        if not placed & bit:
            if need[a] & ~placed:
                return False
            placed |= bit
    for a in range(len(need)):  # the unnamed ones, last, in index order
        if not placed >> a & 1:
            if need[a] & ~placed:
                return False
            placed |= 1 << a
    return True


@lru_cache(maxsize=65536)
def _random_order_valid(n: int, before: tuple[tuple[int, int], ...]) -> float:
    """The share of the n! orders that respect every (a before b): linear extensions over n!."""
    need = [0] * n
    for a, b in before:
        need[b] |= 1 << a
    ways = [0] * (1 << n)
    ways[0] = 1
    for mask in range(1 << n):
        if ways[mask]:
            for a in range(n):
                if not mask >> a & 1 and need[a] & mask == need[a]:
                    ways[mask | 1 << a] += ways[mask]
    return ways[-1] / math.factorial(n)


def arrange(sentences: list[Sentence], atoms: list[list[list[tuple]]] | None, names: Sequence[str],
            rng: random.Random) -> tuple[list[Sentence], list[list[list[tuple]]] | None]:
    """The paragraph re-arranged (same meaning) so its first mentions are a valid order as
    often as a random order is; atoms are derived again for the re-arranged parts."""
    n = len(names)
    if not sentences or n > MAX_EXACT:
        return sentences, atoms
    if atoms is not None:  # synthesis's own atoms: the same as deriving them from the parts
        pairs = {(a[1], a[2]) for s in atoms for p in s for a in p if a[0] == "order"}
    else:
        pairs = {(a[1], a[2]) for s in sentences for p in s.parts for a in derive_part(p) if a[0] == "order"}
    before = tuple(sorted(pairs))
    want = rng.random() < _random_order_valid(n, before)
    need = _needs(n, before)
    chosen = None
    for _ in range(CANDIDATES):
        arranged = [s for _, s in _arrangement(sentences, rng)]
        if chosen is None:
            chosen = arranged
        if _mentions_valid(arranged, need) is want:
            chosen = arranged
            break
    assert chosen is not None
    new_atoms = [[derive_part(p) for p in s.parts] for s in chosen] if atoms is not None else None
    return chosen, new_atoms
