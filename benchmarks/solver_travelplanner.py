"""``--model solver`` on the 45 TravelPlanner training queries (issue #27): every mode, reading and
scaffold, through the run engine as ``planprobe run`` runs them.

    PYTHONPATH=src python benchmarks/solver_travelplanner.py [--train-dir ../shared/data/travelplanner]
        [--agents tools,react,modular,pmc] [--modes sole-planning,two-stage] [--readings official,strict]

Cases are imported in memory (``--strict`` decides the reading); the solver sees each chat call
only. PMC refuses cases without tools (sole-planning: docs/pmc.md), so it runs two-stage only.
Per row: final pass rate in the reading, cases the solver found under-specified, tool calls per
case (median, max), model calls per case (max: the iteration limit is 50) and the wall time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe.agents import make_agent
from planprobe.runner.engine import RunConfig
from planprobe.runner.findings import underspecified_rows
from planprobe.runner.store import RunStore
from planprobe.runner.suite_run import run_suite
from planprobe.solver.backend import SolverModel
from planprobe.importers.travelplanner import build_cases

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "travelplanner"


def row(agent: str, mode: str, reading: str, train_dir: Path) -> str:
    cases = build_cases(modes=[mode], strict=reading == "strict", train_dir=train_dir)
    verdicts = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        t0 = time.perf_counter()
        run_suite(out, cases, make_agent(agent, model=SolverModel()),
                  RunConfig(agent=agent, model="solver", concurrency=2),
                  on_result=lambda trace, verdict: verdicts.__setitem__(trace.case_id, verdict))
        wall = time.perf_counter() - t0
        with RunStore(out) as store:
            findings = underspecified_rows(store)
            traces = [t for t, _ in store.results()]
    calls = [len(t.tool_calls) for t in traces]
    model_calls = [t.usage.model_calls for t in traces]
    failed = sorted(cid for cid, v in verdicts.items() if not v.passed)
    line = (f"| {mode} | {reading} | {agent} | {len(verdicts) - len(failed)}/{len(cases)} | {len(findings)} "
            f"| {statistics.median(calls):g} ({max(calls)}) | {max(model_calls)} | {wall:.1f} s |")
    return line + ("\n  failed: " + ", ".join(failed) if failed else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train-dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--agents", default="tools,react,modular,pmc")
    ap.add_argument("--modes", default="sole-planning,two-stage")
    ap.add_argument("--readings", default="official,strict")
    args = ap.parse_args()
    print(machine())
    print("| mode | reading | agent | passed | under-specified | tool calls median (max) | model calls max | wall |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in args.modes.split(","):
        for reading in args.readings.split(","):
            for agent in args.agents.split(","):
                if agent == "pmc" and mode == "sole-planning":
                    continue  # PMC needs tools (docs/pmc.md)
                print(row(agent, mode, reading, args.train_dir), flush=True)


if __name__ == "__main__":
    main()
