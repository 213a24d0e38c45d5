"""``planprobe pddl …``: validate plans and compute optimal plans for PDDL problems.

A thin layer over ``planprobe.pddl``. Exit codes: 0 for a valid plan or
a plan found, 1 for an invalid plan, 2 (through ``cli.main``) for bad input —
a PDDL syntax error, an unreadable file, an unsolvable problem, a planner
time-out — each reported as one line naming the file and what is wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..errors import PlanprobeError

pddl_app = typer.Typer(help="PDDL problems: validate plans (VAL-style, with PlanBench's relaxations) and plan "
                            "optimally.", no_args_is_help=True)

_out = Console(highlight=False, soft_wrap=True, emoji=False, markup=False)
_err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False, markup=False)
_RELAX = ("none", "delete", "precondition", "both")
_PLANNERS = ("auto", "builtin", "fast-downward")


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise PlanprobeError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None


def validate_cmd(
    domain: Annotated[Path, typer.Argument(help="Domain file (PDDL).")],
    problem: Annotated[Path, typer.Argument(help="Problem file (PDDL).")],
    plan: Annotated[Path, typer.Argument(help="Plan file: one step per line, like '(unstack a b)'; ';' starts a "
                                              "comment.")],
    relax: Annotated[str, typer.Option(help="Relaxed validation (PlanBench A.4.2): none | delete (ignore delete "
                                            "effects) | precondition (ignore preconditions) | both.")] = "none",
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Validate PLAN for PROBLEM; explain the first failing step or the unmet goals. Exit 1 if invalid."""
    from ..pddl import load, parse_plan, validate

    if relax.lower() not in _RELAX:
        raise PlanprobeError(f"--relax {relax!r}: expected one of {', '.join(_RELAX)}")
    steps = parse_plan(_read_text(plan, "plan"))
    result = validate(load(domain, problem), steps, relax=relax.lower())
    if as_json:
        _out.print(json.dumps({"domain": str(domain), "problem": str(problem), "plan": str(plan),
                               **result.to_dict()}, indent=2), markup=False)
    else:
        _out.print(result.explain(), markup=False)
    if not result.valid:
        raise typer.Exit(1)


def plan_cmd(
    domain: Annotated[Path, typer.Argument(help="Domain file (PDDL).")],
    problem: Annotated[Path, typer.Argument(help="Problem file (PDDL).")],
    planner: Annotated[str, typer.Option(help="auto (the built-in A* while cheap, Fast Downward past a work "
                                              "budget when installed; the choice is printed) | builtin (A*, "
                                              "optimal) | fast-downward (optimal astar(lmcut()); needs pip "
                                              "install 'planprobe\\[planner]').")] = "auto",
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds (wall clock) for the whole run, "
                                                                   "grounding included; a hard bound.")] = 60.0,
    heuristic: Annotated[str, typer.Option(help="built-in planner: lmcut (best informed; IPC-style tasks) | hmax "
                                                 "(cheapest per state; small Blocksworld/Logistics) | blind; all "
                                                 "admissible.")] = "lmcut",
    node_limit: Annotated[int, typer.Option("--node-limit", help="built-in planner: max states expanded "
                                                                 "(0: no limit; auto: Fast Downward takes over "
                                                                 "past it).")] = 0,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the plan here "
                                                                          "(default: print it).")] = None,
) -> None:
    """Compute an optimal plan for PROBLEM and print it (or write it with -o) in sas_plan format."""
    from ..pddl import fast_downward, load, solve
    from ..pddl.auto_planner import solve_auto
    from ..pddl.planner import HEURISTICS

    if planner not in _PLANNERS:
        raise PlanprobeError(f"--planner {planner!r}: expected one of {', '.join(_PLANNERS)}")
    if heuristic not in HEURISTICS:
        raise PlanprobeError(f"--heuristic {heuristic!r}: expected one of {', '.join(HEURISTICS)}")
    if time_limit <= 0 or node_limit < 0:
        raise PlanprobeError("--time-limit must be above 0 and --node-limit at least 0")
    prob = load(domain, problem)
    if planner == "auto":
        result = solve_auto(prob, heuristic=heuristic, time_limit=time_limit, node_limit=node_limit or None)
    elif planner == "builtin":
        result = solve(prob, heuristic=heuristic, time_limit=time_limit, node_limit=node_limit or None,
                       ties="lifo")
    else:
        result = fast_downward.solve(prob, time_limit=time_limit)
    if output is not None:
        from ..atomic import write_text_atomic

        write_text_atomic(output, result.text())
    else:
        _out.print(result.text(), end="", markup=False)
    stats = f", {result.expanded:,} states expanded" if result.expanded else ""
    _err.print(f"{'optimal ' if result.optimal else ''}plan of {result.cost} step{'' if result.cost == 1 else 's'} "
               f"by {result.planner} in {result.seconds:.2f} s{stats}"
               + (f"; written to {output}" if output is not None else ""), markup=False)
    if result.choice:
        _err.print(f"planner choice: {result.choice}", markup=False)


def register(app: typer.Typer) -> None:
    app.add_typer(pddl_app, name="pddl")
    pddl_app.command("validate")(validate_cmd)
    pddl_app.command("plan")(plan_cmd)
