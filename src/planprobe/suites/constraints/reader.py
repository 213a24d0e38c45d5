"""An independent English reader of requirement paragraphs: every reading, not one.

PDoctor's oracle is only as good as the claim that a requirement's text means
exactly the constraints the case stores. This module checks that claim the way a
careful English reader would, knowing nothing of how the text was generated: it
does not import the generator's word lists, grammar or renderer. It has its own
table of English phrases and what they mean (``reader_phrases``: ``_VERBS``, ``_RELS``,
``_JOINERS``), much larger than what the generator says, including phrases whose
meaning is ambiguous, and a permissive grammar of English that **enumerates
every reading** a reader could take:

* a relative clause after a coordination ("A and B, which …") may be about the
  last task or the whole group; number agreement and markers such as "both of
  which" decide when they can;
* a fronted phrase ("Before A, B and C happen, …") may end at any comma, and two
  clauses may be joined by a bare comma (a comma splice), so garden paths show
  up as a second complete reading;
* a garden path a careful reader backs out of counts as a second parse too
  (``GARDEN_PATHS``): a fronted phrase whose object could run on over its comma
  as a list ("earlier than A, B and C should be performed": is "A, B and C" the
  object?), and a clause opening with a relation after a comma-joined clause
  ("A happens before B, and later than C is performed, D happens": "and later
  than C" first reads as a second bound on A);
* a coordination may be "A, B and C", "A, B, and C" or "both A and B";
* verbs carry an aspect — the whole task ("happens"), its start ("begins") or
  its end ("is completed"); "is done" may be either — and a relation compares
  the points the aspects name: "completed at or after 17:00" bounds the end,
  "begins no earlier than 10:00" the start, "happens before 15:00" is read both
  as the whole task ending by 15:00 and as it starting before 15:00.

Meanings are atoms over task names: ``("order", a, b)`` (a ends by the time b
starts), ``("start_ge", a, h)``, ``("end_le", a, h)``, and atoms that no case
stores — ``start_gt``, ``end_lt``, ``gap`` (a strict gap between tasks),
``immediately``, ``while`` … — for strict, point-wise or other readings; any of
those in a reading makes it differ from the case's constraints.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Final

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
    _comma_joint,
    _Phrases,
    garden_reading,
)
from .reading import Reading, _tokens, read_sentences

# The phrase table is in reader_phrases, what a relation means in reader_meaning, and a requirement's
# sentences, tokens and Reading in reading; this module is the grammar that enumerates the readings.


class _NP:
    """A noun phrase as parsed: its tasks, number and the readings of its relative clause."""

    __slots__ = ("end", "members", "number", "rel")

    def __init__(self, end: int, members: tuple[str, ...], number: int, rel: Atoms):
        self.end, self.members, self.number, self.rel = end, members, number, rel


class Reader:
    """Reads requirement text over a known list of task names (what the task text lists)."""

    def __init__(self, names: Iterable[str]):
        self.names = tuple(names)
        self._acts = _Phrases((n, n) for n in self.names)

    # -- entry points -------------------------------------------------------

    def read(self, requirement: str) -> Reading:
        return read_sentences(requirement, self.sentence_readings)

    def sentence_readings(self, sentence: str) -> set[Atoms]:
        toks = _tokens(sentence.rstrip().rstrip("."))
        if toks is None:
            return set()
        parse = _Parse(self, toks)
        readings = {atoms for j, atoms in parse.sentence(0) if j == len(toks)}
        if readings:  # a garden path is a second parse of a sentence that has a first
            readings |= {garden_reading(kind) for kind in parse.garden}
        return readings

    def read_part(self, text: str) -> set[Atoms]:
        """Every reading of one clause read alone (a clause as evidence quotes it)."""
        toks = _tokens(text)
        if toks is None:
            return set()
        return {atoms for j, atoms in _Parse(self, toks).clause(0) if j == len(toks)}


class _Parse:
    """One sentence's parse: recursive descent over tokens, memoised by position,
    returning (end, atoms) for every way a part can be read."""

    def __init__(self, reader: Reader, toks: tuple[str, ...]):
        self.t = toks
        self.n = len(toks)
        self.acts = reader._acts
        self.memo: dict[tuple, list] = {}
        self._verbs: dict[int, list] = {}
        self._rels: dict[int, list] = {}
        self.garden: set[str] = set()  # kinds of garden path met where a clause can start

    def verbs(self, i: int) -> list:
        got = self._verbs.get(i)
        if got is None:
            got = self._verbs[i] = _VERBS.match(self.t, i)
        return got

    def rels(self, i: int) -> list:
        got = self._rels.get(i)
        if got is None:
            got = self._rels[i] = _RELS.match(self.t, i)
        return got

    def comma(self, i: int) -> bool:
        return i < self.n and self.t[i] == ","

    # sentence := clause (joiner clause)*
    def sentence(self, i: int) -> list[tuple[int, Atoms]]:
        key = ("s", i)
        got = self.memo.get(key)
        if got is None:
            out = set()
            for j, atoms in self.clause(i):
                out.add((j, atoms))
                for k, extras in _JOIN.match(self.t, j):
                    if _comma_joint(self.t[j:k]) and self.opens_with_relation(k):
                        self.garden.add("bound")  # "A happens before B, and after C …": a bound on A?
                    for extra in extras:
                        for m, more in self.sentence(k):
                            out.add((m, atoms | extra | more))
            got = self.memo[key] = list(out)
        return got

    # clause := [front ","] subject predicate
    def clause(self, i: int) -> list[tuple[int, Atoms]]:
        key = ("c", i)
        got = self.memo.get(key)
        if got is None:
            out = set()
            for subj in self.np(i, True):
                for k, _, atoms in self.predicate(subj.end, subj.members, subj.number):
                    out.add((k, subj.rel | atoms))
            fronts = self.front(i)
            furthest = max((j for j, _ in fronts), default=i)
            for j, front in fronts:
                if self.comma(j):
                    for subj in self.np(j + 1, True):
                        for k, aspect, verb_atoms in self.predicate(subj.end, subj.members, subj.number):
                            if furthest > j:  # "before A, B and C happen": A alone, or the list?
                                self.garden.add("list")
                            for meaning in front(subj.members, aspect):
                                out.add((k, subj.rel | verb_atoms | meaning))
            got = self.memo[key] = list(out)
        return got

    def opens_with_relation(self, i: int) -> bool:
        """Whether a relation with its object or clause starts at i ("later than C", "once C is done")."""
        for j, rel in self.rels(i):
            if (rel.prep and self.obj(j)) or (rel.sc and self.sub_clause(j)):
                return True
        return False

    def front(self, i: int) -> list:
        """A fronted phrase: "before B", "by 15:00", "once B is done". Returns (end, f) where
        f(subject, aspect) gives the readings of the relation with the main clause."""
        out = []
        for j, rel in self.rels(i):
            for meaning in rel.meanings:
                if rel.prep:
                    for k, obj, obj_atoms in self.obj(j):
                        out.append((k, _fronted(meaning, obj, obj_atoms, EVENT)))
                if rel.sc:
                    for k, sub, aspect, sub_atoms in self.sub_clause(j):
                        out.append((k, _fronted(meaning, sub, sub_atoms, aspect)))
        return out

    def predicate(self, i: int, subj: tuple[str, ...], number: int) -> list:
        """verb [relation object] | verb [relation clause] | transitive-verb object.
        Returns (end, aspect of the verb, atoms); a bare verb says nothing by itself."""
        key = ("p", i, subj, number)
        got = self.memo.get(key)
        if got is not None:
            return got
        out = set()
        for j, verb in self.verbs(i):
            if not verb.number & number:
                continue
            if verb.relations:
                for obj_np in self.np(j, False):
                    for rel in verb.relations:
                        for rel_reading in _relate(subj, EVENT, rel, obj_np.members):
                            out.add((obj_np.end, EVENT, obj_np.rel | rel_reading))
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
        got = self.memo[key] = list(out)
        return got

    def sub_clause(self, i: int) -> list:
        """A subordinate clause: subject and intransitive verb ("B is done")."""
        key = ("sub", i)
        got = self.memo.get(key)
        if got is None:
            got = []
            for np in self.np(i, True):
                for j, verb in self.verbs(np.end):
                    if verb.number & np.number and not verb.relations:
                        for aspect in verb.aspects:
                            got.append((j, np.members, aspect, np.rel))
            self.memo[key] = got
        return got

    def obj(self, i: int) -> list:
        """The object of a relation: a time, or a noun phrase. (end, hour or tasks, atoms)."""
        key = ("o", i)
        got = self.memo.get(key)
        if got is None:
            got = []
            if i < self.n and ":" in self.t[i]:
                hh, mm = self.t[i].split(":")
                got.append((i + 1, int(hh) + int(mm) / 60 if mm != "00" else int(hh), _EMPTY))
            for np in self.np(i, False):
                got.append((np.end, np.members, np.rel))
            self.memo[key] = got
        return got

    # noun phrases ---------------------------------------------------------

    def np(self, i: int, subject: bool) -> list[_NP]:
        """A coordination, optionally with a relative clause (closed by a comma in subject position)."""
        key = ("np", i, subject)
        got = self.memo.get(key)
        if got is not None:
            return got
        got = []
        t = self.t
        for j, members in self.coordination(i):
            number = PL if len(members) > 1 else SG
            got.append(_NP(j, members, number, _EMPTY))
            if self.comma(j):
                for k, marker in _MARK.match(t, j + 1):
                    for antecedent in _antecedents(members, marker):
                        ante_number = PL if len(antecedent) > 1 else SG
                        for m, _, atoms in self.predicate(k, antecedent, ante_number):
                            if not atoms:
                                continue  # "A, which happens, …" says nothing
                            if self.comma(m):
                                got.append(_NP(m + 1, members, number, atoms))
                            if not subject:
                                got.append(_NP(m, members, number, atoms))
        self.memo[key] = got
        return got

    def coordination(self, i: int) -> list[tuple[int, tuple[str, ...]]]:
        """A; A and B; A, B and C; A, B, and C; both A and B."""
        key = ("co", i)
        got = self.memo.get(key)
        if got is not None:
            return got
        t, got = self.t, []
        if i < self.n and t[i] == "both":
            for j, a in self.acts.match(t, i + 1):
                if j < self.n and t[j] == "and":
                    for k, b in self.acts.match(t, j + 1):
                        if b != a:
                            got.append((k, (a, b)))
        for j, first in self.acts.match(t, i):
            got.append((j, (first,)))
            got.extend(self._list_rest(j, (first,)))
        self.memo[key] = got
        return got

    def _list_rest(self, j, names):
        t = self.t
        if j < self.n and t[j] == "and":
            for k, last in self.acts.match(t, j + 1):
                if last not in names:
                    yield k, names + (last,)
        if j < self.n and t[j] == ",":
            if len(names) >= 2 and j + 1 < self.n and t[j + 1] == "and":  # Oxford comma
                for k, last in self.acts.match(t, j + 2):
                    if last not in names:
                        yield k, names + (last,)
            for k, nxt in self.acts.match(t, j + 1):
                if nxt not in names:
                    yield from self._list_rest(k, names + (nxt,))


_EMPTY: Final[Atoms] = frozenset()


def _fronted(rel: str, obj, obj_atoms: Atoms, other: str | None):
    def meaning(subj: tuple[str, ...], aspect: str) -> list[Atoms]:
        other_aspect = other if isinstance(obj, tuple) else None
        return [obj_atoms | m for m in _relate(subj, aspect, rel, obj, other_aspect)]
    return meaning


def _antecedents(members: tuple[str, ...], marker) -> list[tuple[str, ...]]:
    if marker == "any":
        return [members] if len(members) == 1 else [members[-1:], members]
    if marker == "group":
        return [members] if len(members) >= 2 else []
    return [members] if len(members) == marker else []


@lru_cache(maxsize=4096)
def reader_for(names: tuple[str, ...]) -> Reader:
    return Reader(names)


@lru_cache(maxsize=1)
def default_reader() -> Reader:
    """A reader over every activity of the embedded lexicon."""
    from .lexicon import default_lexicon

    return Reader(sorted(default_lexicon().all_activities()))
