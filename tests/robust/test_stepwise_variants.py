"""Step-wise variants over extraneous and broken tools (APB's step_wise_tool_extraneous and
step_wise_tool_broken), judged exactly: the oracle passes, a distractor or a retry of the
failed tool fails with its class, the broken prefix ends with the failure."""

from __future__ import annotations

import random

import pytest

from helpers import cases, run_agent
from planprobe.agents import make_agent
from planprobe.errors import PlanprobeError
from planprobe.schema import Trace
from planprobe.suites.base import PlannedCall
from planprobe.suites.protocols import prompts
from planprobe.suites.protocols.spec import spec_of as step_spec
from planprobe.suites.protocols.wrap import wrap_stepwise
from planprobe.suites.registry import get_family
from planprobe.suites.robust import parse_transforms, robustify
from planprobe.suites.robust.spec import spec_of

STEP = get_family("stepwise")


def _wrapped(transform: str, n: int = 30, k: int = 2, base=None):
    base = base if base is not None else cases(n, seed=4)
    out = []
    for i, c in enumerate(base):
        v = robustify(c, parse_transforms(transform.split("+")), 2)
        out.append((v, wrap_stepwise(v, k, random.Random(i))))
    return out


def _answer(case, calls):
    return STEP.check(case, Trace(case_id=case.id, agent="t", final_answer=prompts.stepwise_answer(calls)))


@pytest.mark.parametrize("transform", ["extraneous:2", "broken", "extraneous:2+broken"])
def test_oracle_passes_stepwise_variants(transform):
    for _, case in _wrapped(transform):
        STEP.validate(case)
        v = STEP.check(case, run_agent(make_agent("oracle"), case))
        assert v.passed, (case.id, v.evidence)


def test_the_broken_prefix_ends_with_the_failure_and_the_next_step_is_the_recovery():
    for variant, case in _wrapped("broken"):
        broken = spec_of(variant).broken
        spec = step_spec(case)
        assert spec.prefix[-1].tool == broken.tool and spec.prefix[-1].result == broken.error
        assert spec.gold[0].tool == broken.replacement
        retry = [PlannedCall(broken.tool, spec.gold[0].arguments)] + [g.call() for g in spec.gold[1:]]
        v = _answer(case, retry)
        assert not v.passed and "repeated_action" in v.errors, v.evidence


def test_a_distractor_in_the_next_steps_is_extraneous():
    checked = 0
    for variant, case in _wrapped("extraneous:2"):
        gold = [g.call() for g in step_spec(case).gold]
        distractor = spec_of(variant).distractors[0]
        v = _answer(case, [PlannedCall(distractor, gold[0].arguments)] + gold[1:])
        assert not v.passed and "extraneous_tool" in v.errors, v.evidence
        checked += 1
    assert checked == 30


def test_stepwise_variants_on_blocksworld():
    from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases

    base = list(generate_cases(PDDLSuiteOptions(domain="blocksworld", n=8, seed=3)))
    for transform in ("extraneous:2", "broken"):
        for _, case in _wrapped(transform, base=base, k=1):
            assert STEP.check(case, run_agent(make_agent("oracle"), case)).passed


def test_unsolvable_cost_and_timed_variants_are_not_offered_stepwise():
    for transform, extended in (("unsolvable", False), ("cost", False), ("extraneous:2", True)):
        v = robustify(cases(1, seed=4, extended=extended)[0], parse_transforms([transform]), 2)
        with pytest.raises(PlanprobeError, match="step-wise variants"):
            wrap_stepwise(v, 1, random.Random(0))


def test_the_random_agent_fails_some_stepwise_variants():
    failed = sum(not STEP.check(c, run_agent(make_agent("random"), c)).passed for _, c in _wrapped("extraneous:2"))
    assert failed > 0
