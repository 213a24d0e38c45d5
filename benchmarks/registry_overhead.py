"""What the registries cost: command start-up, and a capability check per call.

    python benchmarks/registry_overhead.py --peer-src ../main/src [--reps 9]

1. Start-up: ``python -m planprobe --version`` and ``run --help`` (which lists the agents and
   model kinds from the registries and scans the entry-point groups) in fresh processes, this
   tree against the peer tree given by ``--peer-src`` (e.g. the tree before the registries),
   interleaved so both see the same machine load; best and median of ``--reps``.
2. Per call: ``isinstance(family, HighlightsEvidence)`` (a runtime-checkable Protocol), the
   ``has_capability`` the report asks once per failed row (remembered per class), and the
   ``getattr(family, "evidence_spans", None)`` they replaced, in the same process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"


def _start(src: Path, args: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(src))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "planprobe", *args], env=env, capture_output=True, check=True)
    return time.perf_counter() - t0


def startup(peer: Path, reps: int) -> None:
    for args in (["--version"], ["run", "--help"]):
        times: dict[str, list[float]] = {"this tree": [], "peer": []}
        for _ in range(reps):
            times["this tree"].append(_start(SRC, args))
            times["peer"].append(_start(peer, args))
        best = {k: min(v) for k, v in times.items()}
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"planprobe {' '.join(args)}: this tree best {best['this tree']:.2f} s (median "
              f"{med['this tree']:.2f}), peer best {best['peer']:.2f} s (median {med['peer']:.2f}); "
              f"ratio of medians {med['this tree'] / med['peer']:.2f}")


def per_call() -> None:
    sys.path.insert(0, str(SRC))
    from planprobe.suites.base import HighlightsEvidence, has_capability
    from planprobe.suites.registry import get_family

    for name in ("constraints", "pddl"):  # has the capability / lacks it
        family = get_family(name)
        n = 200_000
        proto = timeit.timeit(lambda: isinstance(family, HighlightsEvidence), number=n) / n * 1e6
        cached = timeit.timeit(lambda: has_capability(family, HighlightsEvidence), number=n) / n * 1e6
        plain = timeit.timeit(lambda: getattr(family, "evidence_spans", None), number=n) / n * 1e6
        print(f"{name}: isinstance(…, HighlightsEvidence) {proto:.2f} µs per call, has_capability (remembered "
              f"per class, what the report uses) {cached:.3f} µs, getattr (before) {plain:.3f} µs")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer-src", type=Path, required=True, help="the src/ folder of the tree to compare with")
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    print(machine())
    startup(args.peer_src.resolve(), args.reps)
    per_call()


if __name__ == "__main__":
    main()
