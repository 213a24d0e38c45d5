"""Fast Downward as an optional optimal planner for large problems.

Fast Downward is GPL, so planprobe does not depend on it: it comes with the
``planner`` extra (``pip install planprobe[planner]``, which installs the
``up-fast-downward`` package). We only locate that package's
``downward/fast-downward.py`` driver (without importing it, which would pull in
unified-planning) and run it as a **subprocess** in its own process group on
PDDL we write ourselves, then read its ``sas_plan``. The time limit is wall
clock for the whole call: the group is killed when it passes. The default
search, ``astar(lmcut())``, is optimal.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .budget import Budget
from .errors import (
    PlannerError,
    PlannerTimeoutError,
    PlannerUnavailableError,
    UnsolvableError,
)
from .grounding import GroundProblem
from .model import Problem, type_members
from .planner import PlanResult
from .simulator import parse_plan
from .writer import domain_to_pddl, problem_to_pddl

__all__ = ["INSTALL_HINT", "OPTIMAL_SEARCH", "available", "driver_path", "solve"]

OPTIMAL_SEARCH = "astar(lmcut())"
INSTALL_HINT = "Fast Downward is not installed: run  pip install 'planprobe[planner]'  (installs up-fast-downward)"
_UNSOLVABLE = {10, 11}
_OUT_OF_TIME = {21, 23, 24}
_OUT_OF_MEMORY = {20, 22}
_INCOMPLETE = {12, 13}
_POLL_SECONDS = 0.05  # how often the driver is checked against the time limit
_ADMISSIBLE = {"astar(lmcut())", "astar(blind())", "astar(hmax())", "astar(ipdb())"}  # searches known optimal


def driver_path() -> Path | None:
    """``…/up_fast_downward/downward/fast-downward.py``, or None when the package is absent."""
    try:
        spec = importlib.util.find_spec("up_fast_downward")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        path = Path(base) / "downward" / "fast-downward.py"
        if path.is_file():
            return path
    return None


def available() -> bool:
    return driver_path() is not None


def solve(problem: Problem | GroundProblem, *, time_limit: float | None = 60.0,
          search: str = OPTIMAL_SEARCH, memory_limit_mb: int | None = None,
          clock: Callable[[], float] = time.monotonic) -> PlanResult:
    """Run Fast Downward on ``problem``; optimal with the default ``search``.

    ``time_limit`` is a wall-clock bound on the whole call: Fast Downward's own
    limit counts CPU time per component and let runs overshoot, so the driver is
    also watched with ``clock`` and its whole process group (driver, translator,
    search) is killed when the limit passes. Raises ``PlannerUnavailableError``
    (with the install command) when the extra is absent, ``UnsolvableError``,
    ``PlannerTimeoutError``, or ``PlannerError`` with Fast Downward's last output
    line for anything else."""
    if isinstance(problem, GroundProblem):
        problem = problem.problem
    driver = driver_path()
    if driver is None:
        raise PlannerUnavailableError(INSTALL_HINT)
    for action in problem.domain.actions:
        for param in action.parameters:
            if len(type_members(param.type)) > 1:
                raise PlannerError(f"{problem.domain.filename}: Fast Downward does not accept an 'either' type for "
                                   f"an action parameter ({param.name} of {action.name!r}): use the built-in planner")
    budget = Budget(time_limit, clock=clock, label=problem.filename)
    with tempfile.TemporaryDirectory(prefix="planprobe-fd-") as tmp:
        work = Path(tmp)
        (work / "domain.pddl").write_text(domain_to_pddl(problem.domain), encoding="utf-8")
        (work / "problem.pddl").write_text(problem_to_pddl(problem), encoding="utf-8")
        cmd = [sys.executable, str(driver), "--plan-file", str(work / "sas_plan"), "--sas-file",
               str(work / "output.sas")]
        if time_limit is not None:
            cmd += ["--overall-time-limit", f"{max(1, int(time_limit + 0.999))}s"]
        if memory_limit_mb is not None:
            cmd += ["--overall-memory-limit", f"{memory_limit_mb}M"]
        cmd += [str(work / "domain.pddl"), str(work / "problem.pddl"), "--search", search]
        code = _run_bounded(cmd, work, budget)
        if code is None:
            raise PlannerTimeoutError(_timeout_message(problem, time_limit))
        plan_file = work / "sas_plan"
        if code in (0, 1, 2, 3) and plan_file.is_file():
            steps = tuple(parse_plan(plan_file.read_text(encoding="utf-8")))
            optimal = search.replace(" ", "") in _ADMISSIBLE
            expanded, generated = _counts(_read(work / "stdout.txt"))
            return PlanResult(steps, f"fast-downward {search}", optimal, expanded, generated,
                              seconds=budget.elapsed())
        stdout = _read(work / "stdout.txt")
        stderr = _read(work / "stderr.txt")
    if code in _UNSOLVABLE:
        raise UnsolvableError(f"{problem.filename}: unsolvable (Fast Downward proved that no plan exists)")
    if code in _OUT_OF_TIME:
        raise PlannerTimeoutError(_timeout_message(problem, time_limit))
    if code in _OUT_OF_MEMORY:
        raise PlannerError(f"{problem.filename}: Fast Downward ran out of memory; set a larger memory limit")
    if code in _INCOMPLETE:
        raise PlannerError(f"{problem.filename}: Fast Downward's search {search} stopped without a plan "
                           "(incomplete configuration)")
    last = _last_line(stderr) or _last_line(stdout) or "no output"
    raise PlannerError(f"{problem.filename}: Fast Downward failed (exit code {code}): {last}")


def _run_bounded(cmd: list[str], work: Path, budget: Budget) -> int | None:
    """Run ``cmd`` in a new process group, output to files in ``work``; its exit
    code, or None after killing the group when ``budget`` runs out."""
    with open(work / "stdout.txt", "wb") as out, open(work / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(cmd, cwd=work, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)
        try:
            while True:
                try:
                    return proc.wait(timeout=_POLL_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
                left = budget.remaining()
                if left is not None and left <= 0:
                    _kill_group(proc)
                    return None
        except BaseException:  # interrupted (Ctrl-C): leave nothing running
            _kill_group(proc)
            raise


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the driver and everything it started (translator, search). Called while the
    driver is not yet reaped, so its process-group id cannot have been reused."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):  # AttributeError: no killpg (Windows)
        proc.kill()
    proc.wait()


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _counts(stdout: str) -> tuple[int, int]:
    """Fast Downward's 'Expanded N state(s).' and 'Generated N state(s).' (0 when absent),
    so its expansions can be set beside the built-in planner's."""
    found = {}
    for kind in ("Expanded", "Generated"):
        m = re.search(rf"\] {kind} (\d+) state", stdout)
        found[kind] = int(m.group(1)) if m else 0
    return found["Expanded"], found["Generated"]


def _timeout_message(problem: Problem, time_limit: float | None) -> str:
    return f"{problem.filename}: Fast Downward found no plan within the time limit of {time_limit:g} s"


def _last_line(text: str) -> str:
    """The last two lines that say something (not the driver's chatter): Fast Downward
    puts its reason on the line before 'Usage error occurred.' or 'translate exit code'."""
    noise = ("INFO", "Driver aborting", "translate exit code", "search exit code", "[t=", "Peak memory",
             "Remove intermediate file")
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(noise)]
    return " ".join(lines[-2:])[:300]
