"""An independent English reader of requirement paragraphs: every reading, not one.

PDoctor's oracle is only as good as the claim that a requirement's text means
exactly the constraints the case stores. This module checks that claim the way a
careful English reader would, knowing nothing of how the text was generated: it
does not import the generator's word lists, grammar or renderer. It has its own
table of English phrases and what they mean (``_VERBS``, ``_RELATIONS``,
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

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, Generic, TypeVar

Atom = tuple
Atoms = frozenset
# module constants are Final: the mypyc build then reads them natively, not from the module's dict
SG: Final = 1
PL: Final = 2
EVENT: Final = "event"
START: Final = "start"
END: Final = "end"

# A token, or (last alternative) any other visible character: one left over makes the text
# unreadable. One pass yields the tokens and shows the leftovers as one-character tokens
# that are neither a letter nor "," / ";".
_TOKEN_OR_OTHER: Final = re.compile(r"\d{1,2}:\d{2}|[a-z]+|[,;]|\S")
_ONE_CHAR_TOKENS: Final = frozenset("abcdefghijklmnopqrstuvwxyz,;")


# ---------------------------------------------------------------------------
# The reader's own phrase table
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Verb:
    number: int  # SG, PL or both
    aspects: tuple[str, ...]  # the points of the task the verb may be about
    relations: tuple[str, ...] = ()  # transitive verbs that order their subject and object: "<", ">", ">>"
    reverse: bool = False  # passive "is preceded by": the subject is the later task


def _verb_table() -> list[tuple[str, Verb]]:
    """Every verb phrase the reader knows, with number and aspect."""
    out: list[tuple[str, Verb]] = []
    active = {  # (3rd person singular, plural): aspect
        ("happens", "happen"): (EVENT,), ("occurs", "occur"): (EVENT,), ("takes place", "take place"): (EVENT,),
        ("comes", "come"): (EVENT,), ("goes", "go"): (EVENT,), ("runs", "run"): (EVENT,),
        ("starts", "start"): (START,), ("begins", "begin"): (START,), ("commences", "commence"): (START,),
        ("kicks off", "kick off"): (START,), ("gets started", "get started"): (START,),
        ("ends", "end"): (END,), ("finishes", "finish"): (END,), ("concludes", "conclude"): (END,),
        ("wraps up", "wrap up"): (END,), ("gets done", "get done"): (EVENT, END),
    }
    participles = {
        "executed": (EVENT,), "carried out": (EVENT,), "performed": (EVENT,), "conducted": (EVENT,),
        "handled": (EVENT,), "run": (EVENT,), "scheduled": (EVENT, START), "done": (EVENT, END),
        "started": (START,), "begun": (START,), "commenced": (START,), "initiated": (START,),
        "completed": (END,), "finished": (END,), "concluded": (END,), "wrapped up": (END,),
    }
    transitive = {("precedes", "precede"): ("<",), ("follows", "follow"): (">", ">>"),
                  ("succeeds", "succeed"): (">",), ("antecedes", "antecede"): ("<",)}
    passive_transitive = {"preceded by": (">",), "followed by": ("<", "<<"), "succeeded by": ("<",)}
    modals_any = ("must", "should", "will", "can", "may", "shall", "ought to", "would")
    modals = [(m, SG | PL) for m in modals_any] + [("has to", SG), ("have to", PL), ("needs to", SG),
                                                     ("need to", PL)]
    for (sg, pl), aspects in active.items():
        out += [(sg, Verb(SG, aspects)), (pl, Verb(PL, aspects))]
        base = pl
        out += [(f"{m} {base}", Verb(num, aspects)) for m, num in modals]
    for part, aspects in participles.items():
        out += [(f"is {part}", Verb(SG, aspects)), (f"are {part}", Verb(PL, aspects)),
                (f"gets {part}", Verb(SG, aspects)), (f"get {part}", Verb(PL, aspects))]
        out += [(f"{m} be {part}", Verb(num, aspects)) for m, num in modals]
    for (sg, pl), rels in transitive.items():
        out += [(sg, Verb(SG, (EVENT,), rels)), (pl, Verb(PL, (EVENT,), rels))]
        out += [(f"{m} {pl}", Verb(num, (EVENT,), rels)) for m, num in modals]
    for part, rels in passive_transitive.items():
        out += [(f"is {part}", Verb(SG, (EVENT,), rels)), (f"are {part}", Verb(PL, (EVENT,), rels))]
        out += [(f"{m} be {part}", Verb(num, (EVENT,), rels)) for m, num in modals]
    return out


@dataclass(frozen=True)
class Relation:
    meanings: tuple[str, ...]  # "<", "<=", ">", ">=", "=", ">>" (immediately after), "while"
    prep: bool  # takes a noun phrase or a time: "before B", "by 15:00"
    sc: bool  # takes a clause: "before B happens", "once B is done"


def _relation_table() -> list[tuple[str, Relation]]:
    both, prep, sc = (True, True), (True, False), (False, True)
    table = {
        "before": ("<", both), "after": (">", both), "earlier than": ("<", both), "later than": (">", both),
        "sooner than": ("<", both), "prior to": ("<", prep), "ahead of": ("<", prep),
        "in advance of": ("<", prep), "previous to": ("<", prep), "subsequent to": (">", prep),
        "only after": (">", both), "only before": ("<", both), "at some point after": (">", both),
        "at some point before": ("<", both), "sometime after": (">", both), "sometime before": ("<", both),
        "at a later time than": (">", prep), "at an earlier time than": ("<", prep),
        "prior to the moment": ("<", sc), "subsequent to the moment": (">", sc),
        "before the moment": ("<", sc), "after the moment": (">", sc), "ahead of the moment": ("<", sc),
        "by": ("<=", prep), "by the time": ("<=", sc), "no later than": ("<=", both),
        "not later than": ("<=", both), "at or before": ("<=", prep), "before or at": ("<=", prep),
        "at the latest by": ("<=", prep), "at the latest at": ("<=", prep), "until": ("<=", both),
        "at or after": (">=", prep), "after or at": (">=", prep), "no earlier than": (">=", both),
        "not earlier than": (">=", both), "no sooner than": (">=", both), "not sooner than": (">=", both),
        "at the earliest at": (">=", prep), "from": (">=", prep), "starting at": (">=", prep),
        "once": (">=", sc), "at": ("=", prep), "when": ("=", sc), "as soon as": (">=,>>", sc),
        "following": (">,>>", prep), "right after": (">>", both), "immediately after": (">>", both),
        "while": ("while", sc), "during": ("while", prep),
    }
    return [(text, Relation(tuple(m.split(",")), kinds[0], kinds[1])) for text, (m, kinds) in table.items()]


# Phrases that join two clauses of one sentence. Most add nothing; "while" may also say
# that the two clauses happen at the same time, a reading no case stores.
_JOINERS: Final[dict[str, tuple[Atoms, ...]]] = {
    j: (frozenset(),) for j in (
        ",", ";", "and", ", and", ", but", ", yet", ", whereas", ", and also", ", also ,", "; and",
        "; moreover ,", "; in addition ,", "; furthermore ,", "; also ,", "; besides ,", "; likewise ,",
        "; additionally ,", "; what is more ,", ", moreover ,", ", in addition ,", ", furthermore ,",
    )
}
_JOINERS[", while"] = (frozenset(), frozenset({("while",)}))
_JOINERS["; meanwhile ,"] = (frozenset({("while",)}),)
_JOINERS[", and then"] = (frozenset(), frozenset({("then",)}))
_JOINERS["; then ,"] = (frozenset({("then",)}),)

# Garden paths: parses a careful reader takes first and must back out of. Each one found in a
# sentence that has a reading adds a reading of its own, made of one atom that no case stores
# (("garden_path", kind)), so the sentence counts as read two ways.
GARDEN_PATHS: Final = {
    "list": "a fronted phrase's object could run on over the comma that ends it, as a list",
    "bound": "a clause opening with a relation after a comma-joined clause reads as a second bound on it",
}


def _comma_joint(joiner: tuple[str, ...]) -> bool:
    """A joiner with a word and no semicolon (", and", "and", ", but"): the clause before it may
    still be going on, so a relation after it may be read as part of that clause."""
    return ";" not in joiner and joiner != (",",)


def garden_reading(kind: str) -> Atoms:
    """The reading a garden path of ``kind`` adds to its sentence."""
    return frozenset({("garden_path", kind)})


# Relative-clause markers: which antecedents each may take ("which": the last task or the group).
_MARKERS: Final = {"which": "any", "both of which": 2, "all of which": "group", "each of which": "group",
            "all three of which": 3, "all four of which": 4}


@lru_cache(maxsize=16384)
def _phrase_words(text: str) -> tuple[str, ...]:
    """A phrase as the tokens it must match (task names recur across cases: cached)."""
    return tuple(text.lower().replace(",", " , ").split())


V = TypeVar("V")


class _Phrases(Generic[V]):
    """A trie of phrases: match(tokens, i) -> [(end, value)] for every phrase starting at i.
    Generic in the value so that readers compiled with mypyc know what they get back."""

    def __init__(self, entries: Iterable[tuple[str, V]]):
        self.root: dict[str, tuple[dict, list[V]]] = {}
        for text, value in entries:
            node = self.root
            words = _phrase_words(text)
            for k, word in enumerate(words):
                child = node.get(word)
                if child is None:
                    child = node[word] = ({}, [])
                if k == len(words) - 1:
                    child[1].append(value)
                node = child[0]

    def match(self, toks: tuple[str, ...], i: int) -> list[tuple[int, V]]:
        out: list[tuple[int, V]] = []
        node = self.root
        n = len(toks)
        while i < n:
            child = node.get(toks[i])
            if child is None:
                break
            i += 1
            for value in child[1]:
                out.append((i, value))
            node = child[0]
        return out


_VERBS: Final = _Phrases(_verb_table())
_RELS: Final = _Phrases(_relation_table())
_JOIN: Final = _Phrases(_JOINERS.items())
_MARK: Final = _Phrases(_MARKERS.items())


# ---------------------------------------------------------------------------
# Meaning: which points of two tasks (or a task and a time) a relation compares
# ---------------------------------------------------------------------------

_POINTS: Final = {EVENT: ("s", "e", True), START: ("s", "s", False), END: ("e", "e", False)}  # (lo, hi, hi is open)
_KIND: Final = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "=": "eq"}


def _compare(aspect: str, rel: str, other: str | None) -> tuple[str, str, str] | None:
    """All points of the subject stand in ``rel`` to all points of the object (a task
    with aspect ``other``, or a time when ``other`` is None). Tasks are half-open
    intervals [start, end); a time is an instant. Returns (subject point, op, object point)."""
    lo, hi, hi_open = _POINTS[aspect]
    olo, ohi, ohi_open = _POINTS[other] if other else ("t", "t", False)
    if rel == "<":
        return hi, ("<=" if hi_open else "<"), olo
    if rel == "<=":
        return hi, "<=", olo
    if rel == ">":
        return lo, (">=" if ohi_open else ">"), ohi
    if rel == ">=":
        return lo, ">=", ohi
    if rel == "=":
        return lo, "=", olo
    return None


def _task_atom(a: str, b: str, pa: str, op: str, pb: str) -> Atom:
    """A comparison of two different tasks' points, under the rule that tasks run one
    at a time: most comparisons just say which task comes first."""
    if op in (">", ">="):
        a, b, pa, pb, op = b, a, pb, pa, "<" if op == ">" else "<="
    if op == "=":
        return ("same_time", pa, pb, a, b)
    if (pa, pb) == ("e", "s"):
        return ("order", a, b) if op == "<=" else ("gap", a, b)
    if (pa, pb) == ("s", "e") and op == "<=":
        return ("start_le_end", a, b)  # also true when b ends exactly as a starts
    return ("order", a, b)


def _relate(subj: tuple[str, ...], aspect: str, rel: str, obj: float | tuple[str, ...],
            other: str | None = EVENT) -> list[Atoms]:
    """The readings of "subj <rel> obj": one atom set per reading."""
    if rel in (">>", "<<"):
        pairs = [(a, b) for a in subj for b in obj] if isinstance(obj, tuple) else [(a, obj) for a in subj]
        return [frozenset(("immediately", rel, a, b) for a, b in pairs)]
    if rel == "while":
        return [frozenset(("while", a, obj) for a in subj)]
    if not isinstance(obj, tuple):  # a time
        readings = []
        cmp = _compare(aspect, rel, None)
        assert cmp is not None
        point, op, _ = cmp
        readings.append(frozenset((f"{'start' if point == 's' else 'end'}_{_KIND[op]}", a, obj) for a in subj))
        if aspect == EVENT and rel in ("<", "<="):  # "happens before 15:00": or it merely starts before
            readings.append(frozenset((f"start_{_KIND[rel]}", a, obj) for a in subj))
        return readings
    cmp = _compare(aspect, rel, other)
    assert cmp is not None
    pa, op, pb = cmp
    if cmp == ("e", "<=", "s"):  # the common case: the subject ends by the time the object starts
        return [frozenset([("order", a, b) for a in subj for b in obj])]
    if cmp == ("s", ">=", "e"):
        return [frozenset([("order", b, a) for a in subj for b in obj])]
    return [frozenset([_task_atom(a, b, pa, op, pb) for a in subj for b in obj])]


# ---------------------------------------------------------------------------
# Readings
# ---------------------------------------------------------------------------


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


@lru_cache(maxsize=4096)
def reader_for(names: tuple[str, ...]) -> Reader:
    return Reader(names)


@lru_cache(maxsize=1)
def default_reader() -> Reader:
    """A reader over every activity of the embedded lexicon."""
    from .lexicon import default_lexicon

    return Reader(sorted(default_lexicon().all_activities()))
