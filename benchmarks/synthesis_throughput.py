"""Synthesis throughput: planprobe vs. PDoctor's Algorithm 1 (fresh Z3 solver per check),
side by side in one run, |A| in 3-5, basic and extended.

    python benchmarks/synthesis_throughput.py [--cases 20000] [--baseline-cases 1000] [--reps 3]

planprobe's figure is end to end: synthesis, text, tools, spec, JSON, written to a
suite file. The baseline only synthesizes skeleton text (no tools, no file).
The baseline is run before and after planprobe and averaged, to cancel drift.

Rates are given on two clocks: CPU time of the process doing the work (the baseline's from
its child-process usage, less the CPU of a run of one case: start-up and import) and wall time. On a
shared machine the wall clock also measures the neighbours' load, which changes during a
run; CPU time does much less, so the CPU ratios are the ones to compare. The variants are
interleaved (one repetition of each in turn) so that drift hits them alike.

Besides the default (every check of issue #10 on), rows switch the stronger checks off
one at a time, to show what each costs:

* "no read-back": the independent reader does not read the texts (``check_text=False``);
* "seed's N = 3": the seed's fixed paragraph length and no connected-constraint-graph
  requirement (``--max-sentences 3 --allow-unconstrained``) instead of the default N that
  grows with |A|;
* "no restatement bound": a constraint may be stated any number of times (the bound is
  a module constant, raised for that row only);
* "pre-#10 checks": all three off.

Last, one instrumented pass (not timed with the rows) reports where a case's time goes,
in CPU microseconds per case: synthesis, re-arranging the paragraph (issue #11's first
mentions), rendering the case, the read-back, the JSON line, and the rest (seeding, writing).
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

from planprobe.suites.constraints import generator as G  # noqa: E402
from planprobe.suites.constraints import native  # noqa: E402
from planprobe.suites.constraints import synthesis as S  # noqa: E402
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_lines  # noqa: E402
from planprobe.suites.constraints.synthesis import SynthesisOptions  # noqa: E402
from planprobe.suites.io import write_suite_lines  # noqa: E402
from planprobe.suites.parallel import auto_workers  # noqa: E402

BASELINE = Path(__file__).resolve().parents[2] / "shared" / "bench" / "pdoctor_baseline.py"
UNBOUNDED = 10**9  # "no restatement bound"

# (label, options changed from the default, restatement bound)
VARIANTS: list[tuple[str, dict, int]] = [
    ("", {}, S.MAX_STATEMENTS),
    ("no read-back", {"check_text": False}, S.MAX_STATEMENTS),
    ("seed's N = 3", {"allow_unconstrained": True, "synthesis": SynthesisOptions(max_sentences=3)}, S.MAX_STATEMENTS),
    ("no restatement bound", {}, UNBOUNDED),
    ("pre-#10 checks", {"check_text": False, "allow_unconstrained": True,
                        "synthesis": SynthesisOptions(max_sentences=3)}, UNBOUNDED),
]


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_baseline(n: int, seed: int) -> tuple[str, float]:
    before = _child_cpu()
    out = subprocess.run([sys.executable, str(BASELINE), str(n), str(seed)], capture_output=True, text=True,
                         check=True).stdout
    return out, _child_cpu() - before


def baseline_rate(n: int, seed: int) -> tuple[float, float, float]:
    """(CPU cases/s, wall cases/s as the baseline reports it, Z3 calls per case)."""
    _, startup = _run_baseline(1, seed)  # interpreter, z3 import and one case
    out, cpu = _run_baseline(n, seed)
    wall = float(re.search(r"cases_per_s=([\d.]+)", out).group(1))
    calls = float(re.search(r"z3_calls_per_case=([\d.]+)", out).group(1))
    return (n - 1) / max(cpu - startup, 1e-9), wall, calls


def options(n: int, extended: bool, seed: int, changes: dict) -> ConstraintSuiteOptions:
    return replace(ConstraintSuiteOptions(actions=(3, 5), n=n, seed=seed, extended=extended), **changes)


class Row:
    """One configuration: how to make its options, and its measured rates."""

    def __init__(self, name: str, extended: bool, changes: dict, bound: int, workers: int):
        self.name, self.extended, self.changes, self.bound, self.workers = name, extended, changes, bound, workers
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.checks: list[int] = []
        self.sentences: list[int] = []

    def run_once(self, n: int, seed: int) -> None:
        def on_line(line: str) -> None:
            self.checks.append(int(re.search(r'"sat_checks":(\d+)', line).group(1)))
            self.sentences.append(int(re.search(r'"sentences":(\d+)', line).group(1)))

        opts = options(n, self.extended, seed, self.changes)
        S.MAX_STATEMENTS = self.bound  # read by synthesize at each call
        try:
            with tempfile.TemporaryDirectory() as tmp:
                cpu0, wall0, child0 = time.process_time(), time.perf_counter(), _child_cpu()
                count = write_suite_lines(generate_lines(opts, self.workers), Path(tmp) / "suite.jsonl",
                                          on_line=on_line)
                cpu = time.process_time() - cpu0 + _child_cpu() - child0  # worker processes included
                wall = time.perf_counter() - wall0
        finally:
            S.MAX_STATEMENTS = VARIANTS[0][2]
        self.cpu.append(count / cpu)
        self.wall.append(count / wall)


def stage_profile(n: int, extended: bool) -> dict[str, float]:
    """CPU microseconds per case spent in each stage of generating a case (default options)."""
    spent = {"synthesis": 0.0, "re-arranging (first mentions)": 0.0, "rendering the case": 0.0, "read-back": 0.0,
             "JSON": 0.0}
    names = {"synthesize": "synthesis", "arrange": "re-arranging (first mentions)", "render_case": "rendering the case",
             "reads_as_spec": "read-back", "_case_json": "JSON"}
    saved = {name: getattr(G, name) for name in names}

    def timed(fn: Callable, stage: str) -> Callable:
        def call(*args, **kwargs):
            t = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[stage] += time.process_time() - t
        return call

    for name, stage in names.items():
        setattr(G, name, timed(saved[name], stage))
    try:
        opts = options(n, extended, 999, {})
        t = time.process_time()
        with tempfile.TemporaryDirectory() as tmp:
            write_suite_lines(generate_lines(opts, 1), Path(tmp) / "suite.jsonl")
        total = time.process_time() - t
    finally:
        for name, fn in saved.items():
            setattr(G, name, fn)
    out = {stage: s / n * 1e6 for stage, s in spent.items()}
    out["the rest (seeding, writing)"] = total / n * 1e6 - sum(out.values())
    out["total"] = total / n * 1e6
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--baseline-cases", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if not BASELINE.exists():
        sys.exit(f"baseline not found: {BASELINE} (it lives in ../shared/bench)")

    print(f"machine: {machine()}")
    print(native.status())  # scripts/compile; PLANPROBE_PURE=1 for the pure modules
    b1 = baseline_rate(args.baseline_cases, 0)
    cores = auto_workers(args.cases)
    rows = [Row(f"{mode}, 1 process" + (f", {label}" if label else ""), mode == "extended", changes, bound, 1)
            for label, changes, bound in VARIANTS for mode in ("basic", "extended")]
    if cores > 1:
        rows += [Row(f"{mode}, {cores} processes", mode == "extended", {}, VARIANTS[0][2], cores)
                 for mode in ("basic", "extended")]
    for rep in range(args.reps):  # interleaved: one repetition of every row in turn
        for row in rows:
            row.run_once(args.cases, rep)
    b2 = baseline_rate(args.baseline_cases, 1)
    base_cpu, base_wall = (b1[0] + b2[0]) / 2, (b1[1] + b2[1]) / 2
    print(f"baseline (PDoctor Alg. 1, fresh Z3 per check): {base_cpu:.1f} cases/s CPU ({b1[0]:.1f} before, "
          f"{b2[0]:.1f} after), {base_wall:.1f} cases/s wall ({b1[1]:.1f}, {b2[1]:.1f}); {b1[2]:.1f} Z3 calls/case")
    print("| mode | SAT checks/case | sentences/case | CPU cases/s best | median | best / baseline "
          "| median / baseline | wall cases/s median | wall median / baseline |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        best, median = max(row.cpu), statistics.median(row.cpu)
        wall = statistics.median(row.wall)
        print(f"| {row.name} | {statistics.mean(row.checks):.1f} | {statistics.mean(row.sentences):.2f} "
              f"| {best:,.0f} | {median:,.0f} | {best / base_cpu:,.0f}x | {median / base_cpu:,.0f}x "
              f"| {wall:,.0f} | {wall / base_wall:,.0f}x |")
    print()
    if native.is_compiled():  # compiled code calls its stages directly: the timers below would see nothing
        print("where the time goes: not measured with the compiled modules (run with PLANPROBE_PURE=1)")
        return
    print("where the time goes (default options, 1 process, CPU microseconds per case):")
    print("| stage | basic | extended |")
    print("|---|---|---|")
    profiles = [stage_profile(min(args.cases, 5000), ext) for ext in (False, True)]
    for stage in profiles[0]:
        b, e = profiles[0][stage], profiles[1][stage]
        share = "" if stage == "total" else f" ({b / profiles[0]['total']:.0%} / {e / profiles[1]['total']:.0%})"
        print(f"| {stage}{share} | {b:,.0f} | {e:,.0f} |")


if __name__ == "__main__":
    main()
