"""Fixtures shared by several test folders (the llama.cpp server lives in llama_server.py,
a plain module, so tests can also import its helpers without depending on which
conftest module Python happens to have loaded).

No test may depend on how fast the machine is: Hypothesis's per-example deadline and
its "too slow" health check both measure wall-clock time, so both are off for every
property test (each test still sets its own number of examples)."""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from llama_server import llama_server  # noqa: F401  (a session fixture: one server for all tests)
from planprobe.suites.constraints import native

settings.register_profile("planprobe", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("planprobe")

# where a family whose solver sample is TravelPlanner's training data finds it (the shared copy; absent: skipped)
os.environ.setdefault("PLANPROBE_TRAVELPLANNER_TRAIN",
                      str(Path(__file__).resolve().parents[1].parent / "shared" / "data" / "travelplanner"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Which build of the constraint modules this run tested (scripts/setup compiles them by default;
    a line at the end, as the header is hidden by -q)."""
    terminalreporter.write_line(native.status())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``pure_only`` patch module globals that compiled code does not look up: with the
    compiled build they are skipped here and run by test_native_build.py in a pure-Python subprocess."""
    if native.is_compiled():
        skip = pytest.mark.skip(reason="patches a module global compiled code calls directly; run in a "
                                "PLANPROBE_PURE=1 subprocess by test_native_build.py")
        for item in items:
            if item.get_closest_marker("pure_only") is not None:
                item.add_marker(skip)
