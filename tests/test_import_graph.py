"""The package's import graph has no cycle, and keeps the layering of docs/ARCHITECTURE.md.

The graph is read from the source with ``ast`` (tests/import_graph.py), never by
importing. For the cycle test an edge is an import that runs when the module is
imported: module level, class bodies and top-level ``if``/``try`` blocks; imports
inside functions are allowed to point anywhere and are left out (they run later,
when every module is loaded), and so is ``if TYPE_CHECKING``. The parent packages
Python imports on the way (``planprobe/__init__``) are not edges either. The layering
rules hold for every import, inside functions too.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from import_graph import SRC, find_cycle, graph, imports_of, modules

FOUNDATION = {"version", "errors", "schema", "tool_args", "atomic", "plugins", "option_checks", "environment",
              "lenient_json"}
TOOLKITS = {"models", "pddl"}  # model backends; the PDDL toolkit (parser, planners, validator)
# the solver (issue #27) answers from the chat call alone: it may read text with the toolkits, never
# reach the cases (suites), the agents' prompts or parsers, or the run (runner, stores)
SOLVER = {"solver"}
LIBRARY = TOOLKITS | SOLVER | {"agents", "suites", "importers", "runner", "analysis", "llm_judge", "debug", "scale", "serve",
                               "integrations", "studies"}
TOP = {"cli", "api", "demo", "report", "view"}


def _part(module: str) -> str:
    """The first-level part of planprobe a module belongs to ('' for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _violations(edges: dict[str, set[str]], importer: set[str], allowed: set[str]) -> list[str]:
    return sorted(f"{a} imports {b}" for a, bs in edges.items() if _part(a) in importer
                  for b in bs if _part(b) not in allowed)


@pytest.fixture(scope="module")
def every_import() -> dict[str, set[str]]:
    return graph(in_functions=True)


def test_the_module_level_import_graph_is_acyclic():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_find_cycle_finds_a_cycle_and_the_reader_resolves_relative_imports(tmp_path):
    # the checks above must be able to fail: a made-up package with a cycle through a relative import
    pkg = tmp_path / "planprobe"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import a\n")
    (pkg / "sub" / "a.py").write_text("from ..b import thing\n\ndef f():\n    from . import late\n")
    (pkg / "sub" / "late.py").write_text("")
    (pkg / "b.py").write_text("import planprobe.sub.a\nthing = 1\n")
    edges = graph(root=pkg)
    assert edges["planprobe.sub"] == {"planprobe.sub.a"}
    assert edges["planprobe.sub.a"] == {"planprobe.b"}  # the import inside f() is not an edge
    assert find_cycle(edges) == ["planprobe.b", "planprobe.sub.a", "planprobe.b"]
    assert "planprobe.sub.late" in graph(in_functions=True, root=pkg)["planprobe.sub.a"]
    assert find_cycle({"x": {"y"}, "y": set()}) is None


def test_nothing_outside_cli_imports_cli(every_import):
    bad = sorted(f"{a} imports {b}" for a, bs in every_import.items() for b in bs
                 if _part(b) == "cli" and _part(a) not in ("cli", "__main__"))
    assert not bad, bad


def test_no_command_module_imports_the_root(every_import):
    bad = sorted(a for a, bs in every_import.items() if "planprobe.cli.root" in bs and a != "planprobe.cli")
    assert not bad, f"these import the root cli/root.py back: {bad}"


def test_the_foundation_imports_only_the_foundation(every_import):
    assert not _violations(every_import, FOUNDATION, FOUNDATION)


def test_the_toolkits_import_only_the_foundation_and_themselves(every_import):
    for toolkit in TOOLKITS:
        assert not _violations(every_import, {toolkit}, FOUNDATION | {toolkit}), toolkit


def test_the_solver_imports_only_the_foundation_the_toolkits_and_itself(every_import):
    assert not _violations(every_import, SOLVER, FOUNDATION | TOOLKITS | SOLVER)


# the PDDL toolkit's vocabularies and generators: what the families render their texts with. The solver reads
# those texts; it must not render them back (its reading is a second, independent one)
SOLVER_MAY_NOT_USE = {"planprobe.pddl.translation", "planprobe.pddl.translation_config", "planprobe.pddl.reply_parser",
                      "planprobe.pddl.generators", "planprobe.pddl.obfuscate", "planprobe.pddl.constructive"}


def test_the_solver_never_uses_the_vocabularies_of_the_families(every_import):
    bad = sorted(f"{a} imports {b}" for a, bs in every_import.items() if _part(a) == "solver"
                 for b in bs if b in SOLVER_MAY_NOT_USE or b == "planprobe.pddl")
    assert not bad, bad


def test_the_solver_rule_catches_an_import_of_a_family(every_import):
    # the rule above must be able to fail: one added edge from the solver into suites breaks it
    edges = {**every_import, "planprobe.solver.backend": {"planprobe.suites.pddl_agent.describe"}}
    assert _violations(edges, SOLVER, FOUNDATION | TOOLKITS | SOLVER) == [
        "planprobe.solver.backend imports planprobe.suites.pddl_agent.describe"]


def test_the_solver_readers_are_modules_of_the_solver():
    # built-in readers are named by "module:attribute" strings (no import edge): they must stay inside solver/
    from planprobe.solver.readers import BUILTIN_READERS

    assert all(target.startswith("planprobe.solver.") for target in BUILTIN_READERS.values())


# the families (suites/) never import the readers of outside data sets (importers/): what a family needs
# while a run is judged (a sandbox, databases, a record format) stays in the family, and the importers
# build the families' cases on top of it
def _families_importing_the_importers(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} imports {b}" for a, bs in edges.items() if _part(a) == "suites"
                  for b in bs if _part(b) == "importers")


def test_the_families_never_import_the_importers(every_import):
    assert not _families_importing_the_importers(every_import)


def test_the_importers_rule_catches_a_family_importing_an_importer(every_import):
    # the rule above must be able to fail: one added edge from a family into importers/ breaks it
    edges = {**every_import, "planprobe.suites.apibank.family": {"planprobe.importers.apibank"}}
    assert _families_importing_the_importers(edges) == [
        "planprobe.suites.apibank.family imports planprobe.importers.apibank"]


# every import counted (inside functions and under TYPE_CHECKING too): a circle hidden that way still makes
# two modules that cannot be read, moved or tested one without the other
NO_HIDDEN_CYCLES = ("suites", "importers")


def test_the_families_and_importers_have_no_import_circle_even_inside_functions_or_type_checking():
    edges = graph(in_functions=True, type_checking=True)
    inside = {a: {b for b in bs if _part(b) in NO_HIDDEN_CYCLES} for a, bs in edges.items()
              if _part(a) in NO_HIDDEN_CYCLES}
    cycle = find_cycle(inside)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_graph_counts_type_checking_imports_only_when_asked(tmp_path):
    pkg = tmp_path / "planprobe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "world.py").write_text("from . import handlers\n")
    (pkg / "handlers.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .world import W\n")
    assert graph(root=pkg, in_functions=True)["planprobe.handlers"] == set()
    edges = graph(root=pkg, in_functions=True, type_checking=True)
    assert find_cycle(edges) == ["planprobe.handlers", "planprobe.world", "planprobe.handlers"]


def test_the_library_never_imports_the_top_layer(every_import):
    assert not _violations(every_import, LIBRARY, FOUNDATION | LIBRARY)


def test_every_part_of_the_package_has_a_layer():
    parts = {_part(m) for m in modules()} - {"", "__main__"}
    assert parts <= FOUNDATION | LIBRARY | TOP, sorted(parts - FOUNDATION - LIBRARY - TOP)


def test_imports_of_reads_the_real_cli_root():
    known = set(modules())
    root = imports_of("planprobe.cli.root", SRC / "cli" / "root.py", known)
    # the command modules are imported by name when a command runs (cli/lazy.py), not at module level
    assert {"planprobe.cli.lazy", "planprobe.cli.common"} <= root


CLI_MODULES = sorted(m for m in modules() if m.startswith("planprobe.cli"))


@pytest.mark.parametrize("module", CLI_MODULES)
def test_each_cli_module_imports_alone(module):
    r = subprocess.run([sys.executable, "-c", f"import {module}"], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-800:]
