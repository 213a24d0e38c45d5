"""Reading constraints back out of a requirement's English text.

PDoctor's oracle is only as good as the claim that the text means exactly the
derived constraints. This reader checks that claim independently: it knows the
English words (the terminal word lists and the lexicon's activities) and the
grammar as a reader of English would apply it, but nothing of the skeleton the
text was rendered from. It parses each sentence with full backtracking and
returns every distinct reading, so a sentence that could be read two ways is
reported as ambiguous rather than silently resolved.

It also enforces agreement (a plural subject takes a plural verb), so text
that is not grammatical English does not parse.

Atoms use activity names: ("order", a, b), ("start_ge", a, hour), ("end_le", a, hour).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Iterator, Optional

from . import vocabulary as V
from .lexicon import Lexicon, default_lexicon

_TOKEN = re.compile(r"\d{2}:\d{2}|[a-z]+|[,;]")
SING, PLUR = 1, 2


@dataclass
class Reading:
    atoms: frozenset = frozenset()
    unparsed: list[str] = field(default_factory=list)  # sentences with no reading
    ambiguous: list[str] = field(default_factory=list)  # sentences with several different readings

    @property
    def ok(self) -> bool:
        return not self.unparsed and not self.ambiguous


class _Phrases:
    """Phrases indexed by first word: [(words, value), ...]."""

    def __init__(self, entries: Iterable[tuple[str, object]]):
        self.by_first: dict[str, list[tuple[tuple[str, ...], object]]] = defaultdict(list)
        for text, value in entries:
            words = tuple(_TOKEN.findall(text.lower()))
            self.by_first[words[0]].append((words, value))

    def match(self, toks: list[str], i: int) -> Iterator[tuple[int, object]]:
        if i >= len(toks):
            return
        for words, value in self.by_first.get(toks[i], ()):
            j = i + len(words)
            if tuple(toks[i:j]) == words:
                yield j, value


def _verbs(pairs) -> list[tuple[str, int]]:
    out: dict[str, int] = defaultdict(int)
    for sing, plur in pairs:
        out[sing] |= SING
        out[plur] |= PLUR
    return list(out.items())


class Reader:
    def __init__(self, lexicon: Optional[Lexicon] = None):
        lex = lexicon or default_lexicon()
        self.acts = _Phrases((a, a) for a in lex.all_activities())
        self.vp_before = _Phrases(_verbs(V.VP_BEFORE))
        self.vp_after = _Phrases(_verbs(V.VP_AFTER))
        self.vp_none = _Phrases(_verbs(V.VP_NONE))
        self.vp_none_sub = _Phrases(_verbs(V.VP_NONE_SUBORDINATE))
        self.p_before = _Phrases((p, None) for p in V.P_BEFORE)
        self.p_after = _Phrases((p, None) for p in V.P_AFTER)
        self.pt_before = _Phrases((p, None) for p in V.PT_BEFORE)
        self.pt_after = _Phrases((p, None) for p in V.PT_AFTER)
        self.sc_before = _Phrases((p, None) for p in V.SC_BEFORE)
        self.sc_after = _Phrases((p, None) for p in V.SC_AFTER)
        self.conj = _Phrases((c, None) for c in V.CONJUNCTIONS)

    # -- entry points -------------------------------------------------------

    def read(self, requirement: str) -> Reading:
        atoms: set = set()
        result = Reading()
        for sentence in split_sentences(requirement):
            readings = self.read_sentence(sentence)
            if not readings:
                result.unparsed.append(sentence)
            elif len(readings) > 1:
                result.ambiguous.append(sentence)
            else:
                atoms |= next(iter(readings))
        result.atoms = frozenset(atoms)
        return result

    def read_part(self, text: str) -> set[frozenset]:
        """Every reading of one sub-sentence (a clause as evidence quotes it)."""
        toks = _TOKEN.findall(text.lower())
        return {frozenset(atoms) for j, atoms in self._sub(toks, 0) if j == len(toks)}

    def read_sentence(self, sentence: str) -> set[frozenset]:
        toks = _TOKEN.findall(sentence.lower().rstrip("."))
        return {frozenset(atoms) for j, atoms in self._sentence(toks, 0) if j == len(toks)}

    # -- grammar ------------------------------------------------------------

    def _sentence(self, t, i):
        for j, atoms in self._sub(t, i):
            yield j, atoms
            for k, _ in self.conj.match(t, j):
                for m, more in self._sentence(t, k):
                    yield m, atoms + more

    def _sub(self, t, i):
        yield from self._clause(t, i)
        yield from self._multi(t, i)

    def _clause(self, t, i):
        # S VP< O  |  S VP> O
        for j, subj, num, sub_atoms in self._np(t, i, subject=True):
            for vp, before in ((self.vp_before, True), (self.vp_after, False)):
                for k, agree in vp.match(t, j):
                    if agree & num:
                        for m, obj, _, obj_atoms in self._np(t, k, subject=False):
                            yield m, sub_atoms + _relate(subj, before, obj) + obj_atoms
            # S VP∅ P O  |  S VP∅ PT hh:00
            for k, agree in self.vp_none.match(t, j):
                if agree & num:
                    for m, before, obj, obj_atoms in self._prep_object(t, k):
                        yield m, sub_atoms + _relate(subj, before, obj) + obj_atoms
        # P O, S VP∅
        for k, before, obj, obj_atoms in self._prep_object(t, i):
            if k < len(t) and t[k] == ",":
                for m, subj, num, sub_atoms in self._np(t, k + 1, subject=True):
                    for e, agree in self.vp_none.match(t, m):
                        if agree & num:
                            yield e, obj_atoms + sub_atoms + _relate(subj, before, obj)

    def _prep_object(self, t, i):
        """A preposition and its object: (end, before, object, atoms of its relative clause)."""
        for preps, before in ((self.p_before, True), (self.p_after, False)):
            for k, _ in preps.match(t, i):
                for m, obj, _, atoms in self._np(t, k, subject=False):
                    yield m, before, obj, atoms
        for preps, before in ((self.pt_before, True), (self.pt_after, False)):
            for k, _ in preps.match(t, i):
                hour = _hour(t, k)
                if hour is not None:
                    yield k + 1, before, hour, []

    def _multi(self, t, i):
        # MAIN VP∅ SC SUB VP∅   (no modal verb in the subordinate clause)
        for j, main, main_atoms in self._dependent(t, i, self.vp_none):
            for scs, before in ((self.sc_before, True), (self.sc_after, False)):
                for k, _ in scs.match(t, j):
                    for m, sub, sub_atoms in self._dependent(t, k, self.vp_none_sub):
                        yield m, main_atoms + sub_atoms + _relate(main, before, sub)
        # SC SUB VP∅, MAIN VP∅
        for scs, before in ((self.sc_before, True), (self.sc_after, False)):
            for k, _ in scs.match(t, i):
                for m, sub, sub_atoms in self._dependent(t, k, self.vp_none_sub):
                    if m < len(t) and t[m] == ",":
                        for e, main, main_atoms in self._dependent(t, m + 1, self.vp_none):
                            yield e, sub_atoms + main_atoms + _relate(main, before, sub)

    def _dependent(self, t, i, verbs):
        for j, group, num, atoms in self._np(t, i, subject=True):
            for k, agree in verbs.match(t, j):
                if agree & num:
                    yield k, group, atoms

    def _np(self, t, i, subject: bool):
        """A group, optionally with ", which ..." (closed by a comma when it is a subject)."""
        for j, group in self._group(t, i):
            num = PLUR if len(group) > 1 else SING
            yield j, group, num, []
            if j + 1 < len(t) and t[j] == "," and t[j + 1] == "which":
                for k, atoms in self._relative(t, j + 2, group, num):
                    if subject:
                        if k < len(t) and t[k] == ",":
                            yield k + 1, group, num, atoms
                    else:
                        yield k, group, num, atoms

    def _relative(self, t, i, group, num):
        for vp, before in ((self.vp_before, True), (self.vp_after, False)):
            for k, agree in vp.match(t, i):
                if agree & num:
                    for m, obj in self._group(t, k):
                        yield m, _relate(group, before, obj)
        for k, agree in self.vp_none.match(t, i):
            if agree & num:
                for m, before, obj, atoms in self._prep_object(t, k):
                    if not atoms:  # no relative clause inside a relative clause
                        yield m, _relate(group, before, obj)

    def _group(self, t, i):
        """One activity; "A and B"; "A, B and C" (no Oxford comma)."""
        for j, first in self.acts.match(t, i):
            yield from self._group_rest(t, j, (first,))

    def _group_rest(self, t, j, names):
        if len(names) == 1:
            yield j, names
        if j < len(t) and t[j] == "and":
            for k, last in self.acts.match(t, j + 1):
                if last not in names:
                    yield k, names + (last,)
        if j < len(t) and t[j] == ",":
            for k, nxt in self.acts.match(t, j + 1):
                if nxt not in names:
                    yield from self._group_rest(t, k, names + (nxt,))


def _hour(t, k) -> Optional[int]:
    if k < len(t) and re.fullmatch(r"\d{2}:00", t[k]):
        hour = int(t[k][:2])
        return hour if 0 <= hour <= 24 else None
    return None


def _relate(subject, before: bool, obj) -> list[tuple]:
    if isinstance(obj, int):
        kind = "end_le" if before else "start_ge"
        return [(kind, a, obj) for a in subject]
    return [("order", a, b) if before else ("order", b, a) for a in subject for b in obj]


def split_sentences(text: str) -> list[str]:
    return [s.strip() + "." for s in re.split(r"\.(?:\s+|$)", text.strip()) if s.strip()]


def requirement_of(task: str) -> str:
    """The requirement paragraph of a constraint case's task text."""
    marker = "Here is the requirement:"
    k = task.rfind(marker)
    return task[k + len(marker):].strip() if k >= 0 else task


@lru_cache(maxsize=1)
def default_reader() -> Reader:
    return Reader()
