"""``planprobe generate pddl``: Blocksworld / Logistics problems as agent cases.

Registered on ``cli.generate_app`` when ``cli`` imports this module; a thin
layer over ``planprobe.suites.pddl_agent``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import _progress, err_console, parse_range


def generate_pddl(
    output: Annotated[Path, typer.Option("-o", "--output", help="Suite file to write (JSONL).")],
    domain: Annotated[str, typer.Option(help="blocksworld | logistics.")] = "blocksworld",
    n: Annotated[int, typer.Option("--n", help="Number of cases.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives a byte-identical suite.")] = 0,
    blocks: Annotated[str | None, typer.Option(help="Blocksworld: blocks per problem, a number or a range "
                                                       "like 3-5 (default 3-5).")] = None,
    size: Annotated[str | None, typer.Option(help="Problem size: blocks for blocksworld, packages for "
                                                     "logistics (a number or a range).")] = None,
    cities: Annotated[str, typer.Option(help="Logistics: cities per problem.")] = "2-3",
    locations: Annotated[str, typer.Option(help="Logistics: locations per city (the first is its "
                                                "airport).")] = "1-3",
    packages: Annotated[str | None, typer.Option(help="Logistics: packages (default 1-3; same as "
                                                         "--size).")] = None,
    airplanes: Annotated[str, typer.Option(help="Logistics: airplanes (at least 1 when there are 2+ "
                                                "cities).")] = "1-2",
    trucks: Annotated[int, typer.Option(help="Logistics: trucks per city.")] = 1,
    goal: Annotated[str | None, typer.Option(help="blocksworld: on (PlanBench: the on-atoms of a random "
                                                     "state; default) | full | partial; logistics: all "
                                                     "(default) | partial.")] = None,
    obfuscate: Annotated[str | None, typer.Option(help="mystery (deceptive words, PlanBench's mapping for "
                                                          "the standard domains) | random (random strings).")] = None,
    object_names: Annotated[str, typer.Option("--object-names", help="Obfuscated objects: style (words or "
                                                                     "strings) | neutral (o0, o1…) | keep.")] = "style",
    language: Annotated[str, typer.Option(help="nl (the domain's translation config; PDDL when it has none) "
                                               "| pddl.")] = "nl",
    observation: Annotated[str, typer.Option(help="What a successful call returns: state (the whole state) | "
                                                  "changes.")] = "state",
    failed_calls: Annotated[str, typer.Option("--failed-calls", help="error (a call whose preconditions fail "
                                                                     "is an order_error) | allowed.")] = "error",
    solve: Annotated[bool, typer.Option(help="Store an optimal plan (built-in A*) in each case; slow for big "
                                             "problems.")] = False,
    workers: Annotated[int | None, typer.Option(help="Processes (default: all cores for 2000+ cases); the "
                                                        "output is the same for any number.")] = None,
    transform: Annotated[list[str], typer.Option("--transform", help="Robustness variant: extraneous:K | broken | "
                                                                     "unsolvable[:removal|contradiction|missing-"
                                                                     "info] | cost. Repeatable; they compose (see "
                                                                     "docs/robustness.md).")] = [],  # noqa: B006 -- typer passes a new list
    protocol: Annotated[str, typer.Option(help="execute (run the tools) | holistic (answer the whole plan as "
                                               "JSON) | stepwise (predict the next steps after a gold prefix); "
                                               "see docs/protocols.md.")] = "execute",
    steps: Annotated[int, typer.Option(help="--protocol stepwise: how many next steps to predict (1-3).")] = 1,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="No progress bar.")] = False,
) -> None:
    """Generate planning problems whose actions are the agent's tools; the validator is the oracle."""
    from ..errors import PlanprobeError
    from ..suites.io import write_suite_lines
    from ..suites.pddl_agent import PDDLSuiteOptions, generate_lines

    if domain == "blocksworld":
        if packages is not None:
            raise PlanprobeError("--packages is a logistics option; use --blocks for blocksworld")
        if blocks is not None and size is not None and blocks != size:
            raise PlanprobeError("--blocks and --size say the same for blocksworld: give one")
        extra = {"blocks": parse_range(blocks or size or "3-5", "--blocks" if blocks else "--size")}
    else:
        if blocks is not None:
            raise PlanprobeError("--blocks is a blocksworld option; use --size or --packages for logistics")
        if packages is not None and size is not None and packages != size:
            raise PlanprobeError("--packages and --size say the same for logistics: give one")
        extra = {"packages": parse_range(packages or size or "1-3", "--packages" if packages else "--size"),
                 "cities": parse_range(cities, "--cities"), "locations": parse_range(locations, "--locations"),
                 "airplanes": parse_range(airplanes, "--airplanes")}
    opts = PDDLSuiteOptions(domain=domain, n=n, seed=seed, trucks=trucks, goal=goal, obfuscate=obfuscate,
                            object_names=object_names, language=language, observation=observation,
                            failed_calls=failed_calls, solve=solve, **extra)
    opts.check()
    transforms = pddl_transforms(transform)
    slow = any(kind == "cost" for kind, _ in transforms)  # each case pays for a cost-optimal search
    with _progress(quiet or (n < 2000 and not slow)) as progress:
        task = progress.add_task("generating", total=n)
        lines = generate_lines(opts, workers)
        if transforms:
            from ..suites.robust.transforms import transform_lines

            lines = transform_lines(lines, transforms, seed)
        if protocol != "execute" or steps != 1:
            from ..suites.protocols import wrap_lines

            lines = wrap_lines(lines, protocol, steps, seed)
        count = write_suite_lines(lines, output, on_line=lambda _: progress.advance(task))
    err_console.print(f"wrote {count} cases to {output}")


def pddl_transforms(values: list[str]) -> list:
    """``--transform`` for pddl agent cases: every robustness transform (cost: composites take
    both actions' arguments, the cheapest plan comes from the cost-optimal planner)."""
    from ..suites.robust.transforms import parse_transforms

    return parse_transforms(values)


def register(generate_app: typer.Typer) -> None:
    generate_app.command("pddl")(generate_pddl)
