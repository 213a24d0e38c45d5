"""Measurement only (benchmarks/test_time/cpu_plugin.py): active when this folder is on PYTHONPATH.
MEASURE_ONE_THREAD=1 makes os.cpu_count() 1 in every Python process (llama.cpp then runs one thread);
PYSTART_LOG=<file> appends each Python start's command line and the test that started it."""

import os

if os.environ.get("MEASURE_ONE_THREAD") == "1":
    os.cpu_count = lambda: 1
if os.environ.get("PYSTART_LOG"):
    try:
        with open("/proc/self/cmdline", "rb") as _f:
            _cmd = _f.read().replace(b"\0", b" ").decode(errors="replace")[:300]
        with open(os.environ["PYSTART_LOG"], "a") as _f:
            _f.write(f"{os.environ.get('PYTEST_CURRENT_TEST', '-')[:200]} | {_cmd}\n")
    except OSError:
        pass
