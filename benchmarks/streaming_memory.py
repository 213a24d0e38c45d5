"""Memory while generating a large suite: it must stream to disk with flat memory.

    python benchmarks/streaming_memory.py [--cases 100000] [--extended]

Prints the process's resident memory every tenth of the way; the suite file is
written to a temporary directory and removed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, rss_mib  # noqa: E402

import resource  # noqa: E402

from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_lines  # noqa: E402
from planprobe.suites.io import write_suite_lines  # noqa: E402
from planprobe.suites.parallel import auto_workers  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--extended", action="store_true")
    ap.add_argument("--workers", type=int, default=None, help="as 'planprobe generate' (default: all cores)")
    args = ap.parse_args()
    workers = auto_workers(args.cases, args.workers)
    print(f"machine: {machine()}")
    samples = []
    step = max(1, args.cases // 10)
    count = 0

    def on_line(_line) -> None:
        nonlocal count
        count += 1
        if count % step == 0:
            samples.append((count, rss_mib()))

    opts = ConstraintSuiteOptions(actions=(3, 5), n=args.cases, seed=1, extended=args.extended)
    start_rss = rss_mib()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "suite.jsonl"
        write_suite_lines(generate_lines(opts, workers), path, on_line=on_line)
        size = path.stat().st_size
    dt = time.perf_counter() - t0
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{args.cases:,} {'extended' if args.extended else 'basic'} cases, {workers} process(es), "
          f"{size / 2**20:.0f} MiB file, {dt:.1f} s ({args.cases / dt:,.0f} cases/s)")
    if workers > 1:
        print(f"largest worker process: {children:.1f} MiB peak RSS")
    print("| cases written | main process RSS MiB |")
    print("|---|---|")
    print(f"| 0 | {start_rss:.1f} |")
    for n, rss in samples:
        print(f"| {n:,} | {rss:.1f} |")
    first, last = samples[0][1], samples[-1][1]
    print(f"growth from the first tenth to the end: {last - first:+.1f} MiB")


if __name__ == "__main__":
    main()
