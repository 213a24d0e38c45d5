"""The text says exactly the derived constraints, and nothing else can be read into it.

An independent reader (its own phrase table and a permissive English grammar that
enumerates every reading: relative-clause attachment, fronted-phrase boundaries,
comma splices, verb aspect) reads each requirement. Every generated text must have
exactly one reading, equal to the case's constraints — proven here on texts the
generator did NOT filter, so the grammar is unambiguous by construction.
"""

import ast
import itertools
from pathlib import Path

import pytest

from planprobe.suites.constraints import vocabulary as V
from planprobe.suites.constraints.generator import (
    ConstraintSuiteOptions,
    generate_case,
    generate_cases,
)
from planprobe.suites.constraints.grammar import (
    Clause,
    NounPhrase,
    Relative,
    Sentence,
    Time,
)
from planprobe.suites.constraints.prepared import prepare
from planprobe.suites.constraints.reader import Reader, default_reader
from planprobe.suites.constraints.reader_phrases import garden_reading
from planprobe.suites.constraints.reading import requirement_of, split_sentences
from planprobe.suites.constraints.render import render_counted, render_sentence
from planprobe.suites.constraints.synthesis import SynthesisOptions

NAMES = ("cutting hair", "washing hair", "booking appointments", "sanitizing tools")


def spec_atoms(case) -> frozenset:
    cc = prepare(case)
    out = set()
    for c in cc.spec.constraints:
        a = cc.names[cc.index_of[c.a]]
        out.add(("order", a, cc.names[cc.index_of[c.b]]) if c.kind == "order" else (c.kind, a, c.hour))
    return frozenset(out)


def _reader(case) -> Reader:
    return Reader(prepare(case).names)


@pytest.mark.parametrize("extended", [False, True], ids=["basic", "timed"])
def test_20000_unfiltered_texts_each_have_exactly_one_reading_equal_to_their_constraints(extended):
    # 10,000 per mode, |A| 2-9, generated with the generator's own read-back check switched off
    opts = ConstraintSuiteOptions(n=10_000, seed=2026, extended=extended, actions=(2, 9), check_text=False)
    failures = []
    for case in generate_cases(opts):
        reading = _reader(case).read(requirement_of(case.task))
        expected = spec_atoms(case)
        if not reading.ok or reading.atoms != expected:
            failures.append((case.id, reading.unparsed, reading.ambiguous,
                             sorted(expected - reading.atoms), sorted(reading.atoms - expected)))
    assert not failures, failures[:3]


@pytest.mark.pure_only  # compiled build: run in a pure subprocess (test_native_build.py)
def test_the_generator_rejects_texts_that_read_otherwise(monkeypatch):
    # the read-back check is live: a renderer that says "after" for "before" is caught and re-drawn
    import planprobe.suites.constraints.generator as G

    calls = []
    real = G.reads_as_spec  # what generate_case checks each draft with (text_reads_as_spec on a case)

    def spy(task, spec):
        ok = real(task, spec)
        calls.append(ok)
        return ok

    monkeypatch.setattr(G, "reads_as_spec", spy)
    opts = ConstraintSuiteOptions(n=20, seed=1)
    list(G.generate_cases(opts))
    assert len(calls) >= 20 and all(calls)

    # a renderer that names the wrong tasks (rotated by one): no non-empty acyclic order set survives a
    # rotation, so every draw must be rejected
    monkeypatch.setattr(G, "render_counted", lambda s, names: render_counted(s, list(names[1:]) + [names[0]]))
    with pytest.raises(Exception, match="read other than their constraints"):
        G.generate_case(0, ConstraintSuiteOptions(seed=1, actions=(3, 3)))


# -- every word of every slot means what the oracle says --------------------------------


def _one_reading(text: str, names=NAMES) -> frozenset:
    readings = Reader(names).sentence_readings(text)
    assert len(readings) == 1, (text, readings)
    return next(iter(readings))


@pytest.mark.parametrize("before", [True, False], ids=["upper-bound", "lower-bound"])
def test_every_time_verb_and_preposition_bounds_the_point_its_english_names(before):
    kind = "end_le" if before else "start_ge"
    for verb, prep in itertools.product(range(len(V.time_verbs(before))), range(len(V.preps(before, True)))):
        for form in (2, 3):
            for group in ((0,), (0, 1)):
                s = Sentence((Clause(form, before, NounPhrase(group), Time(15), verb, prep),), ())
                text = render_sentence(s, NAMES)[0]
                assert _one_reading(text) == {(kind, NAMES[g], 15) for g in group}, text


def test_every_order_phrase_reads_as_its_order():
    for before in (True, False):
        expect = {("order", NAMES[0], NAMES[1]) if before else ("order", NAMES[1], NAMES[0])}
        for verb in range(len(V.order_verbs(before))):
            text = render_sentence(Sentence((Clause(1, before, NounPhrase((0,)), NounPhrase((1,)), verb),), ()),
                                   NAMES)[0]
            assert _one_reading(text) == expect, text
        for verb, prep, form in itertools.product(range(len(V.VP_NONE)), range(len(V.preps(before, False))),
                                                  (2, 3)):
            text = render_sentence(Sentence((Clause(form, before, NounPhrase((0,)), NounPhrase((1,)), verb,
                                                    prep),), ()), NAMES)[0]
            assert _one_reading(text) == expect, text


def test_relative_clauses_name_their_antecedent():
    for size in (1, 2, 3):
        group = tuple(range(size))
        rel = Relative(True, Time(12), 4, 1)  # "… must be completed no later than 12:00"
        s = Sentence((Clause(1, True, NounPhrase(group, rel), NounPhrase((3,)), 0),), ())
        text = render_sentence(s, NAMES)[0]
        atoms = _one_reading(text)
        assert {a for a in atoms if a[0] == "end_le"} == {("end_le", NAMES[g], 12) for g in group}, text


# -- the constructions found in the independent reading (issue #10) ------------------------


def test_a_completion_verb_with_an_after_bound_bounds_the_end_not_the_start():
    names = ("watching for shoplifters", "restocking shelves")
    atoms = _one_reading("Watching for shoplifters must be completed at or after 17:00.", names)
    assert atoms == {("end_ge", "watching for shoplifters", 17)}  # not the start_ge 17 once stored
    # and the generator never pairs them
    assert not {v for v, _ in V.VP_END} & {v for v, _ in V.time_verbs(False)}


def test_which_after_a_group_is_ambiguous_unless_its_marker_names_the_group():
    names = ("organizing case files", "checking legal citations", "filing motions")
    text = "Filing motions comes before organizing case files and checking legal citations, which should be " \
           "done no earlier than 05:00."
    assert len(Reader(names).sentence_readings(text)) > 1
    fixed = text.replace(", which should be done", ", both of which must happen")
    assert _one_reading(fixed, names) >= {("start_ge", "organizing case files", 5),
                                          ("start_ge", "checking legal citations", 5)}


def test_a_fronted_phrase_with_a_comma_inside_is_a_garden_path():
    names = ("checking freezer temperatures", "calibrating the pipettes", "validating new assays",
             "cleaning the fume hood")
    text = ("Earlier than checking freezer temperatures, calibrating the pipettes and validating new assays take "
            "place, cleaning the fume hood is carried out.")
    readings = Reader(names).sentence_readings(text)
    complete = readings - {garden_reading("list")}  # and the list "checking, calibrating and validating"
    assert len(complete) == 2  # the oracle's grouping, and "calibrating and validating come earlier than checking"


# the constructions issue #26's independent readers parsed twice, and what the generator says instead
_FIRE = ("washing the fire engine", "searching burning buildings", "writing incident reports", "checking the hoses")
_CHILD = ("updating safety plans", "attending court hearings", "investigating abuse reports", "monitoring child safety")
GARDEN_PATHS = [
    ("list", _FIRE, ("Earlier than washing the fire engine, searching burning buildings and writing incident "
                     "reports should be performed.")),
    ("list", _FIRE, ("Checking the hoses comes after writing incident reports; earlier than washing the fire "
                     "engine, searching burning buildings and checking the hoses are performed.")),
    ("bound", _CHILD, ("Updating safety plans takes place earlier than attending court hearings, and later than "
                       "investigating abuse reports is performed, monitoring child safety takes place.")),
    ("bound", _CHILD, ("Updating safety plans comes before attending court hearings, and by 15:00, monitoring "
                       "child safety must be completed.")),
]
UNTANGLED = [
    (_FIRE, ("Earlier than washing the fire engine, both searching burning buildings and writing incident reports "
             "should be performed.")),
    (_CHILD, ("Updating safety plans takes place earlier than attending court hearings; later than investigating "
              "abuse reports is performed, monitoring child safety takes place.")),
]


@pytest.mark.parametrize("kind,names,text", GARDEN_PATHS, ids=["list", "list-after-semicolon", "bound", "bound-time"])
def test_a_garden_path_reads_as_two_parses(kind, names, text):
    """A parse a careful reader must back out of counts as a second reading (issue #26): a fronted
    object that could run on as a list, a relation after ", and" that first bounds the clause before."""
    reader = Reader(names)
    readings = reader.sentence_readings(text)
    assert garden_reading(kind) in readings and len(readings - {garden_reading(kind)}) == 1
    assert not reader.read(text).ok


def test_the_untangled_forms_read_once():
    for names, text in UNTANGLED:
        assert len(Reader(names).sentence_readings(text)) == 1, text


def _garden_paths(case) -> list[str]:
    reading = _reader(case).read(requirement_of(case.task))
    return [s for s, readings in zip(split_sentences(requirement_of(case.task)), reading.readings)
            if any(a[0] == "garden_path" for r in readings for a in r)]


@pytest.mark.parametrize("extended", [False, True], ids=["basic", "timed"])
def test_generation_never_produces_a_garden_path(extended):
    """Unfiltered texts of several seeds and both styles (before issue #26 about one case in
    three had one), the skeletons of dissection's re-wordings and re-structurings, and a
    contradiction's added sentences."""
    import random

    from planprobe.suites.constraints.grammar import opens_with_front, tangled
    from planprobe.suites.constraints.mutations import _context, _paragraph, _reword

    found, fronted = [], 0
    for seed, style in ((3, "planprobe"), (4, "paper"), (5, "planprobe")):
        opts = ConstraintSuiteOptions(n=400, seed=seed, extended=extended, style=style, actions=(2, 9),
                                      check_text=False)
        for case in generate_cases(opts):
            found += [(case.id, s) for s in _garden_paths(case)]
            fronted += sum(opens_with_front(p) for s in _context(case)[3] for p in s.parts[1:])
    assert not found, found[:3]
    assert fronted > 100  # fronted phrases still follow other sub-sentences (after a semicolon)
    rng = random.Random(9)
    for case in generate_cases(ConstraintSuiteOptions(n=150, seed=6, extended=extended, actions=(2, 7))):
        prepared, _, _, sentences = _context(case)
        target = {("order", a, b) for _, a, b in prepared.orders} | {(k, a, h) for _, k, a, h in prepared.windows}
        drawn = [_reword(s, rng) for s in sentences] + (_paragraph(target, prepared.n, rng) or [])
        for s in drawn:
            assert not tangled(s), s
            for p in s.parts:
                if isinstance(p, Clause) and p.form == 3 and not isinstance(p.obj, Time):
                    assert len(p.subj.group) <= 2, p
        text = " ".join(render_sentence(s, prepared.names)[0] for s in drawn)
        readings = Reader(prepared.names).read(text).readings
        assert not any(a[0] == "garden_path" for rs in readings for r in rs for a in r), text


def test_disputable_words_read_two_ways():
    r = Reader(NAMES)
    assert len(r.sentence_readings("Cutting hair happens before 15:00.")) == 2  # the end, or only the start?
    assert len(r.sentence_readings("Cutting hair follows washing hair.")) == 2  # immediately?
    assert len(r.sentence_readings("Cutting hair is done no earlier than 10:00.")) == 2  # performed or finished?
    assert len(r.sentence_readings("Cutting hair comes before washing hair, while sanitizing tools comes before "
                                   "booking appointments.")) == 2  # at the same time?
    assert _one_reading("Cutting hair starts after 10:00.") == {("start_gt", "cutting hair", 10)}  # strictly


# the reader's modules: its grammar, its phrase table, what a relation means, a requirement's sentences
READER_MODULES = ("reader", "reader_phrases", "reader_meaning", "reading", "reader_fast")


@pytest.mark.parametrize("module", READER_MODULES)
def test_the_reader_does_not_import_the_generators_words_or_grammar(module):
    source = Path(__file__).resolve().parents[2] / f"src/planprobe/suites/constraints/{module}.py"
    imported, siblings = set(), set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
            imported.update(alias.name for alias in node.names)
            if node.level == 1:
                siblings.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert not imported & {"vocabulary", "grammar", "render", "synthesis", "generator"}, imported
    # within the family it reads only with its own modules (and the lexicon's activity names)
    assert siblings <= {*READER_MODULES, "lexicon"}, siblings


def test_reader_rejects_ungrammatical_agreement_and_unknown_words():
    reader = default_reader()
    assert reader.read("Cutting hair and washing hair comes before sanitizing tools.").unparsed
    assert reader.read("Cutting hair come before washing hair.").unparsed
    assert reader.read("Cutting hair comes before juggling.").unparsed
    assert reader.read("Cutting hair comes (before) washing hair.").unparsed
    ok = reader.read("Cutting hair and washing hair come before sanitizing tools.")
    assert ok.ok and len(ok.atoms) == 2


# -- difficulty that grows honestly ----------------------------------------------------------


def test_no_constraint_is_stated_more_than_twice_and_every_action_is_constrained():
    for extended in (False, True):
        for n in (2, 5, 9):
            for case in generate_cases(ConstraintSuiteOptions(n=150, seed=n, extended=extended, actions=(n, n))):
                spec = prepare(case).spec
                assert all(len(c.clauses) <= 2 for c in spec.constraints), case.id
                d = case.meta.difficulty
                assert d["unconstrained"] == 0 and d["restatements"] <= d["constraints"], case.id
                mentioned = {c.a for c in spec.constraints} | {c.b for c in spec.constraints if c.b}
                assert mentioned == {a.id for a in spec.actions}


def test_allow_unconstrained_keeps_paragraphs_that_leave_actions_out():
    opts = ConstraintSuiteOptions(n=60, seed=3, actions=(9, 9), allow_unconstrained=True,
                                  synthesis=SynthesisOptions(max_sentences=2))
    assert any(c.meta.difficulty["unconstrained"] > 0 for c in generate_cases(opts))
    strict = ConstraintSuiteOptions(n=1, seed=3, actions=(15, 15),
                                    synthesis=SynthesisOptions(max_sentences=1))
    with pytest.raises(Exception, match="--allow-unconstrained"):
        generate_case(0, strict)


@pytest.mark.parametrize("extended", [False, True], ids=["basic", "timed"])
def test_each_quoted_clause_states_exactly_the_constraints_it_is_cited_for(extended):
    # evidence quotes task[start:end] for a constraint; that span alone must say it
    for case in generate_cases(ConstraintSuiteOptions(n=400, seed=77, extended=extended, actions=(2, 7))):
        cc = prepare(case)
        reader = _reader(case)
        cited: dict[int, set] = {}
        for c in cc.spec.constraints:
            a = cc.names[cc.index_of[c.a]]
            atom = ("order", a, cc.names[cc.index_of[c.b]]) if c.kind == "order" else (c.kind, a, c.hour)
            for k in c.clauses:
                cited.setdefault(k, set()).add(atom)
        assert set(cited) == set(range(len(cc.spec.clauses)))
        for k, atoms in cited.items():
            assert reader.read_part(cc.clause_text(k)) == {frozenset(atoms)}, cc.clause_text(k)


def test_paper_style_texts_read_the_same_way():
    for extended in (False, True):
        opts = ConstraintSuiteOptions(n=200, seed=8, extended=extended, style="paper", actions=(2, 6))
        for case in generate_cases(opts):
            reading = _reader(case).read(requirement_of(case.task))
            assert reading.ok and reading.atoms == spec_atoms(case)
            assert "The tasks are" not in case.task  # no task list: the reader takes the names from the tools

