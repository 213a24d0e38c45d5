"""Reference agents: the oracle agent passes everything; each injected fault is
reported as exactly its class."""

import collections

import pytest

from helpers import cases, run_agent
from planprobe.agents import make_agent
from planprobe.suites.constraints.reference_plans import FAULTS
from planprobe.suites.registry import get_family

FAMILY = get_family("constraints")
BASIC = cases(600, seed=31, actions=(2, 8))
EXTENDED = cases(600, seed=31, extended=True, actions=(2, 7))


@pytest.mark.parametrize("suite", [BASIC, EXTENDED], ids=["basic", "extended"])
def test_oracle_agent_passes_every_generated_case(suite):
    agent = make_agent("oracle")
    failed = [c.id for c in suite if not FAMILY.check(c, run_agent(agent, c)).passed]
    assert not failed


# floors below which injection has become suspiciously rare (measured: see docs/constraints.md)
MIN_INJECTED = {"wrong-start-time": 0.6, "duplicate": 0.9, "swap": 0.95}


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("suite", [BASIC, EXTENDED], ids=["basic", "extended"])
def test_each_fault_is_reported_as_exactly_its_class(fault, suite):
    agent = make_agent(f"faulty:{fault}")
    injected = 0
    wrong = []
    for case in suite[:300]:
        trace = run_agent(agent, case)
        verdict = FAMILY.check(case, trace)
        assert trace.meta["expected_error"] == FAULTS[fault]
        if trace.meta["fault_injected"]:
            injected += 1
            if verdict.errors != [FAULTS[fault]]:
                wrong.append((case.id, verdict.errors))
        else:
            assert verdict.passed  # no room for the fault: the valid plan ran instead
    assert not wrong, wrong[:5]
    extended = suite is EXTENDED
    if fault == "wrong-start-time" and not extended:
        assert injected == 0  # basic tools take no start time
    else:
        assert injected / 300 >= MIN_INJECTED.get(fault, 1.0), injected


def test_random_agent_is_a_floor_between_zero_and_one():
    agent = make_agent("random")
    outcomes = collections.Counter(FAMILY.check(c, run_agent(agent, c)).passed for c in BASIC[:300])
    assert 0 < outcomes[True] < 150
    # a random permutation never loses, repeats or mis-calls an action
    errors = {FAMILY.check(c, run_agent(agent, c)).primary for c in BASIC[:100]}
    assert errors <= {None, "order_error"}


def test_random_agent_is_reproducible_from_its_seed():
    a, b = make_agent("random", seed=4), make_agent("random", seed=4)
    case = BASIC[0]
    assert [c.name for c in run_agent(a, case).tool_calls] == [c.name for c in run_agent(b, case).tool_calls]


@pytest.mark.parametrize("actions, max_duration, style", [
    ((9, 12), 3, "planprobe"), ((5, 8), 5, "planprobe"), ((10, 12), 12, "paper"), ((2, 12), 8, "planprobe"),
])
def test_every_extended_case_fits_in_a_day_and_the_oracle_agent_passes_it(actions, max_duration, style):
    """Durations that add up to more than 24 hours admit no schedule (one task at a time, all ending
    by 24:00): the generator must never draw them, at any size or --max-duration."""
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        generate_cases,
    )
    from planprobe.suites.constraints.prepared import prepare
    from planprobe.suites.constraints.z3model import extended_satisfiable

    agent = make_agent("oracle")
    for seed in (2, 29):
        opts = ConstraintSuiteOptions(n=25, seed=seed, extended=True, actions=actions,
                                      max_duration=max_duration, style=style)
        for case in generate_cases(opts):
            cc = prepare(case)
            assert sum(cc.durations) <= 24 and max(cc.durations) <= max_duration, case.id
            atoms = [("order", a, b) for _, a, b in cc.orders] + [(k, a, h) for _, k, a, h in cc.windows]
            assert extended_satisfiable(cc.durations, atoms), case.id
            assert FAMILY.check(case, run_agent(agent, case)).passed, case.id
