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
