"""Scaling out (issue #18): throughput with worker processes, CPU-bound speed-up, Ray's overhead.

    python benchmarks/scale_throughput.py [--part endpoint|cpu|overhead|commands|all] [--latency 0.1]

endpoint  the function-calling agent against benchmarks/instant_endpoint.py (a template
          endpoint, fixed latency, its own process) at total concurrency C = 64 and 256 with
          1, 2 and 4 workers; calls/s end to end (worker start-up included), against the ideal
          C / latency, and projected to a machine with a core per worker from the measured
          CPU per call. One worker is the in-process engine (the peer, same run).
cpu       CPU-bound work with 1 and 2 workers in the same run: a PDDL agent suite (Blocksworld,
          6–7 blocks) under the oracle agent, which plans each case with the A* planner; and
          labelling the failures of a random-agent run (``label --workers``).
overhead  per-case cost of the backends: the random agent (no model, ~no work per case), 3,000
          cases; the steady rate (first result to last) leaves start-up out, which is printed apart.
commands  the per-case commands on 1 worker (in process, the peer), 2 worker processes and 2 Ray
          actors (a local cluster started by the command, as a user gets it): ``label`` over the
          failures of a random-agent run and ``dissect`` of a sample of a random-agent sweep's
          failures (its random agent); end to end, each a fresh ``planprobe`` process, outputs checked
          byte-identical. The same command on two items gives each backend's start-up (plus two items).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402
from harness_overhead import cpu_seconds, start_endpoint  # noqa: E402

from planprobe import ConstraintSuiteOptions, Limits, generate_cases  # noqa: E402
from planprobe.agents import make_agent  # noqa: E402
from planprobe.models import ModelOptions, make_model  # noqa: E402
from planprobe.models.base import ChatParams  # noqa: E402
from planprobe.models.roles import build_role_models  # noqa: E402
from planprobe.runner.engine import RunConfig, open_run, run_pending  # noqa: E402
from planprobe.scale import ScaleOptions, WorkerRecipe, run_scaled  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(cases, agent: str, workers: int, concurrency: int, backend: str = "processes",
             model_spec: str | None = None, url: str | None = None) -> tuple[float, int, tuple[float, float], float]:
    """(wall seconds, model calls, CPU seconds of (this process, its finished workers),
    steady calls/s: from the first result to the last, start-up left out)."""
    options = ModelOptions(base_url=url, cache=False) if model_spec else None
    params = ChatParams() if model_spec else None
    config = RunConfig(agent=agent, model=model_spec, concurrency=concurrency, limits=Limits(),
                       model_params="bench" if model_spec else "")
    calls = 0
    results = 0
    stamps: list[float] = []  # [time of the first result, calls by then, results by then, time of the last]

    def on_result(trace, verdict):
        nonlocal calls, results
        calls += trace.usage.model_calls
        results += 1
        if not stamps:
            stamps.extend([time.perf_counter(), calls, results])
        else:
            stamps[3:] = [time.perf_counter()]

    cpu0, kids0 = cpu_seconds(), children_cpu()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_run(Path(tmp) / "run", cases, config)
        t0 = time.perf_counter()
        try:
            if workers == 1 and backend == "processes":
                models = build_role_models(model_spec, lambda s: make_model(s, options)) if model_spec else None
                agent_obj = make_agent(agent, 0, model=models, params=params) if models else make_agent(agent, 0)

                async def go():
                    try:
                        await run_pending(store, agent_obj, config, on_result)
                    finally:
                        if models is not None:
                            await models.aclose()

                asyncio.run(go())
            else:
                run_scaled(store, WorkerRecipe(agent, model_spec, options, params), config,
                           ScaleOptions(workers=workers, backend=backend), on_result)
            dt = time.perf_counter() - t0
            assert store.result_count() == len(cases), (store.result_count(), len(cases))
        finally:
            store.close()
    span = stamps[3] - stamps[0] if len(stamps) == 4 else 0.0
    steady = ((calls - stamps[1]) if model_spec else (results - stamps[2])) / span if span > 0 else 0.0
    return dt, calls, (cpu_seconds() - cpu0, children_cpu() - kids0), steady


def part_endpoint(latency: float) -> None:
    proc, url = start_endpoint(latency)
    try:
        print(f"\n## throughput, endpoint latency {1000 * latency:.0f} ms (ideal: C / latency)")
        print("| C | workers | cases | calls/s end to end | steady calls/s | ideal | steady efficiency | "
              "steady vs 1 worker | harness CPU ms/call (coordinator + workers) | endpoint CPU ms/call | "
              "projected calls/s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for c in (64, 256):
            base = None
            n = 1500 if c == 64 else 3000
            cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 3), n=n, seed=1)))
            for w in (1, 2, 4):
                theirs = cpu_seconds(proc.pid)
                dt, calls, ours, steady = run_once(cases, "tools", w, c, model_spec="openai:bench", url=url)
                theirs = cpu_seconds(proc.pid) - theirs
                rate = calls / dt
                base = base or steady
                coordinator, workers_cpu = ours[0] / calls, ours[1] / calls
                per_call = coordinator + workers_cpu
                # a core per worker, one for the coordinator (and the endpoint elsewhere): the bound is the
                # ideal, the workers' CPU per call shared over w cores, or the coordinator's own CPU per call
                projected = min(c / latency, w / workers_cpu if workers_cpu else 1 / coordinator,
                                1 / coordinator)
                print(f"| {c} | {w} | {n} | {rate:,.0f} | {steady:,.0f} | {c / latency:,.0f} | "
                      f"{steady / (c / latency):.2f} | {steady / base:.2f}x | {1000 * per_call:.2f} "
                      f"({1000 * coordinator:.2f} + {1000 * workers_cpu:.2f}) | "
                      f"{1000 * theirs / calls:.2f} | {projected:,.0f} |", flush=True)
    finally:
        proc.terminate()


def part_cpu() -> None:
    from planprobe.suites.io import load_suite

    print("\n## CPU-bound work, 1 vs 2 workers")
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "bw.jsonl"
        subprocess.run([sys.executable, "-m", "planprobe", "generate", "pddl", "--domain", "blocksworld", "--n", "40",
                        "--blocks", "6-7", "--seed", "1", "-o", str(suite)], check=True, capture_output=True)
        cases = load_suite(suite)
        times = {w: run_once(cases, "oracle", w, 8)[0] for w in (1, 2)}  # end to end, start-up included
        print(f"PDDL Blocksworld 6-7 blocks, 40 cases, oracle agent (A* plans each case): 1 worker {times[1]:.1f} s, "
              f"2 workers {times[2]:.1f} s -> speed-up {times[1] / times[2]:.2f}x", flush=True)

        n = 10_000
        suite = Path(tmp) / "c.jsonl"
        subprocess.run([sys.executable, "-m", "planprobe", "generate", "constraints", "--actions", "4-6", "--n", str(n),
                        "--seed", "3", "-o", str(suite)], check=True, capture_output=True)
        run = Path(tmp) / "r"
        subprocess.run([sys.executable, "-m", "planprobe", "run", str(suite), "--agent", "random", "--out", str(run),
                        "-q", "--workers", "2"], check=True, capture_output=True)
        out = {}
        for w in (1, 2):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "planprobe", "label", str(run), "-o", str(Path(tmp) / f"l{w}"),
                                "-q", "--json", "--workers", str(w)], check=True, capture_output=True, text=True)
            out[w] = time.perf_counter() - t0
            labelled = r.stdout.split('"labelled": ')[1].split(",")[0]
        same = (Path(tmp) / "l1").read_bytes() == (Path(tmp) / "l2").read_bytes()
        print(f"labelling {labelled} failures of {n} random-agent cases: 1 worker {out[1]:.1f} s, 2 workers "
              f"{out[2]:.1f} s -> speed-up {out[1] / out[2]:.2f}x; labels byte-identical: {same}", flush=True)


def part_overhead() -> None:
    print("\n## overhead per case (random agent: no model, almost no work per case; 2 workers)")
    print("steady: from the first result to the last, so start-up (spawn, Ray's cluster) is left out")
    n = 3000
    cases = list(generate_cases(ConstraintSuiteOptions(actions=(3, 3), n=n, seed=2)))
    rows = []
    print("| backend | end to end | start-up (to the first result) | steady cases/s | ms per case |")
    print("|---|---|---|---|---|")
    for label, workers, backend in (("in process (peer)", 1, "processes"), ("processes", 2, "processes"),
                                    ("ray (local cluster)", 2, "ray")):
        dt, _calls, _cpu, steady = run_once(cases, "random", workers, 8, backend)
        per = 1 / steady
        rows.append((label, per))
        print(f"| {label} | {dt:.1f} s | {dt - n * per:.1f} s | {steady:,.0f} | {1000 * per:.2f} |", flush=True)
    for label, per in rows[1:]:
        print(f"{label}: {1000 * per:.2f} ms/case, {per / rows[0][1]:.2f}x the in-process time per case")
    print(f"ray vs processes: {rows[2][1] / rows[1][1]:.2f}x per case, {1000 * (rows[2][1] - rows[1][1]):+.2f} ms")


def _timed(args: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "planprobe", *args], check=True, capture_output=True, text=True)
    return time.perf_counter() - t0, r.stdout


WAYS = (("1 worker (peer)", ["--workers", "1"]), ("2 processes", ["--workers", "2"]),
        ("2 Ray actors (local cluster)", ["--workers", "2", "--backend", "ray"]))


def _command_rows(title: str, make_args, outputs) -> None:
    """One table: the command per way on the tiny input (start-up) and the real one."""
    print(f"\n{title}")
    print("| backend | end to end | start-up (two-item input) | end to end − start-up | vs 1 worker (end to end) |")
    print("|---|---|---|---|---|")
    base = None
    for label, how in WAYS:
        startup, _ = _timed(make_args("tiny", label, how))
        total, _ = _timed(make_args("big", label, how))
        base = base or total
        print(f"| {label} | {total:.1f} s | {startup:.1f} s | {total - startup:.1f} s | {base / total:.2f}x |",
              flush=True)
    blobs = [outputs(label) for label, _ in WAYS]
    print(f"outputs byte-identical across the three: {all(b == blobs[0] for b in blobs)}", flush=True)


def part_commands(label_n: int, dissect_sample: int) -> None:
    import shutil

    pp = [sys.executable, "-m", "planprobe"]
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for name, n in (("big", label_n), ("tiny", 2)):
            subprocess.run([*pp, "generate", "constraints", "--actions", "4-6", "--n", str(n), "--seed", "3", "-o",
                            str(t / f"{name}.jsonl")], check=True, capture_output=True)
            subprocess.run([*pp, "run", str(t / f"{name}.jsonl"), "--agent", "random", "--out", str(t / name), "-q",
                            "--seed", "1"], check=True, capture_output=True)
        _command_rows(f"## label: the failures of {label_n:,} random-agent cases (4–6 actions)",
                      lambda which, label, how: ["label", str(t / which), "-q", "-o",
                                                 str(t / f"{which}-{label}.labels"), *how],
                      lambda label: (t / f"big-{label}.labels").read_bytes())

        subprocess.run([*pp, "sweep", "--out", str(t / "sweep"), "--agent", "random", "--k", "20", "--cap", "300",
                        "--stop", "5", "--threshold", "0", "-q"], check=True, capture_output=True)
        for name in ("sweep", "tiny-sweep"):  # a fresh copy per way: dissect keeps settled rows in the sweep
            for label, _ in WAYS:
                shutil.copytree(t / "sweep", t / f"{name}-{label}")

        def dissect_args(which: str, label: str, how: list[str]) -> list[str]:
            src = "sweep" if which == "big" else "tiny-sweep"
            return ["dissect", str(t / f"{src}-{label}"), "--sample", str(dissect_sample if which == "big" else 2),
                    "--json", "-q", *how]

        _command_rows(f"## dissect: {dissect_sample} failures of a random-agent sweep (n = 2–5, 400 cases), its agent, K = 3",
                      dissect_args,
                      lambda label: b"".join(p.read_bytes() for p in
                                             sorted((t / f"sweep-{label}" / "runs").glob("*/dissect.jsonl"))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", default="all", choices=["endpoint", "cpu", "overhead", "commands", "all"])
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--label-n", type=int, default=10_000, help="commands: cases of the run whose failures are labelled")
    ap.add_argument("--dissect-sample", type=int, default=300, help="commands: failures dissected")
    args = ap.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f} at start")
    if args.part in ("endpoint", "all"):
        part_endpoint(args.latency)
    if args.part in ("cpu", "all"):
        part_cpu()
    if args.part in ("overhead", "all"):
        part_overhead()
    if args.part in ("commands", "all"):
        part_commands(args.label_n, args.dissect_sample)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
