"""What the cli/ package costs at start-up: fresh processes of ``python -m planprobe``.

    python benchmarks/cli_startup.py --peer-src PATH/TO/OTHER/src [--reps 7]

Each command runs in a fresh process, this tree and the peer tree (e.g. the one before the
cli/ package) interleaved so both see the same machine load. Reported: the median CPU time
(user + system of the child: what the process itself costs, much steadier than the wall
clock on a shared machine) and the median wall time. ``generate --help`` lists every
family's command, so it loads every family; ``generate constraints`` loads only the
families up to its own; other commands load none.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

SRC = Path(__file__).resolve().parents[1] / "src"
COMMANDS = (["--version"], ["show", "--help"], ["run", "--help"], ["generate", "--help"],
            ["generate", "constraints", "--help"])


def _start(src: Path, args: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(src), COLUMNS="120")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "planprobe", *args], env=env, capture_output=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer-src", type=Path, required=True, help="the src/ folder of the tree to compare with")
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    peer = args.peer_src.resolve()
    print(machine(), f"load {os.getloadavg()[0]:.1f}")
    print("| command | this tree CPU / wall (median) | peer CPU / wall (median) | CPU ratio |")
    print("|---|---|---|---|")
    for command in COMMANDS:
        runs: dict[str, list[tuple[float, float]]] = {"this": [], "peer": []}
        for _ in range(args.reps):
            runs["this"].append(_start(SRC, command))
            runs["peer"].append(_start(peer, command))
        med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in runs.items()}
        print(f"| `planprobe {' '.join(command)}` | {med['this'][0]:.2f} / {med['this'][1]:.2f} s | "
              f"{med['peer'][0]:.2f} / {med['peer'][1]:.2f} s | {med['this'][0] / med['peer'][0]:.2f} |")


if __name__ == "__main__":
    main()
