"""Corrections and the budget point of no return against brute force (issue #26 items 10, 12).

The traces are the faulty reference agents' calls, executed through each family's own
environment at two paces (one call per iteration, or two) by a scripted agent and by one
that answers with a reply of its own (as a model does: the answer costs an iteration),
under limits tight enough to cut some runs off. The brute force shares nothing with the
labeller: it enumerates every set of removals, finds the shortest continuation by trying
every order of the tasks left (constraints) or a breadth-first search over the world's
states (PDDL), judges each candidate run with the family's oracle on a fresh execution,
and counts iterations by laying the calls out one by one."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter, deque

import pytest
from label_helpers import execute

from helpers import cases as constraint_cases
from helpers import run_agent
from planprobe.agents import make_agent
from planprobe.debug.labels import MAX_CORRECTION, label_trace
from planprobe.environment import IterationLimitExceeded, Limits
from planprobe.schema import Case, Message, Trace, TraceStatus
from planprobe.suites.base import PlannedCall
from planprobe.suites.constraints.prepared import prepare as c_compiled
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.pddl_agent.prepared import prepare as p_compiled
from planprobe.suites.registry import get_family

BASIC = constraint_cases(3, seed=21, actions=(3, 3))
EXTENDED = constraint_cases(3, seed=21, extended=True, actions=(3, 3))
BW = list(generate_cases(PDDLSuiteOptions(domain="blocksworld", n=3, seed=21, blocks=(3, 3))))
SUITES = {"constraints": BASIC, "constraints-extended": EXTENDED, "blocksworld": BW}
PACES = [(1, False), (1, True), (2, True)]  # (calls per iteration, answers with a reply)
RESTART = "request_restart"


def run_paced(case: Case, calls: list[PlannedCall], limit: int, pace: int, replies: bool) -> Trace:
    """Execute ``calls`` ``pace`` per iteration; an agent that ``replies`` logs a reply each
    iteration and spends one more on its answer."""
    env = get_family(case.family).environment(case, Limits(max_iterations=limit), 0, "paced")
    try:
        for k in range(0, len(calls), pace):
            env.step()
            if replies:
                env.log(Message(role="assistant", content="acting"))
            for c in calls[k:k + pace]:
                env.call(c.name, c.arguments)
        if replies:
            env.step()
            env.log(Message(role="assistant", content="done"))
        env.finish("done")
    except IterationLimitExceeded:
        env.trace.status = TraceStatus.ITERATION_LIMIT
    return env.trace


def planned(trace: Trace) -> list[PlannedCall]:
    return [PlannedCall(c.name, c.arguments) for c in trace.tool_calls]


def passes(case: Case, calls: list[PlannedCall]) -> bool:
    return get_family(case.family).check(case, execute(case, calls, Limits(max_iterations=10_000))).passed


# -- the shortest continuation, by brute force -----------------------------------------------


def _constraint_continuation(case: Case, prefix: list[PlannedCall]) -> int | None:
    c = c_compiled(case)
    attempt = prefix
    for k, call in enumerate(prefix):  # a granted restart discards what came before it
        if call.name == RESTART and call.arguments in ("{}", ""):
            attempt = prefix[k + 1:]
    done = {call.name for call in attempt}
    left = [a for a in range(c.n) if c.tools[a] not in done]
    release, _ = c.windows_arrays()
    end = 0
    for call in attempt:
        if call.name in c.tool_index and c.extended:
            try:
                end = json.loads(call.arguments)["start_time"] + c.durations[c.tool_index[call.name]]
            except (ValueError, KeyError, TypeError):
                return None
    for order in itertools.permutations(left):
        more, t = [], end
        for a in order:  # a fixed order is best started each task as early as it may
            start = max(t, release[a])
            more.append(PlannedCall(c.tools[a], json.dumps({"start_time": start}) if c.extended else "{}"))
            t = start + c.durations[a]
        if passes(case, prefix + more):
            return len(left)
    return None


def _pddl_continuation(case: Case, prefix: list[PlannedCall]) -> int | None:
    env = get_family(case.family).environment(case, Limits(max_iterations=10_000), 0, "brute")
    for call in prefix:
        env.step()
        env.call(call.name, call.arguments)
    cc = p_compiled(case)
    actions = cc.grounded.actions()
    start = env.state
    back = {start: None}
    queue = deque([start])
    while queue:  # breadth first over the world's states: the first goal state is the nearest
        s = queue.popleft()
        if cc.grounded.goal_reached(s):
            path = []
            while back[s] is not None:
                s, a = back[s]
                path.append(a)
            more = [PlannedCall(tool, json.dumps(args)) for tool, args in (cc.call_for(str(a)) for a in reversed(path))]
            return len(more) if passes(case, prefix + more) else None
        for a in actions:
            if a.applicable(s):
                n = a.apply(s)
                if n not in back:
                    back[n] = (s, a)
                    queue.append(n)
    return None


def continuation(case: Case, prefix: list[PlannedCall]) -> int | None:
    """The fewest further calls after which the run passes (None: no continuation passes)."""
    if case.family == "constraints":
        return _constraint_continuation(case, prefix)
    return _pddl_continuation(case, prefix)


def distance(case: Case, prefix: list[PlannedCall]) -> float:
    """Calls still needed to pass: go on, or (where restarts are offered) restart and start over."""
    best = continuation(case, prefix)
    if any(t.name == RESTART for t in case.tools):
        again = continuation(case, prefix + [PlannedCall(RESTART, "{}")])
        if again is not None:
            best = again + 1 if best is None else min(best, again + 1)
    return math.inf if best is None else best


# -- the budget, laid out call by call --------------------------------------------------------


def _layout(trace: Trace) -> tuple[list[int], int, int]:
    its = [c.step for c in trace.tool_calls]
    pace = max(Counter(its).values(), default=1)
    answer = 1 if any(m.role == "assistant" for m in trace.messages) else 0
    return its, pace, answer


def brute_budget_pnr(case: Case, trace: Trace, limit: int) -> int | None:
    its, pace, answer = _layout(trace)
    for t in range(1, len(its) + 1):
        carried_out = [c for c in trace.tool_calls[:t] if c.error is None and not c.result.startswith("Not done")]
        left = distance(case, [PlannedCall(c.name, c.arguments) for c in carried_out])  # from the world reached
        if math.isinf(left):
            return t
        iteration = its[t - 1]
        room = pace - sum(1 for j in range(t) if its[j] == iteration)  # the rest of this iteration first
        left -= min(room, left)
        while left > 0:
            iteration += 1
            left -= pace
        if iteration + answer > limit:
            return t
    return None


def brute_corrections(case: Case, trace: Trace, limit: int) -> list[list[int]]:
    """Every smallest correction (removed steps, T+1 for continuing) of at most MAX_CORRECTION steps."""
    calls = planned(trace)
    its, pace, answer = _layout(trace)
    t_all = len(calls)
    finished = trace.status == TraceStatus.COMPLETED
    for size in range(MAX_CORRECTION + 1):
        found = []
        for go_on in (False, True)[:size + 1]:
            for drop in itertools.combinations(range(t_all), size - go_on):
                kept = [c for i, c in enumerate(calls) if i not in drop]
                used = len({its[i] for i in range(t_all) if i not in drop})  # every iteration here made calls
                if not go_on:
                    if finished and passes(case, kept):
                        found.append([i + 1 for i in drop])
                    continue
                more = continuation(case, kept)
                if more is not None and used + math.ceil(more / pace) + answer <= limit:
                    found.append([i + 1 for i in drop] + [t_all + 1])
        if found:
            return found
    return []


# -- the traces -------------------------------------------------------------------------------


def _traces():
    """(case, trace, limit) of faulty and reference calls at every pace, some cut off by the limit."""
    for suite, cases in SUITES.items():
        family = get_family(cases[0].family)
        for case in cases:
            plans = [family.reference_plan(case)]
            for fault in sorted(family.faults):
                if fault == "stall":
                    continue
                trace = run_agent(make_agent(f"faulty:{fault}"), case)
                if trace.meta.get("fault_injected"):
                    plans.append(planned(trace))
            for calls, (pace, replies) in itertools.product(plans, PACES):
                enough = math.ceil(len(calls) / pace) + replies
                for limit in (enough - 1, enough):
                    trace = run_paced(case, calls, limit, pace, replies)
                    verdict = family.check(case, trace)
                    if not verdict.passed:
                        yield suite, case, trace, verdict, limit


TRACES = list(_traces())


def test_the_traces_cover_runs_cut_off_after_completing_the_task():
    cut = [t for _, c, t, _, limit in TRACES if t.status == TraceStatus.ITERATION_LIMIT]
    done_then_cut = [t for _, c, t, _, _ in TRACES if t.status == TraceStatus.ITERATION_LIMIT
                     and passes(c, planned(t))]
    assert len(cut) >= 30 and len(done_then_cut) >= 5
    assert {s for s, *_ in TRACES} == set(SUITES)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_correction_matches_brute_force_within_the_limit(suite):
    """A correction respects the iteration limit; none is null with its reason; a run cut off
    by the limit is never corrected by removals alone."""
    checked = 0
    for s, case, trace, verdict, limit in TRACES:
        if s != suite:
            continue
        lab = label_trace(case, trace, verdict, limit)
        want = brute_corrections(case, trace, limit)
        where = (case.id, [(c.name, c.arguments, c.step) for c in trace.tool_calls], trace.status.value, limit)
        if not want:
            assert lab.correction is None and lab.correction_note, where
        else:
            assert lab.correction in want, (lab.correction, want, where)
            assert not lab.correction_note
        if trace.status != TraceStatus.COMPLETED and lab.correction is not None:
            assert len(trace.tool_calls) + 1 in lab.correction, where
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_budget_pnr_matches_brute_force_in_iterations(suite):
    checked = 0
    for s, case, trace, verdict, limit in TRACES:
        if s != suite:
            continue
        lab = label_trace(case, trace, verdict, limit)
        assert lab.budget_pnr is not None
        assert lab.budget_pnr.step == brute_budget_pnr(case, trace, limit), \
            (case.id, [(c.name, c.arguments, c.step) for c in trace.tool_calls], trace.status.value, limit)
        checked += 1
    assert checked >= 10


def test_budget_pnr_and_correction_over_restarts():
    """Extended cases with a first attempt that goes dead, a restart, then the plan: the budget
    PNR is found over the whole trace (a dead attempt is a restart and a plan away), in
    iterations, and agrees with the brute force; so does the correction."""
    checked = 0
    for case in EXTENDED:
        ref = get_family(case.family).reference_plan(case)
        first = [ref[0], ref[0]]  # the same task twice: the attempt can no longer pass
        for tail in (ref, ref + [ref[-1]]):
            calls = first + [PlannedCall(RESTART, "{}")] + tail
            for pace, replies in PACES:
                enough = math.ceil(len(calls) / pace) + replies
                for limit in (enough - 1, enough, enough + 1):
                    trace = run_paced(case, calls, limit, pace, replies)
                    verdict = get_family(case.family).check(case, trace)
                    if verdict.passed:
                        continue
                    lab = label_trace(case, trace, verdict, limit)
                    assert lab.budget_pnr.step == brute_budget_pnr(case, trace, limit), (case.id, pace, replies, limit)
                    want = brute_corrections(case, trace, limit)
                    if want:  # the correction searches the judged attempt; the brute force, every step
                        assert lab.correction is None or len(lab.correction) >= len(want[0])
                    checked += 1
    assert checked >= 12


def test_a_malformed_restart_is_a_parameter_error():
    """request_restart is offered: arguments outside its schema are a parameter error, not an
    unknown tool; arguments that are not JSON, a format error."""
    for case in EXTENDED:
        ref = get_family(case.family).reference_plan(case)
        for args, want in (('{"now": true}', "parameter_error"), ('{"now": tru', "format_error")):
            calls = ref[:1] + [PlannedCall(RESTART, args)] + ref[1:]
            trace = execute(case, calls)
            verdict = get_family(case.family).check(case, trace)
            assert not verdict.passed
            lab = label_trace(case, trace, verdict, 50)
            assert (lab.critical.step, lab.critical.module, lab.critical.type) == (2, "action", want), lab.critical
            assert "not one of the tools" not in lab.critical.evidence
            assert lab.correction == [2]


def test_a_run_cut_off_after_completing_its_calls():
    """Every task done in the last iteration the limit allows, the answer cut off: removing nothing
    cannot make it pass, and continuing needs one iteration more than the limit (issue #26 item 10).
    With a wasted step in it, dropping that step frees the iteration the answer needs."""
    for case in BASIC + EXTENDED:
        ref = get_family(case.family).reference_plan(case)
        trace = run_paced(case, ref, len(ref), 1, True)
        assert trace.status == TraceStatus.ITERATION_LIMIT and passes(case, planned(trace))
        lab = label_trace(case, trace, get_family(case.family).check(case, trace), len(ref))
        assert lab.correction is None
        assert lab.correction_note == (f"continuing at the end (step {len(ref) + 1}) would make the run pass, "
                                       f"but it would need {len(ref) + 1} iterations, over its limit of {len(ref)}")
        calls = ref[:1] + [PlannedCall(f"{ref[0].name}_v2", "{}")] + ref[1:]  # a call of no tool: rejected
        trace = run_paced(case, calls, len(calls), 1, True)
        lab = label_trace(case, trace, get_family(case.family).check(case, trace), len(calls))
        assert lab.correction == [2, len(calls) + 1], lab.correction


def test_two_calls_per_iteration_that_finish_in_time_have_no_budget_pnr():
    """The limit counts iterations: a run making two calls per iteration that ended in time
    (failing for another reason) never ran out of budget (issue #26 item 12)."""
    checked = 0
    for case in BASIC + EXTENDED + BW:
        ref = get_family(case.family).reference_plan(case)
        calls = ref + [PlannedCall(f"{ref[0].name}_v2", "{}")]  # a last call of no tool: the run fails
        limit = math.ceil(len(calls) / 2) + 1
        if len(calls) <= limit:  # counted in calls, it would fit too
            continue
        trace = run_paced(case, calls, limit, 2, True)
        assert trace.status == TraceStatus.COMPLETED
        checked += 1
        lab = label_trace(case, trace, get_family(case.family).check(case, trace), limit)
        assert lab.budget_pnr.step is None, (case.id, lab.budget_pnr)
        assert lab.budget_pnr.note == f"the run could still end within {limit} iterations"
    assert checked >= 4
