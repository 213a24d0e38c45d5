"""Meaning-preserving mutations of a constraint case (seed PDoctor §4.5, Alg. 2).

Error dissection asks whether a failure survives a change that keeps the
constraints: other terminal words (Terminal), another topic (Topic), another
sentence structure stating the same constraint set (Structure). Each operator
returns a new case whose constraint set equals the original's exactly, action
for action; ``tests/constraints/test_mutations.py`` checks that with the
independent reader on every mutant.
"""

from __future__ import annotations

import random
from typing import Optional

from ...errors import PlanprobeError
from ...schema import Case
from . import vocabulary as V
from .compiled import compiled
from .generator import ConstraintSuiteOptions, build_case
from .grammar import (
    Clause, MultiClause, NounPhrase, Relative, Sentence, Time, sentence_from_json,
)
from .lexicon import Lexicon, default_lexicon


def _mutant(case: Case, kind: str, mutant: Case, n: int) -> Case:
    meta = mutant.meta.model_copy(update={
        "parent": case.id, "transforms": [*case.meta.transforms, f"dissect:{kind}"],
        "seed": case.meta.seed, "generator": {**case.meta.generator, "mutation": kind, "mutant": n},
    })
    return mutant.model_copy(update={"id": f"{case.id}~{kind}{n}", "meta": meta})


def _context(case: Case):
    cc = compiled(case)
    if not cc.spec.skeleton:
        raise PlanprobeError(f"case {case.id!r} has no skeleton to mutate")
    opts = ConstraintSuiteOptions(seed=case.meta.seed or 0, extended=cc.extended)
    durations = cc.durations if cc.extended else None
    sentences = [sentence_from_json(s) for s in cc.spec.skeleton]
    return cc, opts, durations, sentences


def _reword_np(np: NounPhrase, rng: random.Random) -> NounPhrase:
    if np.rel is None:
        return np
    r = np.rel
    if isinstance(r.obj, Time):
        rel = Relative(r.before, r.obj, rng.randrange(len(V.VP_NONE)),
                       rng.randrange(len(V.PT_BEFORE if r.before else V.PT_AFTER)))
    elif r.prep is None:
        rel = Relative(r.before, r.obj, rng.randrange(len(V.VP_BEFORE if r.before else V.VP_AFTER)), None)
    else:
        rel = Relative(r.before, r.obj, rng.randrange(len(V.VP_NONE)),
                       rng.randrange(len(V.P_BEFORE if r.before else V.P_AFTER)))
    return NounPhrase(np.group, rel)


def _reword(sentence: Sentence, rng: random.Random) -> Sentence:
    parts = []
    for p in sentence.parts:
        if isinstance(p, Clause):
            if p.form == 1:
                verb, prep = rng.randrange(len(V.VP_BEFORE if p.before else V.VP_AFTER)), None
            else:
                preps = (V.PT_BEFORE if p.before else V.PT_AFTER) if isinstance(p.obj, Time) else \
                    (V.P_BEFORE if p.before else V.P_AFTER)
                verb, prep = rng.randrange(len(V.VP_NONE)), rng.randrange(len(preps))
            obj = p.obj if isinstance(p.obj, Time) else _reword_np(p.obj, rng)
            parts.append(Clause(p.form, p.before, _reword_np(p.subj, rng), obj, verb, prep))
        else:
            scs = V.SC_BEFORE if p.before else V.SC_AFTER
            parts.append(MultiClause(p.form, p.before, _reword_np(p.main, rng), _reword_np(p.sub, rng),
                                     rng.randrange(len(V.VP_NONE)), rng.randrange(len(V.VP_NONE_SUBORDINATE)),
                                     rng.randrange(len(scs))))
    conjs = tuple(rng.randrange(len(V.CONJUNCTIONS)) for _ in sentence.conjs)
    return Sentence(tuple(parts), conjs)


def terminal_substitute(case: Case, rng: random.Random, n: int = 0) -> Case:
    """Same skeleton, same actions, other terminal words (Alg. 2, TerminalSubstitute)."""
    cc, opts, durations, sentences = _context(case)
    mutant = build_case(0, opts, case.meta.topic, cc.names, durations, [_reword(s, rng) for s in sentences])
    return _mutant(case, "terminal", mutant, n)


def topic_change(case: Case, rng: random.Random, n: int = 0, lexicon: Optional[Lexicon] = None) -> Case:
    """Same skeleton and words, the actions renamed after another job's activities (TopicChange)."""
    cc, opts, durations, sentences = _context(case)
    lex = lexicon or default_lexicon()
    jobs = [j for j in lex.jobs if j.name != case.meta.topic and len(j.activities) >= cc.n]
    if not jobs:
        raise PlanprobeError(f"case {case.id!r}: no other topic has {cc.n} activities")
    job = rng.choice(jobs)
    names = rng.sample(job.activities, cc.n)
    mutant = build_case(0, opts, job.name, names, durations, sentences)
    return _mutant(case, "topic", mutant, n)


def query_synthesize(case: Case, rng: random.Random, n: int = 0) -> Case:
    """A new paragraph stating exactly the same constraint set in another structure
    (QuerySynthesize): every constraint restated by a randomly chosen production,
    in a random order, grouped into sentences of one to three sub-sentences."""
    cc, opts, durations, sentences = _context(case)
    atoms = [("order", a, b) for _, a, b in cc.orders] + [(k, a, h) for _, k, a, h in cc.windows]
    for _ in range(20):
        rng.shuffle(atoms)
        parts = [_restate(atom, rng) for atom in atoms]
        new: list[Sentence] = []
        i = 0
        while i < len(parts):
            k = min(len(parts) - i, rng.randint(1, 3))
            chunk = tuple(parts[i:i + k])
            new.append(Sentence(chunk, tuple(rng.randrange(len(V.CONJUNCTIONS)) for _ in range(k - 1))))
            i += k
        if new != sentences:  # a different structure, unless the case admits no other
            break
    mutant = build_case(0, opts, case.meta.topic, cc.names, durations, new)
    return _mutant(case, "structure", mutant, n)


def _restate(atom: tuple, rng: random.Random):
    """One sub-sentence stating exactly ``atom``."""
    kind, a, x = atom
    if kind != "order":
        before = kind == "end_le"
        preps = V.PT_BEFORE if before else V.PT_AFTER
        return Clause(rng.choice((2, 3)), before, NounPhrase((a,)), Time(x), rng.randrange(len(V.VP_NONE)),
                      rng.randrange(len(preps)))
    before = rng.random() < 0.5  # "a before b" or, equally, "b after a"
    subj, obj = ((a,), (x,)) if before else ((x,), (a,))
    if rng.random() < 0.3:
        scs = V.SC_BEFORE if before else V.SC_AFTER
        return MultiClause(rng.choice((1, 2)), before, NounPhrase(subj), NounPhrase(obj),
                           rng.randrange(len(V.VP_NONE)), rng.randrange(len(V.VP_NONE_SUBORDINATE)),
                           rng.randrange(len(scs)))
    form = rng.choice((1, 2, 3))
    if form == 1:
        return Clause(1, before, NounPhrase(subj), NounPhrase(obj),
                      rng.randrange(len(V.VP_BEFORE if before else V.VP_AFTER)))
    return Clause(form, before, NounPhrase(subj), NounPhrase(obj), rng.randrange(len(V.VP_NONE)),
                  rng.randrange(len(V.P_BEFORE if before else V.P_AFTER)))


MUTATIONS = {"terminal": terminal_substitute, "topic": topic_change, "structure": query_synthesize}
