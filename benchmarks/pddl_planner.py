"""Optimal planning time: the built-in A* against Fast Downward, in one run.

    python benchmarks/pddl_planner.py [--skip-fd] [--skip-blocksworld]
                                      [--ipc DIR] [--domains depot,elevators,freecell,zenotravel]
                                      [--tasks 5] [--time-limit 60] [--heuristic lmcut]
                                      [--ties lifo] [--auto] [--limit-check 10]

``--domains all`` takes every domain directory under ``--ipc``; ``--auto`` adds the
automatic choice (``pddl.auto_planner``) beside the built-in planner and Fast Downward.

Blocksworld: PlanBench's 501 instances (from ../shared/data), built-in h_max and
LM-cut against Fast Downward's astar(lmcut()); plan lengths must agree.

IPC (``--ipc DIR``): the first ``--tasks`` tasks (by file name) of each domain
directory under DIR — a checkout of a public IPC collection, e.g. pyperplan's
``benchmarks/`` (STRIPS, action costs removed) or aibasel/downward-benchmarks;
nothing fetched is part of planprobe. A domain directory holds ``domain.pddl``
and task files (``taskNN.pddl`` or ``pNN.pddl``), or one ``domain_<task>`` per
task. Each task runs under the same wall-clock limit on both planners.

Both planners start from the PDDL files: the built-in time includes parsing and
grounding; Fast Downward's includes writing the files, starting the process, its
translator and its search. CPU seconds are printed too (this process's own for
the built-in planner, and Fast Downward's processes once they exit — not after a
time-out, when its search is killed as an orphan): on a loaded machine CPU
seconds say more than wall time.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine

from planprobe.errors import PlanprobeError
from planprobe.pddl import fast_downward, load, load_domain, load_problem, solve, validate
from planprobe.pddl.auto_planner import solve_auto

BW = Path(__file__).resolve().parents[2] / "shared" / "data" / "planbench" / "instances" / "blocksworld"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def blocksworld(skip_fd: bool) -> None:
    if not (BW / "generated_domain.pddl").is_file():
        print(f"Blocksworld: {BW} not found; skipped")
        return
    domain = load_domain(BW / "generated_domain.pddl")
    lengths: dict[str, list[int]] = {}
    totals: dict[str, float] = {}
    runs = [("builtin astar(hmax)", lambda p: solve(p, heuristic="hmax")),
            ("builtin astar(lmcut)", lambda p: solve(p, heuristic="lmcut"))]
    if not skip_fd and fast_downward.available():
        runs.append(("fast-downward astar(lmcut())", lambda p: fast_downward.solve(p, time_limit=60)))
    for name, planner in runs:
        per = []
        t_all = time.perf_counter()
        lengths[name] = []
        for i in range(1, 502):
            t0 = time.perf_counter()
            prob = load_problem(BW / "generated_basic" / f"instance-{i}.pddl", domain)
            lengths[name].append(planner(prob).cost)
            per.append(time.perf_counter() - t0)
        totals[name] = time.perf_counter() - t_all
        print(f"Blocksworld, {name}: 501 instances in {totals[name]:.2f} s (median {statistics.median(per) * 1e3:.2f} "
              f"ms, max {max(per) * 1e3:.1f} ms per instance)", flush=True)
    first = runs[0][0]
    for name, _ in runs[1:]:
        same = sum(a == b for a, b in zip(lengths[first], lengths[name]))
        print(f"  same optimal length as {first} on {same}/501; {first} is {totals[name] / totals[first]:.1f}x "
              f"faster than {name}")


def _tasks(directory: Path, n: int) -> list[tuple[Path, Path]]:
    files = sorted(p for p in directory.glob("*.pddl") if "domain" not in p.name)
    out = []
    for task in files[:n]:
        number = task.stem.removeprefix("task")  # pyperplan: domain01.pddl goes with task01.pddl
        for domain in (directory / f"domain_{task.name}", directory / f"{task.stem}-domain.pddl",
                       directory / f"domain{number}.pddl", directory / "domain.pddl"):
            if domain.is_file():
                out.append((domain, task))
                break
    return out


def _run(label: str, fn) -> tuple[str, float, float]:
    """'length' or the error kind, wall seconds, CPU seconds."""
    c0, ch0, t0 = time.process_time(), _children_cpu(), time.perf_counter()
    try:
        result = fn()
        outcome = str(result.cost)
    except PlanprobeError as exc:
        outcome = type(exc).__name__.replace("Error", "").replace("Planner", "") or "error"
        outcome = {"Timeout": "time-out"}.get(outcome, outcome)
    return outcome, time.perf_counter() - t0, time.process_time() - c0 + _children_cpu() - ch0


def ipc(root: Path, domains: list[str], n: int, time_limit: float, heuristic: str, skip_fd: bool,
        ties: str = "lifo", auto: bool = False) -> None:
    """Each task with the built-in A*, then (``auto``) ``solve_auto``, then Fast Downward, one after
    the other; a summary of how many each solved within the limit and how often it was no slower."""
    if n <= 0:
        return
    use_fd = not skip_fd and fast_downward.available()
    print(f"\nIPC tasks from {root}: first {n} per domain, limit {time_limit:g} s wall clock each; "
          f"built-in astar({heuristic}, {ties} ties){', auto' if auto else ''}"
          f"{' vs Fast Downward astar(lmcut())' if use_fd else ''}")
    head = "| domain | task | built-in length | wall s | CPU s | expanded | exp./s |"
    if auto:
        head += " auto: planner | wall s | CPU s |"
    if use_fd:
        head += " FD length | wall s | CPU s | expanded | exp./s | built-in / FD |" + (" auto / FD |" if auto else "")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    tally = {"tasks": 0, "builtin solved": 0, "auto solved": 0, "fd solved": 0, "builtin <= fd": 0,
             "auto <= fd": 0, "builtin CPU <= fd CPU": 0, "auto CPU <= fd CPU": 0}
    for name in domains:
        directory = root / name
        tasks = _tasks(directory, n)
        if not tasks:
            print(f"| {name} | (no tasks in {directory}) |")
            continue
        for domain_path, task_path in tasks:
            try:
                prob = load(domain_path, task_path)
            except PlanprobeError as exc:
                print(f"| {name} | {task_path.name} | cannot read: {str(exc)[:90]} |")
                continue
            tally["tasks"] += 1
            expanded = [0, 0]
            chosen = [""]

            def builtin():
                result = solve(load(domain_path, task_path), heuristic=heuristic, time_limit=time_limit, ties=ties)
                assert validate(prob, result.steps).valid
                expanded[0] = result.expanded
                return result

            def automatic():
                result = solve_auto(load(domain_path, task_path), heuristic=heuristic, time_limit=time_limit,
                                    ties=ties)
                assert validate(prob, result.steps).valid
                chosen[0] = "FD" if result.planner.startswith("fast-downward") else "built-in"
                return result

            def fd():
                result = fast_downward.solve(load(domain_path, task_path), time_limit=time_limit)
                expanded[1] = result.expanded
                return result

            b_out, b_wall, b_cpu = _run("builtin", builtin)
            tally["builtin solved"] += b_out.isdigit()
            rate = f"{expanded[0] / b_wall:,.0f}" if b_out.isdigit() else ""
            row = f"| {name} | {task_path.name} | {b_out} | {b_wall:.2f} | {b_cpu:.2f} | {expanded[0] or ''} | {rate} |"
            a_out, a_wall, a_cpu = "", 0.0, 0.0
            if auto:
                a_out, a_wall, a_cpu = _run("auto", automatic)
                tally["auto solved"] += a_out.isdigit()
                row += f" {chosen[0] if a_out.isdigit() else a_out} | {a_wall:.2f} | {a_cpu:.2f} |"
            if use_fd:
                f_out, f_wall, f_cpu = _run("fd", fd)
                tally["fd solved"] += f_out.isdigit()
                ratio = f"{b_wall / f_wall:.2f}x" if b_out.isdigit() and f_out.isdigit() else ""
                for out in (b_out, a_out):
                    if out.isdigit() and f_out.isdigit() and out != f_out:
                        ratio += " LENGTHS DIFFER"
                if b_out.isdigit() and (not f_out.isdigit() or b_wall <= f_wall):
                    tally["builtin <= fd"] += 1
                if a_out.isdigit() and (not f_out.isdigit() or a_wall <= f_wall):
                    tally["auto <= fd"] += 1
                if b_out.isdigit() and (not f_out.isdigit() or b_cpu <= f_cpu):
                    tally["builtin CPU <= fd CPU"] += 1
                if a_out.isdigit() and (not f_out.isdigit() or a_cpu <= f_cpu):
                    tally["auto CPU <= fd CPU"] += 1
                # a killed search process is not our child when it dies: its CPU time is not counted
                f_cpu_text = f"{f_cpu:.2f}" if f_out.isdigit() else "—"
                f_rate = f"{expanded[1] / f_wall:,.0f}" if f_out.isdigit() else ""
                row += f" {f_out} | {f_wall:.2f} | {f_cpu_text} | {expanded[1] or ''} | {f_rate} | {ratio} |"
                if auto:
                    row += f" {a_wall / f_wall:.2f}x |" if a_out.isdigit() and f_out.isdigit() else " |"
            print(row, flush=True)
    print("\n" + ", ".join(f"{k}: {v}" for k, v in tally.items()
                           if use_fd or "fd" not in k if auto or "auto" not in k))


def limit_check(root: Path, domains: list[str], limit: float, skip_fd: bool) -> None:
    """The largest task of each domain under a short limit: how long does a time-out really take?"""
    use_fd = not skip_fd and fast_downward.available()
    print(f"\nTime-limit check: the last task (by name) of each domain, limit {limit:g} s wall clock")
    print("| domain | task | built-in outcome | wall s | FD outcome | wall s |")
    print("|---|---|---|---|---|---|")
    for name in domains:
        files = sorted(p for p in (root / name).glob("*.pddl") if "domain" not in p.name)
        if not files:
            continue
        task_path = files[-1]
        domain_path = next((d for d in (root / name / f"domain_{task_path.name}", root / name / "domain.pddl")
                            if d.is_file()), None)
        if domain_path is None:
            continue
        b_out, b_wall, _ = _run("builtin", lambda: solve(load(domain_path, task_path), heuristic="lmcut",
                                                           time_limit=limit))
        row = f"| {name} | {task_path.name} | {b_out} | {b_wall:.2f} |"
        if use_fd:
            f_out, f_wall, _ = _run("fd", lambda: fast_downward.solve(load(domain_path, task_path), time_limit=limit))
            row += f" {f_out} | {f_wall:.2f} |"
        print(row, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skip-fd", action="store_true", help="do not run Fast Downward")
    ap.add_argument("--skip-blocksworld", action="store_true", help="skip PlanBench's 501 Blocksworld instances")
    ap.add_argument("--ipc", type=Path, help="a directory of IPC domain directories (e.g. pyperplan's benchmarks/)")
    ap.add_argument("--domains", default="depot,elevators,freecell,zenotravel",
                    help="comma-separated domain directories, or 'all'")
    ap.add_argument("--tasks", type=int, default=5, help="tasks per domain (the first by file name)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per task and planner (wall clock)")
    ap.add_argument("--heuristic", default="lmcut", choices=("lmcut", "hmax", "blind"))
    ap.add_argument("--ties", default="lifo", choices=("lifo", "fifo"), help="the built-in A*'s tie order")
    ap.add_argument("--auto", action="store_true", help="also run solve_auto (built-in, Fast Downward past a "
                                                         "work budget) on each IPC task")
    ap.add_argument("--limit-check", type=float, metavar="S",
                    help="also run the largest task of each domain with this time limit and report the wall time")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    if not args.skip_fd and not fast_downward.available():
        print(fast_downward.INSTALL_HINT)
    if not args.skip_blocksworld:
        blocksworld(args.skip_fd)
    if args.ipc is not None:
        if not args.ipc.is_dir():
            sys.exit(f"--ipc {args.ipc}: not a directory")
        domains = ([d.name for d in sorted(args.ipc.iterdir()) if d.is_dir()] if args.domains == "all"
                   else [d for d in args.domains.split(",") if d])
        ipc(args.ipc, domains, args.tasks, args.time_limit, args.heuristic, args.skip_fd, args.ties, args.auto)
        if args.limit_check:
            limit_check(args.ipc, domains, args.limit_check, args.skip_fd)


if __name__ == "__main__":
    main()
