"""The independent reader of ``reader.py``, flattened for the generator's read-back.

The generator reads every text it emits (issue #10); that read-back was the largest
stage of synthesis. This module computes exactly what ``reader.Reader`` computes —
every reading of every sentence, with the same phrase tables, grammar and meanings,
imported from ``reader`` (so it too knows nothing of the generator's words) — with
less interpreter work per sentence:

* only readings that span the whole sentence are combined across joiners;
* task names are found through a dict keyed by their first word, built in one pass
  (the reference builds a trie per case);
* phrase matches are cached per position in lists, memo tables are per rule and
  indexed by position, and the small rules (object, coordination, subordinate clause)
  are inlined where they are used;
* an ASCII sentence is split with ``str.split`` instead of the tokeniser's regex; only
  a word that is neither letters, "," / ";" nor a plain time sends it to the regex;
* every value is precisely typed (no ``Any``), so that the mypyc build unpacks tuples
  and reads the phrase tables' fields natively instead of through Python's protocols.

``reader.Reader`` stays the reference: ``tests/constraints/test_reader_fast.py`` checks
that both give the same readings on generated, damaged and hand-written ambiguous text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeVar

from .reader import _EMPTY, _antecedents
from .reader_meaning import _relate
from .reader_phrases import (
    _JOIN,
    _MARK,
    _RELS,
    _VERBS,
    EVENT,
    PL,
    SG,
    Atoms,
    Relation,
    Verb,
    _comma_joint,
    _phrase_words,
    garden_reading,
)
from .reading import Reading, _tokens, read_sentences

# the first words of each phrase table: most positions start none, and need no trie walk
_JOIN_FIRST: Final = frozenset(_JOIN.root)
_VERB_FIRST: Final = frozenset(_VERBS.root)
_REL_FIRST: Final = frozenset(_RELS.root)
_MARK_FIRST: Final = frozenset(_MARK.root)
# ASCII characters that end a token or are one ("," and ";"): what Python's str.split and the
# tokeniser's \s both take for whitespace (Py_UNICODE_ISSPACE), and the two punctuation marks
_ASCII_GAPS: Final = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f,;"
_LETTERS_AND_GAPS: Final = b"abcdefghijklmnopqrstuvwxyz" + _ASCII_GAPS

# a task name's first word -> (words in the name, the name) for every name starting with it
Names = dict[str, list[tuple[int, tuple[str, ...], str]]]
Object = float | tuple[str, ...]  # a relation's object: an hour or tasks


def tokens(text: str) -> tuple[str, ...] | None:
    """``reader._tokens`` (tested equal). An ASCII text of letters, whitespace, "," and ";"
    only is split with ``str.split``; one with digits or ":" too, as long as every word
    with them is a plain time ("7:00", "07:00"); anything else goes to the tokeniser."""
    low = text.lower()
    if not low.isascii():
        return _tokens(text)
    rest = low.encode().translate(None, _LETTERS_AND_GAPS)  # what is neither a letter nor a gap
    toks = tuple(low.replace(",", " , ").replace(";", " ; ").split())
    if rest:
        # digits, ":" or characters in no token: fine when they are exactly the characters of the
        # words with a ":" and each of those is a plain time (then every other word is letters)
        in_times = 0
        for tok in toks:
            if ":" in tok:
                if not _is_time(tok):
                    return _tokens(text)
                in_times += len(tok)
        if in_times != len(rest):
            return _tokens(text)  # "a12:00", "1:000", "x-ray": the tokeniser decides
    return toks


def _is_time(tok: str) -> bool:
    """An ASCII word the tokeniser reads as one time token: one or two digits, ":", two digits."""
    return 4 <= len(tok) <= 5 and tok[-3] == ":" and tok[:-3].isdigit() and tok[-2:].isdigit()


# a task name -> (words in it, its words, the name): the lexicon's names recur from case to case;
# emptied when full, so memory stays bounded whatever the names
_ENTRIES: Final[dict[str, tuple[int, tuple[str, ...], str]]] = {}
_ENTRIES_MAX: Final = 16384


class FastReader:
    """``reader.Reader`` over the same task names, answering ``read`` the same way."""

    __slots__ = ("_first", "names")

    def __init__(self, names: Iterable[str]):
        self.names = tuple(names)
        first: Names = {}
        for name in self.names:
            entry = _ENTRIES.get(name)
            if entry is None:
                if len(_ENTRIES) >= _ENTRIES_MAX:
                    _ENTRIES.clear()
                words = _phrase_words(name)
                entry = _ENTRIES[name] = (len(words), words, name)
            if entry[0]:
                same = first.get(entry[1][0])
                if same is None:
                    first[entry[1][0]] = [entry]
                else:
                    same.append(entry)
        self._first = first

    def read(self, requirement: str) -> Reading:
        return read_sentences(requirement, self.sentence_readings)

    def sentence_readings(self, sentence: str) -> set[Atoms]:
        toks = tokens(sentence.rstrip().rstrip("."))
        if toks is None:
            return set()
        parse = _Parse(self._first, toks)
        readings = parse.whole(0)
        if readings and parse.garden:  # reader.Reader.sentence_readings: a garden path is a second parse
            return readings | {garden_reading(kind) for kind in parse.garden}
        return readings


# what each rule returns, per start position
Verbs = list[tuple[int, Verb]]  # (end, verb)
Rels = list[tuple[int, Relation]]  # (end, relation)
Found = list[tuple[int, str]]  # (end, task name)
Clauses = list[tuple[int, Atoms]]  # (end, atoms)
Preds = list[tuple[int, str, Atoms]]  # (end, aspect of the verb, atoms)
Subs = list[tuple[int, tuple[str, ...], str, Atoms]]  # (end, tasks, aspect, atoms)
Objs = list[tuple[int, Object, Atoms]]  # (end, hour or tasks, atoms)
NPs = list[tuple[int, tuple[str, ...], int, Atoms]]  # (end, tasks, number, atoms of a relative clause)
Coords = list[tuple[int, tuple[str, ...]]]  # (end, tasks)
# what most positions start: one shared empty list per rule, never appended to (a new list per
# position and rule was a third of the lists a sentence allocates)
_NO_VERBS: Final[Verbs] = []
_NO_RELS: Final[Rels] = []
_NO_NAMES: Final[Found] = []
_NO_NPS: Final[NPs] = []


T = TypeVar("T")


def _put(out: list[T], item: T) -> None:
    """Append unless already there: the rules' results stay duplicate-free, as sets would keep
    them, without a set per call and the list made from it (the lists hold one to three items)."""
    if item not in out:
        out.append(item)


class _Parse:
    """One sentence: the rules of ``reader._Parse`` with the same results, memoised per rule."""

    __slots__ = ("_clause", "_names", "_np_obj", "_np_subj", "_obj", "_pred", "_sub", "_whole", "first", "garden",
                 "n", "t")

    def __init__(self, first: Names, toks: tuple[str, ...]):
        self.t = toks
        self.n = n = len(toks)
        self.first = first
        self._names: list[Found | None] = [None] * (n + 1)
        self._clause: list[Clauses | None] = [None] * (n + 1)
        self._np_subj: list[NPs | None] = [None] * (n + 1)
        self._np_obj: list[NPs | None] = [None] * (n + 1)
        self._whole: list[set[Atoms] | None] = [None] * (n + 1)
        self._obj: list[Objs | None] = [None] * (n + 1)
        self._sub: list[Subs | None] = [None] * (n + 1)
        self._pred: list[dict[tuple[str, ...], Preds] | None] = [None] * (n + 1)
        self.garden: set[str] = set()  # reader._Parse.garden: kinds of garden path met

    # lexicon ----------------------------------------------------------------

    # (verbs and relations are looked up again when asked again: on generated text a position is
    # almost never asked twice, and a memo table per sentence cost more than it saved)

    def verbs(self, i: int) -> Verbs:
        return _VERBS.match(self.t, i) if i < self.n and self.t[i] in _VERB_FIRST else _NO_VERBS

    def rels(self, i: int) -> Rels:
        return _RELS.match(self.t, i) if i < self.n and self.t[i] in _REL_FIRST else _NO_RELS

    def names(self, i: int) -> Found:
        got = self._names[i]
        if got is None:
            got = _NO_NAMES
            cands = self.first.get(self.t[i]) if i < self.n else None
            if cands:
                t, n = self.t, self.n
                for size, words, name in cands:
                    if i + size > n:
                        continue
                    k = 1
                    while k < size and t[i + k] == words[k]:  # no slice of t to compare
                        k += 1
                    if k == size:
                        if got is _NO_NAMES:
                            got = []
                        got.append((i + size, name))
            self._names[i] = got
        return got

    # sentence := clause (joiner clause)*: only readings that reach the end are kept

    def whole(self, i: int) -> set[Atoms]:
        got = self._whole[i]
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
                if _comma_joint(t[j:k]) and self.opens_with_relation(k):
                    self.garden.add("bound")
                rest = self.whole(k)
                if rest:
                    for extra in extras:
                        for more in rest:
                            out.add((atoms | more) if not extra else (atoms | extra | more))
        self._whole[i] = out
        return out

    # clause := [front ","] subject predicate

    def clause(self, i: int) -> Clauses:
        got = self._clause[i]
        if got is not None:
            return got
        out: Clauses = []
        t, n = self.t, self.n
        for end, members, number, np_atoms in self.np(i, True):
            for k, _, atoms in self.predicate(end, members, number):
                _put(out, (k, (np_atoms | atoms) if np_atoms else atoms))
        # (end, meaning, object, object's atoms, object's aspect or None) of every fronted phrase at i
        fronts: list[tuple[int, str, Object, Atoms, str | None]] = []
        for j, rel in self.rels(i):
            for meaning in rel.meanings:
                if rel.prep:
                    for k, obj, obj_atoms in self.obj(j):
                        fronts.append((k, meaning, obj, obj_atoms, EVENT if isinstance(obj, tuple) else None))
                if rel.sc:
                    for k, sub, aspect, sub_atoms in self.sub_clause(j):
                        fronts.append((k, meaning, sub, sub_atoms, aspect))
        if fronts:
            furthest = max([front[0] for front in fronts])
            for k, meaning, obj, obj_atoms, other in fronts:
                if k < n and t[k] == ",":
                    for end, members, number, srel in self.np(k + 1, True):
                        for m, aspect, verb_atoms in self.predicate(end, members, number):
                            if furthest > k:  # reader._Parse.clause: the object could run on as a list
                                self.garden.add("list")
                            base = (srel | verb_atoms | obj_atoms) if srel or verb_atoms or obj_atoms else _EMPTY
                            for reading in _relate(members, aspect, meaning, obj, other):
                                _put(out, (m, (base | reading) if base else reading))
        self._clause[i] = out
        return out

    def opens_with_relation(self, i: int) -> bool:
        """``reader._Parse.opens_with_relation``: a relation with its object or clause starts at i."""
        for j, rel in self.rels(i):
            if (rel.prep and self.obj(j)) or (rel.sc and self.sub_clause(j)):
                return True
        return False

    def predicate(self, i: int, subj: tuple[str, ...], number: int) -> Preds:
        """(``number`` is that of ``subj``, so the subject alone keys the memo at i.)"""
        memo = self._pred[i]
        if memo is None:
            memo = self._pred[i] = {}
        else:
            got = memo.get(subj)
            if got is not None:
                return got
        out: Preds = []
        for j, verb in self.verbs(i):
            if not verb.number & number:
                continue
            if verb.relations:
                for end, members, _, rel_atoms in self.np(j, False):
                    for relation in verb.relations:
                        for rel_reading in _relate(subj, EVENT, relation, members):
                            _put(out, (end, EVENT, (rel_atoms | rel_reading) if rel_atoms else rel_reading))
                continue
            rels = self.rels(j)
            for aspect in verb.aspects:
                _put(out, (j, aspect, _EMPTY))
                for k, rel in rels:
                    for meaning in rel.meanings:
                        if rel.prep:
                            for m, obj, obj_atoms in self.obj(k):
                                for reading in _relate(subj, aspect, meaning, obj):
                                    _put(out, (m, aspect, (obj_atoms | reading) if obj_atoms else reading))
                        if rel.sc:
                            for m, sub, sub_aspect, sub_atoms in self.sub_clause(k):
                                for reading in _relate(subj, aspect, meaning, sub, sub_aspect):
                                    _put(out, (m, aspect, (sub_atoms | reading) if sub_atoms else reading))
        memo[subj] = out
        return out

    def sub_clause(self, i: int) -> Subs:
        """A subject and an intransitive verb ("B is done"): (end, tasks, aspect, atoms)."""
        out = self._sub[i]
        if out is not None:
            return out
        out = []
        for end, members, number, rel in self.np(i, True):
            for j, verb in self.verbs(end):
                if verb.number & number and not verb.relations:
                    for aspect in verb.aspects:
                        out.append((j, members, aspect, rel))
        self._sub[i] = out
        return out

    def obj(self, i: int) -> Objs:
        """A time or a noun phrase: (end, hour or tasks, atoms)."""
        out = self._obj[i]
        if out is not None:
            return out
        out = []
        if i < self.n and ":" in self.t[i]:
            hh, mm = self.t[i].split(":")
            out.append((i + 1, int(hh) + int(mm) / 60 if mm != "00" else int(hh), _EMPTY))
        for end, members, _, rel in self.np(i, False):
            out.append((end, members, rel))
        self._obj[i] = out
        return out

    # noun phrases -----------------------------------------------------------

    def np(self, i: int, subject: bool) -> NPs:
        """(end, tasks, number, atoms of a relative clause) for every noun phrase at i."""
        memo = self._np_subj if subject else self._np_obj
        got = memo[i]
        if got is not None:
            return got
        t, n = self.t, self.n
        if i >= n or (t[i] != "both" and t[i] not in self.first):  # no task name can start here
            memo[i] = _NO_NPS
            return _NO_NPS
        got = []
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
        memo[i] = got
        return got

    def coordination(self, i: int) -> Coords:
        """A; A and B; A, B and C; A, B, and C; both A and B."""
        t, n = self.t, self.n
        got: Coords = []
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

    def _list_rest(self, j: int, names: tuple[str, ...], out: Coords) -> None:
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
