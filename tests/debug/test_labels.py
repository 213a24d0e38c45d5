"""The formal labeller proven on traces with one mistake made at a known step.

Every test builds the mistake itself (at a step drawn per case) and executes the
calls through the family's own environment, so the expected step and type come
from the construction, never from the labeller's logic."""

from __future__ import annotations

import copy
import itertools
import json
import math

import pytest
from label_helpers import execute, ghost, invalid_args, rng_for

from helpers import cases as constraint_cases
from helpers import run_agent
from planprobe.agents import make_agent
from planprobe.debug.labels import label_trace
from planprobe.debug.replay import PDDLReplay
from planprobe.environment import Limits
from planprobe.pddl import parse_domain, parse_problem, solve
from planprobe.suites.base import PlannedCall
from planprobe.suites.constraints.prepared import prepare as c_compiled
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.pddl_agent.generator import build_case
from planprobe.suites.pddl_agent.prepared import prepare as p_compiled
from planprobe.suites.registry import get_family

BASIC = constraint_cases(12, seed=3)
EXTENDED = constraint_cases(12, seed=3, extended=True)
BW = list(generate_cases(PDDLSuiteOptions(domain="blocksworld", n=10, seed=2, blocks=(3, 4))))
LOG = list(generate_cases(PDDLSuiteOptions(domain="logistics", n=8, seed=2, packages=(1, 2), cities=(1, 2),
                                           locations=(1, 2))))
ALL = {"constraints": BASIC, "constraints-extended": EXTENDED, "blocksworld": BW, "logistics": LOG}


def _label(case, calls, limit=50):
    trace = execute(case, calls, Limits(max_iterations=limit))
    verdict = get_family(case.family).check(case, trace)
    assert not verdict.passed
    return label_trace(case, trace, verdict, limit)


def _ref(case):
    return get_family(case.family).reference_plan(case)


def _assert_critical(lab, step, module, type_):
    assert lab.critical is not None
    assert (lab.critical.step, lab.critical.module, lab.critical.type) == (step, module, type_), lab.critical


@pytest.mark.parametrize("suite", sorted(ALL))
@pytest.mark.parametrize("mistake", ["unknown-tool", "malformed", "invalid-args"])
def test_rejected_call_at_a_known_step(suite, mistake):
    """A call the environment rejects: E at exactly that step; it changes no state, so no PNR;
    removing it is the whole correction."""
    for case in ALL[suite]:
        ref = _ref(case)
        k = rng_for(case, mistake).randrange(len(ref) + 1)
        template = ref[min(k, len(ref) - 1)]
        if mistake == "unknown-tool":
            bad, want = PlannedCall(ghost(case, template.name + "_v2"), template.arguments), ("action", "invalid_action")
        elif mistake == "malformed":
            bad, want = PlannedCall(template.name, template.arguments[:-1] or "{"), ("action", "format_error")
        else:
            args = invalid_args(case, template)
            assert args is not None
            bad, want = PlannedCall(template.name, args), ("action", "parameter_error")
        lab = _label(case, ref[:k] + [bad] + ref[k:])
        _assert_critical(lab, k + 1, *want)
        assert lab.pnr.step is None
        assert lab.correction == [k + 1]
        assert lab.critical.how == "exact"


@pytest.mark.parametrize("suite", ["constraints", "constraints-extended"])
def test_order_violation_is_the_point_of_no_return(suite):
    """Doing a task whose prerequisite is not done yet: E = PNR = that step, constraint ignorance."""
    hit = 0
    for case in ALL[suite]:
        cc = c_compiled(case)
        ref = _ref(case)
        order = [cc.tool_index[c.name] for c in ref]
        preds = {b: {a for _, a, bb in cc.orders if bb == b} for b in range(cc.n)}
        for k in range(len(ref)):
            done = set(order[:k])
            bad = [j for j in order[k:] if preds[j] - done]
            if bad:
                j = bad[0]
                call = ref[order.index(j)]
                lab = _label(case, ref[:k] + [call])
                _assert_critical(lab, k + 1, "planning", "constraint_ignorance")
                assert lab.pnr.step == k + 1 and lab.pnr.how == "exact"
                hit += 1
                break
    assert hit >= len(ALL[suite]) // 2


@pytest.mark.parametrize("suite", ["constraints", "constraints-extended"])
def test_duplicate_task(suite):
    for case in ALL[suite]:
        ref = _ref(case)
        k = rng_for(case, "dup").randrange(len(ref))
        again = ref[k]
        if c_compiled(case).extended:  # rerun it at the end of the day's plan, when it still fits
            last = json.loads(ref[-1].arguments)["start_time"] + c_compiled(case).durations[
                c_compiled(case).tool_index[ref[-1].name]]
            again = PlannedCall(ref[k].name, json.dumps({"start_time": min(last, 23)}))
            calls = ref + [again]
            step = len(ref) + 1
        else:
            calls = ref[:k + 1] + [again] + ref[k + 1:]
            step = k + 2
        lab = _label(case, calls)
        assert lab.critical.step == step and lab.critical.module == "planning"
        assert lab.pnr.step == step


def test_overlapping_start_time_is_a_parameter_error():
    hit = 0
    for case in EXTENDED:
        cc = c_compiled(case)
        ref = _ref(case)
        for k in range(1, len(ref)):
            prev = json.loads(ref[k - 1].arguments)["start_time"]
            end = prev + cc.durations[cc.tool_index[ref[k - 1].name]]
            start = end - 1
            if start < 0:
                continue
            calls = ref[:k] + [PlannedCall(ref[k].name, json.dumps({"start_time": start}))] + ref[k + 1:]
            lab = _label(case, calls)
            _assert_critical(lab, k + 1, "action", "parameter_error")
            assert lab.pnr.step == k + 1
            hit += 1
            break
    assert hit >= len(EXTENDED) // 2


@pytest.mark.parametrize("suite", sorted(ALL))
def test_stopping_early_is_progress_misjudgment_at_the_stop(suite):
    """Leaving out the last action: nothing goes wrong until the agent stops claiming it is done."""
    for case in ALL[suite]:
        ref = _ref(case)
        lab = _label(case, ref[:-1])
        _assert_critical(lab, len(ref), "reflection", "progress_misjudge")
        assert lab.pnr.step is None
        assert lab.correction == [len(ref)]


@pytest.mark.parametrize("suite", ["blocksworld", "logistics"])
def test_inapplicable_action_at_a_known_step(suite):
    """A well-formed call whose (non-static) precondition is false: impossible action at that step."""
    hit = 0
    for case in ALL[suite]:
        cc = p_compiled(case)
        ref = _ref(case)
        k = rng_for(case, "pre").randrange(len(ref))
        state = cc.grounded.init
        for c in ref[:k]:
            state = cc.ground_call(c.name, json.loads(c.arguments)).apply(state)
        later = [c for c in ref[k + 1:] if not cc.ground_call(c.name, json.loads(c.arguments)).applicable(state)]
        if not later:
            continue
        lab = _label(case, ref[:k] + [later[0]] + ref[k:])
        _assert_critical(lab, k + 1, "planning", "impossible_action")
        assert lab.pnr.step is None  # nothing changed: the world is still solvable
        assert lab.correction == [k + 1]
        hit += 1
    assert hit >= len(ALL[suite]) // 2


def test_faulty_reference_agents_get_their_step_and_type():
    """The built-in faulty agents inject at a random step; the step where their calls first
    differ from the oracle agent's is where the labeller must put E."""
    want = {"unknown-tool": "action/invalid_action", "malformed-args": "action/format_error",
            "invalid-args": "action/parameter_error", "impossible-action": "planning/impossible_action",
            "swap": "planning/impossible_action", "duplicate": "planning/constraint_ignorance"}
    checked = 0
    for suite, cases in ALL.items():
        family = get_family(cases[0].family)
        for fault, expected in want.items():
            if fault not in family.faults or (fault == "duplicate" and suite != "constraints"):
                continue
            for case in cases:
                expected = want[fault]
                ref = [(c.name, c.arguments) for c in _ref(case)]
                trace = run_agent(make_agent(f"faulty:{fault}"), case)
                verdict = family.check(case, trace)
                if verdict.passed or not trace.meta.get("fault_injected"):
                    continue
                got = [(c.name, c.arguments) for c in trace.tool_calls]
                first = next(i for i, (a, b) in enumerate(itertools.zip_longest(ref, got)) if a != b)
                step = first + 1  # an inserted call, a copy, or the first swapped task
                if fault == "swap" and case.family == "constraints":
                    expected = "planning/constraint_ignorance"  # done before the task it must follow
                lab = label_trace(case, trace, verdict)
                assert (lab.critical.step, f"{lab.critical.module}/{lab.critical.type}") == (step, expected), \
                    (suite, fault, case.id)
                checked += 1
    assert checked > 100


# -- dead ends: an exact PNR that differs from E, found in O(log T) oracle calls ---------------

DEAD_END_DOMAIN = """(define (domain workshop)
  (:requirements :strips)
  (:predicates (intact ?x) (done ?x) (flipped ?x))
  (:action flip :parameters (?x) :precondition (intact ?x) :effect (flipped ?x))
  (:action unflip :parameters (?x) :precondition (flipped ?x) :effect (not (flipped ?x)))
  (:action smash :parameters (?x) :precondition (intact ?x) :effect (not (intact ?x)))
  (:action finish :parameters (?x) :precondition (intact ?x) :effect (done ?x)))"""
DEAD_END_PROBLEM = """(define (problem p) (:domain workshop) (:objects a b)
  (:init (intact a) (intact b)) (:goal (and (done a) (done b))))"""


def _workshop():
    domain = parse_domain(DEAD_END_DOMAIN)
    return build_case("workshop-1", parse_problem(DEAD_END_PROBLEM, domain))


def _call(name, x):
    return PlannedCall(name, json.dumps({"x": x}))


@pytest.mark.parametrize("padding", [0, 1, 5, 20, 60])
def test_dead_end_pnr_is_exact_and_cheap(padding):
    case = _workshop()
    keys = p_compiled(case).keys
    assert keys["flip"] == ["x"]
    pad = [_call("flip", "a"), _call("unflip", "a")] * padding
    calls = pad + [_call("smash", "b")] + [_call("flip", "a")] * 3 + [_call("finish", "a")]
    lab = _label(case, calls, limit=1000)
    pnr = 2 * padding + 1
    assert lab.pnr.step == pnr and lab.pnr.how == "exact"
    _assert_critical(lab, pnr, "planning", "constraint_ignorance")
    t = len(calls)
    assert lab.pnr.oracle_calls <= math.ceil(math.log2(t)) + 2  # not one per step
    if padding:
        assert any(x.type == "inefficient_plan" and x.step == 2 for x in lab.labels)
    assert lab.correction == [pnr, t + 1]  # undo the smash, then go on to finish b


def test_budget_pnr_matches_a_step_by_step_computation():
    """t + h*(s_t) > limit, computed for every t with the planner, against the labeller's binary search."""
    checked = 0
    for case in BW:
        cc = p_compiled(case)
        ref = _ref(case)
        a = ref[0]
        undo = None
        for cand in cc.grounded.actions():  # an action that undoes the first step
            s1 = cc.ground_call(a.name, json.loads(a.arguments)).apply(cc.grounded.init)
            if cand.applicable(s1) and cand.apply(s1) == cc.grounded.init:
                undo = cand
                break
        if undo is None:
            continue
        tool, args = cc.call_for(str(undo))
        undo_call = PlannedCall(tool, json.dumps(args))
        calls = [a, undo_call] * 3 + ref
        limit = len(ref) + 3  # the detour costs 6 steps: the run hits the limit
        trace = execute(case, calls, Limits(max_iterations=limit))
        verdict = get_family("pddl").check(case, trace)
        assert not verdict.passed
        lab = label_trace(case, trace, verdict, limit)
        _assert_critical(lab, len(trace.tool_calls) + 1, "system", "step_limit")
        states, _ = PDDLReplay(case).states(trace.tool_calls)
        brute = None
        for t in range(1, len(trace.tool_calls) + 1):
            local = copy.copy(cc.grounded)
            local.init = states[t]
            h = 0 if cc.grounded.goal_reached(states[t]) else len(solve(local, heuristic="lmcut", time_limit=None).steps)
            if t + h > limit:
                brute = t
                break
        assert brute is not None and lab.budget_pnr.step == brute, case.id
        assert lab.budget_pnr.oracle_calls <= math.ceil(math.log2(len(trace.tool_calls))) + 2
        assert any(x.type == "inefficient_plan" and x.step == 2 for x in lab.labels)
        checked += 1
    assert checked >= 3


def test_correction_is_minimal_by_brute_force():
    """On small traces with two independent mistakes, no smaller set of removals fixes the run."""
    for case in BASIC[:6]:
        ref = _ref(case)
        bad1 = PlannedCall(ghost(case, ref[0].name + "_x"), "{}")
        calls = [bad1] + ref[:2] + [PlannedCall(ref[1].name, "{")] + ref[2:]
        lab = _label(case, calls)
        assert lab.correction == [1, 4]
        family = get_family(case.family)
        for size in range(len(lab.correction)):
            for drop in itertools.combinations(range(len(calls)), size):
                kept = [c for i, c in enumerate(calls) if i not in drop]
                assert not family.check(case, execute(case, kept)).passed


def test_the_run_verdict_is_unchanged_and_labels_are_deterministic():
    case = BASIC[0]
    ref = _ref(case)
    calls = ref[:1] + [PlannedCall("nope", "{}")] + ref[1:]
    a = _label(case, calls).model_dump_json()
    b = _label(case, calls).model_dump_json()
    assert a == b


def test_holistic_plans_are_labelled_through_their_tool_chain():
    """A plan written at once (holistic protocol): step k is the plan's k-th call."""
    from planprobe.debug.views import view_of
    from planprobe.suites.protocols.parse import parse_plan
    from planprobe.suites.protocols.spec import base_case
    from planprobe.suites.protocols.wrap import wrap_holistic

    family = get_family("holistic")
    checked = 0
    for case in [wrap_holistic(c) for c in BASIC[:6] + BW[:4]]:
        base = base_case(case)
        ref = [(c.name, c.arguments) for c in get_family(base.family).reference_plan(base)]
        for fault, expected in [("unknown-tool", "action/invalid_action"), ("malformed-args", "action/format_error")]:
            trace = run_agent(make_agent(f"faulty:{fault}"), case)
            verdict = family.check(case, trace)
            if verdict.passed:
                continue
            plan = parse_plan(trace.final_answer, family.answer_keys).calls
            got = [(c.name, c.arguments) for c in plan]
            first = next(i for i, (a, b) in enumerate(itertools.zip_longest(ref, got)) if a != b)
            lab = label_trace(case, trace, verdict)
            assert lab.case_id == case.id and lab.family == "holistic"
            assert (lab.critical.step, f"{lab.critical.module}/{lab.critical.type}") == (first + 1, expected)
            assert lab.correction == [first + 1]
            assert view_of(case, trace).case.id == base.id
            checked += 1
        trace = run_agent(make_agent("faulty:unparseable"), case)
        lab = label_trace(case, trace, family.check(case, trace))
        assert (lab.critical.step, lab.critical.type) == (1, "format_error")
    assert checked >= 15


def test_an_executed_move_that_changes_nothing_is_inefficient():
    """Logistics lets a plane fly (or a truck drive) from where it is to the same place: carried
    out, nothing changes. Such a step wastes an iteration: planning/inefficient_plan at that step."""
    checked = 0
    for case in LOG:
        cc = p_compiled(case)
        ref = _ref(case)
        k = rng_for(case, "noop").randrange(len(ref))  # before the last step: the limit cuts that one
        state = cc.grounded.init
        for c in ref[:k]:
            state = cc.ground_call(c.name, json.loads(c.arguments)).apply(state)
        noop = next((a for a in cc.grounded.actions() if a.applicable(state) and a.apply(state) == state), None)
        if noop is None:
            continue
        tool, args = cc.call_for(str(noop))
        calls = ref[:k] + [PlannedCall(tool, json.dumps(args))] + ref[k:]
        limit = len(ref)  # the wasted step costs the run its last one
        lab = _label(case, calls, limit=limit)
        assert any(x.step == k + 1 and x.type == "inefficient_plan" and "changed nothing" in x.evidence
                   for x in lab.labels), (case.id, k, lab.labels)
        assert lab.steps == limit and lab.correction == [k + 1, limit + 1]  # drop the wasted move, then finish
        checked += 1
    assert checked >= 3
