"""Helpers for the benchmark scripts: machine description and repeated timing."""

from __future__ import annotations

import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path


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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_endpoint(delay: float) -> tuple[subprocess.Popen, str]:
    """benchmarks/instant_endpoint.py on a free loopback port, answering after ``delay`` seconds;
    returns the process (stop it by PID) and its base URL."""
    port = free_port()
    script = Path(__file__).resolve().parent / "instant_endpoint.py"
    proc = subprocess.Popen([sys.executable, str(script), str(port), str(delay)])
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}/v1"
