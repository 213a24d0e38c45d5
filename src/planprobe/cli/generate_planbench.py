"""``planprobe generate planbench``: PlanBench's eight tasks as text cases.

Registered on ``cli.generate_app`` when ``cli`` imports this module; a thin
layer over ``planprobe.suites.planbench``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import _progress, err_console, parse_range

TEXT_TRANSFORMS = ("unsolvable", "unsolvable:contradiction")


def planbench_transforms(values: list[str]) -> bool:
    """Check ``--transform`` for text tasks: only a contradictory goal applies
    (the other transforms change tools, and these cases have none). Returns
    whether unsolvable variants are asked for."""
    from ..errors import PlanprobeError
    from ..suites.robust.transforms import parse_transforms

    unsolvable = False
    for kind, arg in parse_transforms(values):  # the shared names and their errors first
        if kind == "unsolvable" and arg in (None, "contradiction"):
            unsolvable = True
            continue
        name = kind if arg is None else f"{kind}:{arg}"
        raise PlanprobeError(
            f"--transform {name}: planbench cases are text tasks without tools, and {name} changes the tools; "
            "only unsolvable:contradiction applies (with --task t1). For the other transforms generate agent "
            "tasks: planprobe generate pddl --transform …")
    return unsolvable


def generate_planbench(
    output: Annotated[Path, typer.Option("-o", "--output", help="Suite file to write (JSONL).")],
    task: Annotated[str, typer.Option(help="t1 plan generation | t2 cost-optimal | t3 verification | t4 reuse | "
                                           "t5 generalization | t6 replanning | t7 plan execution | t8_1 shuffled "
                                           "goals | t8_2 full→partial | t8_3 partial→full.")] = "t1",
    domain: Annotated[str, typer.Option(help="blocksworld | mystery_blocksworld | random_blocksworld | logistics | "
                                             "mystery_logistics | random_logistics (PlanBench's names "
                                             "obfuscated_deceptive_logistics / obfuscated_randomized_logistics "
                                             "work too).")] = "blocksworld",
    n: Annotated[int, typer.Option("--n", help="Number of cases.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives a byte-identical suite.")] = 0,
    shots: Annotated[int | None, typer.Option(help="Worked examples before the query (default: 3 for t3, one "
                                                      "of each kind of plan; 1 otherwise).")] = None,
    blocks: Annotated[str, typer.Option(help="Blocksworld: blocks per problem, a number or a range like "
                                             "3-5.")] = "3-5",
    cities: Annotated[str, typer.Option(help="Logistics: cities per problem.")] = "2",
    locations: Annotated[str, typer.Option(help="Logistics: locations per city (the first is its "
                                                "airport).")] = "1-2",
    packages: Annotated[str, typer.Option(help="Logistics: packages (t5: packages in the chain).")] = "1-2",
    airplanes: Annotated[str, typer.Option(help="Logistics: airplanes (at least 1 when there are 2+ "
                                                "cities).")] = "1",
    verify: Annotated[str, typer.Option(help="t3: the level that decides pass/fail: binary (PlanBench's "
                                             "headline) | type | explanation; all three are recorded.")] = "binary",
    rules: Annotated[str, typer.Option(help="t7: planbench (only 'not' negates a stated fact, as PlanBench "
                                            "reads) | planprobe ('no longer', \"n't\"… negate too).")] = "planbench",
    transform: Annotated[list[str], typer.Option("--transform", help="unsolvable:contradiction (t1): half the "
                                                                     "cases get a goal proven unsolvable and must "
                                                                     "be refused. The tool transforms do not "
                                                                     "apply to text tasks.")] = [],  # noqa: B006 -- typer passes a new list
    corrected_text: Annotated[bool, typer.Option("--corrected-text", help="mystery_blocksworld: the domain "
                                                 "description with PlanBench's slip corrected (Overcome makes "
                                                 "'Province object' true, not 'Pain object'); default: "
                                                 "PlanBench's text verbatim, as its published figures used. "
                                                 "Recorded in each case.")] = False,
    workers: Annotated[int | None, typer.Option(help="Processes (default: all cores for 2000+ cases); the "
                                                        "output is the same for any number.")] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="No progress bar.")] = False,
) -> None:
    """Generate PlanBench's tasks as text prompts in its layout; replies are scored as PlanBench scores them."""
    from ..suites.io import write_suite_lines
    from ..suites.planbench import PlanBenchOptions, generate_lines

    opts = PlanBenchOptions(
        task=task, domain=domain, n=n, seed=seed, shots=shots, blocks=parse_range(blocks, "--blocks"),
        cities=parse_range(cities, "--cities"), locations=parse_range(locations, "--locations"),
        packages=parse_range(packages, "--packages"), airplanes=parse_range(airplanes, "--airplanes"),
        verify=verify, rules=rules, unsolvable=planbench_transforms(transform),
        corrected_text=corrected_text)
    opts.check()
    with _progress(quiet or n < 2000) as progress:
        bar = progress.add_task("generating", total=n)
        count = write_suite_lines(generate_lines(opts, workers), output, on_line=lambda _: progress.advance(bar))
    err_console.print(f"wrote {count} cases to {output}")


def register(generate_app: typer.Typer) -> None:
    generate_app.command("planbench")(generate_planbench)
