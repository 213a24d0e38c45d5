"""Synthesis throughput: planprobe vs. PDoctor's Algorithm 1 (fresh Z3 solver per check),
side by side in one run, |A| in 3-5, basic and extended.

    python benchmarks/synthesis_throughput.py [--cases 20000] [--baseline-cases 1000]

planprobe's figure is end to end: synthesis, text, tools, spec, JSON, written to a
suite file. The baseline only synthesizes skeleton text (no tools, no file).
The baseline is run before and after planprobe and averaged, to cancel drift.
Rows marked "no read-back" switch off the generator's independent reading of every
text (issue #10), to show what that check costs.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, repeat  # noqa: E402

from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_lines  # noqa: E402
from planprobe.suites.io import write_suite_lines  # noqa: E402
from planprobe.suites.parallel import auto_workers  # noqa: E402

BASELINE = Path(__file__).resolve().parents[2] / "shared" / "bench" / "pdoctor_baseline.py"


def baseline_rate(n: int, seed: int) -> tuple[float, float]:
    out = subprocess.run([sys.executable, str(BASELINE), str(n), str(seed)], capture_output=True, text=True,
                         check=True).stdout
    rate = float(re.search(r"cases_per_s=([\d.]+)", out).group(1))
    calls = float(re.search(r"z3_calls_per_case=([\d.]+)", out).group(1))
    return rate, calls


def planprobe_rate(n: int, extended: bool, reps: int, workers: int, check: bool = True) -> tuple[float, float, float]:
    checks = []
    seeds = iter(range(1000))

    def once() -> int:
        opts = ConstraintSuiteOptions(actions=(3, 5), n=n, seed=next(seeds), extended=extended, check_text=check)
        with tempfile.TemporaryDirectory() as tmp:
            count = write_suite_lines(generate_lines(opts, workers), Path(tmp) / "suite.jsonl",
                                      on_line=lambda line: checks.append(_sat_checks(line)))
        return count

    best, median = repeat(once, reps)
    return best, median, sum(checks) / len(checks)


def _sat_checks(line: str) -> int:
    return int(re.search(r'"sat_checks":(\d+)', line).group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--baseline-cases", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if not BASELINE.exists():
        sys.exit(f"baseline not found: {BASELINE} (it lives in ../shared/bench)")

    print(f"machine: {machine()}")
    b1, calls = baseline_rate(args.baseline_cases, 0)
    cores = auto_workers(args.cases)
    rows = [(f"{mode}, 1 process", *planprobe_rate(args.cases, mode == "extended", args.reps, 1))
            for mode in ("basic", "extended")]
    rows += [(f"{mode}, 1 process, no read-back", *planprobe_rate(args.cases, mode == "extended", args.reps, 1,
                                                                  check=False))
             for mode in ("basic", "extended")]
    if cores > 1:
        rows += [(f"{mode}, {cores} processes", *planprobe_rate(args.cases, mode == "extended", args.reps, cores))
                 for mode in ("basic", "extended")]
    b2, _ = baseline_rate(args.baseline_cases, 1)
    base = (b1 + b2) / 2
    print(f"baseline (PDoctor Alg. 1, fresh Z3 per check): {base:.1f} cases/s "
          f"({b1:.1f} before, {b2:.1f} after; {calls:.1f} Z3 calls/case)")
    print("| mode | planprobe best cases/s | median | SAT checks/case | baseline cases/s | best / baseline | median / baseline |")
    print("|---|---|---|---|---|---|---|")
    for mode, best, median, checks in rows:
        print(f"| {mode} | {best:,.0f} | {median:,.0f} | {checks:.1f} | {base:.1f} | {best / base:,.0f}x | {median / base:,.0f}x |")


if __name__ == "__main__":
    main()
