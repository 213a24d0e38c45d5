"""``--model solver`` on itinerary cases through the backend: the itinerary reader answers function
calling, ReAct and PMC's roles (the executor reads its sub-task, not the words around it that tell it
how to report) from the chat call alone, and every case passes (issue #27)."""

from __future__ import annotations

import pytest
from solver_helpers import run_cases

from planprobe.solver.backend import SolverModel
from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases


@pytest.mark.parametrize("agent", ["tools", "react", "pmc"])
def test_every_scaffold_passes_itinerary_cases_from_their_text(tmp_path, agent):
    cases = list(generate_cases(ItineraryOptions(n=4, seed=2)))
    cases += list(generate_cases(ItineraryOptions(n=2, seed=3, days=(7,), cost_aware=True)))
    verdicts, findings = run_cases(cases, agent, SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: [e.text for e in v.evidence] for cid, v in verdicts.items() if not v.passed}
    assert len(verdicts) == len(cases) and not failed, failed
