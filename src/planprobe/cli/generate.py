"""The ``planprobe generate`` group: each family contributes its own subcommand.

A family with the capability ``HasGenerateCommand`` names a function that registers
its command (``generate constraints``, ``pddl``, ``planbench``, ``travel``); a family
with only ``generate(n, seed)`` (``GeneratesSuites``, e.g. a plug-in) gets the
generic ``generate NAME`` with the transforms and planning protocols every suite
can take. The CLI knows no family by name. The group fills itself the first time it
is used (help or a subcommand), so commands other than ``generate`` load no family.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from ..errors import PlanprobeError
from .common import _progress, err_console


def generate_plugin_suite(name: str, output: Path, n: int, seed: int, transform: list[str], protocol: str,
                          steps: int, quiet: bool) -> int:
    """Write ``n`` cases of the family ``name``, checked by the family as they stream out."""
    from ..option_checks import check
    from ..suites.base import GeneratesSuites
    from ..suites.io import validate_case, write_suite_lines
    from ..suites.registry import get_family

    check("--n", n, at_least=1)
    family = get_family(name)
    if not isinstance(family, GeneratesSuites):
        raise PlanprobeError(f"family {name!r} cannot generate suites: it has no generate(n, seed) method "
                             "(see docs/extending.md)")
    transforms = None
    if transform:
        from ..suites.robust.transforms import parse_transforms

        transforms = parse_transforms(transform)
    if protocol != "execute" or steps != 1:
        from ..suites.protocols import check_protocol

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
            from ..suites.robust.transforms import transform_lines

            out = transform_lines(out, transforms, seed)
        if protocol != "execute" or steps != 1:
            from ..suites.protocols import wrap_lines

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


def add_family_commands(generate_app: typer.Typer) -> Iterator[None]:
    """Add every family's generate command to ``generate_app`` in the registry's order
    (built-ins first), one family per step, so a caller looking for one command loads only
    the families before it. A plug-in that fails to load still gets the generic command,
    which names the failure when run."""
    from ..plugins import _import
    from ..suites.base import GeneratesSuites, HasGenerateCommand, has_capability
    from ..suites.registry import family_names, get_family, is_builtin

    taken: set[str] = set()
    for name in family_names():
        try:
            family: Any = get_family(name)
        except PlanprobeError:
            if is_builtin(name):
                raise
            family = None
        if family is not None and has_capability(family, HasGenerateCommand):
            command, target = family.generate_command
            if command not in taken:
                register = _import(target)
                assert callable(register), target
                register(generate_app)
                taken.add(command)
        elif (family is None or not is_builtin(name) or has_capability(family, GeneratesSuites)) and name not in taken:
            generate_app.command(name)(_command(name))
            taken.add(name)
        yield


class FamilyCommands(TyperGroup):
    """The ``generate`` group, filled from the family registry as it is used: listing it
    (help) loads every family; running ``generate NAME`` loads the families up to NAME's."""

    _steps: Iterator[None] | None = None
    _families: typer.Typer

    def _fill(self, until: str | None = None) -> None:
        if self._steps is None:
            self._families = typer.Typer()
            self._steps = add_family_commands(self._families)
        for _ in self._steps:
            group: Any = typer.main.get_group(self._families)
            for name, command in group.commands.items():
                if name not in self.commands:
                    self.add_command(command, name)
            if until is not None and until in self.commands:
                return

    def list_commands(self, ctx: Any) -> list[str]:
        self._fill()
        return list(super().list_commands(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:
            self._fill(until=cmd_name)
        return super().get_command(ctx, cmd_name)


def register(app: typer.Typer) -> None:
    app.add_typer(typer.Typer(cls=FamilyCommands, help="Generate a suite of cases (JSONL).", no_args_is_help=True),
                  name="generate")
