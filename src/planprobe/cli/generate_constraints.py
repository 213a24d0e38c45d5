"""``planprobe generate constraints``: PDoctor-style suites (family ``constraints``), the
command that family contributes to ``generate`` (see ``generate_plugins.py``)."""

from __future__ import annotations

from pathlib import Path

import typer

from ..option_checks import check
from .common import _progress, err_console, parse_range


def generate_constraints(
    output: Path = typer.Option(..., "-o", "--output", help="Suite file to write (JSONL)."),
    actions: str = typer.Option("3-5", help="Actions per case |A|: a number or a range like 3-5 (the difficulty)."),
    n: int = typer.Option(100, "--n", help="Number of cases."),
    seed: int = typer.Option(0, help="Seed; the same seed gives a byte-identical suite."),
    extended: bool = typer.Option(False, help="Extended mode: time windows, durations, start_time, restarts."),
    max_sentences: int | None = typer.Option(
        None, help="Max sentences per requirement (N in Alg. 1; 1-100). Default: |A|-1 (more above |A| = 9), "
                   "enough for every action to be constrained."),
    max_iterations: int = typer.Option(20, help="Max candidate sentences tried per sentence (K in Alg. 1; "
                                                "1-10000)."),
    allow_unconstrained: bool = typer.Option(False, help="Keep requirements that leave some action unconstrained "
                                                         "(by default every action is linked to the others)."),
    style: str = typer.Option("planprobe", help="planprobe (task list, defined terms, planprobe's error classes) "
                                                "| paper (PDoctor's own templates, tools and error classes); "
                                                "see docs/constraints.md."),
    max_duration: int = typer.Option(3, help="Extended mode: task durations are 1..this many hours (1-12), drawn to fit in a day."),
    topic: str | None = typer.Option(None, help="Use only this job of the lexicon as topic."),
    lexicon: Path | None = typer.Option(None, help="A lexicon file to use instead of the embedded one."),
    workers: int | None = typer.Option(None, help="Processes to generate with (default: all cores for "
                                                      "2000+ cases); the output is the same for any number."),
    transform: list[str] = typer.Option([], "--transform", help="Robustness variant: extraneous:K | broken | "
                                         "unsolvable[:removal|contradiction|missing-info] | cost. Repeatable; "
                                         "they compose (see docs/robustness.md)."),
    protocol: str = typer.Option("execute", help="execute (run the tools) | holistic (answer the whole plan as "
                                                 "JSON) | stepwise (predict the next steps after a gold prefix); "
                                                 "see docs/protocols.md."),
    steps: int = typer.Option(1, help="--protocol stepwise: how many next steps to predict (1-3)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
) -> None:
    """Synthesize PDoctor-style planning tasks whose constraints are the oracle."""
    from ..suites.constraints.generator import ConstraintSuiteOptions, generate_lines
    from ..suites.constraints.lexicon import load_lexicon
    from ..suites.constraints.synthesis import SynthesisOptions
    from ..suites.io import write_suite_lines

    opts = ConstraintSuiteOptions(
        actions=parse_range(actions), n=n, seed=seed, extended=extended, max_duration=max_duration,
        topic=topic, lexicon=load_lexicon(lexicon), style=style, allow_unconstrained=allow_unconstrained,
        synthesis=SynthesisOptions(max_sentences=max_sentences, max_iterations=max_iterations),
    )
    opts.check()
    check("--workers", workers, at_least=1)
    with _progress(quiet or n < 2000) as progress:
        task = progress.add_task("generating", total=n)
        lines = generate_lines(opts, workers)
        if transform:
            from ..suites.robust.transforms import parse_transforms, transform_lines

            lines = transform_lines(lines, parse_transforms(transform), seed)
        if protocol != "execute" or steps != 1:
            from ..suites.protocols import wrap_lines

            lines = wrap_lines(lines, protocol, steps, seed)
        count = write_suite_lines(lines, output, on_line=lambda _: progress.advance(task))
    err_console.print(f"wrote {count} cases to {output}")


def register(generate_app: typer.Typer) -> None:
    generate_app.command("constraints")(generate_constraints)
