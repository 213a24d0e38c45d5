"""``--model solver`` on constraint cases through the backend: the constraint reader answers every
scaffold (function calling, ReAct, the modular agent's tags, PMC's roles) from the chat call alone, and
every case passes with no finding (issue #27). The reader's own tests (test_constraints_reader.py) drive
episodes directly; this one proves each scaffold tells the model enough."""

from __future__ import annotations

import pytest
from solver_helpers import run_cases

from planprobe.solver.backend import SolverModel
from planprobe.suites.constraints.generator import (
    ConstraintSuiteOptions,
    generate_cases,
)

SAMPLES = {
    "basic": dict(actions=(2, 7)),
    "extended": dict(actions=(2, 6), extended=True),
    "extended-long": dict(actions=(9, 11), extended=True),  # restarts happen: durations learnt from tool results
    "paper": dict(actions=(2, 7), style="paper"),
}


@pytest.mark.parametrize("agent", ["tools", "react", "modular", "pmc"])
@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_every_scaffold_passes_constraint_cases_from_their_text(tmp_path, sample, agent):
    cases = list(generate_cases(ConstraintSuiteOptions(n=6, seed=5, **SAMPLES[sample])))  # type: ignore[arg-type]
    verdicts, findings = run_cases(cases, agent, SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: [e.text for e in v.evidence] for cid, v in verdicts.items() if not v.passed}
    assert len(verdicts) == len(cases) and not failed, failed


@pytest.mark.parametrize("protocol", ["holistic", "stepwise"])
def test_the_backend_lets_the_constraint_reader_plan_a_protocol_case(tmp_path, protocol):
    # Was 0/5 holistic on extended cases through the backend (each ~5 s): the backend played the base task
    # call by call in its head, where an extended case's durations come only from results that never
    # come, so the plan lost tasks. The constraint reader reads the protocol's tool JSON, which states
    # them; the backend now lets a reader that claims the protocol text answer it.
    from planprobe.suites.protocols.wrap import wrap

    cases = [wrap(c, protocol, 2, seed=1) for ext in (False, True)
             for c in generate_cases(ConstraintSuiteOptions(actions=(2, 6), extended=ext, n=5, seed=1))]
    verdicts, findings = run_cases(cases, "tools", SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: [e.text for e in v.evidence] for cid, v in verdicts.items() if not v.passed}
    assert len(verdicts) == len(cases) and not failed, failed


@pytest.mark.parametrize("agent", ["react", "modular", "pmc"])
@pytest.mark.parametrize("transform", ["unsolvable:missing-info", "unsolvable:removal", "broken", "cost"])
def test_every_scaffold_passes_the_robustness_variants(tmp_path, transform, agent):
    # Was 13/20 under react on unsolvable variants and their controls (found by benchmarks/solver_speed.py):
    # a text listing of the tools (ReAct's "Arguments: {...}", the modular agent's "Parameters: {...}")
    # says no argument is optional, and the solver read the listed arguments as optional, so it never sent
    # the work_order the task gives. Every variant passes under tools.
    from planprobe.suites.robust.transforms import parse_transforms, robustify

    cases = [robustify(c, parse_transforms([transform]), 1) for ext in (False, True)
             for c in generate_cases(ConstraintSuiteOptions(actions=(2, 6), extended=ext, n=4, seed=1))]
    verdicts, findings = run_cases(cases, agent, SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: [e.text for e in v.evidence] for cid, v in verdicts.items() if not v.passed}
    assert len(verdicts) == len(cases) and not failed, failed
