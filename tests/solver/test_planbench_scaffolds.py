"""``--model solver`` on PlanBench's text tasks through the backend: the PlanBench reader answers
function calling (a text task: the reply's content), ReAct and the modular agent's ``<answer>`` from the
chat call alone, and every case passes (issue #27). PMC runs only on families with tools."""

from __future__ import annotations

import pytest
from solver_helpers import run_cases

from planprobe.solver.backend import SolverModel
from planprobe.suites.planbench.generator import PlanBenchOptions, generate_case


@pytest.mark.parametrize("agent", ["tools", "react", "modular"])
@pytest.mark.parametrize("task", ["t1", "t3", "t6", "t7"])
def test_every_scaffold_passes_planbench_tasks_from_their_text(tmp_path, task, agent):
    cases = [generate_case(i, PlanBenchOptions(task=task, domain=domain, n=2, seed=1))
             for domain in ("blocksworld", "logistics") for i in range(2)]
    verdicts, findings = run_cases(cases, agent, SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: [e.text for e in v.evidence] for cid, v in verdicts.items() if not v.passed}
    assert len(verdicts) == len(cases) and not failed, failed
