"""A time budget that every long PDDL operation checks: grounding, heuristic set-up, search.

Why: a time limit is only a bound if each loop that can run long looks at the
clock often enough. Reading the clock on every step costs more than the step,
so long loops call ``tick(units)`` with a rough count of the work they did, and
the clock is read once per ``stride`` units (about a millisecond of Python work).
The clock can be injected, so tests check *that* an operation honours its
limit without measuring how fast the machine is.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .errors import PlannerTimeoutError

__all__ = ["Budget", "DEFAULT_STRIDE"]

DEFAULT_STRIDE = 4096  # work units between two clock reads (≈ 1 ms of Python work)


class Budget:
    """``time_limit`` seconds from now (None: no limit), measured with ``clock``.

    ``check()`` reads the clock now; ``tick(units)`` reads it once ``stride``
    units have been counted since the last read. Both raise
    ``PlannerTimeoutError`` once the deadline has passed, naming ``label`` (the
    problem file) and ``stage`` (what was running)."""

    __slots__ = ("_left", "clock", "clock_reads", "deadline", "label", "stage", "started", "stride", "time_limit",
                 "units")

    def __init__(self, time_limit: float | None, *, clock: Callable[[], float] = time.monotonic,
                 stride: int = DEFAULT_STRIDE, label: str = ""):
        self.clock, self.stride, self.time_limit, self.label = clock, stride, time_limit, label
        self.started = clock()
        self.deadline = None if time_limit is None else self.started + time_limit
        self.stage = "planning"
        self._left = stride
        self.units = self.clock_reads = 0  # for tests and benchmarks: work counted, clock reads made

    def tick(self, units: int = 1) -> None:
        """Count ``units`` of work; look at the clock when a stride is used up."""
        self._left -= units
        if self._left <= 0:
            self.units += self.stride - self._left
            self._left = self.stride
            self.check()

    def check(self) -> None:
        """Raise ``PlannerTimeoutError`` if the deadline has passed."""
        if self.deadline is None:
            return
        self.clock_reads += 1
        if self.clock() > self.deadline:
            raise PlannerTimeoutError(self.message())

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        return None if self.deadline is None else max(0.0, self.deadline - self.clock())

    def elapsed(self) -> float:
        return self.clock() - self.started

    def message(self) -> str:
        where = f"{self.label}: " if self.label else ""
        return (f"{where}no plan found within the time limit of {self.time_limit:g} s (stopped while {self.stage}); "
                "raise the limit or use Fast Downward (--planner fast-downward)")
