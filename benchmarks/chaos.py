"""Chaos: kill and fault ``planprobe run`` at random, then check nothing was lost or doubled.

    python benchmarks/chaos.py [--runs 20] [--cases 150] [--seed 0]

Each run gets a fresh suite and run directory and, at random moments (measured in
results stored, not in seconds), a random sequence of faults while ``planprobe run``
works through it:

* SIGKILL of the writer (nothing can clean up);
* Ctrl-C (SIGINT): must exit 130 with one line;
* a second writer on the same directory (the first paused meanwhile, so it surely
  still holds it): must be refused at once with one line;
* a reader (``planprobe show --json``) beside the writer: must succeed;
* a resume with different limits: must be refused with one line naming the setting.

Then the same command is run until it finishes. Afterwards every (case, trial) must
be stored exactly once, every result must be the oracle's pass (nothing
misclassified), and no process may have printed a traceback. The agent is the
oracle, paced by a few milliseconds per case (a ``python:`` agent) so that faults
land in the middle of the work.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

PACED_AGENT = '''
import asyncio
from planprobe.agents import make_agent

_oracle = make_agent("oracle")


async def agent(case, env):
    await asyncio.sleep(0.004)
    return await _oracle(case, env)
'''
CLI = [sys.executable, "-m", "planprobe"]


def stored(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


class Chaos:
    def __init__(self, root: Path, rng: random.Random):
        self.root, self.rng = root, rng
        self.tracebacks: list[str] = []
        self.bad_lines: list[str] = []
        self.counts = {"kill": 0, "interrupt": 0, "second_writer": 0, "reader": 0, "other_settings": 0,
                       "resumes": 0}

    def check_output(self, what: str, proc_stderr: str, code: int, expect_codes: tuple[int, ...]) -> None:
        if "Traceback" in proc_stderr:
            self.tracebacks.append(f"{what}: {proc_stderr[-1500:]}")
        if code not in expect_codes:
            self.bad_lines.append(f"{what}: exit {code}, expected {expect_codes}: {proc_stderr.strip()[-500:]}")
        elif code not in (0, -signal.SIGKILL) and len(proc_stderr.strip().splitlines()) != 1:
            self.bad_lines.append(f"{what}: exit {code} with {len(proc_stderr.strip().splitlines())} lines: "
                                  f"{proc_stderr.strip()[-500:]}")

    def wait_for(self, proc: subprocess.Popen, db: Path, target: int) -> bool:
        """Until ``target`` results are stored; False if the run ended first."""
        while proc.poll() is None:
            if stored(db) >= target:
                return True
            time.sleep(0.01)
        return False

    def one_run(self, index: int, cases: int) -> tuple[int, int, int]:
        work = self.root / f"r{index}"
        work.mkdir()
        suite, out, db = work / "suite.jsonl", work / "run", work / "run" / "run.sqlite"
        trials = self.rng.choice((1, 1, 2))
        subprocess.run(CLI + ["generate", "constraints", "--n", str(cases), "--seed", str(index), "-o", str(suite),
                              "-q"], check=True, capture_output=True)
        agent = f"python:{self.root / 'paced.py'}:agent"
        cmd = CLI + ["run", str(suite), "--agent", agent, "--out", str(out), "-q", "--trials", str(trials),
                     "--concurrency", str(self.rng.choice((1, 4, 8))), "--max-iterations", "40"]
        total = cases * trials
        for _ in range(self.rng.randint(1, 4)):
            if stored(db) >= total:
                break  # finished already: nothing left to fault
            fault = self.rng.choice(("kill", "kill", "interrupt", "second_writer", "reader", "other_settings"))
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            self.counts["resumes"] += 1
            target = min(total - 1, stored(db) + self.rng.randint(1, max(1, total // 3)))
            running = self.wait_for(proc, db, target)
            finishing = stored(db) >= total  # the fault may land while it prints its summary and exits
            if running:
                self.counts[fault] += 1
                if fault == "kill":
                    proc.send_signal(signal.SIGKILL)
                elif fault == "interrupt":
                    proc.send_signal(signal.SIGINT)
                elif fault == "second_writer":
                    proc.send_signal(signal.SIGSTOP)  # paused, it still holds the directory: no race with its end
                    try:
                        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
                    finally:
                        proc.send_signal(signal.SIGCONT)
                    done_before = stored(db) >= total  # it had released the directory already
                    self.check_output("second writer", r.stderr, r.returncode, (0, 2) if done_before else (2,))
                    if r.returncode == 2 and "in use by another planprobe run" not in r.stderr \
                            and not (done_before and "busy" in r.stderr):
                        self.bad_lines.append(f"second writer not refused as in use: {r.stderr.strip()}")
                elif fault == "reader":
                    r = subprocess.run(CLI + ["show", str(out), "--json"], capture_output=True, text=True, timeout=600)
                    self.check_output("reader", r.stderr, r.returncode, (0,))
                    json.loads(r.stdout)
                elif fault == "other_settings":
                    other = [a if a != "40" else "7" for a in cmd]
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    r = subprocess.run(other, capture_output=True, text=True, timeout=600)
                    self.check_output("other settings", r.stderr, r.returncode, (2,))
                    if "max_iterations=40, not 7" not in r.stderr:
                        self.bad_lines.append(f"other settings not named: {r.stderr.strip()}")
            _, err = proc.communicate(timeout=600)
            expect = {"kill": (-signal.SIGKILL, 0), "interrupt": (130, 0) + ((-signal.SIGINT,) if finishing else ()),
                      "other_settings": (-signal.SIGKILL, 0)}
            self.check_output(f"run {index} ({fault})", err, proc.returncode, expect.get(fault, (0,)) if running
                              else (0,))
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)  # finish the run
        self.check_output(f"run {index} (final)", r.stderr, r.returncode, (0,))
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        keys = con.execute("SELECT case_id, trial, passed FROM results").fetchall()
        suite_ids = [json.loads(line)["id"] for line in suite.read_text().splitlines() if line.strip()]
        con.close()
        distinct = {(c, t) for c, t, _ in keys}
        expected = {(c, t) for c in suite_ids for t in range(trials)}
        passed = sum(p for _, _, p in keys)
        if distinct != expected:
            self.bad_lines.append(f"run {index}: {len(expected - distinct)} results missing, "
                                  f"{len(distinct - expected)} unexpected")
        return len(keys), len(distinct), passed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--cases", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "paced.py").write_text(PACED_AGENT)
        chaos = Chaos(root, rng)
        rows = stored_rows = doubled = failed = 0
        for i in range(args.runs):
            n, distinct, passed = chaos.one_run(i, args.cases)
            rows += n
            stored_rows += distinct
            doubled += n - distinct
            failed += n - passed
            print(f"run {i + 1}/{args.runs}: {n} results, {distinct} distinct, {n - passed} not passed", flush=True)
    dt = time.perf_counter() - t0
    c = chaos.counts
    print(f"{args.runs} runs of {args.cases} cases in {dt:.0f} s: {c['resumes']} starts of 'planprobe run', "
          f"{c['kill']} SIGKILLs, {c['interrupt']} Ctrl-Cs, {c['second_writer']} second writers, "
          f"{c['reader']} readers, {c['other_settings']} resumes with other limits")
    for line in chaos.bad_lines[:20]:
        print("PROBLEM:", line)
    for tb in chaos.tracebacks[:5]:
        print("TRACEBACK:", tb)
    exactly_once = doubled == 0 and not any("missing" in b for b in chaos.bad_lines)
    verdict = "every case exactly once" if exactly_once else "CASES LOST OR DOUBLED"
    print(f"{verdict}, {len(chaos.tracebacks)} tracebacks, {failed} misclassified results, "
          f"{len(chaos.bad_lines)} other problems ({rows} results checked)")
    sys.exit(0 if exactly_once and not chaos.tracebacks and not chaos.bad_lines and not failed else 1)


if __name__ == "__main__":
    main()
