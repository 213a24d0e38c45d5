"""PlanBench's own reading of replies, quirk by quirk (``planbench_rules.py``).

Each expected value below was derived by hand from PlanBench's code
(karthikv792/LLMs-Planning, ``plan-bench/utils/text_to_pddl.py`` and
``ResponseEvaluator.parse_output`` in ``plan-bench/response_evaluation.py``)
and checked by running that code; the Q-numbers are those of
docs/planbench-conformance.md#quirks. The domains are written inline: the
readers take only the action names, their order and parameter counts from the
PDDL, as PlanBench takes them from tarski.
"""

from __future__ import annotations

import pytest

from planprobe.pddl import parse_domain
from planprobe.pddl.model import Atom
from planprobe.suites.planbench.planbench_rules import (
    CONFIGS,
    PlanBenchError,
    PlanBenchReader,
    fact_string,
    verification_levels,
)
from planprobe.suites.planbench.scoring import (
    score_state_planbench,
    score_verification_planbench,
)


def _domain(name: str, actions: list[tuple[str, int]]):
    parts = []
    for action, arity in actions:
        params = " ".join(f"?x{i}" for i in range(arity))
        parts.append(f"(:action {action} :parameters ({params}) :precondition (and) :effect (and (p)))")
    return parse_domain(f"(define (domain {name}) (:predicates (p)) {' '.join(parts)})")


BLOCKS = PlanBenchReader.for_config("blocksworld", _domain(
    "blocksworld-4ops", [("pick-up", 1), ("put-down", 1), ("stack", 2), ("unstack", 2)]))
MYSTERY = PlanBenchReader.for_config("mystery_blocksworld", _domain(
    "mystery-4ops", [("attack", 1), ("succumb", 1), ("overcome", 2), ("feast", 2)]))
LOGISTICS = PlanBenchReader.for_config("logistics", _domain("logistics-strips", [
    ("LOAD-TRUCK", 3), ("LOAD-AIRPLANE", 3), ("UNLOAD-TRUCK", 3), ("UNLOAD-AIRPLANE", 3), ("DRIVE-TRUCK", 4),
    ("FLY-AIRPLANE", 3)]))
DEPOTS = PlanBenchReader.for_config("depots", _domain(
    "depot", [("Drive", 3), ("Lift", 4), ("Drop", 4), ("Load", 4), ("Unload", 4)]))
OBFUSCATED = PlanBenchReader.for_config("obfuscated_deceptive_logistics", _domain("obfuscated", [
    ("clip", 3), ("sip", 3), ("tightfisted", 3), ("paltry", 3), ("wretched", 4), ("memory", 3)]))


def steps(reader: PlanBenchReader, text: str) -> list[str]:
    plan = reader.text_to_plan(text)
    assert plan.error is None, plan.error
    return list(plan.steps)


# -- plans: Blocksworld and Mystery Blocksworld ----------------------------------------

def test_q1_text_after_plan_end_is_read():
    text = "unstack the red block from on top of the blue block\n[PLAN END]\nthen put down the red block"
    assert steps(BLOCKS, text) == ["(unstack a b)", "(put-down a)"]


def test_q2_action_phrases_anywhere_in_the_line():
    assert steps(BLOCKS, "Next, I will Pick Up the red block.") == ["(pick-up a)"]
    assert steps(MYSTERY, "attack object a") == ["(attack a)"]


def test_q3_lines_split_at_newline_only():
    """A lone CR does not end a line: the two steps are one line naming two blocks, read as
    put-down (the earlier action in the domain's order) with too many objects: dropped."""
    assert steps(BLOCKS, "unstack the red block from on top of the blue block\rput down the red block") == []
    assert steps(BLOCKS, "pick up the red block\r\nstack the red block on top of the blue block\r\n") == [
        "(pick-up a)", "(stack a b)"]


def test_q4_cost_tag_never_stops_the_blocksworld_and_logistics_readers():
    assert steps(BLOCKS, "pick up the red block\n[COST]\nput down the red block") == ["(pick-up a)", "(put-down a)"]
    assert steps(LOGISTICS, "[COST]\nfly airplane_0 from location_0_0 to location_1_0") == [
        "(fly-airplane a0 l0-0 l1-0)"]
    # the obfuscated reader does not lower-case, so there [COST] stops it
    assert OBFUSCATED.text_to_plan("[COST]\nclip object_1 object_2 object_3").error is None


def test_q5_the_action_must_be_a_whole_token():
    assert steps(BLOCKS, "1.unstack the red block from on top of the blue block") == []
    assert steps(BLOCKS, "**stack** the red block on top of the blue block") == []
    assert steps(BLOCKS, "1. unstack the red block from on top of the blue block") == ["(unstack a b)"]


def test_q6_the_first_action_in_domain_order_wins():
    assert steps(BLOCKS, "unstack the red block from the blue block, then stack it") == ["(stack a b)"]


def test_q7_object_names_are_found_as_substrings():
    assert steps(BLOCKS, "pick up theorange block") == ["(pick-up c)"]
    assert steps(BLOCKS, "pick up the orange blocks") == ["(pick-up c)"]
    # a remark naming another block makes two objects for a one-object action: dropped
    assert steps(BLOCKS, "pick up the red block (the blue block stays)") == []


def test_q8_objects_once_each_by_first_position():
    assert steps(BLOCKS, "stack the blue block on top of the red block") == ["(stack b a)"]
    assert steps(BLOCKS, "unstack the red block from on top of the red block") == []
    assert steps(MYSTERY, "overcome object c from object a") == ["(overcome c a)"]


def test_q9_wrong_object_count_is_dropped_silently():
    plan = BLOCKS.text_to_plan("stack the red block\nput down the blue block")
    assert plan.steps == ("(put-down b)",) and plan.readable == ("(put-down blue)",) and plan.error is None
    assert MYSTERY.text_to_plan("feast object b from object a").readable == ("(feast object b object a)",)


# -- plans: Logistics ----------------------------------------------------------------------

def test_q10_logistics_numbering_and_full_stops():
    assert steps(LOGISTICS, "1. load package_0 into truck_0 at location_0_0.") == ["(load-truck p0 t0 l0-0)"]
    assert steps(LOGISTICS, "12. load package_0 into truck_0 at location_0_0.") == ["(load-truck p0 t0 l0-0)"]
    assert steps(LOGISTICS, "load package_0 into truck_0 at location_0_0.") == ["(load-truck p0 t0 l0-0.)"]
    assert steps(LOGISTICS, "1) load package_0 into truck_0 at location_0_0") == []


def test_q11_logistics_verb_is_the_first_token():
    assert steps(LOGISTICS, "Load package_0 into truck_0 at location_0_0") == ["(load-truck p0 t0 l0-0)"]
    assert steps(LOGISTICS, "- load package_0 into truck_0 at location_0_0\nthen fly airplane_0 "
                            "from location_0_0 to location_1_0") == []


def test_q12_logistics_objects_rewritten_punctuation_kept():
    assert steps(LOGISTICS, "drive truck_0 from location_0_0 to location_0_1 in city_0") == [
        "(drive-truck t0 l0-0 l0-1 c0)"]
    assert steps(LOGISTICS, "unload package_1, from truck_1 at location_1_0") == ["(unload-truck p1, t1 l1-0)"]


def test_q13_logistics_vehicle_from_its_letters():
    assert steps(LOGISTICS, "load package_0 into airplane_0 at location_0_0") == ["(load-airplane p0 a0 l0-0)"]
    assert steps(LOGISTICS, "fly truck_0 from location_0_0 to location_1_0") == ["(fly-truck t0 l0-0 l1-0)"]
    plan = LOGISTICS.text_to_plan("load package_0 at location_0_0 into truck_0")
    assert plan.error is not None and plan.error.startswith("ValueError")


def test_q14_logistics_drive_gets_a_city():
    assert steps(LOGISTICS, "drive truck_1 from location_1_0 to location_1_2") == ["(drive-truck t1 l1-0 l1-2 c1)"]


@pytest.mark.parametrize("text", ["1", "12", "1.", "load package_0 into the truck",
                                  "drive truck_1 from l1 to l2"])
def test_q15_logistics_errors_fail_the_whole_reply(text):
    plan = LOGISTICS.text_to_plan(f"fly airplane_0 from location_0_0 to location_1_0\n{text}")
    assert plan.error is not None and plan.steps == ()


# -- plans: obfuscated domains and Depots -----------------------------------------------------

def test_q16_obfuscated_plans_always_raise():
    assert OBFUSCATED.text_to_plan("clip object_1 object_2 object_3").error.startswith("TypeError")
    assert OBFUSCATED.text_to_plan("1. clip object_1 object_2 object_3").error.startswith("TypeError")
    assert OBFUSCATED.text_to_plan("I would clip the package first").steps == ()  # no object: nothing read


def test_q17_depots_last_action_substring_wins():
    assert steps(DEPOTS, "1. Use hoist0 to unload crate1 from truck0 at depot0.") == [
        "(unload hoist0 crate1 truck0 depot0)"]
    assert steps(DEPOTS, "drive truck0 from depot0 to distributor0, then unload") == [
        "(unload truck0 depot0 distributor0,)"]


# -- states ------------------------------------------------------------------------------------------

def test_q18_clauses_end_at_commas_and_and_only():
    assert BLOCKS.text_to_state("the red block is clear.\nthe blue block is clear") == ["clear_a"]
    text = "the red block is clear and the blue block is clear"
    assert BLOCKS.text_to_state(text) == ["clear_a", "clear_b"]
    assert BLOCKS.text_to_state(text, and_split=False) == ["clear_a"]  # the revision that scored the t7 results
    assert BLOCKS.text_to_state("the red block is clear,and the blue block is clear") == ["clear_a", "clear_b"]
    assert BLOCKS.text_to_state("the red block is clear And the blue block is clear") == ["clear_a"]


def test_q19_only_space_not_space_negates():
    assert BLOCKS.text_to_state("the red block is not clear, the hand is not empty") == []
    assert BLOCKS.text_to_state("the red block is no longer clear") == ["clear_a"]
    assert BLOCKS.text_to_state("the red block isn't clear") == ["clear_a"]
    assert BLOCKS.text_to_state("Not clear: the red block") == ["clear_a"]


def test_q20_first_phrase_in_mapping_order_case_sensitive():
    assert BLOCKS.text_to_state("the red block is unclear") == ["clear_a"]
    assert BLOCKS.text_to_state("The Red block is clear") == ["clear"]
    assert BLOCKS.text_to_state("the red block is on top of the blue block which is on the table") == ["ontable_a"]
    assert BLOCKS.text_to_state("the hand is empty, the red block is on top of the blue block") == [
        "handempty", "on_a_b"]


def test_q21_first_colour_in_planbench_order_per_piece():
    assert BLOCKS.text_to_state("the yellow block and the red block are clear", and_split=False) == ["clear_a"]
    assert BLOCKS.text_to_state("the considered yellow block is clear") == ["clear_a"]


def test_q22_both_x_and_y_are_on_the_table():
    text = "the yellow block is on the table, and both the blue block and the orange block are on the table."
    assert BLOCKS.text_to_state(text) == ["ontable_d", "ontable_c"]  # the published code
    assert BLOCKS.text_to_state(text, and_split=False) == ["ontable_d", "ontable_b"]  # PlanBench's t7 results


def test_q23_holding_only_with_the_word_holding():
    assert BLOCKS.text_to_state("the red block is being held") == []
    assert BLOCKS.text_to_state("the hand is currently holding the red block") == ["holding_a"]
    assert BLOCKS.text_to_state("I am holding the red block") == ["holding_a"]


def test_q24_mystery_one_object_alphabetically_first():
    assert MYSTERY.text_to_state("object b craves object a") == ["craves_a"]
    assert MYSTERY.text_to_state("planet object c, Planet object d, pain object b") == ["planet_c", "pain_b"]
    assert MYSTERY.text_to_state("province object b and harmony") == ["province_b", "harmony_"]


def test_q25_harmony_gets_an_underscore():
    assert MYSTERY.text_to_state("harmony") == ["harmony_"]
    assert not score_state_planbench(["harmony"], MYSTERY, "harmony").correct


def test_q26_q27_logistics_family_facts_keep_the_raw_text():
    assert LOGISTICS.text_to_state("package_0 is at location_0_0, package_1 is in truck_0.") == [
        "at_package_0_location_0_0", "in_package_1_truck_0."]
    assert OBFUSCATED.text_to_state("object_1 is at object_2, cats object_3") == ["at_object_1_object_2"]
    assert DEPOTS.text_to_state("crate0 is on pallet0 and hoist0 is available") == ["on_crate0_pallet0"]
    assert LOGISTICS.text_to_state("crate0 is on pallet0") == []


def test_q28_facts_compare_as_sorted_lists():
    ref = ["clear_a", "ontable_a", "handempty"]
    text = "the hand is empty, the red block is on the table and the red block is clear"
    assert score_state_planbench(ref, BLOCKS, text).correct
    assert not score_state_planbench(ref, BLOCKS, text + ", the red block is clear").correct  # stated twice
    assert fact_string(Atom("on", ("a", "b"))) == "on_a_b" and fact_string(Atom("handempty")) == "handempty"


# -- verification answers --------------------------------------------------------------------------

def test_q29_verdict_phrases_case_sensitive_first_valid_stops():
    assert BLOCKS.parse_output("The above plan is valid.") == {"valid": True}
    assert BLOCKS.parse_output("Plan is valid.") == {}
    assert BLOCKS.parse_output("The plan is not valid.") == {}
    assert BLOCKS.parse_output("The plan is invalid.\nNo wait, the plan is valid.") == {"valid": False}
    assert BLOCKS.parse_output("The plan is valid.\nThe plan is invalid.") == {"valid": True}
    assert BLOCKS.parse_output("[STATEMENT]\nthe plan is valid") == {}


def test_q30_no_verdict_crashes_planbench():
    with pytest.raises(PlanBenchError, match="KeyError"):
        verification_levels({}, {"valid": True})
    score = score_verification_planbench(BLOCKS, "I think it works.", "The above plan is valid.")
    assert score.error is not None and not score.binary


def test_q31_unmet_goal_and_precondition_lines():
    goal = "The above plan is invalid. This is the unmet goal condition:\nthe red block is on top of the blue block"
    assert BLOCKS.parse_output(goal) == {"valid": False, "unmet_goal": ["on_a_b"]}
    pre = ("The above plan is invalid.The following action at step 1 has an unmet precondition:\n"
           "unstack the red block from on top of the blue block\nThe unmet precondition is:\nthe red block is clear")
    assert BLOCKS.parse_output(pre) == {"valid": False, "unmet_precondition": {
        "action": "(unstack red blue)\n", "predicate": ["clear_a"]}}
    assert BLOCKS.parse_output("The plan is invalid: unmet goal and unmet precondition") == {"valid": False}
    score = score_verification_planbench(BLOCKS, goal, pre)
    assert (score.binary, score.type, score.explanation) == (True, False, False)
    score = score_verification_planbench(BLOCKS, pre.replace("the red block is clear", "the blue block is clear"), pre)
    assert (score.binary, score.type, score.explanation) == (True, True, False)
    assert score_verification_planbench(BLOCKS, pre, pre).explanation


def test_configs_keep_planbench_order():
    """First matches depend on the order of PlanBench's YAML mappings."""
    cfg = CONFIGS["blocksworld"]
    assert [p for p, _ in cfg.predicate_mapping] == ["ontable", "clear", "handempty", "holding", "on"]
    assert [t for _, t in cfg.objects][:3] == ["red block", "blue block", "orange block"]
    assert [p for p, _ in CONFIGS["mystery_blocksworld"].predicates] == ["planet", "province", "harmony", "craves",
                                                                         "pain"]
    with pytest.raises(KeyError, match="random_blocksworld"):
        PlanBenchReader.for_config("random_blocksworld", BLOCKS.domain)
