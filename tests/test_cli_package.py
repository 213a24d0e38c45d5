"""The command tree of cli/: built top-down by cli/root.py, the generate group filled from the
family registry (a family's own command through HasGenerateCommand, else the generic one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import typer
from typer.testing import CliRunner

from planprobe.suites.base import HasGenerateCommand, has_capability
from planprobe.suites.registry import (
    family_names,
    get_family,
    register_family,
    unregister_family,
)

WRITTEN: list[str] = []


def register(generate_app: typer.Typer) -> None:
    """The ``generate_command`` target of the test family below."""

    @generate_app.command("fancy")
    def fancy(output: Path = typer.Option(..., "-o"), colour: str = typer.Option("red")) -> None:
        """Cases of the test family, with an option of its own."""
        WRITTEN.append(colour)
        output.write_text(json.dumps({"colour": colour}) + "\n")


class FancyFamily:
    """A family that only contributes a generate command (the rest borrowed from constraints)."""

    name = "fancy-test"
    generate_command = ("fancy", f"{__name__}:register")
    faults: ClassVar[dict[str, str]] = {}

    def __getattr__(self, member: str) -> Any:
        return getattr(get_family("constraints"), member)

    def validate(self, case: Any) -> None: ...
    def environment(self, case: Any, limits: Any, trial: int = 0, agent: str = "") -> Any: ...
    def check(self, case: Any, trace: Any) -> Any: ...
    def reference_plan(self, case: Any) -> list[Any]: return []
    def random_plan(self, case: Any, rng: Any) -> list[Any]: return []
    def faulty_plan(self, case: Any, fault: str, rng: Any) -> None: return None


def _app() -> typer.Typer:
    from planprobe.cli.root import build_app

    return build_app()


def test_the_builtin_families_contribute_their_generate_commands():
    own = {name: get_family(name).generate_command[0] for name in family_names()
           if has_capability(get_family(name), HasGenerateCommand)}
    assert own == {"constraints": "constraints", "pddl": "pddl", "planbench": "planbench", "itinerary": "travel"}
    out = CliRunner().invoke(_app(), ["generate", "--help"], env={"COLUMNS": "200"}).output
    listed = [word for word in ("constraints", "pddl", "planbench", "travel") if f" {word} " in out]
    assert listed == ["constraints", "pddl", "planbench", "travel"]


def test_a_registered_family_adds_its_own_generate_command(tmp_path):
    register_family(FancyFamily)
    try:
        app = _app()
        runner = CliRunner()
        assert " fancy " in runner.invoke(app, ["generate", "--help"], env={"COLUMNS": "200"}).output
        r = runner.invoke(app, ["generate", "fancy", "-o", str(tmp_path / "f.jsonl"), "--colour", "blue"])
        assert r.exit_code == 0, r.output
        assert WRITTEN[-1] == "blue" and json.loads((tmp_path / "f.jsonl").read_text()) == {"colour": "blue"}
        # its own command, not the generic one named after the family
        assert runner.invoke(app, ["generate", "fancy-test", "--help"]).exit_code != 0
    finally:
        unregister_family("fancy-test")


def test_commands_other_than_generate_load_no_family():
    import subprocess
    import sys

    code = ("import sys; from planprobe.cli.root import app; import typer.main as m; "
            "g = m.get_command(app); "
            "print(sorted(k for k in sys.modules if k.startswith('planprobe.suites.') and k.endswith('.family')))")
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-500:]
    assert r.stdout.strip() == "[]"


def test_generate_name_loads_only_the_families_before_it():
    import subprocess
    import sys

    code = ("import sys\nfrom typer.testing import CliRunner\nfrom planprobe.cli.root import app\n"
            "r = CliRunner().invoke(app, ['generate', 'constraints', '--help'])\nassert r.exit_code == 0, r.output\n"
            "print(sorted(k for k in sys.modules if k.startswith('planprobe.suites.') and k.endswith('.family')))")
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-500:]
    assert r.stdout.strip() == "['planprobe.suites.constraints.family']"


def _params(command: Any) -> dict[str, Any]:
    return {p.name: p for p in command.params}


def test_the_scaling_group_is_declared_once_and_taken_by_every_command_that_scales():
    import typer.main as m

    from planprobe.cli.root import app

    group = m.get_command(app)
    ctx = typer.Context(group)

    def cmd(*path: str) -> Any:
        c: Any = group
        for name in path:
            c = c.get_command(ctx, name)
        return c

    run, sweep = _params(cmd("run")), _params(cmd("sweep"))
    for name in ("workers", "backend", "address", "rpm", "tpm"):  # the same option (flag, help, panel) on both
        assert run[name].opts == sweep[name].opts and run[name].help == sweep[name].help
        assert run[name].rich_help_panel == sweep[name].rich_help_panel == "Scaling out"
    per_case = [_params(cmd(name))["workers"] for name in ("dissect", "label", "debug")]
    assert len({(p.help, p.rich_help_panel, tuple(p.opts)) for p in per_case}) == 1
    assert per_case[0].opts == ["--workers"]
    for name in ("dissect", "label", "debug"):  # the per-case commands take run's --backend and --address
        theirs = _params(cmd(name))
        for option in ("backend", "address"):
            assert (theirs[option].opts, theirs[option].help) == (run[option].opts, run[option].help), (name, option)


def test_serve_proxy_check_and_the_inspect_commands_are_registered_by_the_root():
    r = CliRunner().invoke(__import__("planprobe.cli.root", fromlist=["app"]).app, ["--help"])
    assert r.exit_code == 0
    for name in ("serve", "proxy", "check", "export"):
        assert f" {name} " in r.output, name
    r = CliRunner().invoke(__import__("planprobe.cli.root", fromlist=["app"]).app, ["import", "--help"])
    assert " inspect " in r.output
    r = CliRunner().invoke(__import__("planprobe.cli.root", fromlist=["app"]).app, ["export", "--help"])
    assert " inspect " in r.output


def test_bad_scaling_options_are_one_line_before_any_work(tmp_path):
    from planprobe.cli.root import app

    suite = tmp_path / "missing.jsonl"  # never read: the option is refused first
    for args, fragment in ((["--workers", "0"], "--workers"), (["--backend", "cloud"], "--backend"),
                           (["--address", "h:1"], "--address"), (["--rpm", "0"], "--rpm")):
        r = CliRunner().invoke(app, ["run", str(suite), "--out", str(tmp_path / "run"), *args])
        assert r.exit_code != 0 and fragment in str(r.exception or r.output), (args, r.output)
        assert not (tmp_path / "run").exists()
