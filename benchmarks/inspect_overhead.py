"""planprobe against Inspect AI, side by side on the same suite and the same endpoint (issue #30).

    PYTHONPATH=src python benchmarks/inspect_overhead.py [--cases 300] [--reps 3] [--delay 0]

The same constraints suite (``--cases`` cases of 3 actions, seed 1), run by ``planprobe run``
(function-calling agent, cache off) and by Inspect AI on the task ``planprobe export inspect``
writes (``inspect eval``, its ``openai-api`` provider), both against
``benchmarks/instant_endpoint.py`` in its own process: two model calls per case (a tool call,
then a final answer), concurrency 1 (``--concurrency 1``; ``--max-connections 1 --max-samples 1``).
Each tool runs as a fresh process on the whole suite and on its first case, interleaved, so
both see the same machine load:

* per case = (time for N cases − time for 1 case) / (N − 1): the marginal cost, wall and CPU
  (user + system of the tool's process, from ``wait4``; the endpoint's own time is not in the CPU);
* start-up = time for 1 case − per case: what a run costs before and after its cases
  (imports, registry, opening the store, writing the log, the summary);
* peak memory = the largest resident set of the N-case run (``wait4``'s ``ru_maxrss``).

Medians over ``--reps``, after one warm-up round (byte-code cached under a temp
``PYTHONPYCACHEPREFIX``, as an installed tool has it). The model calls per case are checked
from the endpoint's count.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, start_endpoint

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def endpoint_calls(url: str) -> int:
    """Chat calls the endpoint has answered so far (its /calls counter)."""
    with urllib.request.urlopen(url.rsplit("/v1", 1)[0] + "/calls", timeout=5) as r:
        return int(r.read())


def timed(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"{' '.join(cmd[:4])}… failed ({proc.returncode}): {err[-800:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--delay", type=float, default=0.0, help="endpoint latency per call, seconds")
    ap.add_argument("--peer-src", type=Path, default=None,
                    help="also run planprobe from this src/ folder (e.g. an older tree), as 'planprobe (peer)'")
    ap.add_argument("--no-inspect", action="store_true", help="leave Inspect out (planprobe against --peer-src)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pp-inspect-bench-"))
    # as installed: byte-code cached (kept out of the tree), so neither tool compiles its sources on every start
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p),
               PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    py = sys.executable
    subprocess.run([py, "-m", "planprobe", "generate", "constraints", "-o", str(tmp / "all.jsonl"), "--n",
                    str(args.cases), "--actions", "3", "--seed", "1", "-q"], env=env, check=True)
    (tmp / "one.jsonl").write_text((tmp / "all.jsonl").read_text().splitlines()[0] + "\n")
    for name in ("all", "one"):
        subprocess.run([py, "-m", "planprobe", "export", "inspect", str(tmp / f"{name}.jsonl"), "-o",
                        str(tmp / f"task-{name}")], env=env, check=True, capture_output=True)
    proc, url = start_endpoint(args.delay)
    inspect_env = dict(env, LOCAL_BASE_URL=url, LOCAL_API_KEY="none", INSPECT_LOG_LEVEL="warning")
    sizes = {"all": args.cases, "one": 1}
    tools = ["planprobe"] + (["planprobe (peer)"] if args.peer_src else []) + ([] if args.no_inspect else ["inspect"])
    peer_env = dict(env, PYTHONPATH=str(args.peer_src.resolve())) if args.peer_src else env
    figures: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    calls: dict[str, int] = {}
    try:
        for rep in range(-1, args.reps):  # rep -1: a warm-up (byte-code caches), not counted
            for name in ("all", "one"):
                for tool in tools:
                    out = tmp / f"{tool.split()[0]}{len(tool)}-{name}-{rep}"
                    before = endpoint_calls(url)
                    if tool.startswith("planprobe"):
                        cmd = [py, "-m", "planprobe", "run", str(tmp / f"{name}.jsonl"), "--agent", "tools",
                               "--model", "openai:bench", "--base-url", url, "--no-cache", "--concurrency", "1",
                               "--out", str(out), "-q"]
                        got = timed(cmd, env if tool == "planprobe" else peer_env)
                    else:
                        cmd = [py, "-m", "inspect_ai", "eval", "planprobe_task.py", "--model",
                               "openai-api/local/bench", "--max-connections", "1", "--max-samples", "1",
                               "--log-format", "json", "--log-dir", str(out), "--display", "none"]
                        got = timed(cmd, inspect_env, cwd=tmp / f"task-{name}")
                    if name == "all":
                        calls[tool] = endpoint_calls(url) - before
                    if rep >= 0:
                        figures.setdefault((tool, name), []).append(got)
                    shutil.rmtree(out, ignore_errors=True)
    finally:
        proc.terminate()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}; {args.cases} cases, "
          f"endpoint delay {1000 * args.delay:g} ms, median of {args.reps}")
    rows = {}
    for tool in tools:
        med = {name: [statistics.median(r[i] for r in figures[(tool, name)]) for i in range(3)]
               for name in ("all", "one")}
        per_wall = (med["all"][0] - med["one"][0]) / (sizes["all"] - 1)
        per_cpu = (med["all"][1] - med["one"][1]) / (sizes["all"] - 1)
        rows[tool] = (per_wall, per_cpu, med["one"][0] - per_wall, med["one"][1] - per_cpu, med["all"][2])
    print(f"model calls per case (the endpoint's count, last {args.cases}-case run): "
          + ", ".join(f"{t} {calls[t] / sizes['all']:.2f}" for t in tools))
    print("| tool | per case, wall | per case, CPU | start-up, wall | start-up, CPU | peak RSS |")
    print("|---|---|---|---|---|---|")
    for tool, (pw, pc, sw, sc, rss) in rows.items():
        print(f"| {tool} | {1000 * pw:.2f} ms | {1000 * pc:.2f} ms | {sw:.2f} s | {sc:.2f} s | {rss:.0f} MiB |")
    p = rows["planprobe"]
    for other in tools[1:]:
        i = rows[other]
        print(f"| planprobe / {other} | {p[0] / i[0]:.2f}× | {p[1] / i[1]:.2f}× | {p[2] / i[2]:.2f}× | "
              f"{p[3] / i[3]:.2f}× | {p[4] / i[4]:.2f}× |")


if __name__ == "__main__":
    main()
