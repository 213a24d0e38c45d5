# ruff: noqa: B008  (typer declares options as call defaults)
"""``planprobe generate NAME`` for every installed plug-in family (entry-point group
``planprobe.families``) that has no command of its own: the family's
``generate(n, seed)`` (capability ``GeneratesSuites``), with the transforms and planning
protocols every suite can take. Registered on ``generate_app`` when ``cli`` imports
this module; only entry-point names are read here, the family is loaded when its
command runs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from .cli_common import _progress, err_console, generate_app
from .errors import PlanprobeError


def generate_plugin_suite(name: str, output: Path, n: int, seed: int, transform: list[str], protocol: str,
                          steps: int, quiet: bool) -> int:
    """Write ``n`` cases of the family ``name``, checked by the family as they stream out."""
    from .option_checks import check
    from .suites.base import GeneratesSuites
    from .suites.io import validate_case, write_suite_lines
    from .suites.registry import get_family

    check("--n", n, at_least=1)
    family = get_family(name)
    if not isinstance(family, GeneratesSuites):
        raise PlanprobeError(f"family {name!r} cannot generate suites: it has no generate(n, seed) method "
                             "(see docs/extending.md)")
    transforms = None
    if transform:
        from .suites.robust.transforms import parse_transforms

        transforms = parse_transforms(transform)
    if protocol != "execute" or steps != 1:
        from .suites.protocols import check_protocol

        check_protocol(protocol, steps)

    def lines():
        for k, case in enumerate(family.generate(n, seed)):
            if case.family != name:
                raise PlanprobeError(f"family {name!r}: generate() gave case {case.id!r} of family {case.family!r}")
            validate_case(case, f"{name}.generate() case {k}")
            yield case.model_dump_json()

    with _progress(quiet) as progress:
        task = progress.add_task("generating", total=n)
        out = lines()
        if transforms is not None:
            from .suites.robust.transforms import transform_lines

            out = transform_lines(out, transforms, seed)
        if protocol != "execute" or steps != 1:
            from .suites.protocols import wrap_lines

            out = wrap_lines(out, protocol, steps, seed)
        return write_suite_lines(out, output, on_line=lambda _: progress.advance(task))


def _command(name: str):
    def generate_family(
        output: Path = typer.Option(..., "-o", "--output", help="Suite file to write (JSONL)."),
        n: int = typer.Option(100, "--n", help="Number of cases."),
        seed: int = typer.Option(0, help="Seed; the same seed gives a byte-identical suite."),
        transform: list[str] = typer.Option([], "--transform", help="Robustness variant (as for 'generate "
                                            "constraints'; the family must support it)."),
        protocol: str = typer.Option("execute", help="execute | holistic | stepwise (see docs/protocols.md)."),
        steps: int = typer.Option(1, help="--protocol stepwise: how many next steps to predict (1-3)."),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bar."),
    ) -> None:
        count = generate_plugin_suite(name, output, n, seed, transform, protocol, steps, quiet)
        err_console.print(f"wrote {count} cases to {output}")

    generate_family.__doc__ = f"Cases of the plug-in family {name!r} (its generate(n, seed))."
    return generate_family


def register_plugin_commands() -> None:
    from .suites.registry import family_names, is_builtin

    taken = {c.name for c in generate_app.registered_commands}
    for name in family_names():
        if not is_builtin(name) and name not in taken:
            generate_app.command(name)(_command(name))
            taken.add(name)


register_plugin_commands()
