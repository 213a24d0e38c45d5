"""Cost variants on timed constraint cases (issue #11): composites run their second action
the hour the first ends; the minimum is proven by brute force over every call sequence and
every start hour; the oracle agent achieves it; a valid dearer schedule is suboptimal."""

from __future__ import annotations

import json
import random

from helpers import cases, run_agent
from planprobe.agents import make_agent
from planprobe.environment import Limits
from planprobe.suites.constraints.prepared import prepare
from planprobe.suites.constraints.robust_hooks import min_cost_calls
from planprobe.suites.registry import get_family
from planprobe.suites.robust import parse_transforms, robustify
from planprobe.suites.robust.spec import base_case, spec_of

ROBUST = get_family("robust")


def _brute(case, costs, combos) -> int | None:
    """Cheapest over every sequence of calls covering each action once and every start hour."""
    cc = prepare(case)
    release, deadline = cc.windows_arrays()
    orders = [(cc.index_of[c.a], cc.index_of[c.b]) for c in cc.spec.constraints if c.kind == "order"]
    index = cc.tool_index
    units = [((index[t],), costs[t]) for t in cc.tools] + [((index[a], index[b]), c) for _, a, b, c in combos]
    best = None

    def valid(starts: dict[int, int]) -> bool:
        return all(starts[a] + cc.durations[a] <= starts[b] for a, b in orders) and all(
            release[i] <= s <= 23 and s + cc.durations[i] <= min(deadline[i], 24) for i, s in starts.items())

    def go(done: frozenset, free: int, cost: int, starts: dict[int, int]) -> None:
        nonlocal best
        if best is not None and cost >= best:
            return
        if len(done) == cc.n:
            if valid(starts):
                best = cost
            return
        for acts, c in units:
            if done & set(acts):
                continue
            for s in range(free, 24):
                new = dict(starts)
                t = s
                for a in acts:
                    new[a] = t
                    t += cc.durations[a]
                go(done | set(acts), t, cost + c, new)

    go(frozenset(), 0, 0, {})
    return best


def test_timed_min_cost_matches_brute_force_over_every_start_hour():
    rng = random.Random(4)
    checked = 0
    for case in cases(25, seed=9, extended=True, actions=(2, 3)):
        tools = [t.name for t in case.tools if t.name in prepare(case).tool_index]
        costs = {t: rng.randint(2, 9) for t in tools}
        pairs = [(a, b) for a in tools for b in tools if a != b]
        combos = [(f"combo_{k}", a, b, costs[a] + costs[b] - rng.randint(1, 3))
                  for k, (a, b) in enumerate(rng.sample(pairs, min(3, len(pairs))))]
        total, calls = min_cost_calls(case, costs, combos)
        assert total == _brute(case, costs, combos), case.id
        price = {**costs, **{n: c for n, _, _, c in combos}}
        assert sum(price[n] for n, _ in calls) == total
        checked += 1
    assert checked == 25


def _variants(n=40):
    return [robustify(c, parse_transforms(["cost"]), 3) for c in cases(n, seed=5, extended=True, actions=(2, 5))]


def test_oracle_achieves_the_minimum_on_timed_cost_variants():
    used = 0
    for case in _variants() + [robustify(c, parse_transforms(["cost", "extraneous:2"]), 1)
                               for c in cases(20, seed=6, extended=True)]:
        v = ROBUST.check(case, run_agent(make_agent("oracle"), case))
        assert v.passed and v.labels["cost_gap"] == 0, (case.id, v.evidence)
        used += any(n.startswith("combo_") for n in spec_of(case).min_cost_plan)
    assert used > 10  # composites are worth taking in many cases, so the minimum is tested


def _run_calls(case, calls):
    env = ROBUST.environment(case, Limits(), 0, "scripted")
    for name, args in calls:
        env.step()
        env.call(name, args)
    env.finish("done")
    return env.trace


def test_a_valid_timed_schedule_without_composites_is_suboptimal_when_dearer():
    found = 0
    for case in _variants(30):
        spec = spec_of(case)
        plain = [(c.name, c.arguments) for c in get_family("constraints").reference_plan(base_case(case))]
        plain_cost = sum(spec.costs[n] for n, _ in plain)
        v = ROBUST.check(case, _run_calls(case, plain))
        if plain_cost > spec.min_cost:
            assert v.errors == ["suboptimal_cost"] and v.labels["cost_gap"] == plain_cost - spec.min_cost
            found += 1
        else:
            assert v.passed
    assert found >= 5


def test_a_composite_starts_its_second_action_when_the_first_ends():
    case = next(c for c in _variants() if any(n.startswith("combo_") for n in spec_of(c).min_cost_plan))
    spec = spec_of(case)
    k = next(i for i, n in enumerate(spec.min_cost_plan) if n.startswith("combo_"))
    combo = next(c for c in spec.composites if c.tool == spec.min_cost_plan[k])
    trace = run_agent(make_agent("oracle"), case)
    call = next(c for c in trace.tool_calls if c.name == combo.tool)
    start = json.loads(spec.min_cost_args[k])["start_time"]
    cc = prepare(base_case(case))
    ends = start + cc.durations[cc.tool_index[combo.first]]
    assert f"started at {start:02d}:00" in call.result and f"started at {ends:02d}:00" in call.result
