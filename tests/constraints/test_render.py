import re

from helpers import cases
from planprobe.suites.constraints.grammar import (
    Clause,
    NounPhrase,
    Relative,
    Sentence,
    Time,
)
from planprobe.suites.constraints.reading import requirement_of, split_sentences
from planprobe.suites.constraints.render import render_sentence

NAMES = ["cutting hair", "washing hair", "booking appointments", "sanitizing tools"]


def test_plural_subjects_take_plural_verbs():
    s = Sentence((Clause(1, True, NounPhrase((0, 1)), NounPhrase((2,)), 3),), ())
    assert render_sentence(s, NAMES)[0] == \
        "Cutting hair and washing hair are carried out ahead of booking appointments."
    s = Sentence((Clause(1, True, NounPhrase((0,)), NounPhrase((1, 2, 3)), 3),), ())
    assert render_sentence(s, NAMES)[0] == \
        "Cutting hair is carried out ahead of washing hair, booking appointments and sanitizing tools."


def test_relative_clauses_are_set_off_by_commas_that_merge_with_following_punctuation():
    rel = Relative(True, (3,), 0, None)
    s = Sentence((Clause(2, False, NounPhrase((0,)), NounPhrase((1,), rel), 0, 0),
                  Clause(1, True, NounPhrase((2,), rel), NounPhrase((1,)), 1)), (1,))
    assert render_sentence(s, NAMES)[0] == (
        "Cutting hair happens after washing hair, which comes before sanitizing tools, and booking "
        "appointments, which comes before sanitizing tools, precedes washing hair."
    )


def test_a_relative_clause_on_a_group_names_the_group():
    both = Sentence((Clause(1, True, NounPhrase((0, 1), Relative(False, (3,), 0, None)), NounPhrase((2,)), 0),), ())
    assert render_sentence(both, NAMES)[0] == (
        "Cutting hair and washing hair, both of which come after sanitizing tools, come before booking appointments."
    )
    three = Sentence((Clause(1, False, NounPhrase((3,)), NounPhrase((0, 1, 2), Relative(True, (3,), 1, None)), 0),),
                     ())
    assert render_sentence(three, NAMES)[0].endswith("all three of which precede sanitizing tools.")


def test_generated_requirements_are_well_formed_english():
    for case in cases(300, seed=11) + cases(300, seed=11, extended=True):
        req = requirement_of(case.task)
        for sentence in split_sentences(req):
            assert sentence[0].isupper(), sentence
            assert sentence.endswith(".") and not sentence.endswith(",.") and ".." not in sentence
            assert ",," not in sentence and ", ," not in sentence and " ," not in sentence and "  " not in sentence
            assert not re.search(r"\b(and|which|before|after),", sentence), sentence
        assert case.task.count("Here is the requirement:") == 1


def test_two_tasks_after_a_fronted_task_read_both_b_and_c():
    """"Before A, B and C happen" first reads as the list "A, B and C" (issue #26); "both" says
    where the subject starts. One task, or a fronted time, needs nothing."""
    two = Sentence((Clause(3, True, NounPhrase((0, 1)), NounPhrase((2,)), 10, 2),), ())
    assert render_sentence(two, NAMES)[0] == \
        "Earlier than booking appointments, both cutting hair and washing hair should be performed."
    one = Sentence((Clause(3, True, NounPhrase((0,)), NounPhrase((2,)), 10, 2),), ())
    assert render_sentence(one, NAMES)[0] == "Earlier than booking appointments, cutting hair should be performed."
    timed = Sentence((Clause(3, True, NounPhrase((0, 1)), Time(15), 0, 0),), ())
    assert render_sentence(timed, NAMES)[0] == "By 15:00, cutting hair and washing hair end."
