"""The independent reader of ``reader.py``, flattened for the generator's read-back.

The generator reads every text it emits (issue #10); that read-back was the largest
stage of synthesis. This module computes exactly what ``reader.Reader`` computes —
every reading of every sentence, with the same phrase tables, grammar and meanings,
imported from ``reader`` (so it too knows nothing of the generator's words) — with
less interpreter work per sentence:

* only readings that span the whole sentence are combined across joiners;
* task names are found through a dict keyed by their first word, built in one pass
  (the reference builds a trie per case);
* phrase matches are cached per position in lists, memo tables are per rule and keyed
  by position, and the small rules (object, coordination, subordinate clause) are
  inlined where they are used;
* a sentence of letters, commas and semicolons only (no time in it) is split with
  ``str.split`` instead of the tokeniser's regex, a quarter of its cost.

``reader.Reader`` stays the reference: ``tests/constraints/test_reader_fast.py`` checks
that both give the same readings on generated, damaged and hand-written ambiguous text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .reader import (
    _EMPTY,
    _JOIN,
    _MARK,
    _RELS,
    _VERBS,
    EVENT,
    PL,
    SG,
    Atoms,
    Reading,
    _antecedents,
    _phrase_words,
    _relate,
    _tokens,
    read_sentences,
)

# Characters that can be part of no token: a sentence with one is unreadable at once.
_NO_TOKEN = re.compile(r"[^a-z\d:,;\s]")  # \d as the tokeniser's: any Unicode digit
_DIGIT_OR_COLON = re.compile(r"[\d:]")
# the first words of each phrase table: most positions start none, and need no trie walk
_JOIN_FIRST = frozenset(_JOIN.root)
_VERB_FIRST = frozenset(_VERBS.root)
_REL_FIRST = frozenset(_RELS.root)
_MARK_FIRST = frozenset(_MARK.root)


def tokens(text: str) -> tuple[str, ...] | None:
    """``reader._tokens`` (tested equal): a character in no token makes the sentence
    unreadable at once; one without digits or ":" needs no regex to be split."""
    low = text.lower()
    if _NO_TOKEN.search(low):
        return None
    if _DIGIT_OR_COLON.search(low):
        return _tokens(text)
    # letters, "," and ";" between whitespace: the tokens are the letter runs and each "," or ";"
    # (str.split and the tokeniser's \s agree on what whitespace is: Py_UNICODE_ISSPACE)
    return tuple(low.replace(",", " , ").replace(";", " ; ").split())


class FastReader:
    """``reader.Reader`` over the same task names, answering ``read`` the same way."""

    __slots__ = ("_first", "names")

    def __init__(self, names: Iterable[str]):
        self.names = tuple(names)
        first: dict[str, list[tuple[int, tuple[str, ...], str]]] = {}
        for name in self.names:
            words = _phrase_words(name)
            if words:
                first.setdefault(words[0], []).append((len(words), words, name))
        self._first = first

    def read(self, requirement: str) -> Reading:
        return read_sentences(requirement, self.sentence_readings)

    def sentence_readings(self, sentence: str) -> set[Atoms]:
        toks = tokens(sentence.rstrip().rstrip("."))
        if toks is None:
            return set()
        return _Parse(self._first, toks).whole(0)


class _Parse:
    """One sentence: the rules of ``reader._Parse`` with the same results, memoised per rule."""

    __slots__ = ("_clause", "_names", "_np", "_pred", "_rels", "_verbs", "_whole", "first", "n", "t")

    def __init__(self, first: dict, toks: tuple[str, ...]):
        self.t = toks
        self.n = n = len(toks)
        self.first = first
        self._verbs: list = [None] * (n + 1)
        self._rels: list = [None] * (n + 1)
        self._names: list = [None] * (n + 1)
        self._clause: dict[int, list] = {}
        self._np: dict[int, list] = {}
        self._pred: dict[tuple, list] = {}
        self._whole: dict[int, set[Atoms]] = {}

    # lexicon ----------------------------------------------------------------

    def verbs(self, i: int) -> list:
        got = self._verbs[i]
        if got is None:
            got = self._verbs[i] = _VERBS.match(self.t, i) if i < self.n and self.t[i] in _VERB_FIRST else []
        return got

    def rels(self, i: int) -> list:
        got = self._rels[i]
        if got is None:
            got = self._rels[i] = _RELS.match(self.t, i) if i < self.n and self.t[i] in _REL_FIRST else []
        return got

    def names(self, i: int) -> list[tuple[int, str]]:
        got = self._names[i]
        if got is None:
            got = []
            if i < self.n:
                cands = self.first.get(self.t[i])
                if cands:
                    t = self.t
                    for size, words, name in cands:
                        if size == 1 or t[i:i + size] == words:
                            got.append((i + size, name))
            self._names[i] = got
        return got

    # sentence := clause (joiner clause)*: only readings that reach the end are kept

    def whole(self, i: int) -> set[Atoms]:
        got = self._whole.get(i)
        if got is not None:
            return got
        out: set[Atoms] = set()
        n, t = self.n, self.t
        for j, atoms in self.clause(i):
            if j == n:
                out.add(atoms)
                continue
            if t[j] not in _JOIN_FIRST:
                continue
            for k, extras in _JOIN.match(t, j):
                rest = self.whole(k)
                if rest:
                    for extra in extras:  # type: ignore[attr-defined]
                        for more in rest:
                            out.add(atoms | extra | more)
        self._whole[i] = out
        return out

    # clause := [front ","] subject predicate

    def clause(self, i: int) -> list[tuple[int, Atoms]]:
        got = self._clause.get(i)
        if got is not None:
            return got
        out: set[tuple[int, Atoms]] = set()
        t, n = self.t, self.n
        for end, members, number, np_atoms in self.np(i, True):
            for k, _, atoms in self.predicate(end, members, number):
                out.add((k, np_atoms | atoms))
        for j, rel in self.rels(i):
            fronts: list = []  # (end, meaning, object, object's atoms, object's aspect or None)
            for meaning in rel.meanings:
                if rel.prep:
                    for k, obj, obj_atoms in self.obj(j):
                        fronts.append((k, meaning, obj, obj_atoms, EVENT if isinstance(obj, tuple) else None))
                if rel.sc:
                    for k, sub, aspect, sub_atoms in self.sub_clause(j):
                        fronts.append((k, meaning, sub, sub_atoms, aspect))
            for k, meaning, obj, obj_atoms, other in fronts:
                if k < n and t[k] == ",":
                    for end, members, number, srel in self.np(k + 1, True):
                        for m, aspect, verb_atoms in self.predicate(end, members, number):
                            base = srel | verb_atoms | obj_atoms
                            for reading in _relate(members, aspect, meaning, obj, other):
                                out.add((m, base | reading))
        got = self._clause[i] = list(out)
        return got

    def predicate(self, i: int, subj: tuple[str, ...], number: int) -> list:
        key = (i, subj, number)
        got = self._pred.get(key)
        if got is not None:
            return got
        out: set = set()
        for j, verb in self.verbs(i):
            if not verb.number & number:
                continue
            if verb.relations:
                for end, members, _, rel_atoms in self.np(j, False):
                    for rel in verb.relations:
                        for rel_reading in _relate(subj, EVENT, rel, members):
                            out.add((end, EVENT, rel_atoms | rel_reading))
                continue
            rels = self.rels(j)
            for aspect in verb.aspects:
                out.add((j, aspect, _EMPTY))
                for k, rel in rels:
                    for meaning in rel.meanings:
                        if rel.prep:
                            for m, obj, obj_atoms in self.obj(k):
                                for reading in _relate(subj, aspect, meaning, obj):
                                    out.add((m, aspect, obj_atoms | reading))
                        if rel.sc:
                            for m, sub, sub_aspect, sub_atoms in self.sub_clause(k):
                                for reading in _relate(subj, aspect, meaning, sub, sub_aspect):
                                    out.add((m, aspect, sub_atoms | reading))
        got = self._pred[key] = list(out)
        return got

    def sub_clause(self, i: int) -> list:
        """A subject and an intransitive verb ("B is done"): (end, tasks, aspect, atoms)."""
        out = []
        for end, members, number, rel in self.np(i, True):
            for j, verb in self.verbs(end):
                if verb.number & number and not verb.relations:
                    for aspect in verb.aspects:
                        out.append((j, members, aspect, rel))
        return out

    def obj(self, i: int) -> list:
        """A time or a noun phrase: (end, hour or tasks, atoms)."""
        out: list = []
        if i < self.n and ":" in self.t[i]:
            hh, mm = self.t[i].split(":")
            out.append((i + 1, int(hh) + int(mm) / 60 if mm != "00" else int(hh), _EMPTY))
        for end, members, _, rel in self.np(i, False):
            out.append((end, members, rel))
        return out

    # noun phrases -----------------------------------------------------------

    def np(self, i: int, subject: bool) -> list[tuple[int, tuple[str, ...], int, Atoms]]:
        """(end, tasks, number, atoms of a relative clause) for every noun phrase at i."""
        key = 2 * i + subject
        got = self._np.get(key)
        if got is not None:
            return got
        got = []
        t, n = self.t, self.n
        if i >= n or (t[i] != "both" and t[i] not in self.first):  # no task name can start here
            self._np[key] = got
            return got
        for j, members in self.coordination(i):
            number = PL if len(members) > 1 else SG
            got.append((j, members, number, _EMPTY))
            if j + 1 < n and t[j] == "," and t[j + 1] in _MARK_FIRST:
                for k, marker in _MARK.match(t, j + 1):
                    for antecedent in _antecedents(members, marker):
                        ante_number = PL if len(antecedent) > 1 else SG
                        for m, _, atoms in self.predicate(k, antecedent, ante_number):
                            if not atoms:
                                continue
                            if m < n and t[m] == ",":
                                got.append((m + 1, members, number, atoms))
                            if not subject:
                                got.append((m, members, number, atoms))
        self._np[key] = got
        return got

    def coordination(self, i: int) -> list[tuple[int, tuple[str, ...]]]:
        """A; A and B; A, B and C; A, B, and C; both A and B."""
        t, n = self.t, self.n
        got: list[tuple[int, tuple[str, ...]]] = []
        if i < n and t[i] == "both":
            for j, a in self.names(i + 1):
                if j < n and t[j] == "and":
                    for k, b in self.names(j + 1):
                        if b != a:
                            got.append((k, (a, b)))
        for j, first in self.names(i):
            got.append((j, (first,)))
            self._list_rest(j, (first,), got)
        return got

    def _list_rest(self, j: int, names: tuple[str, ...], out: list) -> None:
        t, n = self.t, self.n
        if j >= n:
            return
        tok = t[j]
        if tok == "and":
            for k, last in self.names(j + 1):
                if last not in names:
                    out.append((k, names + (last,)))
        elif tok == ",":
            if len(names) >= 2 and j + 1 < n and t[j + 1] == "and":  # Oxford comma
                for k, last in self.names(j + 2):
                    if last not in names:
                        out.append((k, names + (last,)))
            for k, nxt in self.names(j + 1):
                if nxt not in names:
                    self._list_rest(k, names + (nxt,), out)
