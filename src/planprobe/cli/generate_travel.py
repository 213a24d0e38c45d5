"""``planprobe generate travel``: synthesized itineraries (family ``itinerary``).

Registered on ``cli.generate_app`` when ``cli`` imports this module; a thin layer
over ``planprobe.suites.itinerary``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import _progress, err_console


def generate_travel(
    output: Annotated[Path, typer.Option("-o", "--output", help="Suite file to write (JSONL).")],
    n: Annotated[int, typer.Option("--n", help="Number of cases.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives a byte-identical suite.")] = 0,
    level: Annotated[str, typer.Option(help="easy | medium | hard, or several comma-separated (cases "
                                            "cycle through them).")] = "easy,medium,hard",
    days: Annotated[str, typer.Option(help="Trip lengths: 3, 5, 7 or several comma-separated.")] = "3,5,7",
    cities: Annotated[int | None, typer.Option(help="Cities to visit, 1-3 (default: 1/2/3 for 3/5/7 "
                                                       "days, as TravelPlanner).")] = None,
    sandbox_cities: Annotated[int, typer.Option("--sandbox-cities", help="Cities of the destination state in "
                                                                         "each sandbox.")] = 3,
    cost_aware: Annotated[bool, typer.Option("--cost-aware", help="Ask for the cheapest plan: a plan passes "
                                                                  "only at the proven minimum cost.")] = False,
    workers: Annotated[int | None, typer.Option(help="Processes (default: all cores for 2000+ cases); the "
                                                        "output is the same for any number.")] = None,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="No progress bar.")] = False,
) -> None:
    """Generate TravelPlanner-like trips with a sandbox each, proven solvable, their minimum cost known."""
    from ..errors import PlanprobeError
    from ..suites.io import write_suite_lines
    from ..suites.itinerary.generate import ItineraryOptions, generate_lines

    try:
        day_list = tuple(int(d) for d in days.split(","))
    except ValueError:
        raise PlanprobeError(f"--days {days!r}: expected 3, 5, 7 or several comma-separated") from None
    opts = ItineraryOptions(n=n, seed=seed, levels=tuple(x.strip() for x in level.split(",")), days=day_list,
                            cities=cities, sandbox_cities=sandbox_cities, cost_aware=cost_aware)
    opts.check()
    with _progress(quiet or n < 2000) as progress:
        task = progress.add_task("generating", total=n)
        count = write_suite_lines(generate_lines(opts, workers), output, on_line=lambda _: progress.advance(task))
    err_console.print(f"wrote {count} cases to {output}")


def register(generate_app: typer.Typer) -> None:
    generate_app.command("travel")(generate_travel)
