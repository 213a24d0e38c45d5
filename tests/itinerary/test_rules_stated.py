"""#26 item 3: every check the itinerary oracle (and TravelPlanner's evaluator) can fail is
stated in the case's prompt. The table is ``rules.RULES`` (rule id -> sentence); the
evaluator names the rule of every failure (``Evaluator._fail``), so the tests read every
rule id the code can give from its source, require a sentence for each, and find that
sentence in the system prompt or task of every kind of case planprobe writes."""

from __future__ import annotations

import ast
import copy
import inspect
import random
import re
from typing import Any

import pytest

from planprobe.schema import Trace, TraceStatus
from planprobe.suites.itinerary import family as itinerary_family
from planprobe.suites.itinerary.family import ItineraryFamily
from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases
from planprobe.suites.travelplanner import evaluate, reference_answers
from planprobe.suites.travelplanner.cases import SOLE_SYSTEM, make_case, prepare
from planprobe.suites.travelplanner.family import check as tp_check
from planprobe.suites.travelplanner.fields import QueryFields
from planprobe.suites.travelplanner.rules import ANSWER_FORMAT, MINIMUM_COST, RULES

FAMILY = ItineraryFamily()
# evidence kinds that are not a constraint of the evaluator -> the sentence that states them
OWN_KINDS = {"not_delivered": ANSWER_FORMAT, "minimum_cost": MINIMUM_COST}


def _rule_ids_in_source() -> set[str]:
    """The first argument of every ``_fail(...)`` call in the evaluator."""
    tree = ast.parse(inspect.getsource(evaluate))
    ids: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "_fail":
            first = node.args[0]
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), ast.dump(first)
            ids.add(first.value)
    return ids


def test_every_failure_of_the_evaluator_names_a_stated_rule():
    tree = ast.parse(inspect.getsource(evaluate))
    # no failure bypasses _fail: the only (False, …) tuple of the module is _fail's own
    failing = [fn.name for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
               for node in ast.walk(fn) if isinstance(node, ast.Tuple) and node.elts
               and isinstance(node.elts[0], ast.Constant) and node.elts[0].value is False]
    assert failing == ["_fail"], failing
    ids = _rule_ids_in_source()
    assert ids == set(RULES) - {"answer_format"}, (ids ^ (set(RULES) - {"answer_format"}))
    # the family's own evidence kinds: format (not delivered) and the itinerary's minimum cost
    tp_source, it_source = inspect.getsource(tp_check), inspect.getsource(itinerary_family.check)
    assert 'kind="not_delivered"' in tp_source and 'kind="minimum_cost"' in it_source
    kinds = {k for src in (tp_source, inspect.getsource(itinerary_family))
             for k in re.findall(r'kind="(\w+)"', src)}
    assert kinds - {"unscored"} <= set(OWN_KINDS), kinds  # 'unscored' cannot happen (hard skipped only on a failure)


def _stated(case: Any) -> str:
    return case.system + "\n" + case.task


def _itinerary_cases() -> list[Any]:
    cases = list(generate_cases(ItineraryOptions(n=18, seed=5)))
    cases += list(generate_cases(ItineraryOptions(n=6, seed=6, cost_aware=True)))
    cases += list(generate_cases(ItineraryOptions(n=6, seed=8, levels=("hard",), days=(3,), cities=2)))
    return cases


def test_every_rule_is_in_every_itinerary_prompt_with_the_query_values_it_needs():
    for case in _itinerary_cases():
        text = _stated(case)
        for rule, sentence in RULES.items():
            assert sentence in text, (case.id, rule)
        f = case.spec["fields"]
        lc = f["local_constraint"]
        needed = [f["org"], f["dest"], f["date"][0], f["date"][-1], f"${f['budget']:g}",
                  "one person" if f["people_number"] == 1 else f"{f['people_number']} people"]
        if f["visiting_city_number"] > 1 or f["days"] > 3:
            needed.append(f"visiting {f['visiting_city_number']} cities")
        if lc["house rule"]:
            needed.append(f"must allow {lc['house rule']}")
        if lc["room type"]:
            needed.append(f"a {lc['room type']}")
        needed += lc["cuisine"] or []
        if lc["transportation"]:
            needed.append(f"Transportation: {lc['transportation']}.")
        if case.spec["cost_aware"]:
            needed.append(MINIMUM_COST)
        for phrase in needed:
            assert phrase in case.task, (case.id, phrase)


def _fields() -> QueryFields:
    return QueryFields(org="A", dest="B", days=3, visiting_city_number=1, date=("2022-03-01", "2022-03-02",
                       "2022-03-03"), people_number=2, local_constraint={"house rule": None, "cuisine": None,
                       "room type": None, "transportation": None}, budget=900, level="easy", query="q")


@pytest.mark.parametrize("mode,system,strict,states", [
    ("two-stage", None, False, True),        # planprobe's prompt: every rule
    ("sole-planning", None, False, True),    # official splits: planprobe's prompt
    ("sole-planning", "PAPER", True, True),  # training, strict: the paper's prompt plus the rules
    ("sole-planning", "PAPER", False, False),  # training, official: the paper's prompt unchanged
])
def test_travelplanner_prompts_state_the_rules_where_planprobe_writes_them(mode, system, strict, states):
    case = make_case(split="train", idx=1, mode=mode, fields=_fields(), sandbox={"kind": "training", "dir": "."},
                     plan=None, strict=strict, system=system, task="T" if system else None)
    if states:
        assert all(sentence in case.system for sentence in RULES.values())
    else:
        assert case.system == "PAPER"  # documented in docs/travelplanner.md (what the paper's prompt leaves out)
    assert SOLE_SYSTEM.count(ANSWER_FORMAT) == 1


def _broken_plans(case: Any, rng: random.Random) -> list[str | None]:
    """Answers that fail in many ways: every mutation, random plans, and a few edits."""
    cc = prepare(case)
    plan = cc.plan
    out: list[str | None] = [None, "no plan here", '[{"days": 1}]']
    for name in reference_answers.MUTATIONS:
        bad = reference_answers.mutate(name, plan, cc.fields, cc.sandbox, rng)
        out.append(reference_answers.dump(bad) if bad else None)
    for _ in range(3):
        out.append(reference_answers.dump(reference_answers.random_plan(cc.fields, cc.sandbox, rng)))
    edits = [
        lambda p: p[0].update(transportation="Bus, from X to Y"),
        lambda p: p[0].update(transportation="-"),
        lambda p: p[1].update(attraction="-"),
        lambda p: p[0].pop("lunch"),
        lambda p: p.pop(),
        lambda p: p[0].update(current_city="from Nowhere to " + p[0]["current_city"].split(" to ")[-1]),
        lambda p: [d.update(breakfast="-", lunch="-", dinner="-", attraction="-") for d in p],
        lambda p: p[-2].update(accommodation="-"),
    ]
    for edit in edits:
        bad = copy.deepcopy(plan)
        edit(bad)
        out.append(reference_answers.dump(bad))
    return out


def test_every_failure_the_oracle_gives_maps_to_a_sentence_of_the_prompt():
    rng = random.Random(26)
    seen: set[str] = set()
    for case in _itinerary_cases():
        text = _stated(case)
        for answer in _broken_plans(case, rng):
            trace = Trace(case_id=case.id, agent="test", status=TraceStatus.COMPLETED, final_answer=answer)
            verdict = FAMILY.check(case, trace)
            strict = verdict.labels["travelplanner"].get("strict") or {}
            rules = strict.get("rules", {})
            for ev in verdict.evidence:
                sentence = OWN_KINDS.get(ev.kind) or RULES[rules[ev.kind]]
                seen.add(ev.kind if ev.kind in OWN_KINDS else rules[ev.kind])
                assert sentence in text, (case.id, ev.kind)
    # the broken plans reach most rules (the static test covers the rest)
    assert len(seen) >= 20, sorted(seen)
