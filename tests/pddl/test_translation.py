"""The NL translator and PlanBench's prompt layout.

The strongest check: planprobe rebuilds PlanBench's recorded GPT-4 prompts
(``query``) from the PDDL instances — statements, plans, verification answers,
resulting states — and compares them character for character.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from pddl_data import domain, gpt4_rows, problem

from planprobe.errors import PlanprobeError
from planprobe.pddl import parse_domain, parse_problem, validate
from planprobe.pddl.grounding import ground
from planprobe.pddl.model import Atom
from planprobe.pddl.reply_parser import parse_plan, parse_state
from planprobe.pddl.translation import (
    TranslationConfigError,
    builtin_translations,
    describe_domain,
    generic_translation,
    load_translation,
    parse_translation,
    translation_for,
    translator,
)
from planprobe.suites.planbench import prompt_blocks

DOCS = Path(__file__).resolve().parents[2] / "docs"
SAMPLE = slice(0, None, 5)  # every 5th recorded prompt: 50 per 250-prompt file

BW_DOMAIN = """(define (domain blocksworld-4ops) (:requirements :strips)
(:predicates (clear ?x) (ontable ?x) (handempty) (holding ?x) (on ?x ?y))
(:action pick-up :parameters (?ob) :precondition (and (clear ?ob) (ontable ?ob) (handempty))
  :effect (and (holding ?ob) (not (clear ?ob)) (not (ontable ?ob)) (not (handempty))))
(:action put-down :parameters (?ob) :precondition (holding ?ob)
  :effect (and (clear ?ob) (handempty) (ontable ?ob) (not (holding ?ob))))
(:action stack :parameters (?ob ?underob) :precondition (and (clear ?underob) (holding ?ob))
  :effect (and (handempty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob)) (not (holding ?ob))))
(:action unstack :parameters (?ob ?underob) :precondition (and (on ?ob ?underob) (clear ?ob) (handempty))
  :effect (and (holding ?ob) (clear ?underob) (not (on ?ob ?underob)) (not (clear ?ob)) (not (handempty)))))"""
BW_PROBLEM = """(define (problem p) (:domain blocksworld-4ops) (:objects a b c d m)
(:init (handempty) (on a b) (ontable b) (ontable c) (on d c) (clear a) (clear d) (ontable m) (clear m))
(:goal (and (on c a))))"""


def bw_problem():
    return parse_problem(BW_PROBLEM, parse_domain(BW_DOMAIN))


def statements(query: str) -> list[str]:
    """The ``\\n[STATEMENT]…`` blocks of a prompt."""
    parts = query.split("\n[STATEMENT]")
    return ["\n[STATEMENT]" + p for p in parts[1:]]


def config_for(dom: str) -> str:
    return "mystery_blocksworld" if "mystery" in dom else "blocksworld"


def folder(dom: str) -> tuple[str, str]:
    base = "blocksworld/mystery" if "mystery" in dom else "blocksworld"
    return base, "generated_basic_3" if dom.endswith("_3") else "generated_basic"


def tr_for(dom: str, i: int, generalized: bool = False):
    base, basic = folder(dom)
    p = problem(base, i, "generated" if generalized else basic)
    return translator(p, config_for(dom))


def stated_plan(tr, block: str, start: str = "[PLAN]", end: str = "[PLAN END]") -> list[str]:
    text = block[block.index(start) + len(start):block.index(end)]
    parsed = parse_plan(text, tr)
    assert not parsed.unparsed
    return parsed.pddl


# -- rendering -----------------------------------------------------------------

def test_renders_atoms_actions_and_plans_in_planbench_words():
    tr = translator(bw_problem())
    assert tr.atom(Atom("on", ("a", "b"))) == "the red block is on top of the blue block"
    assert tr.atom(Atom("holding", ("c",))) == "the hand is currently holding orange block"
    assert tr.action("(unstack D c)") == "unstack the yellow block from on top of the orange block"
    assert tr.plan(["(pick-up a)", ("put-down", "a")]) == ["pick up the red block", "put down the red block"]
    assert tr.object_name("m") == "pink block"  # beyond PlanBench's twelve colours
    assert tr.init().startswith("the red block is clear, the yellow block is clear, the pink block is clear, "
                                "the hand is empty, the red block is on top of the blue block")
    assert tr.goal() == "the orange block is on top of the red block"


def test_builtin_configs_cover_the_planbench_domains():
    assert set(builtin_translations()) >= {"blocksworld", "mystery_blocksworld", "logistics",
                                           "obfuscated_deceptive_logistics", "obfuscated_randomized_logistics",
                                           "depots"}
    for name in builtin_translations():
        assert load_translation(name).name == name
    assert translation_for("blocksworld-4ops").name == "blocksworld"
    assert translation_for("logistics-strips").name == "logistics"


@pytest.mark.parametrize("name, folder_name, config", [
    ("blocksworld", "blocksworld", "blocksworld"), ("mystery", "blocksworld/mystery", "mystery_blocksworld"),
    ("logistics", "logistics", "logistics"), ("deceptive", "obfuscated_deceptive_logistics", None),
    ("randomized", "obfuscated_randomized_logistics", None), ("depots", "depots", None)])
def test_every_builtin_config_fits_its_planbench_domain(name, folder_name, config):
    p = problem(folder_name, 7)
    tr = translator(p)  # picked by the PDDL domain's name
    assert tr.config.name == (config or folder_name)
    assert tr.init() and tr.goal()
    intro = tr.config.intro("default", p.domain)
    assert len(intro) > 100


def test_logistics_names_and_hidden_type_predicates():
    tr = translator(problem("logistics", 2))
    text = tr.init()
    assert text.startswith("location_0_0 is an airport, location_1_0 is an airport, airplane_0 is at location_1_0")
    assert "TRUCK" not in text.upper().replace("TRUCK_", "")
    assert tr.action("(drive-truck t0 l0-0 l0-0 c0)") == "drive truck_0 from location_0_0 to location_0_0 in city_0"


def test_logistics_statement_as_in_the_seed():
    """PlanBench's Logistics prompt in the seed (004, A.5.2), second statement: instance 2."""
    seed = ("As initial conditions I have that, location_0_0 is an airport, location_1_0 is an airport, airplane_0 is "
            "at location_1_0, airplane_1 is at location_1_0, package_0 is at location_1_0, truck_0 is at "
            "location_0_0, truck_1 is at location_1_0, location_0_0 is in the city city_0 and location_1_0 is in "
            "the city city_1.\nMy goal is to have that package_0 is at location_0_0.\n\nMy plan is as follows:"
            "\n\n[PLAN]")
    assert prompt_blocks.plan_statement(translator(problem("logistics", 2))) == "\n[STATEMENT]\n" + seed
    tr = translator(problem("logistics", 1))
    assert tr.plan(["(fly-airplane a1 l0-0 l1-0)", "(load-airplane p0 a1 l1-0)"]) == [
        "fly airplane_1 from location_0_0 to location_1_0", "load package_0 into airplane_1 at location_1_0"]


def test_generated_intro_and_generic_translation_for_any_domain():
    dom = parse_domain(BW_DOMAIN)
    cfg = generic_translation(dom)
    text = describe_domain(cfg, dom)
    assert "To perform unstack ob underob, the following facts need to be true: ob on underob, clear ob and " \
           "handempty." in text
    p = parse_problem(BW_PROBLEM.replace("blocksworld-4ops", "blocksworld-4ops"), dom)
    tr = translator(p, cfg)
    assert tr.action("(stack a b)") == "stack a b"
    steps = ["(unstack a b)", "(put-down a)", "(pick-up c)", "(stack c a)"]
    assert parse_plan("\n".join(tr.plan(steps)), tr).pddl == steps


# -- PlanBench's recorded prompts, rebuilt -------------------------------------

@pytest.mark.parametrize("dom", ["blocksworld", "blocksworld_3"])
def test_plan_generation_prompts_rebuilt_exactly(dom):
    rows = gpt4_rows(dom, "task_1_plan_generation.jsonl.gz")
    checked = 0
    for row in rows[SAMPLE]:
        q = row["query"]
        if "GPT4 response" in q:  # one recorded prompt has a response pasted into it
            continue
        ex = tr_for(dom, row["example_instance_id"])
        tr = tr_for(dom, row["instance_id"])
        first = statements(q)[0]
        plan = stated_plan(ex, first)
        rebuilt = (ex.config.intro("plan_generation") + prompt_blocks.plan_statement(ex, plan).lstrip("\n")
                   + prompt_blocks.plan_statement(tr))
        assert rebuilt == q.rstrip("\n"), row["instance_id"]
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("dom", ["blocksworld", "blocksworld_3"])
def test_optimality_prompts_rebuilt_exactly(dom):
    for row in gpt4_rows(dom, "task_2_plan_optimality.jsonl.gz")[SAMPLE]:
        ex = tr_for(dom, row["example_instance_ids"][0])
        tr = tr_for(dom, row["instance_id"])
        plan = stated_plan(ex, statements(row["query"])[0])
        rebuilt = (ex.config.intro("cost") + prompt_blocks.optimality_statement(ex, plan).lstrip("\n")
                   + prompt_blocks.optimality_statement(tr))
        assert rebuilt == row["query"], row["instance_id"]


@pytest.mark.parametrize("dom", ["blocksworld", "blocksworld_3", "mystery_blocksworld", "mystery_blocksworld_3"])
def test_verification_statements_and_answers_rebuilt_exactly(dom):
    """The query block, and PlanBench's reference answer (VAL's verdict in words)
    from planprobe's validator."""
    for row in gpt4_rows(dom, "task_3_plan_verification.jsonl.gz")[SAMPLE]:
        tr = tr_for(dom, row["instance_id"])
        last = statements(row["query"])[-1]
        plan = stated_plan(tr, last)
        assert prompt_blocks.verification_statement(tr, plan) == last
        answer = prompt_blocks.verification_message(tr, validate(ground(tr.problem), plan))
        assert answer.rstrip("\n") == row["ground_truth_plan"].rstrip("\n"), row["instance_id"]


def test_execution_prompts_rebuilt_exactly():
    """Worked example with the resulting state from planprobe's simulator, then the query."""
    for row in gpt4_rows("blocksworld", "task_7_plan_execution.jsonl.gz")[SAMPLE]:
        ex = tr_for("blocksworld", row["example_instance_ids"][0])
        tr = tr_for("blocksworld", row["instance_id"])
        first, last = statements(row["query"])
        seq = stated_plan(ex, first, "[ACTION SEQUENCE]", "[ACTION SEQUENCE END]")
        state = validate(ground(ex.problem), seq).state_atoms
        query_seq = stated_plan(tr, last, "[ACTION SEQUENCE]", "[ACTION SEQUENCE END]")
        rebuilt = (ex.config.intro() + prompt_blocks.execution_statement(ex, seq, state).lstrip("\n")
                   + prompt_blocks.execution_statement(tr, query_seq))
        assert rebuilt == row["query"], row["instance_id"]
        truth = validate(ground(tr.problem), query_seq).state_atoms
        assert sorted(f"{a.predicate}_{'_'.join(a.args)}".rstrip("_") for a in truth) == \
            sorted(row["ground_truth_plan"])


def test_reuse_and_replanning_statements_rebuilt_exactly():
    for row in gpt4_rows("blocksworld", "task_4_plan_reuse.jsonl.gz")[SAMPLE]:
        tr = tr_for("blocksworld", row["instance_id"])
        blocks = statements(row["query"])
        plan = stated_plan(tr, blocks[0])
        goal_text = re.search(r"My goal is to have that (.*)\.\n", blocks[1]).group(1)
        goal = parse_state(goal_text, tr).atoms
        assert prompt_blocks.reuse_statement(tr, plan) == blocks[0]
        assert prompt_blocks.reuse_statement(tr, goal=goal) == blocks[1]
    for row in gpt4_rows("blocksworld", "task_6_replanning.jsonl.gz")[SAMPLE]:
        tr = tr_for("blocksworld", row["instance_id"])
        last = statements(row["query"])[-1]
        plan = stated_plan(tr, last)
        step = int(re.search(r"at step (\d+)", last).group(1))
        true = parse_state(re.search(r"became true: (.*)", last).group(1), tr).atoms
        false = parse_state(re.search(r"unexpectedly false: (.*)", last).group(1), tr).atoms
        assert prompt_blocks.replanning_statement(tr, plan, step, true, false) == last


def test_goal_reformulation_queries_state_the_instance():
    for name, shuffled in (("task_8_2_full_to_partial.jsonl.gz", False), ("task_8_1_goal_shuffling.jsonl.gz", True)):
        for row in gpt4_rows("blocksworld", name)[SAMPLE]:
            tr = tr_for("blocksworld", row["instance_id"])
            last = statements(row["query"])[-1]
            if not shuffled:
                assert prompt_blocks.plan_statement(tr) == last
            goal = parse_state(re.search(r"My goal is to have that (.*)\.\n", last).group(1), tr).atoms
            assert goal == {lit.atom for lit in tr.problem.goal}  # shuffled or not: the same goal


# -- configs: format and errors --------------------------------------------------

BASE = {
    "planprobe_translation": 1, "name": "mini",
    "predicates": {"clear": "{0} is clear", "on": "{0} is on {1}", "ontable": "{0} is on the table",
                   "handempty": "the hand is empty", "holding": "I hold {0}"},
    "actions": {"pick-up": "pick up {0}", "put-down": "put down {0}", "stack": "stack {0} on {1}",
                "unstack": "unstack {0} from {1}"},
}


def _error(data, match, check=False):
    with pytest.raises(TranslationConfigError, match=match) as info:
        cfg = parse_translation(data, "mini.json")
        if check:
            cfg.check(parse_domain(BW_DOMAIN))
    assert str(info.value).startswith("mini.json")
    return info.value


def test_config_errors_name_the_file_and_the_field():
    assert _error({**BASE, "colour": 1}, "field 'colour': unknown field").field == "colour"
    _error({**BASE, "planprobe_translation": 2}, "field 'planprobe_translation'")
    _error({**BASE, "actions": {"stack": "stack {x} on {1}"}}, r"field 'actions.stack': bad placeholder '\{x\}'")
    _error({**BASE, "actions": {"stack": "stack {0.__class__}"}}, "bad placeholder")
    _error({**BASE, "object_rules": [{"match": "(", "name": "x"}]}, r"field 'object_rules\[0\].match'")
    _error({**BASE, "object_rules": [{"match": "^a$", "name": "x {1}"}]}, r"object_rules\[0\].name")
    _error({**BASE, "predicates": dict(BASE["predicates"], on="{0} is on {2}")}, r"field 'predicates.on': slot \{2\}",
           check=True)
    _error({**BASE, "actions": dict(BASE["actions"], stack="stack {0}")}, r"field 'actions.stack'.*no slot \{1\}",
           check=True)
    preds = dict(BASE["predicates"])
    del preds["holding"]
    _error({**BASE, "predicates": preds}, "no template for predicate 'holding'", check=True)
    _error({**BASE, "actions": dict(BASE["actions"], fly="fly {0}")}, "field 'actions.fly'.*no action 'fly'",
           check=True)


def test_config_file_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "name": "x",\n  oops\n}\n')
    with pytest.raises(TranslationConfigError, match=r"bad.json:3:\d+: not valid JSON"):
        load_translation(bad)
    with pytest.raises(TranslationConfigError, match="no such file, and not a built-in translation"):
        load_translation(tmp_path / "missing.json")
    with pytest.raises(PlanprobeError, match="no built-in translation for PDDL domain 'zzz'"):
        translation_for("zzz")


def test_object_names_must_be_unique():
    cfg = parse_translation({**BASE, "objects": {"a": "the block", "b": "the block"}}, "mini.json")
    with pytest.raises(TranslationConfigError, match="objects 'a' and 'b' .* are both called 'the block'"):
        translator(bw_problem(), cfg)


def test_user_config_with_aliases_round_trips():
    cfg = parse_translation({**BASE, "action_aliases": {"pick-up": ["grab {0}"]},
                             "predicate_aliases": {"holding": ["{0} is in my hand"]}}, "mini.json")
    tr = translator(bw_problem(), cfg)
    assert tr.action("(unstack a b)") == "unstack a from b"
    assert parse_plan("grab c\nunstack a from b", tr).pddl == ["(pick-up c)", "(unstack a b)"]
    assert parse_state("c is in my hand and a is on b", tr).atoms == {Atom("holding", ("c",)), Atom("on", ("a", "b"))}


def test_the_documented_example_config_works(tmp_path):
    """docs/pddl-translation.md: the example config parses and fits its PDDL domain."""
    text = (DOCS / "pddl-translation.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.DOTALL)
    assert blocks, "no ```json block in docs/pddl-translation.md"
    cfg = parse_translation(json.loads(blocks[0]), "docs example")
    pddl = re.findall(r"```lisp\n(.*?)```", text, re.DOTALL)
    dom = parse_domain(pddl[0])
    cfg.check(dom)
    prob = parse_problem(pddl[1], dom)
    tr = translator(prob, cfg)
    steps = [str(a) for a in ground(prob).actions()[:20]]
    assert parse_plan("\n".join(tr.plan(steps)), tr).pddl == steps


def test_problem_variants_get_their_own_translator():
    p = bw_problem()
    q = replace(p, goal=())
    assert translator(p) is translator(p)
    assert translator(q) is not translator(p)
    assert domain("blocksworld").name == "blocksworld-4ops"
