"""``--model solver`` on the robustness variants of PDDL agent tasks: extraneous tools, a broken tool
with its replacement, the unsolvable kinds (removal, contradiction, missing information) with their
solvable controls, and cost (composites, the exact minimum cost) — every solvable case passes, every
unsolvable one is refused, nothing is under-specified, under ``tools``, ``react``, ``modular`` and ``pmc`` (issue #27)."""

from __future__ import annotations

import pytest
from solver_helpers import pddl_cases, run_cases

from planprobe.solver.backend import SolverModel
from planprobe.suites.robust.transforms import parse_transforms, robustify

TRANSFORMS = ["extraneous:2", "broken", "unsolvable:removal", "unsolvable:contradiction", "unsolvable:missing-info",
              "cost", "unsolvable+extraneous:2"]


def _variants(transform: str):
    cases = pddl_cases("blocksworld", n=4, seed=31) + pddl_cases("logistics", n=4, seed=31)
    return [robustify(c, parse_transforms(transform.split("+")), seed=5) for c in cases]


@pytest.mark.parametrize("agent", ["tools", "react", "modular", "pmc"])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_the_solver_passes_and_refuses_exactly(tmp_path, transform, agent):
    cases = _variants(transform)
    unsolvable = {c.id for c in cases if (c.spec.get("unsolvable") or None)}
    verdicts, findings = run_cases(cases, agent, SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: v.errors for cid, v in verdicts.items() if not v.passed}
    assert not failed, failed
    refused = {cid for cid, v in verdicts.items() if v.labels.get("refused")}
    assert refused == unsolvable  # refusal precision and recall 1.0
    if transform.startswith("unsolvable"):
        assert unsolvable and unsolvable != set(verdicts)  # the sample holds variants and controls
