"""The response parser: plans, states and verification verdicts read from model text."""

from __future__ import annotations

import random

import pytest
from pddl_data import problem
from test_translation import BW_DOMAIN, BW_PROBLEM

from planprobe.pddl import parse_domain, parse_problem, solve
from planprobe.pddl.grounding import ground
from planprobe.pddl.model import Atom
from planprobe.pddl.reply_parser import (
    PLANBENCH_NEGATION,
    parse_plan,
    parse_state,
    parse_verification,
    plan_region,
)
from planprobe.pddl.translation import load_translation, translator


@pytest.fixture(scope="module")
def bw():
    return translator(parse_problem(BW_PROBLEM, parse_domain(BW_DOMAIN)))


def steps(text, tr):
    return parse_plan(text, tr).pddl


# -- round trips ------------------------------------------------------------------

def _round_trip(tr, actions):
    text = "\n".join(tr.plan(actions))
    parsed = parse_plan(text, tr)
    assert parsed.pddl == [str(a) for a in actions]
    assert not parsed.unparsed and not parsed.ignored
    assert parse_plan(text.upper(), tr).pddl == parsed.pddl  # case does not matter


def test_round_trip_every_action_of_an_inline_problem(bw):
    _round_trip(bw, list(ground(bw.problem).actions()))


@pytest.mark.parametrize("folder, config", [
    ("blocksworld", "blocksworld"), ("blocksworld/mystery", "mystery_blocksworld"), ("logistics", "logistics"),
    ("obfuscated_deceptive_logistics", "obfuscated_deceptive_logistics"),
    ("obfuscated_randomized_logistics", "obfuscated_randomized_logistics"), ("depots", "depots")])
def test_round_trip_for_every_domain_config(folder, config):
    """Every ground action of several PlanBench instances renders and reads back to
    itself (Logistics: load/unload into trucks and airplanes share their sentences
    and are told apart by the objects' types)."""
    rng = random.Random(7)
    for i in (2, 9, 30):
        p = problem(folder, i)
        tr = translator(p, load_translation(config))
        actions = list(ground(p).actions())
        _round_trip(tr, rng.sample(actions, min(len(actions), 300)))


def test_round_trip_optimal_plans_and_states():
    for i in range(2, 40, 3):
        p = problem("blocksworld", i)
        tr = translator(p)
        plan = list(solve(p).steps)
        assert steps("\n".join(tr.plan(plan)) + "\n[PLAN END]", tr) == plan
        state = parse_state(tr.init(), tr)
        assert state.atoms == set(p.init) and not state.unparsed and not state.negated


def test_round_trip_with_formatting_noise(bw):
    """Numbering, bullets, markdown and trailing punctuation, drawn at random, never change the plan."""
    rng = random.Random(3)
    actions = list(ground(bw.problem).actions())
    decorations = [lambda s, i: f"{i}. {s}", lambda s, i: f"{i}) {s}", lambda s, i: f"- {s}",
                   lambda s, i: f"* {s}.", lambda s, i: f"Step {i}: {s}", lambda s, i: f"**{s}**",
                   lambda s, i: f"  {s.capitalize()}  ", lambda s, i: f"{i}. `{s}`;", lambda s, i: s]
    for _ in range(200):
        plan = rng.choices(actions, k=rng.randint(1, 8))
        lines = [rng.choice(decorations)(text, i) for i, text in enumerate(bw.plan(plan), 1)]
        assert steps("\n".join(lines), bw) == [str(a) for a in plan]


# -- leniency, and reporting what could not be read ------------------------------

def test_plan_region_tags(bw):
    text = ("Sure! Here is my plan.\n[PLAN]\n1. unstack the red block from on top of the blue block\n"
            "2. put down the red block\n[PLAN END]\nThen pick up the orange block.\n")
    parsed = parse_plan(text, bw)
    assert parsed.pddl == ["(unstack a b)", "(put-down a)"] and parsed.ended
    assert steps("pick up the red block\n[STATEMENT]\nstack the red block on top of the blue block", bw) == \
        ["(pick-up a)"]
    assert steps("put down the red block\n[COST]\npick up the blue block", bw) == ["(put-down a)"]
    region, first_line, ended = plan_region("a\n[PLAN]\nb\n[PLAN END]\nc")
    assert region.strip() == "b" and first_line == 2 and ended


def test_verbs_objects_and_remarks(bw):
    assert steps("Unstack the Red Block from the Blue Block.", bw) == ["(unstack a b)"]  # no "on top of"
    assert steps("pick-up the orange block\nput-down the orange block", bw) == ["(pick-up c)", "(put-down c)"]
    assert steps("First, pick up the yellow block (now holding the yellow block)", bw) == ["(pick-up d)"]
    assert steps("unstack the red block from on top of the blue block, now holding the red block", bw) == \
        ["(unstack a b)"]  # a repeated mention does not count twice
    assert steps("(unstack a b)\n(PUT-DOWN A)", bw) == ["(unstack a b)", "(put-down a)"]
    assert steps("stack the orange block on top of the yellow block", bw) == ["(stack c d)"]  # not 'unstack'


def test_unparsed_lines_are_reported_with_line_and_reason(bw):
    text = ("unstack the yellow block from the table\n"
            "pick up the blue block with the red block on top\n"
            "Now the red block is on the blue block.\n"
            "The total time is 4 minutes.\n"
            "put the red block down\n"
            "(unstack a z)\n"
            "stack the red block on top of the blue block\n")
    parsed = parse_plan(text, bw)
    assert parsed.pddl == ["(stack a b)"]
    reasons = {u.line: u.reason for u in parsed.unparsed}
    assert reasons[1] == "'unstack' takes 2 objects, the line names 1"
    assert reasons[2] == "'pick-up' takes 1 object, the line names 2"
    assert reasons[3] == reasons[5] == "names objects but no action"
    assert "unknown object 'z'" in reasons[6]
    assert parsed.ignored == ("The total time is 4 minutes.",)
    assert next(u.text for u in parsed.unparsed) == "unstack the yellow block from the table"


def test_missing_arguments_are_inferred_only_from_static_facts():
    p = problem("logistics", 2)
    tr = translator(p)
    # the city of a drive is fixed by the two locations; trucks vs airplanes by their types
    parsed = parse_plan("drive truck_0 from location_0_0 to location_0_0\n"
                        "load package_0 into airplane_1 at location_1_0\n"
                        "load package_0 into truck_1 at location_1_0", tr)
    assert parsed.pddl == ["(drive-truck t0 l0-0 l0-0 c0)", "(load-airplane p0 a1 l1-0)", "(load-truck p0 t1 l1-0)"]
    assert parsed.steps[0].inferred == (3,)
    bw_tr = translator(problem("blocksworld", 2))
    assert parse_plan("unstack the red block", bw_tr).unparsed  # nothing static fixes the block below


def test_hostile_text_is_only_data(bw):
    for text in ("", "\n\n", "(((", "{0} {1} {__class__}", "__import__('os').system('true')", "[PLAN]",
                 "[PLAN END][PLAN][STATEMENT]", "é" * 10_000, "stack " * 5_000, "red block " * 3_000):
        parsed = parse_plan(text, bw)
        assert isinstance(parsed.pddl, list)
        parse_state(text, bw)
        parse_verification(text)


# -- states -----------------------------------------------------------------------

def test_state_parsing_planbench_style(bw):
    text = ("the red block is clear, the blue block is not clear, the hand is currently holding the yellow block, "
            "the red block is on top of the blue block and the blue block is on the table.")
    s = parse_state(text, bw)
    assert s.atoms == {Atom("clear", ("a",)), Atom("holding", ("d",)), Atom("on", ("a", "b")),
                       Atom("ontable", ("b",))}
    assert s.negated == {Atom("clear", ("b",))}


def test_state_paraphrases_negations_and_coordination(bw):
    s = parse_state("The yellow block is in hand; the orange block is held. The red block is no longer clear, "
                    "the blue block isn't on the table\nboth the red block and the orange block are on the table",
                    bw)
    assert s.atoms == {Atom("holding", ("d",)), Atom("holding", ("c",)), Atom("ontable", ("a",)),
                       Atom("ontable", ("c",))}
    assert s.negated == {Atom("clear", ("a",)), Atom("ontable", ("b",))}
    compat = parse_state("the red block is no longer clear", bw, PLANBENCH_NEGATION)
    assert compat.atoms == {Atom("clear", ("a",))}  # PlanBench reads only "not" as a negation


def test_state_unparsed_and_ignored(bw):
    s = parse_state("the yellow block is being lifted, all is well, the red block is clear", bw)
    assert s.atoms == {Atom("clear", ("a",))}
    assert [u.text for u in s.unparsed] == ["the yellow block is being lifted"]
    assert s.ignored == ("all is well",)


def test_logistics_state_words_pick_the_predicate():
    tr = translator(problem("logistics", 2))
    s = parse_state("package_0 is in truck_0, location_0_0 is in the city city_0 and airplane_1 is at "
                    "location_1_0, location_1_0 is an airport", tr)
    assert s.atoms == {Atom("in", ("p0", "t0")), Atom("in-city", ("l0-0", "c0")), Atom("at", ("a1", "l1-0")),
                       Atom("airport", ("l1-0",))}


# -- verification answers -----------------------------------------------------------

@pytest.mark.parametrize("text, valid", [
    ("The above plan is valid.", True),
    ("The above plan is invalid. This is the unmet goal condition:\n...", False),
    ("I think the plan is not valid because ...", False),
    ("The plan is correct.", True),
    ("the PLAN IS INCORRECT", False),
    ("I cannot tell.", None),
    ("The above plan is valid.\n[STATEMENT]\nThe above plan is invalid.", True),
])
def test_verification_verdicts(text, valid):
    assert parse_verification(text).valid is valid
