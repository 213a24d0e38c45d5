"""Robustness variants: each transform's exact oracle, and the reference agents on them."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import subprocess

import pytest

from helpers import cases, planprobe_cmd, run_agent, subprocess_env
from planprobe.agents import make_agent
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.schema import Case
from planprobe.suites.constraints.robust_hooks import is_satisfiable, min_cost_plan
from planprobe.suites.constraints.spec import parse_spec as parse_constraint_spec
from planprobe.suites.registry import get_family
from planprobe.suites.robust import parse_transforms, robustify
from planprobe.suites.robust.oracle import (
    OTHER,
    REFUSED,
    RETRIED_BROKEN,
    USED_OTHER_TOOL,
    USED_REPLACEMENT,
)
from planprobe.suites.robust.spec import base_case, spec_of

FAMILY = get_family("robust")


def variants(transforms: list[str], n: int = 40, extended: bool = False, seed: int = 0) -> list[Case]:
    parsed = parse_transforms(transforms)
    return [robustify(c, parsed, seed) for c in cases(n, seed=3, extended=extended)]


def verdict_of(case: Case, agent) -> object:
    return FAMILY.check(case, run_agent(agent, case))


@pytest.mark.parametrize("extended", [False, True])
@pytest.mark.parametrize("transform", ["extraneous:3", "broken", "unsolvable", "unsolvable:removal",
                                       "unsolvable:contradiction", "unsolvable:missing-info"])
def test_oracle_passes_every_solvable_variant_and_refuses_every_unsolvable_one(transform, extended):
    seen = set()
    for case in variants([transform], extended=extended):
        FAMILY.validate(case)
        v = verdict_of(case, make_agent("oracle"))
        assert v.passed, (case.id, v.evidence)
        unsolvable = spec_of(case).unsolvable is not None
        seen.add(unsolvable)
        if transform.startswith("unsolvable"):
            assert v.labels["refused"] is unsolvable
    if transform.startswith("unsolvable"):
        assert seen == {True, False}  # the suite mixes unsolvable cases and solvable controls


def test_oracle_passes_composed_and_cost_variants():
    for case in variants(["extraneous:2", "broken", "unsolvable"]) + variants(["cost", "extraneous:2"]):
        v = verdict_of(case, make_agent("oracle"))
        assert v.passed, (case.id, v.evidence)
        if "cost" in case.meta.transforms:
            assert v.labels["cost_gap"] == 0


@pytest.mark.parametrize("fault,expected", [("distractor", "extraneous_tool"), ("refuse", "wrong_refusal"),
                                            ("drop", "action_lost"), ("duplicate", "repeated_action"),
                                            ("swap", "order_error"), ("unknown-tool", "act_error")])
def test_faults_in_variants_get_their_class(fault, expected):
    agent = make_agent(f"faulty:{fault}")
    checked = 0
    for case in variants(["extraneous:2", "broken", "unsolvable"], n=30):
        trace = run_agent(agent, case)
        if not trace.meta.get("fault_injected"):
            continue
        v = FAMILY.check(case, trace)
        assert not v.passed and expected in v.errors, (case.id, v.errors)
        checked += 1
    assert checked >= 5


def test_contradictions_are_proven_unsatisfiable_and_controls_carry_as_many_sentences():
    from planprobe.agents.cues import Visible

    parsed = parse_transforms(["unsolvable:contradiction"])
    kinds = set()
    for extended, n in ((False, 60), (True, 40)):
        for original in cases(n, seed=3, extended=extended):
            case = robustify(original, parsed, 0)
            spec = spec_of(case)
            base = base_case(case)
            before, after = Visible.of(original).sentences, Visible.of(base).sentences
            assert len(after) == len(before) + 1  # one more sentence, in the unsolvable case and in its control
            assert not any(s.startswith("Also") for s in after)
            assert after.index(next(s for s in after if s not in before)) <= len(before)  # anywhere
            parsed_base = parse_constraint_spec(base)
            assert is_satisfiable(parsed_base) is (spec.unsolvable is None)
            kinds.add((extended, spec.unsolvable is None))
            if spec.unsolvable is None or parsed_base.extended:
                continue
            ids = [a.id for a in parsed_base.actions]  # basic mode: no order of the actions meets all constraints
            orders = [c for c in parsed_base.constraints if c.kind == "order"]
            assert not any(all(p.index(c.a) < p.index(c.b) for c in orders) for p in itertools.permutations(ids))
    assert len(kinds) == 4


def _run_calls(case: Case, calls: list[tuple[str, str]], final: str = "done"):
    env = FAMILY.environment(case, Limits(), 0, "scripted")
    for name, args in calls:
        env.step()
        env.call(name, args)
    env.finish(final)
    return env.trace


def test_broken_tool_behaviours_are_classified():
    case = next(c for c in variants(["broken", "extraneous:1"], n=5))
    spec = spec_of(case)
    broken, repl = spec.broken.tool, spec.broken.replacement
    other = next(t.name for t in case.tools if t.name not in (broken, repl))
    for calls, expected in (
        ([(broken, "{}"), (repl, "{}")], USED_REPLACEMENT),
        ([(broken, "{}"), (broken, "{}")], RETRIED_BROKEN),
        ([(broken, "{}"), (other, "{}")], USED_OTHER_TOOL),
        ([(broken, "{}")], OTHER),
    ):
        v = FAMILY.check(case, _run_calls(case, calls))
        assert v.labels["broken_tool"] == expected
    refusing = next(c for c in variants(["broken", "unsolvable"], n=20) if spec_of(c).unsolvable is None)
    s = spec_of(refusing)
    v = FAMILY.check(refusing, _run_calls(refusing, [(s.broken.tool, "{}"), ("refuse", '{"reason": "down"}')]))
    assert v.labels["broken_tool"] == REFUSED and "wrong_refusal" in v.errors
    # the broken tool's error is realistic and it did nothing: the action is still lost
    trace = _run_calls(case, [(broken, "{}")])
    assert trace.tool_calls[0].result.startswith("Error")
    assert "action_lost" in FAMILY.check(case, trace).errors


def test_missing_information_cannot_be_guessed():
    case = next(c for c in variants(["unsolvable:missing-info"], n=20) if spec_of(c).unsolvable is not None)
    u = spec_of(case).unsolvable
    trace = _run_calls(case, [(u.missing_tool, json.dumps({u.missing_param: "12345"}))])
    assert trace.tool_calls[0].result.startswith("Error 404")
    v = FAMILY.check(case, trace)
    assert not v.passed and v.errors == ["missed_refusal"] and u.missing_param in v.evidence[0].text
    # a refusal in the final answer counts as much as the refuse tool
    assert FAMILY.check(case, _run_calls(case, [], final="REFUSE: I need the " + u.missing_param)).passed


def test_min_cost_plan_matches_brute_force():
    rng = random.Random(5)
    for case in cases(60, seed=8, actions=(3, 5)):
        cc_tools = [t.name for t in case.tools]
        costs = {t: rng.randint(2, 9) for t in cc_tools}
        pairs = [(a, b) for a in cc_tools for b in cc_tools if a != b]
        combos = [(f"combo_{k}", a, b, costs[a] + costs[b] - rng.randint(1, 3))
                  for k, (a, b) in enumerate(rng.sample(pairs, 3))]
        best, plan = min_cost_plan(case, costs, combos)
        spec = parse_constraint_spec(case)
        tool_of = {a.id: a.tool for a in spec.actions}
        orders = [(tool_of[c.a], tool_of[c.b]) for c in spec.constraints if c.kind == "order"]
        brute = None
        for perm in itertools.permutations(cc_tools):
            if not all(perm.index(a) < perm.index(b) for a, b in orders):
                continue
            # cheapest way to execute this order: DP over positions, a composite covering i, i+1
            f = [0] + [None] * len(perm)
            for i in range(len(perm)):
                if f[i] is None:
                    continue
                for cand in ((f[i] + costs[perm[i]], i + 1),):
                    if f[cand[1]] is None or cand[0] < f[cand[1]]:
                        f[cand[1]] = cand[0]
                for name, a, b, c in combos:
                    if i + 1 < len(perm) and perm[i] == a and perm[i + 1] == b:
                        if f[i + 2] is None or f[i] + c < f[i + 2]:
                            f[i + 2] = f[i] + c
            brute = f[-1] if brute is None else min(brute, f[-1])
        assert best == brute, case.id
        combo_cost = {n: c for n, _, _, c in combos}
        assert sum(combo_cost.get(t, costs.get(t, 0)) for t in plan) == best


def test_a_valid_but_dear_plan_is_suboptimal_cost():
    found = 0
    for case in variants(["cost"], n=30):
        spec = spec_of(case)
        plain = [(c.name, "{}") for c in get_family("constraints").reference_plan(base_case(case))]
        plain_cost = sum(spec.costs[n] for n, _ in plain)
        v = FAMILY.check(case, _run_calls(case, plain))
        if plain_cost > spec.min_cost:
            assert v.errors == ["suboptimal_cost"] and v.labels["cost_gap"] == plain_cost - spec.min_cost
            found += 1
        else:
            assert v.passed
    assert found >= 5


def test_bad_transforms_are_refused_clearly():
    for bad in (["extraneous"], ["extraneous:0"], ["unsolvable:maybe"], ["broken:2"], ["nope"], ["cost", "cost"]):
        with pytest.raises(PlanprobeError):
            parse_transforms(bad)


def test_cli_generates_runs_and_reports_refusal_calibration(tmp_path):
    suite = tmp_path / "s.jsonl"
    args = ["generate", "constraints", "--n", "60", "--seed", "2", "--transform", "extraneous:2", "--transform",
            "broken", "--transform", "unsolvable", "-o", str(suite)]
    outputs = []
    for _ in range(2):
        r = subprocess.run(planprobe_cmd() + args, capture_output=True, text=True, env=subprocess_env())
        assert r.returncode == 0, r.stderr
        outputs.append(suite.read_bytes())
    assert outputs[0] == outputs[1]  # the same seed gives the same suite
    for agent, precision, recall in (("oracle", 1.0, 1.0), ("random", None, 0.0)):
        out = tmp_path / agent
        r = subprocess.run(planprobe_cmd() + ["run", str(suite), "--agent", agent, "--out", str(out), "-q"],
                           capture_output=True, text=True, env=subprocess_env())
        assert r.returncode == 0, r.stderr
        data = json.loads(subprocess.run(planprobe_cmd() + ["show", str(out), "--json"], capture_output=True,
                                         text=True, check=True).stdout)
        refusal = data["robustness"]["refusal"]
        assert refusal["precision"]["value"] == precision and refusal["recall"]["value"] == recall
        assert refusal["unsolvable"] + refusal["solvable"] == 60
    bad = subprocess.run(planprobe_cmd() + ["generate", "constraints", "--transform", "x", "-o", str(suite)],
                         capture_output=True, text=True, env=subprocess_env())
    assert bad.returncode == 2 and "unknown transform" in bad.stderr


def test_model_agents_see_the_variant_tools():
    case = variants(["extraneous:2", "broken", "unsolvable"], n=1)[0]
    names = {t.name for t in case.tools}
    spec = spec_of(case)
    assert set(spec.distractors) <= names and spec.broken.replacement in names and "refuse" in names
    assert spec.unsolvable is None or spec.unsolvable.removed_tool not in names
    # the hidden spec never reaches the agent: only task and tools do
    assert "unsolvable" not in case.task and "distractor" not in case.task
    asyncio.run(asyncio.sleep(0))


def test_near_duplicate_distractors_for_families_without_a_lexicon():
    from planprobe.suites.robust.tool_edits import near_duplicate_tools

    tools = cases(1, seed=4)[0].tools
    out = near_duplicate_tools(tools, 5, random.Random(1))
    names = [t.name for t in out]
    assert len(names) == 5 and len(set(names)) == 5 and not set(names) & {t.name for t in tools}
    assert all(any(t.name in d.name for t in tools) for d in out)  # each is close to a real tool
