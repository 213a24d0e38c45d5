"""Peak memory of a large run through the command line: cases stream from the store.

    python benchmarks/run_memory.py [--cases 100000] [--concurrency 16] [--agent tools|oracle]

Generates a suite (``planprobe generate``), then runs ``planprobe run`` on it in a
child process — the function-calling agent against the template endpoint
(benchmarks/instant_endpoint.py, no latency, cache off), or ``--agent oracle`` —
and records the child's resident memory at every tenth of the run and its exact
peak (``getrusage`` in the child, so nothing between samples is missed). The peer
in the same run: a process that only loads the same suite as a list of cases, the
way the runner held it before it streamed (and still a floor for any runner that
keeps its cases in memory).
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402
from harness_overhead import start_endpoint  # noqa: E402

# runs the planprobe CLI and writes its peak RSS (KiB) to argv[1] when it exits, however it exits
PEAK_WRAPPER = (
    "import atexit, resource, sys\n"
    "out = sys.argv[1]\n"
    "atexit.register(lambda: open(out, 'w').write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))\n"
    "sys.argv = ['planprobe'] + sys.argv[2:]\n"
    "from planprobe.cli import main\n"
    "main()\n"
)
LOAD_ONLY = (
    "import resource, sys\n"
    "from planprobe.suites.io import load_suite\n"
    "cases = load_suite(sys.argv[1])\n"
    "print(len(cases), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
)


def rss_of(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def results_done(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--agent", choices=("tools", "oracle"), default="tools")
    ap.add_argument("--keep", type=Path, help="keep the suite and run here instead of a temporary directory")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as tmp_name:
        root = args.keep or Path(tmp_name)
        root.mkdir(parents=True, exist_ok=True)
        suite, out, peak_file = root / "suite.jsonl", root / "run", root / "peak.kib"
        cli = [sys.executable, "-m", "planprobe"]
        t0 = time.perf_counter()
        subprocess.run(cli + ["generate", "constraints", "--actions", "3-5", "--n", str(args.cases), "--seed", "3",
                              "-o", str(suite), "-q"], check=True, capture_output=True)
        print(f"suite: {args.cases:,} cases, {suite.stat().st_size / 2**20:.0f} MiB, generated in "
              f"{time.perf_counter() - t0:.0f} s")

        loaded = subprocess.run([sys.executable, "-c", LOAD_ONLY, str(suite)], check=True, capture_output=True,
                                text=True).stdout.split()
        held_peak = int(loaded[1]) / 1024

        proc = None
        run_args = ["run", str(suite), "--out", str(out), "-q", "--concurrency", str(args.concurrency)]
        if args.agent == "tools":
            proc, url = start_endpoint(0.0)
            run_args += ["--agent", "tools", "--model", "openai:bench", "--base-url", url, "--no-cache"]
        else:
            run_args += ["--agent", "oracle"]
        try:
            t0 = time.perf_counter()
            child = subprocess.Popen([sys.executable, "-c", PEAK_WRAPPER, str(peak_file)] + run_args,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            samples: list[tuple[int, float]] = []
            next_mark = args.cases // 10
            setup_rss = 0.0
            while child.poll() is None:
                time.sleep(0.5)
                try:
                    rss = rss_of(child.pid)
                except OSError:
                    break
                done = results_done(out / "run.sqlite")
                if done == 0:
                    setup_rss = max(setup_rss, rss)
                while done >= next_mark and next_mark <= args.cases:
                    samples.append((done, rss))
                    next_mark += args.cases // 10
            stderr = child.communicate()[1]
            dt = time.perf_counter() - t0
        finally:
            if proc is not None:
                proc.terminate()
        if child.returncode != 0:
            raise SystemExit(f"planprobe run failed ({child.returncode}): {stderr.strip()[-2000:]}")
        peak = int(peak_file.read_text()) / 1024
        size = (out / "run.sqlite").stat().st_size
        print(f"run ({args.agent} agent, concurrency {args.concurrency}): {dt:.0f} s end to end "
              f"(checking, storing, running, summary), {args.cases / dt:,.0f} cases/s, run.sqlite {size / 2**20:.0f} MiB")
        print(f"peak RSS of 'planprobe run': {peak:.1f} MiB (before the first result: {setup_rss:.1f} MiB)")
        print(f"peer: loading the suite as a list (as the runner used to): peak {held_peak:.1f} MiB "
              f"-> streaming needs {peak / held_peak:.2f}x of that")
        print("| results stored | RSS MiB |")
        print("|---|---|")
        for n, rss in samples:
            print(f"| {n:,} | {rss:.1f} |")
        if len(samples) >= 2:
            print(f"growth from the first tenth to the last sample: {samples[-1][1] - samples[0][1]:+.1f} MiB")


if __name__ == "__main__":
    main()
