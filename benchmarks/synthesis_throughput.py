"""Synthesis throughput: planprobe vs. PDoctor's Algorithm 1 (fresh Z3 solver per check),
side by side in one run, |A| in 3-5, basic and extended.

    python benchmarks/synthesis_throughput.py [--cases 20000] [--baseline-cases 1000] [--reps 3]

planprobe's figure is end to end: synthesis, text, tools, spec, JSON, written to a
suite file. The baseline only synthesizes skeleton text (no tools, no file).
The baseline is run before and after planprobe and averaged, to cancel drift.

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
in CPU microseconds per case: synthesis, rendering the case, the read-back, and the rest
(seeding, JSON, writing).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, repeat  # noqa: E402

from planprobe.suites.constraints import generator as G  # noqa: E402
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


def baseline_rate(n: int, seed: int) -> tuple[float, float]:
    out = subprocess.run([sys.executable, str(BASELINE), str(n), str(seed)], capture_output=True, text=True,
                         check=True).stdout
    rate = float(re.search(r"cases_per_s=([\d.]+)", out).group(1))
    calls = float(re.search(r"z3_calls_per_case=([\d.]+)", out).group(1))
    return rate, calls


def options(n: int, extended: bool, seed: int, changes: dict) -> ConstraintSuiteOptions:
    return replace(ConstraintSuiteOptions(actions=(3, 5), n=n, seed=seed, extended=extended), **changes)


def planprobe_rate(n: int, extended: bool, reps: int, workers: int, changes: dict,
                   bound: int) -> tuple[float, float, float, float]:
    """(best, median cases/s, SAT checks per case, sentences per case)."""
    checks: list[int] = []
    sentences: list[int] = []
    seeds = iter(range(1000))

    def on_line(line: str) -> None:
        checks.append(int(re.search(r'"sat_checks":(\d+)', line).group(1)))
        sentences.append(int(re.search(r'"sentences":(\d+)', line).group(1)))

    def once() -> int:
        opts = options(n, extended, next(seeds), changes)
        with tempfile.TemporaryDirectory() as tmp:
            return write_suite_lines(generate_lines(opts, workers), Path(tmp) / "suite.jsonl", on_line=on_line)

    S.MAX_STATEMENTS = bound  # read by synthesize at each call; worker processes are forked after this
    try:
        best, median = repeat(once, reps)
    finally:
        S.MAX_STATEMENTS = VARIANTS[0][2]
    return best, median, sum(checks) / len(checks), sum(sentences) / len(sentences)


def stage_profile(n: int, extended: bool) -> dict[str, float]:
    """CPU microseconds per case spent in each stage of generating a case (default options)."""
    spent = {"synthesis": 0.0, "rendering the case": 0.0, "read-back": 0.0}
    names = {"synthesize": "synthesis", "build_case": "rendering the case", "text_reads_as_spec": "read-back"}
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
    out["the rest (seeding, JSON, writing)"] = total / n * 1e6 - sum(out.values())
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
    b1, calls = baseline_rate(args.baseline_cases, 0)
    cores = auto_workers(args.cases)
    rows = []
    for label, changes, bound in VARIANTS:
        for mode in ("basic", "extended"):
            name = f"{mode}, 1 process" + (f", {label}" if label else "")
            rows.append((name, *planprobe_rate(args.cases, mode == "extended", args.reps, 1, changes, bound)))
    if cores > 1:
        rows += [(f"{mode}, {cores} processes",
                  *planprobe_rate(args.cases, mode == "extended", args.reps, cores, {}, VARIANTS[0][2]))
                 for mode in ("basic", "extended")]
    b2, _ = baseline_rate(args.baseline_cases, 1)
    base = (b1 + b2) / 2
    print(f"baseline (PDoctor Alg. 1, fresh Z3 per check): {base:.1f} cases/s "
          f"({b1:.1f} before, {b2:.1f} after; {calls:.1f} Z3 calls/case)")
    print("| mode | planprobe best cases/s | median | SAT checks/case | sentences/case | baseline cases/s "
          "| best / baseline | median / baseline |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, best, median, checks, sentences in rows:
        print(f"| {mode} | {best:,.0f} | {median:,.0f} | {checks:.1f} | {sentences:.2f} | {base:.1f} "
              f"| {best / base:,.0f}x | {median / base:,.0f}x |")
    print()
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
