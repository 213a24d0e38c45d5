"""Today's solver on an older revision's itinerary cases, under ``tools`` and ``pmc``: do the solver's
checks catch a hole before it was fixed? (Issue #27: "the holes of last round caught by these tests
before they are fixed".)

    python benchmarks/solver_on_revision.py REV [--n 6] [--seed 1]

Makes a throw-away worktree of REV (removed at the end), copies this checkout's
``src/planprobe/solver`` into it (the solver imports only the foundation, ``models``, ``pddl`` and
itself; where REV's ``ModelEntry`` has no ``cacheable`` field the copy's registration drops it — the
answers are untouched), generates ``--n`` itinerary cases with REV's own generator and runs them with
REV's agents and runner on the solver. Prints per agent the pass count, the error classes and the
under-specified findings (the ``UNDERSPECIFIED:`` replies, read from the stored traces).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DRIVER = r'''
import collections, sys, tempfile
from pathlib import Path
from planprobe.agents import make_agent
from planprobe.runner.engine import RunConfig
from planprobe.runner.store import RunStore
from planprobe.runner.suite_run import run_suite
from planprobe.solver.backend import SolverModel
from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases

n, seed = int(sys.argv[1]), int(sys.argv[2])
cases = list(generate_cases(ItineraryOptions(n=n, seed=seed)))
for agent in ("tools", "pmc"):
    out = Path(tempfile.mkdtemp()) / agent
    verdicts = {}
    run_suite(out, cases, make_agent(agent, model=SolverModel()), RunConfig(agent=agent, model="solver"),
              on_result=lambda t, v: verdicts.__setitem__(t.case_id, v))
    found = collections.Counter()
    with RunStore(out) as store:
        for trace, _ in store.results():
            texts = [m.content or "" for m in trace.messages if m.role == "assistant"]
            for t in {t.split("UNDERSPECIFIED:", 1)[1].strip().splitlines()[0] for t in texts if "UNDERSPECIFIED:" in t}:
                found[t] += 1
    errors = collections.Counter(e for v in verdicts.values() for e in v.errors)
    print(f"{agent}: passed {sum(v.passed for v in verdicts.values())}/{len(cases)}; errors {dict(errors)}")
    for text, k in found.most_common(5):
        print(f"    under-specified in {k} case(s): {text}")
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rev")
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp()) / "old"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tmp), args.rev], check=True,
                   capture_output=True)
    try:
        solver = tmp / "src" / "planprobe" / "solver"
        shutil.rmtree(solver, ignore_errors=True)  # a revision with a solver of its own runs today's
        shutil.copytree(ROOT / "src" / "planprobe" / "solver", solver, ignore=shutil.ignore_patterns("__pycache__"))
        if "cacheable" not in (tmp / "src" / "planprobe" / "models" / "registry.py").read_text():
            backend = solver / "backend.py"
            backend.write_text(backend.read_text().replace("cacheable=False,", ""))
        print(f"revision {args.rev}: {args.n} itinerary cases (seed {args.seed}), today's solver", flush=True)
        subprocess.run([sys.executable, "-c", DRIVER, str(args.n), str(args.seed)], check=True, cwd=tmp,
                       env={"PYTHONPATH": str(tmp / "src"), "PATH": "/usr/bin:/bin"})
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tmp)], check=False)


if __name__ == "__main__":
    main()
