"""Helpers for the benchmark scripts: machine description and repeated timing."""

from __future__ import annotations

import os
import platform
import statistics
import time
from typing import Callable


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def repeat(fn: Callable[[], int], reps: int) -> tuple[float, float]:
    """Run ``fn`` (returns items done) ``reps`` times; (best, median) items per second."""
    rates = []
    for _ in range(reps):
        t0 = time.perf_counter()
        items = fn()
        rates.append(items / (time.perf_counter() - t0))
    return max(rates), statistics.median(rates)


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
