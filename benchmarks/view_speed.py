"""``planprobe view`` over a directory of 100 runs / 1,000,000 results (issue #29 targets: the run
list opens in under 1 s, a case in under 200 ms).

    python benchmarks/view_speed.py [--runs 100] [--results 10000] [--dir DIR] [--keep]

The runs are real results multiplied: the random agent runs 200 constraint cases once (so most
results fail and carry verdict evidence), then each run directory gets ``--results`` cases and
results copied from those, each under its own case id, written with the store's own schema and
closed by the store's writer (which keeps the run's totals, as every run does). The view is
then started as a user starts it (a fresh ``planprobe view`` process) and timed over HTTP:
the run list's first opening (nothing cached in the server), the next openings, its JSON poll,
a run page's data, and case pages picked across the runs.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe import ConstraintSuiteOptions, generate_cases
from planprobe.api import run_suite
from planprobe.runner.store import RunStore

TEMPLATES = 200


def make_dir(root: Path, runs: int, results: int) -> None:
    template = root / ".template"
    suite = list(generate_cases(ConstraintSuiteOptions(n=TEMPLATES, seed=1, actions=(3, 6))))
    run_suite(suite, "random", template, concurrency=8)
    with RunStore(template) as store:
        cases = [(c, json.loads(c)["id"]) for c in store.raw_cases()]
        meta_of = {cid: m for cid, m in store.db.execute("SELECT case_id, meta FROM cases")}
        res = {cid: row for cid, *row in store.db.execute(
            "SELECT case_id, status, passed, primary_error, infra, wall_time, model_calls, cached_calls, "
            "prompt_tokens, completion_tokens, cost_usd, trace, verdict, finished_at FROM results")}
        meta = store.meta()
    for r in range(runs):
        out = root / f"sweep-{r // 10}" / f"run-{r:03d}"
        store = RunStore(out, create=True)
        try:
            def case_rows(r: int = r):
                for j in range(results):
                    raw, old = cases[j % len(cases)]
                    new = f"{old}-r{r}-{j}"
                    yield j, new, "constraints", meta_of[old], raw.replace(f'"id":"{old}"', f'"id":"{new}"', 1)

            def result_rows(r: int = r):
                for j in range(results):
                    _, old = cases[j % len(cases)]
                    new = f"{old}-r{r}-{j}"
                    status, passed, err, infra, wall, calls, cached, pt, ct, cost, trace, verdict, t = res[old]
                    yield (new, 0, status, passed, err, infra, wall, calls, cached, pt + j % 7, ct, cost,
                           trace.replace(f'"case_id":"{old}"', f'"case_id":"{new}"', 1),
                           verdict.replace(f'"case_id":"{old}"', f'"case_id":"{new}"', 1), t)

            with store.db:
                store.db.executemany("INSERT INTO cases (ordinal, case_id, family, meta, json) VALUES (?, ?, ?, ?, ?)",
                                     case_rows())
                store.db.executemany(
                    "INSERT INTO results (case_id, trial, status, passed, primary_error, infra, wall_time, "
                    "model_calls, cached_calls, prompt_tokens, completion_tokens, cost_usd, trace, verdict, "
                    "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", result_rows())
            store.set_meta({**meta, "agent": ["random", "oracle", "prefix"][r % 3], "suite": f"suite-{r // 10}"})
        finally:
            store.close()  # as every writer: the run's totals are kept, the journal is one file again
    shutil.rmtree(template)


def get(url: str) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as resp:
        body = resp.read()
    return time.perf_counter() - t0, body


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--results", type=int, default=10_000)
    ap.add_argument("--dir", type=Path, default=None, help="reuse (or make) the directory here")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="view-bench-"))
    if not any(root.rglob("run.sqlite")):
        t0 = time.perf_counter()
        make_dir(root, args.runs, args.results)
        print(f"made {args.runs} runs x {args.results} results in {time.perf_counter() - t0:.0f} s")
    size = sum(p.stat().st_size for p in root.rglob("run.sqlite"))
    print(f"{machine()}; {root}: {size / 2**30:.2f} GiB of run databases")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "planprobe", "view", str(root)], stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+", proc.stdout.readline()).group(0)  # type: ignore[union-attr]
        print(f"start-up (process start to the URL printed): {1000 * (time.perf_counter() - t0):.0f} ms")
        base, token = url.split("/?")[0], url.split("token=")[1]
        tok = "token=" + token
        first, page = get(f"{base}/?{tok}")
        assert page.count(b"data-run=") == args.runs, "the list does not show every run"
        again = [get(f"{base}/?{tok}")[0] for _ in range(5)]
        poll = [get(f"{base}/api/runs?{tok}")[0] for _ in range(5)]
        print(f"run list: first opening {1000 * first:.0f} ms; next openings median {1000 * statistics.median(again):.0f} ms; "
              f"JSON poll median {1000 * statistics.median(poll):.0f} ms")
        rng = random.Random(0)
        runs = sorted(str(p.parent.relative_to(root)) for p in root.rglob("run.sqlite"))
        times = []
        for _ in range(30):
            run = rng.choice(runs)
            with RunStore(root / run) as store:
                (cid,) = store.db.execute("SELECT case_id FROM cases WHERE ordinal = ?",
                                          (rng.randrange(args.results),)).fetchone()
            dt, body = get(f"{base}/case?{urllib.parse.urlencode({'r': run, 'c': cid, 't': 0})}&{tok}")
            assert b"Timeline" in body
            times.append(dt)
        print(f"case page (30 across the runs): first {1000 * times[0]:.0f} ms, then median "
              f"{1000 * statistics.median(times[1:]):.0f} ms, max {1000 * max(times[1:]):.0f} ms")
        dt, body = get(f"{base}/api/run?r={urllib.parse.quote(runs[0])}&{tok}")
        print(f"a run page's data ({args.results} rows, plots, tables): {1000 * dt:.0f} ms, {len(body) / 1e6:.1f} MB")
    finally:
        proc.terminate()
        proc.wait()
        if args.dir is None and not args.keep:
            shutil.rmtree(root)


if __name__ == "__main__":
    main()
