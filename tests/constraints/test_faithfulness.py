"""The text says exactly the derived constraints: PDoctor's essential property.

An independent reader (words and grammar only, no skeleton) recovers the
constraint set from each requirement; it must equal the spec's constraints on
10,000 generated cases, basic and extended, with no sentence left unparsed or
read two ways.
"""

import pytest

from planprobe.suites.constraints.compiled import compiled
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases
from planprobe.suites.constraints.reader import default_reader, requirement_of


def spec_atoms(case) -> frozenset:
    cc = compiled(case)
    out = set()
    for c in cc.spec.constraints:
        a = cc.names[cc.index_of[c.a]]
        out.add(("order", a, cc.names[cc.index_of[c.b]]) if c.kind == "order" else (c.kind, a, c.hour))
    return frozenset(out)


@pytest.mark.parametrize("extended", [False, True], ids=["basic", "extended"])
def test_reader_recovers_exactly_the_derived_constraints_on_5000_cases(extended):
    reader = default_reader()
    opts = ConstraintSuiteOptions(n=5000, seed=2024, extended=extended, actions=(2, 8))
    failures = []
    checked = 0
    for case in generate_cases(opts):
        reading = reader.read(requirement_of(case.task))
        expected = spec_atoms(case)
        if not reading.ok or reading.atoms != expected:
            failures.append((case.id, reading.unparsed, reading.ambiguous,
                             sorted(expected - reading.atoms), sorted(reading.atoms - expected)))
        checked += 1
    assert checked == 5000
    assert not failures, failures[:3]


def test_reader_notices_a_changed_word():
    reader = default_reader()
    text = "Cutting hair comes before washing hair."
    assert reader.read(text).atoms == {("order", "cutting hair", "washing hair")}
    assert reader.read(text.replace("before", "after")).atoms == {("order", "washing hair", "cutting hair")}


def test_reader_rejects_ungrammatical_agreement_and_unknown_words():
    reader = default_reader()
    assert reader.read("Cutting hair and washing hair comes before sanitizing tools.").unparsed
    assert reader.read("Cutting hair come before washing hair.").unparsed
    assert reader.read("Cutting hair comes before juggling.").unparsed
    ok = reader.read("Cutting hair and washing hair come before sanitizing tools.")
    assert ok.ok and len(ok.atoms) == 2


def test_reader_reads_times_as_windows():
    reading = default_reader().read("Cutting hair, which occurs no later than 15:00, follows washing hair. "
                                    "After 10:00, washing hair is done.")
    assert reading.atoms == {("end_le", "cutting hair", 15), ("order", "washing hair", "cutting hair"),
                             ("start_ge", "washing hair", 10)}


@pytest.mark.parametrize("extended", [False, True], ids=["basic", "extended"])
def test_each_quoted_clause_states_exactly_the_constraints_it_is_cited_for(extended):
    # evidence quotes task[start:end] for a constraint; that span alone must say it
    reader = default_reader()
    for case in generate_cases(ConstraintSuiteOptions(n=500, seed=77, extended=extended, actions=(2, 7))):
        cc = compiled(case)
        cited: dict[int, set] = {}
        for c in cc.spec.constraints:
            a = cc.names[cc.index_of[c.a]]
            atom = ("order", a, cc.names[cc.index_of[c.b]]) if c.kind == "order" else (c.kind, a, c.hour)
            for k in c.clauses:
                cited.setdefault(k, set()).add(atom)
        assert set(cited) == set(range(len(cc.spec.clauses)))
        for k, atoms in cited.items():
            assert reader.read_part(cc.clause_text(k)) == {frozenset(atoms)}, cc.clause_text(k)


def test_reader_rejects_a_modal_verb_in_a_subordinate_clause():
    reader = default_reader()
    assert reader.read("Cutting hair happens after washing hair should be done.").unparsed
    assert reader.read("Cutting hair should be done after washing hair happens.").ok
