"""The task DSL's abstract syntax (seed PDoctor, Fig. 4 and Fig. 6) and its meaning.

A requirement paragraph is a list of sentences; a sentence joins sub-sentences
with conjunctions; a sub-sentence is an independent clause (``Clause``) or a
multi-clause (``MultiClause``). Subjects and objects are groups of one or more
actions, optionally followed by a relative clause (", which comes before B,").
In the extended mode an object may also be a time point.

Nodes are named tuples: cheap to build in the synthesis loop and immutable.
Terminal words are stored as indices into the ``vocabulary`` table of their slot
(``vocabulary.order_verbs``, ``VP_NONE``, ``time_verbs``, ``preps`` …), so the same
skeleton can be re-worded (dissection's Terminal mutation) or moved to another
topic (different action names) without touching its meaning. The meaning of a
skeleton is a list of atoms (``derive``):

* ``("order", a, b)``    action a happens before action b
* ``("start_ge", a, h)`` action a starts at h:00 or later
* ``("end_le", a, h)``   action a ends at h:00 or earlier
"""

from __future__ import annotations

import random
from typing import NamedTuple

from .vocabulary import COMMA_CONJUNCTIONS, SEMICOLON_CONJUNCTIONS

Atom = tuple  # ("order", a, b) | ("start_ge", a, hour) | ("end_le", a, hour)


class Time(NamedTuple):
    hour: int


class Relative(NamedTuple):
    """", which VP O" (prep is None: ``order_verbs``), ", which VP∅ P O" (``VP_NONE``, ``preps``) or,
    with a time, ", which VP PT hh:00" (``time_verbs``, ``preps(time=True)``) — says ``group ≺ obj``
    when before. The marker is "which", "both of which" or "all three of which" by group size."""

    before: bool
    obj: tuple[int, ...] | Time
    verb: int
    prep: int | None = None


class NounPhrase(NamedTuple):
    group: tuple[int, ...]
    rel: Relative | None = None


class Clause(NamedTuple):
    """Independent clause; ``before`` means the subject happens before the object.

    form 1: S VP O        form 2: S VP∅ P O        form 3: P O, S VP∅
    ``verb`` indexes ``order_verbs`` (form 1), ``VP_NONE`` (forms 2, 3 with a task object) or
    ``time_verbs`` (forms 2, 3 with a time). A fronted object (form 3) is one or two tasks
    with no relative clause. After a fronted task, the subject is one task or two, and two are
    said "both B and C" (render.py): "before A, B and C happen" first reads as the list "A, B
    and C" (issue #26); a subject of three tasks has no such form, so it is not drawn.
    """

    form: int
    before: bool
    subj: NounPhrase
    obj: NounPhrase | Time
    verb: int
    prep: int | None = None


class MultiClause(NamedTuple):
    """Two dependent clauses joined by a sequential conjunction.

    form 1: MAIN VP∅ SC SUB VP∅        form 2: SC SUB VP∅, MAIN VP∅
    ``before`` means the main clause's actions happen before the sub clause's.
    ``sub_verb`` indexes ``VP_NONE_SUBORDINATE`` (no modal verbs in a subordinate clause).
    The subordinate clause's subject is one or two tasks with no relative clause: with a
    comma inside it, "A happens after B, C and D happen" could be read as "A happens after B"
    followed by a second clause.
    """

    form: int
    before: bool
    main: NounPhrase
    sub: NounPhrase
    main_verb: int
    sub_verb: int
    sc: int


SubSentence = Clause | MultiClause


class Sentence(NamedTuple):
    parts: tuple[SubSentence, ...]
    conjs: tuple[int, ...]  # one conjunction index between consecutive parts


def opens_with_front(part: SubSentence) -> bool:
    """Whether a sub-sentence opens with a fronted phrase: "before B, …", "by 15:00, …",
    "once B happens, …"."""
    return part.form == 3 if isinstance(part, Clause) else part.form == 2


def tangled(sentence: Sentence) -> list[int]:
    """Indices of the conjunctions that join a comma (", and ") to a sub-sentence opening
    with a fronted phrase: "A happens before B, and later than C is performed, D happens"
    first reads "and later than C" as a second bound on A (issue #26)."""
    return [k for k, conj in enumerate(sentence.conjs)
            if conj in COMMA_CONJUNCTIONS and opens_with_front(sentence.parts[k + 1])]


def untangle(sentence: Sentence, rng: random.Random) -> Sentence:
    """The sentence with each of its ``tangled`` conjunctions re-drawn among those with a
    semicolon (the same meaning: every conjunction only adds); no draw when there is none."""
    bad = tangled(sentence)
    if not bad:
        return sentence
    conjs = list(sentence.conjs)
    for k in bad:
        conjs[k] = SEMICOLON_CONJUNCTIONS[int(rng.random() * len(SEMICOLON_CONJUNCTIONS))]
    return Sentence(sentence.parts, tuple(conjs))


# ---------------------------------------------------------------------------
# Meaning
# ---------------------------------------------------------------------------


def _relate(group: tuple[int, ...], before: bool, obj: tuple[int, ...] | Time, out: list[Atom]) -> None:
    if isinstance(obj, Time):
        kind = "end_le" if before else "start_ge"
        for a in group:
            out.append((kind, a, obj.hour))
        return
    for a in group:
        for b in obj:
            out.append(("order", a, b) if before else ("order", b, a))


def _phrase_atoms(np: NounPhrase, out: list[Atom]) -> None:
    if np.rel is not None:
        _relate(np.group, np.rel.before, np.rel.obj, out)


def derive_part(part: SubSentence) -> list[Atom]:
    """Atoms stated by one sub-sentence, in reading order."""
    out: list[Atom] = []
    if isinstance(part, Clause):
        _phrase_atoms(part.subj, out)
        if isinstance(part.obj, Time):
            _relate(part.subj.group, part.before, part.obj, out)
        else:
            _relate(part.subj.group, part.before, part.obj.group, out)
            _phrase_atoms(part.obj, out)
    else:
        _phrase_atoms(part.main, out)
        _phrase_atoms(part.sub, out)
        _relate(part.main.group, part.before, part.sub.group, out)
    return out


def derive(sentence: Sentence) -> list[Atom]:
    out: list[Atom] = []
    for part in sentence.parts:
        out.extend(derive_part(part))
    return out


# ---------------------------------------------------------------------------
# Serialisation (the skeleton is stored in the case spec for later mutation)
# ---------------------------------------------------------------------------


def _obj_json(obj: tuple[int, ...] | Time):
    return {"t": obj.hour} if isinstance(obj, Time) else list(obj)


def _obj_from(data) -> tuple[int, ...] | Time:
    return Time(data["t"]) if isinstance(data, dict) else tuple(data)


def _np_json(np: NounPhrase):
    if np.rel is None:
        return {"g": list(np.group)}
    r = np.rel
    rel = {"b": int(r.before), "o": _obj_json(r.obj), "v": r.verb}
    if r.prep is not None:
        rel["p"] = r.prep
    return {"g": list(np.group), "rel": rel}


def _np_from(data) -> NounPhrase:
    rel = data.get("rel")
    if rel is None:
        return NounPhrase(tuple(data["g"]))
    return NounPhrase(tuple(data["g"]), Relative(bool(rel["b"]), _obj_from(rel["o"]), rel["v"], rel.get("p")))


def sentence_to_json(s: Sentence) -> dict:
    parts = []
    for p in s.parts:
        if isinstance(p, Clause):
            obj = {"t": p.obj.hour} if isinstance(p.obj, Time) else _np_json(p.obj)
            part = {"c": p.form, "b": int(p.before), "s": _np_json(p.subj), "o": obj, "v": p.verb}
            if p.prep is not None:
                part["p"] = p.prep
            parts.append(part)
        else:
            parts.append({"m": p.form, "b": int(p.before), "s": _np_json(p.main), "o": _np_json(p.sub),
                          "v": p.main_verb, "v2": p.sub_verb, "sc": p.sc})
    return {"parts": parts, "j": list(s.conjs)}


_NUMBERS = tuple(str(i) for i in range(64))  # the small numbers a skeleton holds, as text


def _num(i: int) -> str:
    return _NUMBERS[i] if 0 <= i < 64 else str(i)


def _ints_text(items: tuple[int, ...]) -> str:
    return ",".join([_num(i) for i in items])


def _np_json_text(np: NounPhrase) -> str:
    if np.rel is None:
        return f'{{"g":[{_ints_text(np.group)}]}}'
    r = np.rel
    obj = f'{{"t":{_num(r.obj.hour)}}}' if isinstance(r.obj, Time) else f"[{_ints_text(r.obj)}]"
    prep = "" if r.prep is None else f',"p":{_num(r.prep)}'
    return f'{{"g":[{_ints_text(np.group)}],"rel":{{"b":{int(r.before)},"o":{obj},"v":{_num(r.verb)}{prep}}}}}'


def sentence_json_text(s: Sentence) -> str:
    """``sentence_to_json`` written straight as compact JSON text, as pydantic's ``to_json``
    writes that dict: what a suite line stores, without building the dicts and serialising
    them (issue #10). ``test_fast_paths`` compares the two on many sentences."""
    parts = []
    for p in s.parts:
        if isinstance(p, Clause):
            obj = f'{{"t":{_num(p.obj.hour)}}}' if isinstance(p.obj, Time) else _np_json_text(p.obj)
            prep = "" if p.prep is None else f',"p":{_num(p.prep)}'
            parts.append(f'{{"c":{_num(p.form)},"b":{int(p.before)},"s":{_np_json_text(p.subj)},"o":{obj},'
                         f'"v":{_num(p.verb)}{prep}}}')
        else:
            parts.append(f'{{"m":{_num(p.form)},"b":{int(p.before)},"s":{_np_json_text(p.main)},'
                         f'"o":{_np_json_text(p.sub)},"v":{_num(p.main_verb)},"v2":{_num(p.sub_verb)},'
                         f'"sc":{_num(p.sc)}}}')
    return f'{{"parts":[{",".join(parts)}],"j":[{_ints_text(s.conjs)}]}}'


def sentence_from_json(data: dict) -> Sentence:
    parts: list[SubSentence] = []
    for p in data["parts"]:
        if "c" in p:
            o = p["o"]
            obj = Time(o["t"]) if "t" in o else _np_from(o)
            parts.append(Clause(p["c"], bool(p["b"]), _np_from(p["s"]), obj, p["v"], p.get("p")))
        else:
            parts.append(MultiClause(p["m"], bool(p["b"]), _np_from(p["s"]), _np_from(p["o"]), p["v"], p["v2"], p["sc"]))
    return Sentence(tuple(parts), tuple(data["j"]))


# ---------------------------------------------------------------------------
# How many ways the grammar can expand a sub-sentence
# ---------------------------------------------------------------------------


def relative_forms(extended: bool) -> list[tuple[str, bool]]:
    """(kind, before) pairs a relative clause can take: "vp" (which VP O),
    "pp" (which VP∅ P O), and in the extended mode "pt" (which VP P hh:00)."""
    kinds = ["vp", "pp"] + (["pt"] if extended else [])
    return [(k, b) for k in kinds for b in (True, False)]


def count_expansions(extended: bool = False) -> dict[str, int]:
    """Count the distinct sub-sentence skeletons, not expanding a+ (as the seed counts
    its 340 options), and the same count with every terminal word choice expanded.

    Fronted phrases ("Before B, …", "Once B happens, …") and the subordinate clause of
    "A happens before B happens" carry no relative clause, so no comma inside them can be
    taken for the comma that ends them."""
    from . import vocabulary as V

    rels = relative_forms(extended)

    def words_rel(kind: str, before: bool) -> int:
        if kind == "vp":
            return len(V.order_verbs(before))
        if kind == "pp":
            return len(V.VP_NONE) * len(V.preps(before, time=False))
        return len(V.time_verbs(before)) * len(V.preps(before, time=True))

    np_any = 1 + len(rels)  # a plain group, or a group with one relative clause
    words_np = 1 + sum(words_rel(k, b) for k, b in rels)
    shapes = words = 0
    for before in (True, False):
        vp = len(V.order_verbs(before))
        pp = len(V.VP_NONE) * len(V.preps(before, time=False))
        pt = len(V.time_verbs(before)) * len(V.preps(before, time=True))
        shapes += 2 * np_any * np_any + np_any  # forms 1 and 2 (any objects), form 3 (plain fronted object)
        words += (vp + pp) * words_np * words_np + pp * words_np
        if extended:  # forms 2 and 3 with a time object
            shapes += 2 * np_any
            words += 2 * pt * words_np
        sc = len(V.SC_BEFORE if before else V.SC_AFTER)
        shapes += 2 * np_any  # multi-clauses: the subordinate clause's subject is plain
        words += 2 * sc * len(V.VP_NONE) * len(V.VP_NONE_SUBORDINATE) * words_np
    return {"sub_sentence_shapes": shapes, "with_terminal_words": words, "conjunctions": len(V.CONJUNCTIONS)}


# ---------------------------------------------------------------------------
# Which production stated each atom (for error anatomy)
# ---------------------------------------------------------------------------


def _rel_shape(rel: Relative) -> str:
    arrow = "<" if rel.before else ">"
    if isinstance(rel.obj, Time):
        return f"..., which VP0 P{arrow} hh:00"
    return f"..., which VP{arrow} O" if rel.prep is None else f"..., which VP0 P{arrow} O"


def shaped_atoms(part: SubSentence) -> list[tuple[Atom, str]]:
    """``derive_part``'s atoms, each with the shape of the phrase that stated it,
    e.g. "P< O, S VP0" (a preposition-first clause saying "before")."""
    out: list[tuple[Atom, str]] = []

    def add(shape: str, fill) -> None:
        atoms: list[Atom] = []
        fill(atoms)
        out.extend((a, shape) for a in atoms)

    def rel(np: NounPhrase) -> None:
        if np.rel is not None:
            add(_rel_shape(np.rel), lambda acc: _phrase_atoms(np, acc))

    arrow = "<" if part.before else ">"
    if isinstance(part, Clause):
        rel(part.subj)
        if isinstance(part.obj, Time):
            shape = f"S VP0 P{arrow} hh:00" if part.form == 2 else f"P{arrow} hh:00, S VP0"
            add(shape, lambda acc: _relate(part.subj.group, part.before, part.obj, acc))
        else:
            shape = {1: f"S VP{arrow} O", 2: f"S VP0 P{arrow} O", 3: f"P{arrow} O, S VP0"}[part.form]
            add(shape, lambda acc: _relate(part.subj.group, part.before, part.obj.group, acc))
            rel(part.obj)
    else:
        rel(part.main)
        rel(part.sub)
        shape = f"S VP0 SC{arrow} S' VP0" if part.form == 1 else f"SC{arrow} S' VP0, S VP0"
        add(shape, lambda acc: _relate(part.main.group, part.before, part.sub.group, acc))
    return out
