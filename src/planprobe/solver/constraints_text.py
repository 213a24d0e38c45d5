"""The solver's own reading of a constraint requirement (English sentences about task order and
time windows) into atoms, from the text alone.

This is a second, independent reading of the texts ``planprobe generate constraints`` writes: it
imports nothing of the family (its generator, word lists, renderer or its reader) and has its own
phrase tables, built compositionally (a verb of some aspect, a relation word, a group of tasks),
so it accepts more English than the generator writes. It enumerates **every** complete parse of a
sentence and keeps the set of meanings: one meaning is a reading; none, or more than one, is
reported (``Reading.problem``) and the solver answers ``underspecified`` naming the sentence.

Atoms (``Atom``): ``("<", a, b)`` task a ends before task b starts; ``("s>=", a, h)``,
``("s<=", a, h)``, ``("e<=", a, h)``, ``("e>=", a, h)`` bounds on a task's start or end hour;
``("?", why)`` a phrase with more than one meaning (e.g. "happens by 15:00": its end, or only its
start?).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Atom = tuple[str | int, ...]
Tok = str | int  # a word or punctuation (str), a task (int index), a time ("@15")
V = TypeVar("V")

WHOLE, START, END, PRECEDE = "whole", "start", "end", "precede"
SG, PL, ANY = "sg", "pl", "any"


class Phrases(Generic[V]):
    """Multi-word phrases indexed by their first word; ``match`` returns every phrase that
    starts at a position (a phrase may be a prefix of another: both are returned)."""

    def __init__(self, entries: Iterable[tuple[str, V]]):
        self.by_first: dict[str, list[tuple[tuple[str, ...], V]]] = {}
        for text, value in entries:
            words = tuple(text.split())
            self.by_first.setdefault(words[0], []).append((words, value))

    def match(self, toks: Sequence[Tok], i: int) -> list[tuple[V, int]]:
        if i >= len(toks):
            return []
        first = toks[i]
        if not isinstance(first, str):
            return []
        out = []
        for words, value in self.by_first.get(first, ()):
            n = len(words)
            if tuple(toks[i:i + n]) == words:
                out.append((value, i + n))
        return out


def _verbs() -> list[tuple[str, tuple[str, str]]]:
    """Verb phrases with their aspect (what part of the task they name) and number."""
    simple = {  # base form -> (third person singular, aspect)
        "happen": ("happens", WHOLE), "occur": ("occurs", WHOLE), "take place": ("takes place", WHOLE),
        "come": ("comes", WHOLE), "go": ("goes", WHOLE), "start": ("starts", START),
        "begin": ("begins", START), "end": ("ends", END), "finish": ("finishes", END),
        "precede": ("precedes", PRECEDE),
    }
    participles = {"executed": WHOLE, "carried out": WHOLE, "performed": WHOLE, "conducted": WHOLE,
                   "completed": END, "finished": END, "started": START, "begun": START}
    modals = {"must": ANY, "should": ANY, "will": ANY, "shall": ANY, "has to": SG, "have to": PL,
              "needs to": SG, "need to": PL}
    out: list[tuple[str, tuple[str, str]]] = []
    for base, (third, aspect) in simple.items():
        out += [(third, (aspect, SG)), (base, (aspect, PL))]
        out += [(f"{m} {base}", (aspect, n)) for m, n in modals.items()]
    for part, aspect in participles.items():
        out += [(f"is {part}", (aspect, SG)), (f"are {part}", (aspect, PL))]
        out += [(f"{m} be {part}", (aspect, n)) for m, n in modals.items()]
    return out


VERBS: Phrases[tuple[str, str]] = Phrases(_verbs())

_BEFORE = ["before", "ahead of", "earlier than", "prior to", "in advance of", "sooner than", "previous to",
           "at some point before", "sometime before", "some time before", "at an earlier time than"]
_AFTER = ["after", "later than", "subsequent to", "only after", "at some point after", "sometime after",
          "some time after", "at a later time than"]
# relation words between two tasks: "<" the subject comes first
RELATIONS: Phrases[str] = Phrases([(p, "<") for p in _BEFORE] + [(p, ">") for p in _AFTER])
# words joining two clauses ("A happens before B happens", "Once B occurs, A happens")
SUBORDINATORS: Phrases[str] = Phrases(
    [(p, "<") for p in _BEFORE] + [(p, ">") for p in _AFTER]
    + [(f"{p} the moment", "<") for p in _BEFORE] + [(f"{p} the moment", ">") for p in _AFTER]
    + [("once", ">")])
# bounds on a time, inclusive of the hour (strict ones, "after 10:00", are reported as unclear)
TIME_BOUNDS: Phrases[str] = Phrases(
    [(p, "up") for p in ("by", "no later than", "not later than", "at or before", "at the latest by",
                         "at the latest at", "before or at", "at the latest", "until or at")]
    + [(p, "low") for p in ("at or after", "no earlier than", "not earlier than", "no sooner than",
                            "not sooner than", "at the earliest at", "after or at", "at the earliest",
                            "from")])
MARKERS: Phrases[int] = Phrases([("which", 1), ("both of which", 2), ("all three of which", 3),
                                 ("all of which", 0), ("each of which", 0)])
CONJUNCTIONS: Phrases[str] = Phrases(
    [(";", ";"), (", and", ","), ("; and", ";")]
    + [(f"; {w} ,", ";") for w in ("moreover", "in addition", "furthermore", "also", "besides",
                                   "additionally", "what is more")])

_TOKEN = re.compile(r"\d{1,2}:\d{2}|[a-z0-9'’\-]+|[,;.]|\S")


@dataclass(frozen=True)
class Reading:
    """The atoms of a requirement, or the problem that keeps it from having one reading.
    ``unnamed``: tasks the requirement names that are not among the known names (they were read
    as tasks because nothing else reads; indices from ``len(names)`` on)."""

    atoms: frozenset[Atom]
    problem: str | None = None
    unnamed: tuple[str, ...] = ()


def tokenize(text: str, names: Sequence[str]) -> list[Tok]:
    """Words, punctuation, tasks (their index in ``names``, longest name first) and times
    (``"@h"`` for "hh:00")."""
    raw = _TOKEN.findall(text.lower())
    heads: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for k, name in enumerate(names):
        words = tuple(_TOKEN.findall(name.lower()))
        if words:
            heads.setdefault(words[0], []).append((words, k))
    for options in heads.values():
        options.sort(key=lambda o: -len(o[0]))
    toks: list[Tok] = []
    i = 0
    while i < len(raw):
        w = raw[i]
        for words, k in heads.get(w, ()):
            if tuple(raw[i:i + len(words)]) == words:
                toks.append(k)
                i += len(words)
                break
        else:
            m = re.fullmatch(r"(\d{1,2}):00", w)
            toks.append(f"@{int(m.group(1))}" if m and int(m.group(1)) <= 24 else w)
            i += 1
    return toks


def _time(toks: Sequence[Tok], i: int) -> int | None:
    t = toks[i] if i < len(toks) else None
    return int(t[1:]) if isinstance(t, str) and t.startswith("@") else None


def _task(toks: Sequence[Tok], i: int) -> int | None:
    t = toks[i] if i < len(toks) else None
    return t if isinstance(t, int) else None


def groups(toks: Sequence[Tok], i: int) -> list[tuple[tuple[int, ...], int]]:
    """Every group of tasks that starts at i: "A", "A and B", "both A and B", "A, B and C",
    "A, B, and C" (a longer list too)."""
    out: list[tuple[tuple[int, ...], int]] = []
    both = i < len(toks) and toks[i] == "both"
    j = i + 1 if both else i
    a = _task(toks, j)
    if a is None:
        return out
    if not both:
        out.append(((a,), j + 1))
    items = [a]
    k = j + 1
    while True:  # "A, B, C ... and Z" / "A and B"
        if k < len(toks) and toks[k] == "and" and _task(toks, k + 1) is not None:
            g = (*items, _task(toks, k + 1))
            if not both or len(g) == 2:
                out.append((g, k + 2))  # type: ignore[arg-type]
        if (k + 2 < len(toks) and toks[k] == "," and toks[k + 1] == "and" and len(items) >= 2
                and _task(toks, k + 2) is not None and not both):
            out.append(((*items, _task(toks, k + 2)), k + 3))  # type: ignore[arg-type]
        if both or not (k < len(toks) and toks[k] == "," and _task(toks, k + 1) is not None):
            break
        items.append(_task(toks, k + 1))  # type: ignore[arg-type]
        k += 2
    return out


def _agrees(size: int, number: str) -> bool:
    return number == ANY or (number == SG) == (size == 1)


def _order(subject: Sequence[int], direction: str, other: Sequence[int]) -> list[Atom]:
    if direction == "<":
        return [("<", a, b) for a in subject for b in other]
    return [("<", b, a) for a in subject for b in other]


def _bound(subject: Sequence[int], aspect: str, kind: str, hour: int) -> list[Atom]:
    if aspect == END:
        return [("e<=" if kind == "up" else "e>=", a, hour) for a in subject]
    if aspect == START or (aspect == WHOLE and kind == "low"):
        return [("s<=" if kind == "up" else "s>=", a, hour) for a in subject]
    return [("?", f"an upper bound {hour:02d}:00 on a whole task (its end, or only its start?)")]


Parse = tuple[tuple[Atom, ...], int]


def _tails(toks: Sequence[Tok], subject: tuple[int, ...], aspect: str, j: int,
           relative: bool) -> list[Parse]:
    """What may follow a verb whose subject is ``subject``: a relation and a group of tasks (the
    group may carry a relative clause unless this is one), a time bound, or (main clauses only)
    a subordinate clause."""
    out: list[Parse] = []
    if aspect == PRECEDE:
        for obj, rel, k in (_objects(toks, j) if not relative else [(g, (), k) for g, k in groups(toks, j)]):
            out.append(((*_order(subject, "<", obj), *rel), k))
        return out
    for direction, k in RELATIONS.match(toks, j):
        hour = _time(toks, k)
        if hour is not None:
            out.append(((("?", f"a strict bound at {hour:02d}:00 (is the hour itself allowed?)"),), k + 1))
            continue
        objs = _objects(toks, k) if not relative else [(g, (), m) for g, m in groups(toks, k)]
        for obj, rel, m in objs:
            out.append(((*_order(subject, direction, obj), *rel), m))
    for kind, k in TIME_BOUNDS.match(toks, j):
        hour = _time(toks, k)
        if hour is not None:
            out.append((tuple(_bound(subject, aspect, kind, hour)), k + 1))
    if not relative:
        for direction, k in SUBORDINATORS.match(toks, j):
            for other, m in groups(toks, k):
                for (_, number), n in VERBS.match(toks, m):
                    if _agrees(len(other), number):
                        out.append((tuple(_order(subject, direction, other)), n))
    return out


def _relatives(toks: Sequence[Tok], group: tuple[int, ...], i: int) -> list[Parse]:
    """A relative clause after ``group`` at i ("which comes before B", "both of which end by
    15:00"): a marker naming how many tasks it is about, then a verb and its tail. "which" after
    two or more tasks may be about the last one only (a singular verb) or all of them (a plural
    verb, or a modal that agrees with both: both readings)."""
    out: list[Parse] = []
    for size, j in MARKERS.match(toks, i):
        for (aspect, number), k in VERBS.match(toks, j):
            antecedents: list[tuple[int, ...]] = []
            whole = size == len(group) or (size == 0 and len(group) > 1) or (size == 1 and len(group) > 1)
            if whole and _agrees(len(group), number):
                antecedents.append(group)
            if size == 1 and len(group) > 1 and number in (SG, ANY):
                antecedents.append(group[-1:])
            for antecedent in antecedents:
                for atoms, m in _tails(toks, antecedent, aspect, k, relative=True):
                    out.append((atoms, m))
    return out


def _objects(toks: Sequence[Tok], i: int) -> list[tuple[tuple[int, ...], tuple[Atom, ...], int]]:
    """An object group, optionally followed by ", relative" (its closing comma merges with what
    follows the sub-sentence)."""
    out: list[tuple[tuple[int, ...], tuple[Atom, ...], int]] = []
    for g, j in groups(toks, i):
        out.append((g, (), j))
        if j < len(toks) and toks[j] == ",":
            for atoms, k in _relatives(toks, g, j + 1):
                out.append((g, atoms, k))
    return out


def _subjects(toks: Sequence[Tok], i: int) -> list[tuple[tuple[int, ...], tuple[Atom, ...], int]]:
    """A subject group, optionally with ", relative," after it."""
    out: list[tuple[tuple[int, ...], tuple[Atom, ...], int]] = []
    for g, j in groups(toks, i):
        out.append((g, (), j))
        if j < len(toks) and toks[j] == ",":
            for atoms, k in _relatives(toks, g, j + 1):
                if k < len(toks) and toks[k] == ",":
                    out.append((g, atoms, k + 1))
    return out


def _main_after_fronting(toks: Sequence[Tok], i: int) -> list[tuple[tuple[int, ...], tuple[Atom, ...], str, int]]:
    """The clause after a fronted phrase: a subject and a bare verb (subject, its relative's
    atoms, the verb's aspect, the end)."""
    out = []
    for g, rel, j in _subjects(toks, i):
        for (aspect, number), k in VERBS.match(toks, j):
            if aspect != PRECEDE and _agrees(len(g), number):
                out.append((g, rel, aspect, k))
    return out


def sub_sentences(toks: Sequence[Tok], i: int) -> list[Parse]:
    """Every sub-sentence that starts at i, with its atoms and end."""
    out: list[Parse] = []
    for kind, j in TIME_BOUNDS.match(toks, i):  # "By 15:00, A must be completed"
        hour = _time(toks, j)
        if hour is not None and j + 1 < len(toks) and toks[j + 1] == ",":
            for g, rel, aspect, k in _main_after_fronting(toks, j + 2):
                out.append(((*rel, *_bound(g, aspect, kind, hour)), k))
    for direction, j in RELATIONS.match(toks, i):  # "Before B, A happens"
        hour = _time(toks, j)
        if hour is not None and j + 1 < len(toks) and toks[j + 1] == ",":
            for _g, rel, _aspect, k in _main_after_fronting(toks, j + 2):
                out.append(((*rel, ("?", f"a strict bound at {hour:02d}:00 (is the hour itself allowed?)")), k))
        for front, k in groups(toks, j):
            if k < len(toks) and toks[k] == ",":
                for g, rel, _aspect, m in _main_after_fronting(toks, k + 1):
                    out.append(((*rel, *_order(g, direction, front)), m))
    for direction, j in SUBORDINATORS.match(toks, i):  # "Once B occurs, A happens"
        for front, k in groups(toks, j):
            for (_, number), m in VERBS.match(toks, k):
                if _agrees(len(front), number) and m < len(toks) and toks[m] == ",":
                    for g, rel, _aspect, n in _main_after_fronting(toks, m + 1):
                        out.append(((*rel, *_order(g, direction, front)), n))
    for g, rel, j in _subjects(toks, i):  # "A comes before B", "A ends by 15:00", "A happens before B happens"
        for (aspect, number), k in VERBS.match(toks, j):
            if _agrees(len(g), number):
                for atoms, m in _tails(toks, g, aspect, k, relative=False):
                    out.append(((*rel, *atoms), m))
    return out


def sentence_readings(toks: Sequence[Tok]) -> set[frozenset[Atom]]:
    """The distinct meanings of every complete parse of one sentence: sub-sentences joined by
    conjunctions."""
    memo: dict[int, set[frozenset[Atom]]] = {}

    def rest(i: int) -> set[frozenset[Atom]]:
        if i in memo:
            return memo[i]
        found: set[frozenset[Atom]] = set()
        memo[i] = found
        for atoms, j in set(sub_sentences(toks, i)):
            if j == len(toks):
                found.add(frozenset(atoms))
                continue
            for _, k in CONJUNCTIONS.match(toks, j):
                for more in rest(k):
                    found.add(frozenset(atoms) | more)
        return found

    return rest(0)


def split_sentences(toks: Sequence[Tok]) -> list[list[Tok]]:
    out: list[list[Tok]] = [[]]
    for t in toks:
        if t == ".":
            out.append([])
        else:
            out[-1].append(t)
    return [s for s in out if s]


def _first_words() -> frozenset[str]:
    words = {"both", "and", ",", ";", "."}
    for table in (VERBS, RELATIONS, SUBORDINATORS, TIME_BOUNDS, MARKERS, CONJUNCTIONS):
        words.update(table.by_first)
    return frozenset(words)


FIRST_WORDS = _first_words()  # words that open a phrase of the grammar: never inside an unknown name


def unnamed_phrases(text: str, names: Sequence[str]) -> list[str]:
    """Activities the requirement names that are not known names: a gerund ("staging …") and
    the words after it up to the first that opens a phrase of the grammar, a task or a time."""
    out: list[str] = []
    run: list[str] = []
    for t in [*tokenize(text, names), "."]:
        word = isinstance(t, str) and not t.startswith("@") and t not in FIRST_WORDS
        if word and (run or str(t).endswith("ing")):
            run.append(str(t))
            continue
        if run and " ".join(run) not in out:
            out.append(" ".join(run))
        run = []
    return out


def read_requirement(text: str, names: Sequence[str]) -> Reading:
    """The atoms of a requirement paragraph, or the first sentence that has no single reading.
    When a sentence has no reading with the known names, it is read again with the activities it
    names that are not among them (``Reading.unnamed``): a task no tool carries out."""
    first = _read(text, names)
    if first.problem is None or "no reading" not in first.problem:
        return first
    extra = [p for p in unnamed_phrases(text, names) if p not in names]
    if not extra:
        return first
    again = _read(text, [*names, *extra])
    if again.problem is not None:
        return first
    return Reading(again.atoms, None, tuple(extra))


def _read(text: str, names: Sequence[str]) -> Reading:
    sentences = [s.strip() for s in re.split(r"(?<=\.)\s+", text.strip()) if s.strip()]
    atoms: set[Atom] = set()
    for sentence in sentences:
        toks = split_sentences(tokenize(sentence, names))
        if not toks:
            continue
        readings: set[frozenset[Atom]] = set()
        for part in toks:  # a stray full stop inside a sentence splits it: each part must read alone
            got = sentence_readings(part)
            readings = got if not readings else {a | b for a in readings for b in got}
            if not got:
                readings = set()
                break
        if not readings:
            return Reading(frozenset(), f'the sentence "{sentence}" has no reading the solver can parse')
        if len(readings) > 1:
            return Reading(frozenset(), f'the sentence "{sentence}" has {len(readings)} readings')
        (meaning,) = readings
        unclear = sorted(str(a[1]) for a in meaning if a[0] == "?")
        if unclear:
            return Reading(frozenset(), f'the sentence "{sentence}" states {unclear[0]}')
        atoms |= meaning
    return Reading(frozenset(atoms))
