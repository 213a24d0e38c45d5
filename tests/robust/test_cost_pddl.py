"""``--transform cost`` on pddl cases (Blocksworld, Logistics; issue #11 item 4).

* the reference (oracle) agent reaches the exact minimum cost on every case, and that
  minimum is the uniform-cost search's over the variant's tools and composites;
* a composite's schema holds both actions' arguments (``first_``/``second_``), its
  description says so, and a call runs both actions or neither: a second half that
  cannot follow the first rolls the call back (state unchanged) and the oracle judges it
  as the environment ran it (an ``order_error`` in strict cases, nothing in lenient ones);
* a valid plan dearer than the minimum fails with ``suboptimal_cost`` and its labels;
* composites are drawn from all pairs of the domain's actions, so which ones exist says
  nothing about the order of a plan; the same seed gives the same bytes.
"""

from __future__ import annotations

import itertools
import json
from functools import cache

import pytest

from helpers import run_agent
from planprobe.agents import make_agent
from planprobe.analysis.stats import wilson_interval
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.schema import Case
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.pddl_agent.costs import composite_keys
from planprobe.suites.pddl_agent.prepared import prepare
from planprobe.suites.pddl_agent.reference_plans import reference_plan as base_reference
from planprobe.suites.registry import get_family
from planprobe.suites.robust import parse_transforms, robustify
from planprobe.suites.robust.spec import base_case, spec_of

ROBUST = get_family("robust")


@cache
def _variants(domain: str, n: int, failed_calls: str = "error", transform: str = "cost") -> tuple[Case, ...]:
    extra = {} if domain == "blocksworld" else {"cities": (2, 2), "locations": (1, 2), "packages": (1, 2)}
    base = generate_cases(PDDLSuiteOptions(domain=domain, n=n, seed=4, failed_calls=failed_calls, **extra))
    return tuple(robustify(c, parse_transforms(transform.split("+")), 9) for c in base)


def _run(case: Case, calls: list[tuple[str, dict]]):
    env = ROBUST.environment(case, Limits(), 0, "test")
    for name, args in calls:
        env.step()
        env.call(name, json.dumps(args))
    env.finish("done")
    return env


def _uniform_cost(case: Case) -> int:
    """The minimum over the variant's own tools, by Dijkstra on the explicit states."""
    import heapq

    spec, base = spec_of(case), base_case(case)
    cc = prepare(base)
    actions = cc.grounded.actions()
    tool_of = {a.name: t for t, a in cc.tool_action.items()}
    price = {tool_of[a.name]: spec.costs[spec.alias_of(tool_of[a.name], {t.name for t in case.tools})]
             for a in actions}
    dist, queue = {cc.grounded.init: 0}, [(0, cc.grounded.init)]
    while queue:
        d, s = heapq.heappop(queue)
        if d > dist[s]:
            continue
        if cc.grounded.goal_reached(s):
            return d
        moves = [(price[tool_of[a.name]], a.apply(s)) for a in actions if a.applicable(s)]
        for c in spec.composites:
            for a in actions:
                if tool_of[a.name] == c.first and a.applicable(s):
                    mid = a.apply(s)
                    moves += [(c.cost, b.apply(mid)) for b in actions if tool_of[b.name] == c.second and b.applicable(mid)]
        for cost, x in moves:
            if d + cost < dist.get(x, float("inf")):
                dist[x] = d + cost
                heapq.heappush(queue, (d + cost, x))
    raise AssertionError("unsolvable")


@pytest.mark.parametrize("domain,n", [("blocksworld", 40), ("logistics", 16)])
def test_the_oracle_reaches_the_exact_minimum(domain, n):
    used = 0
    for case in _variants(domain, n):
        spec = spec_of(case)
        ROBUST.validate(case)
        verdict = ROBUST.check(case, run_agent(make_agent("oracle"), case))
        assert verdict.passed, (case.id, verdict.evidence)
        assert verdict.labels["cost"] == spec.min_cost == _uniform_cost(case) and verdict.labels["cost_gap"] == 0
        used += any(name.startswith("combo_") for name in spec.min_cost_plan)
    assert used > 0  # composites do pay off in some cases


def test_composite_schema_holds_both_argument_lists():
    for case in _variants("blocksworld", 10):
        tools = {t.name: t for t in case.tools}
        for c in spec_of(case).composites:
            tool = tools[c.tool]
            k1, k2 = (list(tools[x].parameters["properties"]) for x in (c.first, c.second))
            n1, n2 = composite_keys(k1, k2)
            assert list(tool.parameters["properties"]) == n1 + n2 == tool.parameters["required"]
            assert all(n.startswith("first_") for n in n1) and all(n.startswith("second_") for n in n2)
            for new, old, half in [*zip(n1, k1, [c.first] * 9), *zip(n2, k2, [c.second] * 9)]:
                assert tool.parameters["properties"][new]["enum"] == tools[half].parameters["properties"][old]["enum"]
                assert new in tool.description
            assert tool.description.startswith(f"Carries out {c.first} and then, immediately after it, {c.second}")
            assert f"Cost: {c.cost} credits." in tool.description
    assert composite_keys(["ob"], ["ob"]) == (["first_ob"], ["second_ob"])  # one schema twice: no clash
    long = "x" * 64
    a, b = composite_keys([long, long[:-1] + "y"], [long])
    assert len(set(a + b)) == 3 and all(len(k) <= 64 for k in a + b)


def _composite_whose_second_half_fails(case: Case):
    """(composite, its arguments) whose first half applies in the initial state and whose
    second half does not apply after it, or None."""
    spec, base = spec_of(case), base_case(case)
    cc = prepare(base)
    init = cc.grounded.init
    for c in spec.composites:
        firsts = [a for a in cc.grounded.actions() if cc.tool_of[a.name] == c.first and a.applicable(init)]
        for a in firsts:
            mid = a.apply(init)
            for b in cc.grounded.actions():
                if cc.tool_of[b.name] == c.second and not b.applicable(mid):
                    a1 = dict(zip(cc.keys[c.first], a.args))
                    a2 = dict(zip(cc.keys[c.second], b.args))
                    n1, n2 = composite_keys(cc.keys[c.first], cc.keys[c.second])
                    return c, {**dict(zip(n1, a1.values())), **dict(zip(n2, a2.values()))}
    return None


@pytest.mark.parametrize("failed_calls", ["error", "allowed"])
def test_a_composite_runs_both_actions_or_neither(failed_calls):
    found = 0
    for case in _variants("blocksworld", 30, failed_calls):
        hit = _composite_whose_second_half_fails(case)
        if hit is None:
            continue
        found += 1
        combo, args = hit
        env = _run(case, [(combo.tool, args)])
        call = env.trace.tool_calls[-1]
        assert "rolled back" in call.result and "Nothing changed" in call.result and call.error is None
        assert env.base_env.state == prepare(base_case(case)).grounded.init  # the first half was undone too
        # then the cheapest plan still works from the untouched state
        for step, arguments in zip(spec_of(case).min_cost_plan, spec_of(case).min_cost_args):
            env.step()
            env.call(step, arguments)
        verdict = ROBUST.check(case, env.trace)
        if failed_calls == "error":
            assert verdict.errors == ["order_error"], verdict.evidence
            assert "neither was done" in verdict.evidence[0].text
        else:  # failed calls are allowed: only the credits it cost count against it
            assert verdict.errors == ["suboptimal_cost"] and verdict.labels["cost_gap"] == combo.cost
    assert found >= 5


def test_a_composite_that_runs_changes_the_state_as_its_two_actions():
    for case in _variants("blocksworld", 20):
        spec = spec_of(case)
        if not any(n.startswith("combo_") for n in spec.min_cost_plan):
            continue
        env = _run(case, [(n, json.loads(a)) for n, a in zip(spec.min_cost_plan, spec.min_cost_args)])
        base = base_case(case)
        cc = prepare(base)
        assert cc.grounded.goal_reached(env.base_env.state)
        assert any("then" in c.result and c.result.startswith("Done:") for c in env.trace.tool_calls
                   if c.name.startswith("combo_"))


def test_a_dearer_valid_plan_is_suboptimal_cost():
    seen = 0
    for case in _variants("blocksworld", 40):
        spec = spec_of(case)
        base = base_case(case)
        names = {t.name for t in case.tools}
        plan = [(spec.alias_of(c.name, names), json.loads(c.arguments)) for c in base_reference(base)]
        cost = sum(spec.costs[n] for n, _ in plan)
        verdict = ROBUST.check(case, _run(case, plan).trace)
        assert verdict.labels["cost"] == cost and verdict.labels["min_cost"] == spec.min_cost
        if cost > spec.min_cost:
            seen += 1
            assert not verdict.passed and verdict.errors == ["suboptimal_cost"]
            assert verdict.labels["cost_gap"] == cost - spec.min_cost
            assert str(spec.min_cost) in verdict.evidence[-1].text
        else:
            assert verdict.passed
    assert seen > 5


def test_composites_say_nothing_about_the_order():
    """The share of composites (A, B) with an A-step followed by a B-step in the case's
    shortest plan is the share among all ordered pairs of the domain's tools."""
    fit = total = fit_all = total_all = 0
    for case in _variants("blocksworld", 150):
        base = base_case(case)
        steps = [c.name for c in base_reference(base)]
        follows = set(itertools.pairwise(steps))
        tools = [t.name for t in base.tools]
        for c in spec_of(case).composites:
            fit += (c.first, c.second) in follows
            total += 1
        fit_all += sum((a, b) in follows for a in tools for b in tools)
        total_all += len(tools) ** 2
    low, high = wilson_interval(fit, total)
    assert low <= fit_all / total_all <= high, (fit, total, fit_all, total_all)


def test_same_seed_same_bytes_and_compositions():
    base = list(generate_cases(PDDLSuiteOptions(n=6, seed=2)))
    for transform in (["cost"], ["cost", "extraneous:2"], ["unsolvable", "cost"]):
        parsed = parse_transforms(transform)
        one = [robustify(c, parsed, 3).model_dump_json() for c in base]
        assert one == [robustify(c, parsed, 3).model_dump_json() for c in base]
    with pytest.raises(PlanprobeError, match="does not compose with broken"):
        robustify(base[0], parse_transforms(["broken", "cost"]), 3)


def test_unsolvable_cost_variants_have_no_minimum_and_keep_their_blocked_tool_out_of_composites():
    for case in _variants("blocksworld", 30, transform="unsolvable+cost"):
        spec = spec_of(case)
        blocked = {spec.given.tool if spec.given else None,
                   *((spec.unsolvable.removed_tool, spec.unsolvable.missing_tool) if spec.unsolvable else ())}
        assert not any(c.first in blocked or c.second in blocked for c in spec.composites)
        assert (spec.min_cost is None) == (spec.unsolvable is not None)
        verdict = ROBUST.check(case, run_agent(make_agent("oracle"), case))
        assert verdict.passed, verdict.evidence


def test_an_invalid_composite_call_is_an_act_error_naming_the_composite():
    case = _variants("blocksworld", 5)[0]
    combo = spec_of(case).composites[0]
    env = _run(case, [(combo.tool, {"first_nothing": "a"})])
    assert env.trace.tool_calls[-1].error is not None
    verdict = ROBUST.check(case, env.trace)
    act = [e for e in verdict.evidence if e.error == "act_error"]
    assert act and act[0].kind == "invalid_arguments" and combo.tool in act[0].text
