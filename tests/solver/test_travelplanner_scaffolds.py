"""``--model solver`` on TravelPlanner cases through the backend and the run engine (issue #27): the
TravelPlanner reader answers function calling, ReAct, the modular agent's tags and PMC's roles from
the chat call alone, and every case passes. PMC refuses cases without tools (docs/pmc.md), so it runs
two-stage only; the four scaffolds on all 45 queries, both modes and readings:
benchmarks/solver_travelplanner.py (docs/BENCHMARKS.md "Solver (issue #27)")."""

from __future__ import annotations

import pytest
from solver_helpers import run_cases

from helpers import shared_path
from planprobe.importers.travelplanner import build_cases
from planprobe.solver.backend import SolverModel

SOLE = (1, 6, 17, 31, 40)          # one city; a state's cities; a house rule; no self-driving; cuisines
TWO_STAGE = (2, 18, 22, 33, 38)    # one city; private rooms; cuisines; pets and a room type; no flight


def _sample(mode: str, picked: tuple[int, ...]):
    train_dir = shared_path("data", "travelplanner")
    return [c for c in build_cases(modes=[mode], strict=False, train_dir=train_dir) if c.spec["idx"] in picked]


@pytest.mark.parametrize("agent, mode", [
    ("tools", "sole-planning"), ("react", "sole-planning"), ("modular", "sole-planning"),
    ("tools", "two-stage"), ("react", "two-stage"), ("modular", "two-stage"), ("pmc", "two-stage"),
])
def test_every_scaffold_passes_travelplanner_cases_from_their_text(tmp_path, agent, mode):
    cases = _sample(mode, SOLE if mode == "sole-planning" else TWO_STAGE)
    verdicts, findings = run_cases(cases, agent, SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: [e.text for e in v.evidence] for cid, v in verdicts.items() if not v.passed}
    assert len(verdicts) == len(cases) == 5 and not failed, failed
