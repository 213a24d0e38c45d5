"""Grounding time: planprobe's join-based grounder against Fast Downward's translator, in one run.

    python benchmarks/pddl_grounding.py --ipc DIR [--domains freecell,depot,...] [--every 1]

For each task (every ``--every``-th by file name) of each domain directory under
DIR (a checkout of a public IPC collection, e.g. pyperplan's ``benchmarks/``):
planprobe's time to parse and ground every reachable action
(``GroundProblem.actions()``, with its join probes), and the wall time of
``fast-downward.py --translate`` on the same files (parsing, its own Datalog
grounding, invariant synthesis and writing the SAS+ task — more work than
grounding alone, so the ratio flatters planprobe somewhat), with both action
counts. Fast Downward's count can be lower: its translator also drops actions
whose preconditions are mutually exclusive.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe.errors import PlanprobeError
from planprobe.pddl import fast_downward, load
from planprobe.pddl.grounding import GroundProblem


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ipc", type=Path, required=True, help="a directory of IPC domain directories")
    ap.add_argument("--domains", default="freecell,depot,elevators,zenotravel")
    ap.add_argument("--every", type=int, default=1, help="take every n-th task by file name")
    args = ap.parse_args()
    driver = fast_downward.driver_path()
    print(f"machine: {machine()}")
    print("| domain | task | planprobe actions | probes | planprobe s | FD operators | FD translate s | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.domains.split(","):
        directory = args.ipc / name
        domain = directory / "domain.pddl"
        tasks = sorted(p for p in directory.glob("*.pddl") if "domain" not in p.name)[::args.every]
        for task in tasks:
            try:
                t0 = time.perf_counter()
                gp = GroundProblem(load(domain, task))
                n_actions = len(gp.actions())
                ours = time.perf_counter() - t0
            except PlanprobeError as exc:
                print(f"| {name} | {task.name} | {str(exc)[:80]} |")
                continue
            row = f"| {name} | {task.name} | {n_actions:,} | {gp.grounding_stats.probes:,} | {ours:.3f} |"
            if driver is not None:
                with tempfile.TemporaryDirectory() as tmp:
                    t0 = time.perf_counter()
                    proc = subprocess.run([sys.executable, str(driver), "--translate", str(domain), str(task)],
                                          cwd=tmp, capture_output=True, text=True, timeout=600)
                    theirs = time.perf_counter() - t0
                found = re.search(r"Translator operators: (\d+)", proc.stdout)
                ops = f"{int(found.group(1)):,}" if found else "failed"
                row += f" {ops} | {theirs:.2f} | {theirs / ours:.0f}x |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
