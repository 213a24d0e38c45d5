"""Skeleton synthesis, sentence by sentence (seed PDoctor, Alg. 1).

Each candidate sentence is expanded at random from the grammar; its atoms are
added to the constraints accepted so far and kept only if the result is still
satisfiable and no constraint is stated more than ``MAX_STATEMENTS`` times.
After ``max_iterations`` failed candidates the paragraph stops early, as in the
seed. The difficulty knobs are the action count |A|, the maximum number of
sentences N (by default growing with |A|, ``default_max_sentences``) and the
maximum iterations K. ``Skeleton.connected`` tells whether every action ended up
constrained — linked to every other through orders and time windows — which
the generator requires unless asked not to.

This loop is the generator's hot path (it runs ~10 candidate sentences per
case), hence the local-variable style and ``int(random() * k)`` in place of
``randrange(k)``, which is several times slower.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from . import vocabulary as V
from .grammar import (
    Clause,
    MultiClause,
    NounPhrase,
    Relative,
    Sentence,
    SubSentence,
    Time,
)
from .solver import HORIZON, atoms_add, closure_add_orders, predecessors, schedule

# a NamedTuple's own __new__ is an interpreted frame even when this module is compiled; tuple.__new__
# on the class builds the same node in about half the time (every field given, in the class's order;
# nothing checks their number here: test_fast_paths compares every drawn node with the class's build)
_new = tuple.__new__

_N_VP_NONE = len(V.VP_NONE)
_N_VP_SUB = len(V.VP_NONE_SUBORDINATE)
_N_P = (len(V.P_AFTER), len(V.P_BEFORE))  # indexed by `before`
_N_PT = (len(V.PT_AFTER), len(V.PT_BEFORE))
_N_VT = (len(V.time_verbs(False)), len(V.time_verbs(True)))
_N_SC = (len(V.SC_AFTER), len(V.SC_BEFORE))
_N_VP = (len(V.VP_AFTER), len(V.VP_BEFORE))
_N_CONJ = len(V.CONJUNCTIONS)

MAX_STATEMENTS = 2  # a constraint is stated at most twice in one paragraph
MAX_SENTENCES_LIMIT = 100
MAX_ITERATIONS_LIMIT = 10_000


def default_max_sentences(n_actions: int) -> int:
    """N for |A| actions when the user does not set it: enough sentences for every
    action to be constrained in nearly every draw (the seed's N is fixed; with a fixed
    N, large |A| leaves actions unconstrained and difficulty stops growing)."""
    return max(1, n_actions - 1) + max(0, n_actions - 9)


@dataclass(frozen=True)
class SynthesisOptions:
    max_sentences: int | None = None  # N; None: default_max_sentences(|A|)
    max_iterations: int = 20  # K
    max_parts: int = 3  # sub-sentences per sentence
    p_multi: float = 0.3  # a sub-sentence is a multi-clause
    p_relative: float = 0.2  # a noun phrase carries a relative clause
    p_time: float = 0.35  # extended mode: an object is a time point
    group_sizes: tuple[float, float] = (0.75, 0.95)  # cumulative P(size 1), P(size ≤ 2)


    def sentences_for(self, n_actions: int) -> int:
        return self.max_sentences if self.max_sentences is not None else default_max_sentences(n_actions)

    def __reduce__(self) -> tuple[type[SynthesisOptions], tuple[object, ...]]:
        # pickled (to worker processes) through __init__: compiled by mypyc (scripts/compile), a frozen
        # class cannot be restored field by field
        return type(self), tuple(getattr(self, f.name) for f in fields(self))


@dataclass
class Skeleton:
    sentences: list[Sentence] = field(default_factory=list)
    atoms: list[list[list[tuple]]] = field(default_factory=list)  # per sentence, per part: derive_part
    sat_checks: int = 0
    statements: dict[tuple, int] = field(default_factory=dict)  # atom -> sub-sentences stating it
    connected: bool = False  # every action linked to every other by orders and time windows
    unconstrained: int = 0  # actions no constraint mentions


def taker(rnd: Callable[[], float], p1: float, p2: float) -> Callable[[list[int], int], tuple[int, ...]]:
    """``take(avail, limit)``: remove a random group of 1-3 actions (size 1 with probability p1,
    at most 2 with p2, then at most ``limit``) from ``avail``. Each size has its own branch (no
    list, no ``min``): the innermost call of synthesis. ``test_fast_paths`` checks it draws
    and returns exactly what the plain form (a size, then a list of pops) does."""

    def take(avail: list[int], limit: int) -> tuple[int, ...]:
        r = rnd()
        pop = avail.pop
        if limit < 1:
            return ()
        if r < p1 or limit == 1:
            return (pop(int(rnd() * len(avail))),)
        if r < p2 or limit == 2:
            return (pop(int(rnd() * len(avail))), pop(int(rnd() * len(avail))))
        return (pop(int(rnd() * len(avail))), pop(int(rnd() * len(avail))), pop(int(rnd() * len(avail))))

    return take


def part_generator(rng: random.Random, n: int, extended: bool, opts: SynthesisOptions) -> Callable[[], SubSentence]:
    """A function drawing one random sub-sentence over actions 0..n-1."""
    draw = part_atoms_generator(rng, n, extended, opts)
    return lambda: draw()[0]


def part_atoms_generator(rng: random.Random, n: int, extended: bool,
                         opts: SynthesisOptions) -> Callable[[], tuple[SubSentence, list[tuple]]]:
    """A function drawing one random sub-sentence over actions 0..n-1, with its atoms:
    exactly ``derive_part`` of the sub-sentence, in the same order (``test_synthesis``
    checks this), built while the groups are drawn instead of by walking the tree again.

    Written as closures over local variables because it is the innermost loop of
    synthesis; every draw uses ``int(rnd() * k)``.
    """
    rnd = rng.random
    p_multi, p_relative, p_time = opts.p_multi, opts.p_relative, opts.p_time
    p1, p2 = opts.group_sizes
    everyone = list(range(n))

    take = taker(rnd, p1, p2)

    def hour(before: bool) -> Time:
        return _new(Time, (3 + int(rnd() * 21) if before else 1 + int(rnd() * 21),))

    def relative(avail: list[int]) -> Relative | None:
        """A relative clause on a group (called with probability p_relative)."""
        before = rnd() < 0.5
        if extended and (not avail or rnd() < p_time):
            return _new(Relative, (before, hour(before), int(rnd() * _N_VT[before]), int(rnd() * _N_PT[before])))
        if not avail:
            return None
        obj = take(avail, len(avail))
        if rnd() < 0.5:
            return _new(Relative, (before, obj, int(rnd() * _N_VP[before]), None))
        return _new(Relative, (before, obj, int(rnd() * _N_VP_NONE), int(rnd() * _N_P[before])))

    def relate(group: tuple[int, ...], before: bool, obj, out: list[tuple]) -> None:
        """grammar._relate: the atoms of "group before/after obj" (obj: tasks or a Time)."""
        if type(obj) is Time:
            kind = "end_le" if before else "start_ge"
            h = obj.hour
            for a in group:
                out.append((kind, a, h))
        elif before:
            for a in group:
                for b in obj:
                    out.append(("order", a, b))
        else:
            for a in group:
                for b in obj:
                    out.append(("order", b, a))

    def part() -> tuple[SubSentence, list[tuple]]:
        avail = everyone[:]
        before = rnd() < 0.5
        atoms: list[tuple] = []
        if rnd() < p_multi:
            # the subordinate clause's subject is plain, one or two tasks: "after B, C and D happen"
            # could be read as "after B" followed by a second clause "C and D happen"
            form = 1 + int(rnd() * 2)
            main_group = take(avail, len(avail) - 1)
            sub_group = take(avail, min(2, len(avail)))
            rel = relative(avail) if rnd() < p_relative else None
            if rel is not None:
                relate(main_group, rel.before, rel.obj, atoms)
            relate(main_group, before, sub_group, atoms)
            return _new(MultiClause, (
                form, before, _new(NounPhrase, (main_group, rel)), _new(NounPhrase, (sub_group, None)),
                int(rnd() * _N_VP_NONE), int(rnd() * _N_VP_SUB), int(rnd() * _N_SC[before]),
            )), atoms
        form = 1 + int(rnd() * 3)
        if extended and form != 1 and rnd() < p_time:
            group = take(avail, len(avail))
            rel = relative(avail) if rnd() < p_relative else None
            if rel is not None:
                relate(group, rel.before, rel.obj, atoms)
            t = hour(before)
            relate(group, before, t, atoms)
            return _new(Clause, (form, before, _new(NounPhrase, (group, rel)), t, int(rnd() * _N_VT[before]),
                                 int(rnd() * _N_PT[before]))), atoms
        # after a fronted task the subject is one or two tasks ("before A, both B and C happen"):
        # "before A, B, C and D happen" would first read as the list "A, B, C and D"
        subj_group = take(avail, len(avail) - 1 if form != 3 else min(2, len(avail) - 1))
        if form == 3:  # a fronted object: one or two tasks, no relative clause, so no comma inside it
            obj_group = take(avail, min(2, len(avail)))
            rel = relative(avail) if rnd() < p_relative else None
            if rel is not None:
                relate(subj_group, rel.before, rel.obj, atoms)
            relate(subj_group, before, obj_group, atoms)
            return _new(Clause, (3, before, _new(NounPhrase, (subj_group, rel)), _new(NounPhrase, (obj_group, None)),
                                 int(rnd() * _N_VP_NONE), int(rnd() * _N_P[before]))), atoms
        obj_group = take(avail, len(avail))
        subj_rel = relative(avail) if rnd() < p_relative else None
        obj_rel = relative(avail) if rnd() < p_relative else None
        if subj_rel is not None:
            relate(subj_group, subj_rel.before, subj_rel.obj, atoms)
        relate(subj_group, before, obj_group, atoms)
        if obj_rel is not None:
            relate(obj_group, obj_rel.before, obj_rel.obj, atoms)
        subj, obj = _new(NounPhrase, (subj_group, subj_rel)), _new(NounPhrase, (obj_group, obj_rel))
        if form == 1:
            return _new(Clause, (1, before, subj, obj, int(rnd() * _N_VP[before]), None)), atoms
        return _new(Clause, (2, before, subj, obj, int(rnd() * _N_VP_NONE), int(rnd() * _N_P[before]))), atoms

    return part


def synthesize(
    rng: random.Random,
    n: int,
    opts: SynthesisOptions,
    durations: list[int] | None = None,
) -> Skeleton:
    """Alg. 1. ``durations`` switches on the extended mode (time windows, one machine).

    A candidate sentence is checked as it is expanded, sub-sentence by
    sub-sentence, and dropped at the first one that makes the constraints
    unsatisfiable. Satisfiability is monotone, so this accepts exactly the
    sentences a check of the whole sentence would, from the same distribution,
    without expanding the rest of a sentence that is already lost.
    """
    extended = durations is not None
    durations = durations if durations is not None else []  # read only in extended mode; a list for the checker
    next_part = part_atoms_generator(rng, n, extended, opts)
    rnd = rng.random
    max_parts = opts.max_parts
    out = Skeleton()
    after = [0] * n  # transitive closure of "before" as bitmasks
    release, deadline = [0] * n, [HORIZON] * n  # extended mode: each action's window
    if extended:  # a schedule satisfying everything accepted so far
        witness = [0] * n
        for a in range(1, n):
            witness[a] = witness[a - 1] + durations[a - 1]
    stated: dict[tuple, int] = {}  # atom -> sub-sentences stating it so far
    stated_get = stated.get
    limit = MAX_STATEMENTS
    checks = 0
    for _ in range(opts.sentences_for(n)):
        for _ in range(opts.max_iterations):
            checks += 1
            parts, part_atoms = [], []
            trial = after[:]
            added: dict[tuple, int] = {}  # statements this candidate adds
            if extended:
                trial_release, trial_deadline = release[:], deadline[:]
            ok = True
            for _ in range(1 + int(rnd() * max_parts)):
                part, atoms = next_part()
                for atom in (atoms if len(atoms) == 1 else set(atoms)):
                    count = added.get(atom, 0) + 1
                    if count + stated_get(atom, 0) > limit:
                        ok = False
                        break
                    added[atom] = count
                if not ok:
                    break
                if extended:
                    ok = atoms_add(trial, trial_release, trial_deadline, durations, atoms)
                else:
                    ok = closure_add_orders(trial, atoms)
                if not ok:
                    break
                parts.append(part)
                part_atoms.append(atoms)
            if ok and extended and not _witness_holds(witness, durations, part_atoms):
                found = schedule(predecessors(trial), trial_release, trial_deadline, durations)
                ok = found is not None
                if found is not None:
                    for a, start in found:
                        witness[a] = start
            if not ok:
                continue
            after = trial
            for atom, count in added.items():
                stated[atom] = stated_get(atom, 0) + count
            if extended:
                release, deadline = trial_release, trial_deadline
            conjs = tuple([int(rnd() * _N_CONJ) for _ in range(len(parts) - 1)])
            out.sentences.append(_new(Sentence, (tuple(parts), conjs)))
            out.atoms.append(part_atoms)
            break
        else:
            break  # K candidates in a row failed: stop the paragraph (Alg. 1, l.12-17)
    out.sat_checks = checks
    out.statements = stated
    out.connected, out.unconstrained = connectivity(n, stated)
    return out


def connectivity(n: int, atoms) -> tuple[bool, int]:
    """(whether all n actions are linked through order atoms and time windows — a window
    links its action to the clock —, how many actions no atom mentions).

    Nodes are bits (node n is the clock): each node's neighbours as a bitmask, then one
    breadth-first sweep from action 0. Called twice per case, so no per-edge function calls."""
    clock = 1 << n
    adj = [0] * (n + 1)
    mentioned = 0
    for kind, a, x in atoms:
        if kind == "order":
            bit_b, b = 1 << x, x
        else:
            bit_b, b = clock, n
        bit_a = 1 << a
        mentioned |= bit_a | (bit_b & ~clock)
        adj[a] |= bit_b
        adj[b] |= bit_a
    seen = frontier = 1
    while frontier:
        reach = 0
        while frontier:
            low = frontier & -frontier
            reach |= adj[low.bit_length() - 1]
            frontier ^= low
        frontier = reach & ~seen
        seen |= reach
    everyone = clock - 1
    return seen & everyone == everyone, n - mentioned.bit_count()


def _witness_holds(start: list[int], durations: list[int], part_atoms: list[list[tuple]]) -> bool:
    """Whether the schedule that satisfies everything so far also satisfies the new
    atoms: then the candidate is satisfiable without solving again."""
    for atoms in part_atoms:
        for kind, a, x in atoms:
            if kind == "order":
                if start[a] + durations[a] > start[x]:
                    return False
            elif kind == "start_ge":
                if start[a] < x:
                    return False
            elif start[a] + durations[a] > x:
                return False
    return True
