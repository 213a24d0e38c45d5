"""The standing test of issue #11: no surface cue tells a variant from its control.

For every family and transform, every cue of ``agents/cues.py`` at its best threshold
(in either direction) tells unsolvable variants from solvable controls with balanced
accuracy at most 0.6, and the shortcut agents pass no more cases than the no-planning
baseline (the ``random`` agent) beyond its 95% interval (their own Wilson interval does not
lie wholly above the baseline's). A cue that is
the skill a class tests (which action a PDDL removal took away) is listed in ``PDDL_SKILL_CUES``
with the reason; docs/robustness.md repeats the list and the scores.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

from helpers import cases, run_agent
from planprobe.agents import make_agent
from planprobe.agents.cues import CUES, Visible
from planprobe.agents.shortcut import ShortcutAgent
from planprobe.analysis.stats import wilson_interval
from planprobe.errors import PlanprobeError
from planprobe.schema import Case
from planprobe.suites.registry import get_family
from planprobe.suites.robust import parse_transforms, robustify
from planprobe.suites.robust.spec import spec_of
from planprobe.suites.robust.tells import best_balanced_accuracy, cue_scores

BOUND = 0.6
ROBUST = get_family("robust")
UNSOLVABLE = ["unsolvable", "unsolvable:removal", "unsolvable:contradiction", "unsolvable:missing-info"]

# cues that are the very skill a kind tests, not a shortcut around it. None for the constraint
# family: "a required parameter (other than start_time) the text never names" was listed here for
# missing-info, but it only counts names, and told variants from controls with balanced accuracy
# 0.65 on mixed timed suites (issue #26); both now name one required parameter, and it is a shortcut
SKILL_CUES: dict[str, set[str]] = {}
PDDL_SKILL_CUES = {
    # the domain text lists every action and every domain has its fixed set of tools: which
    # descriptions (their lengths) and parameter names are present says which action is missing,
    # which is what removal tests (see docs/robustness.md)
    "removal": {"description-spread", "params-not-in-task"},
}


@cache
def _base(family: str, n: int) -> tuple[Case, ...]:
    if family == "basic":
        return tuple(cases(n, seed=11))
    if family == "timed":
        return tuple(cases(n, seed=11, extended=True, actions=(3, 5)))
    from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases

    if family == "logistics-small":  # 2 cities, 1-2 locations each, 1-2 packages: each cost case pays
        # for a cost-optimal search, and the default sizes take minutes for 120 of them
        return tuple(generate_cases(PDDLSuiteOptions(domain="logistics", n=n, seed=11, cities=(2, 2),
                                                     locations=(1, 2), packages=(1, 2))))
    return tuple(generate_cases(PDDLSuiteOptions(domain=family, n=n, seed=11)))


@cache
def _variants(family: str, transform: str, n: int) -> tuple[Case, ...]:
    parsed = parse_transforms(transform.split("+"))
    return tuple(robustify(c, parsed, 7) for c in _base(family, n))


def _skill(family: str, transform: str) -> set[str]:
    kind = transform.partition(":")[2]
    out = set(SKILL_CUES.get(kind, ()))
    if family in ("blocksworld", "logistics"):
        out |= PDDL_SKILL_CUES.get(kind, set())
    if not kind:  # the mixed suite draws every kind: each kind's skill cue shows partly
        out |= {c for cues in SKILL_CUES.values() for c in cues}
        if family in ("blocksworld", "logistics"):
            out |= {c for cues in PDDL_SKILL_CUES.values() for c in cues}
    return out


SIZES = {"basic": 800, "timed": 800, "blocksworld": 240, "logistics": 120}


@pytest.mark.parametrize("family", list(SIZES))
@pytest.mark.parametrize("transform", UNSOLVABLE)
def test_no_cue_tells_unsolvable_variants_from_controls(family, transform):
    if family == "logistics" and transform == "unsolvable":
        pytest.skip("covered kind by kind (the mixed logistics suite repeats them at twice the cost)")
    variants = list(_variants(family, transform, SIZES[family]))
    unsolvable = sum(spec_of(c).unsolvable is not None for c in variants)
    assert 0.3 * len(variants) < unsolvable < 0.7 * len(variants)
    skill = _skill(family, transform)
    leaks = [(s.cue, round(s.balanced_accuracy, 3)) for s in cue_scores(variants)
             if s.balanced_accuracy > BOUND and s.cue not in skill]
    assert not leaks, f"{family} {transform}: cues beat chance: {leaks}"


def test_the_test_can_fail():
    """The old variants' tells, rebuilt here, are caught: an appended "Also, …" sentence and a
    ``_v2`` replacement give balanced accuracy 1.0."""
    variants = list(_variants("basic", "unsolvable:contradiction", 200))
    marked = [c.model_copy(update={"task": c.task + (" Also, it rains." if spec_of(c).unsolvable else "")})
              for c in variants]
    scores = {s.cue: s.balanced_accuracy for s in cue_scores(marked)}
    assert scores["also"] == 1.0
    assert best_balanced_accuracy([1, 0, 1, 0], [True, False, True, False]) == (1.0, 0)
    assert best_balanced_accuracy([0, 1, 0, 1], [True, False, True, False])[0] == 1.0  # either direction
    assert best_balanced_accuracy([1, 1, 1, 1], [True, False, True, False])[0] == 0.5


def test_shortcut_agents_refuse_on_their_cue_and_otherwise_play_the_baseline():
    variants = list(_variants("basic", "unsolvable", 60))
    for cue in ("also", "tool-count", "schema-gap", "tools-not-mentioned"):
        agent = make_agent(f"shortcut:{cue}@3")
        assert isinstance(agent, ShortcutAgent)
        for case in variants[:20]:
            trace = run_agent(agent, case)
            refused = any(c.name == "refuse" for c in trace.tool_calls)
            assert refused is (CUES[cue](Visible.of(case)) > 3)
            verdict = ROBUST.check(case, trace)
            assert verdict.labels["refused"] is refused
    for bad in ("shortcut", "shortcut:nope", "shortcut:also@x"):
        with pytest.raises(PlanprobeError):
            make_agent(bad)


def test_shortcut_agents_see_only_the_task_and_the_tools():
    """A cue's value does not change when the hidden spec and meta are wiped."""
    for case in _variants("basic", "unsolvable+extraneous:2+broken", 40):
        blind = case.model_copy(update={"spec": {}, "meta": type(case.meta)()})
        for name, cue in CUES.items():
            assert cue(Visible.of(case)) == cue(Visible.of(blind)), name


def _pass_rate(agent, variants) -> tuple[int, int]:
    passed = sum(ROBUST.check(c, run_agent(agent, c)).passed for c in variants)
    return passed, len(variants)


def _shuffled_cheapest_passes(variants) -> int:
    """Cases passed by the cheapest plan's calls in a random order (seeded per case)."""
    import random

    from planprobe.environment import Limits

    passed = 0
    for case in variants:
        calls = list(ROBUST.reference_plan(case))
        random.Random(case.id).shuffle(calls)
        env = ROBUST.environment(case, Limits(), 0, "shuffled-cheapest")
        for call in calls:
            env.step()
            env.call(call.name, call.arguments)
        env.finish("done")
        passed += ROBUST.check(case, env.trace).passed
    return passed


@pytest.mark.parametrize("family,transform", [
    ("basic", "extraneous:2"), ("basic", "broken"), ("basic", "extraneous:2+broken"),
    ("timed", "extraneous:2"), ("timed", "broken"), ("blocksworld", "broken"), ("blocksworld", "extraneous:2"),
    ("basic", "cost"), ("timed", "cost"), ("blocksworld", "cost"), ("logistics-small", "cost"),
])
def test_acting_shortcuts_do_not_beat_the_no_planning_baseline(family, transform):
    n = 300 if family not in ("blocksworld", "logistics-small") else 120
    variants = list(_variants(family, transform, n))
    base_passed, total = _pass_rate(make_agent("random"), variants)
    if "cost" in transform:
        # reading the prices is the skill a cost variant tests (with the order): the no-planning
        # baseline knows the cheapest plan's calls and plays them in a random order
        base_passed = max(base_passed, _shuffled_cheapest_passes(variants))
    _, high = wilson_interval(base_passed, total)
    for cue in ("mention-order", "cheapest", "version-suffix", "tools-not-mentioned"):
        passed, _ = _pass_rate(make_agent(f"shortcut:{cue}"), variants)
        # beyond the baseline's 95% interval: the shortcut's own interval lies wholly above it
        assert wilson_interval(passed, total)[0] <= high, (family, transform, cue, passed, base_passed, total)


# Found with these agents: in basic constraint texts the order in which tasks are first named
# agreed with a valid order about twice as often as chance (53/300 vs 27 for random at 3-5
# actions). The generator now re-arranges each paragraph (constraints/mentions.py); this keeps it so.
@pytest.mark.parametrize("family", ["basic", "timed"])
def test_first_mention_order_does_not_beat_random_on_constraint_texts(family):
    base = list(_base(family, 300))
    family = get_family("constraints")
    rand = sum(family.check(c, run_agent(make_agent("random"), c)).passed for c in base)
    order = sum(family.check(c, run_agent(make_agent("shortcut:mention-order"), c)).passed for c in base)
    assert wilson_interval(order, len(base))[0] <= wilson_interval(rand, len(base))[1]


def test_broken_pairs_do_not_say_which_one_fails():
    """Either tool of the pair fails as often; names and descriptions do not tell which."""
    variants = list(_variants("basic", "broken", 400))
    broken_is_named = [spec_of(c).broken.tool.replace("_", " ") in c.task for c in variants]
    assert 0.4 < sum(broken_is_named) / len(broken_is_named) < 0.6
    for case in variants[:50]:
        spec = spec_of(case)
        tools = {t.name: t for t in case.tools}
        a, b = tools[spec.broken.tool], tools[spec.broken.replacement]
        assert a.description == b.description and a.parameters == b.parameters
        assert not b.name.endswith("_v2") and "version" not in b.description.lower()


def test_missing_info_parameters_are_described_like_their_schema():
    for case in _variants("basic", "unsolvable:missing-info", 60) + _variants("timed", "unsolvable:missing-info", 60):
        for tool in case.tools:
            required = [p for p in tool.parameters.get("required", []) if p not in ("start_time", "reason")]
            for param in required:
                assert param in tool.description and "no arguments" not in tool.description, tool
        spec = spec_of(case)
        if spec.unsolvable is None:  # the control's value is in the task, and the oracle plan uses it
            assert spec.given.value in case.task
            plan = ROBUST.reference_plan(case)
            assert any(json.loads(c.arguments).get(spec.given.param) == spec.given.value for c in plan)


def test_missing_info_texts_name_one_required_parameter_in_variants_and_controls():
    """Issue #26: variants named no required parameter, controls named theirs (with its value).
    Now both name one parameter with a value and one as not known; exactly one of the two is
    required by a tool: the value's in controls, the unknown one's in variants."""
    import re

    from planprobe.suites.robust.unsolvable import MISSING_PARAMS

    kinds = {True: 0, False: 0}
    for case in _variants("timed", "unsolvable:missing-info", 60) + _variants("basic", "unsolvable:missing-info", 60):
        spec = spec_of(case)
        words = {p.replace("_", " "): p for p, _, _ in MISSING_PARAMS}
        given = [words[w] for w in re.findall(r"The ([a-z ]+) to use is [A-Z]+-\d+\.", case.task)]
        unknown = [words[w] for w in re.findall(r"The ([a-z ]+) is not known\.", case.task)]
        assert len(given) == 1 and len(unknown) == 1 and given != unknown, case.task
        taken = {p for t in case.tools for p in t.parameters.get("required", [])}
        if spec.unsolvable is None:
            assert given[0] == spec.given.param in taken and unknown[0] not in taken
        else:
            assert unknown[0] == spec.unsolvable.missing_param in taken and given[0] not in taken
        kinds[spec.unsolvable is None] += 1
    orders = [c.task.index(" to use is ") < c.task.index(" is not known.")
              for c in _variants("basic", "unsolvable:missing-info", 60)]
    assert all(kinds.values()) and 0 < sum(orders) < len(orders)  # variants and controls; both orders


def test_composites_say_nothing_about_the_order():
    """Which ordered pairs get a composite is drawn from all pairs of actions, not from a plan:
    the share of composites whose order a valid plan allows is the share among all pairs.
    (With composites taken from the plan, ``shortcut:cheapest`` passed 24% of cases, random 0%.)"""
    from planprobe.suites.constraints.prepared import prepare
    from planprobe.suites.robust.spec import base_case

    fit = total = fit_all = total_all = 0
    for case in _variants("basic", "cost", 300):
        cc = prepare(base_case(case))
        after = cc.closure().after
        index = cc.tool_index
        allowed = {(a, b) for a in cc.tools for b in cc.tools if a != b and not (after[index[b]] >> index[a]) & 1}
        for c in spec_of(case).composites:
            fit += (c.first, c.second) in allowed
            total += 1
        fit_all += len(allowed)
        total_all += cc.n * (cc.n - 1)
    low, high = wilson_interval(fit, total)
    assert low <= fit_all / total_all <= high, (fit, total, fit_all, total_all)


@pytest.mark.pure_only  # compiled build: run in a pure subprocess (test_native_build.py)
def test_the_mention_order_test_can_fail(monkeypatch):
    """Without the re-arrangement (the paragraph as Alg. 1 accepted it) the leak is back."""
    from planprobe.suites.constraints import generator

    monkeypatch.setattr(generator, "arrange", lambda sentences, atoms, names, rng: (sentences, atoms))
    base = [c for c in generator.generate_cases(generator.ConstraintSuiteOptions(n=300, seed=11))]
    family = get_family("constraints")
    rand = sum(family.check(c, run_agent(make_agent("random"), c)).passed for c in base)
    order = sum(family.check(c, run_agent(make_agent("shortcut:mention-order"), c)).passed for c in base)
    assert wilson_interval(order, len(base))[0] > wilson_interval(rand, len(base))[1], (order, rand)
