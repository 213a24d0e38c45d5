import itertools

from planprobe.suites.constraints import vocabulary as V
from planprobe.suites.constraints.grammar import (
    Clause,
    MultiClause,
    NounPhrase,
    Relative,
    Sentence,
    Time,
    count_expansions,
    derive,
    sentence_from_json,
    sentence_to_json,
)
from planprobe.suites.constraints.render import render_sentence

NAMES = ["cutting hair", "washing hair", "booking appointments", "sanitizing tools"]


def test_clause_forms_all_mean_subject_before_object_when_before():
    for form in (1, 2, 3):
        s = Sentence((Clause(form, True, NounPhrase((0,)), NounPhrase((1,)), 0, 0 if form > 1 else None),), ())
        assert derive(s) == [("order", 0, 1)]
        s = Sentence((Clause(form, False, NounPhrase((0,)), NounPhrase((1,)), 0, 0 if form > 1 else None),), ())
        assert derive(s) == [("order", 1, 0)]


def test_groups_relate_every_pair_and_relative_clauses_add_their_own():
    subj = NounPhrase((0, 1), Relative(False, (2,), 0, None))  # "A and B, which come after C,"
    s = Sentence((Clause(1, True, subj, NounPhrase((3,)), 0),), ())
    assert sorted(derive(s)) == sorted([("order", 2, 0), ("order", 2, 1), ("order", 0, 3), ("order", 1, 3)])


def test_time_objects_bound_start_or_end():
    s = Sentence((Clause(2, True, NounPhrase((0,)), Time(15), 0, 0), Clause(3, False, NounPhrase((1,)), Time(10), 0, 0)),
                 (0,))
    assert derive(s) == [("end_le", 0, 15), ("start_ge", 1, 10)]
    text, _ = render_sentence(s, NAMES)
    assert text == "Cutting hair ends by 15:00; at or after 10:00, washing hair starts."


def test_multi_clauses_relate_main_to_sub_in_both_forms():
    for form in (1, 2):
        m = MultiClause(form, True, NounPhrase((0,)), NounPhrase((1,)), 0, 0, 0)
        assert derive(Sentence((m,), ())) == [("order", 0, 1)]
    text, _ = render_sentence(Sentence((MultiClause(2, False, NounPhrase((0,)), NounPhrase((1,)), 0, 0, 1),), ()), NAMES)
    assert text == "Once washing hair happens, cutting hair happens."


def test_skeleton_json_round_trip():
    s = Sentence((
        Clause(3, True, NounPhrase((0,), Relative(True, Time(9), 2, 1)), NounPhrase((1, 2)), 4, 2),
        MultiClause(1, False, NounPhrase((3,)), NounPhrase((0,), Relative(False, (1,), 1, None)), 1, 2, 3),
    ), (5,))
    assert sentence_from_json(sentence_to_json(s)) == s


def test_expansion_count_matches_a_brute_force_enumeration():
    # enumerate sub-sentence shapes directly from the productions and compare; fronted objects
    # and subordinate subjects carry no relative clause
    def np_shapes(extended):
        rels = [None] + [(k, b) for k in (["vp", "pp"] + (["pt"] if extended else [])) for b in (0, 1)]
        return rels

    for extended in (False, True):
        shapes = set()
        for before in (0, 1):
            for form in (1, 2, 3):
                objects = np_shapes(extended) if form != 3 else [None]
                for rs, ro in itertools.product(np_shapes(extended), objects):
                    shapes.add(("c", form, before, rs, ro))
                if extended and form in (2, 3):
                    for rs in np_shapes(extended):
                        shapes.add(("ct", form, before, rs))
            for form in (1, 2):
                for rs in np_shapes(extended):
                    shapes.add(("m", form, before, rs, None))
        counts = count_expansions(extended)
        assert counts["sub_sentence_shapes"] == len(shapes)
        assert counts["with_terminal_words"] > counts["sub_sentence_shapes"] * 7
        assert counts["conjunctions"] == len(V.CONJUNCTIONS)
    assert count_expansions(False)["sub_sentence_shapes"] == 130


def test_shaped_atoms_are_exactly_derive_part_with_labels():
    import random

    from planprobe.suites.constraints.grammar import derive_part, shaped_atoms
    from planprobe.suites.constraints.synthesis import SynthesisOptions, part_generator

    for extended in (False, True):
        parts = part_generator(random.Random(3), 5, extended, SynthesisOptions(p_relative=0.5))
        for _ in range(500):
            p = parts()
            shaped = shaped_atoms(p)
            assert [a for a, _ in shaped] == derive_part(p)
            assert all(shape for _, shape in shaped)
