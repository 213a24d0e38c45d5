"""Dissection's mutations keep the constraint set exactly — checked by the independent
reader on the mutant's text, not on its skeleton."""

import random

import pytest

from helpers import cases, run_agent
from planprobe.agents import make_agent
from planprobe.suites.constraints.mutations import MUTATIONS
from planprobe.suites.constraints.prepared import prepare
from planprobe.suites.constraints.reader import default_reader
from planprobe.suites.constraints.reading import requirement_of
from planprobe.suites.registry import get_family


def _atoms_by_action(case, reading=None):
    """The constraint set with actions as ids (a1, a2, ...), from the text when reading is given."""
    cc = prepare(case)
    by_name = {name: cc.ids[i] for i, name in enumerate(cc.names)}
    if reading is not None:
        return frozenset((k, by_name[a], by_name[b] if k == "order" else b) for k, a, b in reading)
    out = set()
    for c in cc.spec.constraints:
        out.add((c.kind, c.a, c.b if c.kind == "order" else c.hour))
    return frozenset(out)


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
@pytest.mark.parametrize("extended", [False, True], ids=["basic", "extended"])
def test_every_mutant_states_exactly_the_original_constraints(kind, extended):
    reader = default_reader()
    rng = random.Random(5)
    changed = 0
    for case in cases(150, seed=44, extended=extended, actions=(2, 7)):
        mutant = MUTATIONS[kind](case, rng)
        reading = reader.read(requirement_of(mutant.task))
        assert reading.ok, (mutant.id, reading.unparsed, reading.ambiguous)
        assert _atoms_by_action(mutant, reading.atoms) == _atoms_by_action(case)
        assert mutant.meta.parent == case.id and mutant.meta.transforms[-1] == f"dissect:{kind}"
        get_family("constraints").validate(mutant)
        changed += mutant.task != case.task
        if kind == "topic":
            assert mutant.meta.topic != case.meta.topic
        if kind in ("terminal", "structure"):
            assert prepare(mutant).names == prepare(case).names
    assert changed >= 140  # a mutant almost always reads differently


def test_mutants_are_solvable_and_judged_by_the_same_oracle():
    rng = random.Random(2)
    oracle = make_agent("oracle")
    for case in cases(40, seed=3, extended=True):
        for kind, mutate in MUTATIONS.items():
            mutant = mutate(case, rng)
            assert get_family("constraints").check(mutant, run_agent(oracle, mutant)).passed, (kind, mutant.id)
