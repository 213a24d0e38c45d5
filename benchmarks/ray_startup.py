"""What ``--backend ray`` costs on one machine, and from which suite size it pays off (issue #30).

    PYTHONPATH=src python benchmarks/ray_startup.py [--sizes 20,500,2000] [--workers 2]

Each suite (constraints, 3 actions, seed 1) runs through ``planprobe run`` with the
function-calling agent against ``benchmarks/instant_endpoint.py`` (cache off, concurrency 8),
three ways, each a fresh process:

* one process (no ``--workers``);
* ``--backend ray`` without ``--address``: a local cluster started and stopped by the command;
* ``--backend ray --address auto``: a cluster already running on this machine (started once
  here with ``ray start --head`` on loopback in a temp dir, found through ``RAY_ADDRESS``, and
  stopped by ``ray stop``-free means: its process group is killed at the end).

Reported: wall time per way and size, and the fixed cost of each Ray way (its time for the
smallest suite minus one process's). Ray pays off from the size where its time falls below one
process's (never, when one process is not the bottleneck).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine
from inspect_overhead import free_port, start_endpoint

SRC = Path(__file__).resolve().parents[1] / "src"


def start_cluster(env: dict[str, str], temp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    ray_bin = Path(sys.executable).with_name("ray")
    proc = subprocess.Popen([str(ray_bin if ray_bin.exists() else "ray"), "start", "--head", "--block", "--port",
                             str(port), "--node-ip-address", "127.0.0.1", "--include-dashboard=false",
                             "--disable-usage-stats", "--temp-dir", str(temp)],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the Ray head did not start") from None
            time.sleep(0.5)
    time.sleep(3)  # the raylet registers after the GCS answers
    return proc, f"127.0.0.1:{port}"


def run(env: dict[str, str], suite: Path, out: Path, url: str, extra: list[str]) -> float:
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "planprobe", "run", str(suite), "--agent", "tools", "--model",
                    "openai:bench", "--base-url", url, "--no-cache", "--concurrency", "8", "--out", str(out), "-q",
                    *extra], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="20,500,2000")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="pp-ray-", dir="/tmp"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p),
               RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16), RAY_USAGE_STATS_ENABLED="0",
               RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0")
    env.pop("RAY_ADDRESS", None)
    endpoint, url = start_endpoint(0.0)
    cluster = None
    try:
        for n in sizes:
            subprocess.run([sys.executable, "-m", "planprobe", "generate", "constraints", "-o", str(tmp / f"s{n}.jsonl"),
                            "--n", str(n), "--actions", "3", "--seed", "1", "-q"], env=env, check=True,
                           stdout=subprocess.DEVNULL)
        cluster, address = start_cluster(env, tmp / "cluster")
        ways = {"one process": ([], env),
                f"ray, local cluster per command ({args.workers} workers)":
                    (["--backend", "ray", "--workers", str(args.workers)], env),
                f"ray --address auto ({args.workers} workers)":
                    (["--backend", "ray", "--workers", str(args.workers), "--address", "auto"],
                     dict(env, RAY_ADDRESS=address))}
        times: dict[str, dict[int, float]] = {w: {} for w in ways}
        for n in sizes:
            for way, (extra, way_env) in ways.items():
                times[way][n] = run(way_env, tmp / f"s{n}.jsonl", tmp / "out", url, extra)
        print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f}; instant endpoint, concurrency 8")
        print("| way | " + " | ".join(f"{n} cases" for n in sizes) + " | fixed cost vs one process |")
        print("|---|" + "---|" * len(sizes) + "---|")
        base = times["one process"]
        for way, got in times.items():
            fixed = got[sizes[0]] - base[sizes[0]]
            print(f"| {way} | " + " | ".join(f"{got[n]:.1f} s" for n in sizes) + f" | {fixed:+.1f} s |")
    finally:
        endpoint.terminate()
        if cluster is not None:
            os.killpg(cluster.pid, signal.SIGTERM)
            try:
                cluster.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(cluster.pid, signal.SIGKILL)
        for entry in Path("/proc").iterdir():  # any Ray process of this cluster left: its command line names tmp
            try:
                if entry.name.isdigit() and str(tmp).encode() in (entry / "cmdline").read_bytes():
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
