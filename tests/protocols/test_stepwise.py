"""Step-wise judging is exact: a prediction is judged by whether prefix + steps can
still become a valid plan, not by whether it is the gold step."""

import json

from protocol_cases import (
    C,
    S,
    W,
    answer_verdict,
    basic_case,
    extended_case,
    steps,
    stepwise,
)

from planprobe.schema import Trace, TraceStatus
from planprobe.suites.protocols import base_case
from planprobe.suites.registry import get_family


def test_the_case_shows_the_gold_prefix_with_results():
    case = stepwise(basic_case(), 1, 1)  # reference plan: S, C, W
    assert case.family == "stepwise" and case.tools == []
    assert case.task.startswith(base_case(case).task)  # the base task's spans still hold
    assert 'Step 0: {"tool": "sanitizing_tools", "parameters": {}}\nResult: Sanitizing tools has been done.' in case.task
    assert "Predict the next step." in case.task and '"next_steps"' in case.task
    assert [g["tool"] for g in case.spec["gold"]] == [C]
    assert case.meta.generator["prefix"] == 1 and case.meta.parent == base_case(case).id


def test_a_valid_step_that_is_not_the_gold_one_passes():
    case = stepwise(basic_case(), 1, 1)  # after S, gold is C; W is free and just as valid
    assert answer_verdict(case, steps((C, {}))).passed
    v = answer_verdict(case, steps((W, {})))
    assert v.passed and v.checker == "stepwise/1+constraints/extendable"


def test_a_step_that_violates_a_constraint_fails_citing_it():
    case = stepwise(basic_case(), 1, 0)  # nothing done yet
    v = answer_verdict(case, steps((C, {})))  # cutting hair before sanitizing tools
    assert not v.passed and v.errors == ["order_error"] and v.unsat_core == ["c1"]
    ev = v.evidence[0]
    assert ev.constraint_ids == ["c1"] and ev.step == 0
    assert '"Sanitizing tools comes before cutting hair"' in ev.text
    # the family's evidence spans point into the wrapped task at the requirement's words
    spans = get_family("stepwise").evidence_spans(case.spec, {"c1"})
    assert [case.task[a:b] for a, b in spans] == ["Sanitizing tools comes before cutting hair"]


def test_repeating_a_prefix_step_is_a_repeated_action():
    case = stepwise(basic_case(), 1, 1)
    v = answer_verdict(case, steps((S, {})))
    assert v.errors == ["repeated_action"] and v.evidence[0].step == 1


def test_step_count_is_exact():
    case = stepwise(basic_case(), 2, 0)  # two steps asked, three remain
    assert answer_verdict(case, steps((S, {}), (W, {}))).passed
    too_many = answer_verdict(case, steps((S, {}), (W, {}), (C, {})))
    assert too_many.errors == ["act_error"] and too_many.evidence[0].kind == "step_count"
    too_few = answer_verdict(case, steps((S, {})))
    assert too_few.errors == ["action_lost"] and too_few.evidence[0].kind == "too_few_steps"
    wrong_and_few = answer_verdict(case, steps((C, {})))  # the step's own fault comes first
    assert wrong_and_few.errors == ["order_error"]


def test_fewer_steps_pass_when_the_task_ends_sooner():
    case = stepwise(basic_case(), 3, 1)  # after S, two steps remain
    assert case.spec["k"] == 3 and len(case.spec["gold"]) == 2
    assert answer_verdict(case, steps((W, {}), (C, {}))).passed
    assert "fewer only if the task is finished sooner" in case.task
    # a third step can only repeat one: not a valid plan
    assert answer_verdict(case, steps((W, {}), (C, {}), (S, {}))).errors == ["repeated_action"]


def test_extended_prediction_checks_time():
    case = stepwise(extended_case(), 1, 1)  # S 2h, C 1h, W 3h; S before C; W ends by 06:00
    prefix = case.spec["prefix"]
    assert len(prefix) == 1 and "took" in prefix[0]["result"]
    assert "It takes 3 hours." in case.task and "request_restart" not in case.task.split("The tools, as JSON:")[1]
    first = prefix[0]["tool"], json.loads(prefix[0]["arguments"])["start_time"]
    durations = {S: 2, C: 1, W: 3}
    end = first[1] + durations[first[0]]
    gold = case.spec["gold"][0]
    assert answer_verdict(case, steps((gold["tool"], json.loads(gold["arguments"])))).passed
    overlap = answer_verdict(case, steps((gold["tool"], {"start_time": end - 1})))
    assert overlap.errors == ["parameter_error"] and overlap.evidence[0].kind == "overlap"
    restart = answer_verdict(case, steps(("request_restart", {})))
    assert restart.errors == ["act_error"] and restart.evidence[0].kind == "tool_not_offered"


def test_unreadable_answers_and_unfinished_episodes():
    case = stepwise(basic_case(), 1, 0)
    v = answer_verdict(case, "I would start with the sanitizing.")
    assert v.errors == ["act_error"] and v.evidence[0].kind == "unparsed_answer"
    assert "I would start with the sanitizing." in v.evidence[0].text
    v = get_family("stepwise").check(case, Trace(case_id=case.id, agent="x", status=TraceStatus.TIMEOUT))
    assert v.errors == ["timeout"]
