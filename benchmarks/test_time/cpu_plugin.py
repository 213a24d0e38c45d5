"""Per-test CPU seconds for the test suite (docs/BENCHMARKS.md, "Test-suite time").

    PYTHONPATH=$PWD/src:$PWD/benchmarks/test_time CPUTIME_OUT=/tmp/cpu.jsonl \
        .venv/bin/python -m pytest -p cpu_plugin tests/<dir>

Writes one JSON line per test: CPU of this process, of the children it waited for and of its live
descendants (the llama.cpp server of the session fixture counts while it works), and wall time. A
test that used llama.cpp's server also gets a line in ``CPUTIME_OUT.llama`` with the tokens the server
evaluated (prompt) and generated, read from the server's log under this session's basetemp: a count
of work that does not depend on how loaded the machine is. With ``MEASURE_ONE_THREAD=1`` and this
folder on PYTHONPATH, sitecustomize.py makes os.cpu_count() 1 in every Python process, so llama.cpp
runs one thread: two threads busy-wait for each other on a loaded machine and inflate CPU time up to
tenfold (the fault-injection test: 156 s at two threads beside other work, 17.6 s at one)."""

from __future__ import annotations

import glob
import json
import os
import re
import resource
import time

import psutil
import pytest

_OUT = os.environ.get("CPUTIME_OUT", "cpu.jsonl")
_ME = psutil.Process()
_PROMPT = re.compile(r"prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens")
_EVAL = re.compile(r"^\S+:\s+eval time =\s+([\d.]+) ms /\s+(\d+) runs", re.MULTILINE)


def _cpu() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    try:
        kids = _ME.children(recursive=True)
    except psutil.Error:
        kids = []
    for kid in kids:
        try:
            t = kid.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def _server_work(config) -> dict[str, float]:
    out = {"prompt_tokens": 0.0, "generated_tokens": 0.0, "completions": 0.0}
    try:
        base = config._tmp_path_factory.getbasetemp()
    except Exception:  # noqa: BLE001 -- no basetemp yet: nothing to count
        return out
    for path in glob.glob(f"{base}/server*/server-*.log"):
        try:
            text = open(path, errors="replace").read()  # noqa: SIM115
        except OSError:
            continue
        for m in _PROMPT.finditer(text):
            out["prompt_tokens"] += int(m.group(2))
            out["completions"] += 1
        for m in _EVAL.finditer(text):
            out["generated_tokens"] += int(m.group(2))
    return out


def _append(path: str, row: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    c0, w0, s0 = _cpu(), time.monotonic(), _server_work(item.config)
    yield
    c1, w1, s1 = _cpu(), time.monotonic(), _server_work(item.config)
    _append(_OUT, {"id": item.nodeid, "cpu": round(c1 - c0, 3), "wall": round(w1 - w0, 3)})
    work = {k: s1[k] - s0[k] for k in s1}
    if any(work.values()):
        _append(_OUT + ".llama", {"id": item.nodeid, **work})
