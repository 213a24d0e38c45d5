"""Time limits are hard bounds: grounding, heuristics, search and Fast Downward all
look at the clock while they work and stop at the first look after the deadline.

No test here measures how fast the machine is: clocks are injected. A scripted
clock says "no time has passed" for its first reads and "far too late" after,
so each test checks that an operation reads the clock while it works (and how
often, in units of work) and gives up at the first late read.
"""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time

import pytest
from pddl_data import IPC_STYLE as DATA
from pddl_data import freecell_deal

from planprobe.pddl import (
    PlannerTimeoutError,
    fast_downward,
    load,
    parse_domain,
    parse_problem,
    solve,
)
from planprobe.pddl.budget import DEFAULT_STRIDE, Budget
from planprobe.pddl.grounding import GroundProblem
from planprobe.pddl.lmcut import LMCut
from planprobe.pddl.satisficing import greedy_plan
from planprobe.pddl.search_task import SearchTask

LIMIT = 10.0


class ScriptedClock:
    """Reads 1..on_time return 0 (the start); later reads return a time far past any limit."""

    def __init__(self, on_time: int | None):
        self.on_time, self.reads = on_time, 0

    def __call__(self) -> float:
        self.reads += 1
        return 0.0 if self.on_time is None or self.reads <= self.on_time else 1e9


def _deal():
    domain = parse_domain((DATA / "freecell" / "domain.pddl").read_text(), "freecell.pddl")
    return parse_problem(freecell_deal(), domain, "deal.pddl")


def test_budget_reads_the_clock_once_per_stride_and_raises_when_late():
    clock = ScriptedClock(on_time=3)  # read 1: the start; reads 2-3: checks on time; read 4: late
    budget = Budget(LIMIT, clock=clock, stride=100, label="x.pddl")
    for _ in range(299):
        budget.tick()
    assert clock.reads == 3  # the start and one read per 100 units
    with pytest.raises(PlannerTimeoutError, match=r"x.pddl: no plan found within the time limit of 10 s"):
        budget.tick()
    assert clock.reads == 4
    unlimited = Budget(None, clock=clock)
    for _ in range(10 * DEFAULT_STRIDE):
        unlimited.tick()
    assert unlimited.remaining() is None


def test_grounding_reads_the_clock_as_it_works_and_stops_at_the_first_late_read():
    watch = ScriptedClock(on_time=None)
    full = GroundProblem(_deal())
    full.actions(Budget(LIMIT, clock=watch))
    reads = watch.reads
    # the clock is read throughout: at least once per stride of join probes
    assert reads > 5 and reads >= full.grounding_stats.probes // DEFAULT_STRIDE
    late = ScriptedClock(on_time=reads // 2)
    gp = GroundProblem(_deal())
    with pytest.raises(PlannerTimeoutError, match="stopped while grounding"):
        gp.actions(Budget(LIMIT, clock=late))
    assert late.reads == reads // 2 + 1  # gave up at the first late read
    assert gp._all is None  # nothing half-done is cached


@pytest.mark.parametrize("heuristic", ["hmax", "lmcut", "blind"])
def test_search_reads_the_clock_and_stops_at_the_first_late_read(heuristic):
    domain = DATA / "elevators" / "domain.pddl"

    def problem():
        return load(domain, DATA / "elevators" / "p01.pddl")

    watch = ScriptedClock(on_time=None)
    result = solve(problem(), heuristic=heuristic, time_limit=LIMIT, clock=watch)
    assert result.cost == 13 and watch.reads > 3
    late = ScriptedClock(on_time=watch.reads - 2)
    with pytest.raises(PlannerTimeoutError, match=r"within the time limit of 10 s \([\d,]+ states expanded\)"):
        solve(problem(), heuristic=heuristic, time_limit=LIMIT, clock=late)
    assert late.reads == watch.reads - 1


def test_the_planner_limit_covers_grounding():
    with pytest.raises(PlannerTimeoutError, match=r"deal.pddl: no plan found within the time limit of 10 s "
                                                  r"\(stopped while grounding\)"):
        solve(_deal(), heuristic="lmcut", time_limit=LIMIT, clock=ScriptedClock(on_time=3))
    with pytest.raises(PlannerTimeoutError, match=r"stopped while grounding"):
        greedy_plan(_deal(), time_limit=LIMIT, clock=ScriptedClock(on_time=3))


def test_one_lmcut_evaluation_of_a_large_task_reads_the_clock():
    gp = GroundProblem(_deal())
    task = SearchTask(gp, gp.actions())
    clock = ScriptedClock(on_time=None)
    budget = Budget(LIMIT, clock=clock, stride=DEFAULT_STRIDE)
    h = LMCut(*task.ordered_conditions(), len(gp.atoms), budget)
    assert h(task.init) > 20
    assert clock.reads > 2  # inside the single evaluation, not only between states
    with pytest.raises(PlannerTimeoutError):
        LMCut(*task.ordered_conditions(), len(gp.atoms), Budget(LIMIT, clock=ScriptedClock(on_time=1)))(task.init)


# --- Fast Downward --------------------------------------------------------------------

FAKE_DRIVER = textwrap.dedent("""
    # Stands in for fast-downward.py: starts a child (like the translator or search
    # component), records both process ids, then both sleep until killed.
    import os, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    with open(os.environ["PLANPROBE_TEST_PIDS"] + ".tmp", "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    os.replace(os.environ["PLANPROBE_TEST_PIDS"] + ".tmp", os.environ["PLANPROBE_TEST_PIDS"])
    time.sleep(3600)
""")


def _gone(pid: int) -> bool:
    """Dead, or a zombie waiting for a parent that no longer cares."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_fast_downward_is_killed_with_its_children_at_the_limit(tmp_path, monkeypatch):
    driver = tmp_path / "fake-fast-downward.py"
    driver.write_text(FAKE_DRIVER)
    pids = tmp_path / "pids"
    monkeypatch.setenv("PLANPROBE_TEST_PIDS", str(pids))
    monkeypatch.setattr(fast_downward, "driver_path", lambda: driver)

    def clock() -> float:  # time stands still until the driver and its child both run
        return 1e9 if pids.exists() else 0.0

    prob = load(DATA / "depot" / "domain.pddl", DATA / "depot" / "p01.pddl")
    with pytest.raises(PlannerTimeoutError, match=r"p01.pddl: Fast Downward found no plan within the time limit "
                                                  r"of 10 s"):
        fast_downward.solve(prob, time_limit=LIMIT, clock=clock)
    driver_pid, child_pid = map(int, pids.read_text().split())
    try:
        assert _gone(driver_pid)  # killed and reaped before solve() returned
        for _ in range(3000):  # SIGKILL reached the orphaned child too; wait (generously) for the kernel
            if _gone(child_pid):
                break
            time.sleep(0.01)
        assert _gone(child_pid)
    finally:  # never leave a sleeper behind, even when the test fails
        for pid in (driver_pid, child_pid):
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
    assert os.getpgid(os.getpid()) != driver_pid  # it ran in a group of its own, not ours
