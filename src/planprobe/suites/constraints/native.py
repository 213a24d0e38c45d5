"""Which build of the constraint family's hot modules is imported: mypyc-compiled or pure Python.

``scripts/compile`` compiles the modules in ``COMPILED`` with mypyc next to their ``.py`` files
(issue #10's throughput); Python then imports the ``.so`` before the ``.py``. The pure modules stay
the reference and the default. This module, run by the package's ``__init__`` before any of them is
imported, falls back to the pure ones when ``PLANPROBE_PURE`` is set (to compare the two) or when a
``.py`` changed after compiling (a stale build is never run), and says which build is in use.
This module itself is never compiled.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# the modules scripts/compile compiles (one mypyc group, so calls between them are native)
COMPILED = ("draws", "synthesis", "reader", "reader_phrases", "reader_meaning", "reading", "reader_fast", "mentions",
            "render", "grammar", "solver", "generator")
PACKAGE = __name__.rpartition(".")[0]
GROUP = f"{PACKAGE}._native"  # the shared library of the group: _native__mypyc.<suffix>
STAMP = "_native.json"  # written by scripts/compile: {"mypyc": version, "sources": {module: sha256}}
PURE_ENV = "PLANPROBE_PURE"
HERE = Path(__file__).resolve().parent

_state: dict[str, str] = {"build": "pure", "why": "not chosen yet"}


def source_digest(module: str) -> str:
    """SHA-256 of a module's source, as recorded in the stamp when it was compiled."""
    return hashlib.sha256((HERE / f"{module}.py").read_bytes()).hexdigest()


def compiled_files(module: str) -> list[Path]:
    """The extension files of one module in this directory (any interpreter's suffix)."""
    return [HERE / f"{module}{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if (HERE / f"{module}{suffix}").exists()]


def _stale() -> str | None:
    """Why the compiled build must not be used, or None when every module matches its source."""
    try:
        stamp = json.loads((HERE / STAMP).read_text())
        sources = stamp["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"{STAMP} is missing or unreadable"
    for module in COMPILED:
        if not compiled_files(module):
            return f"{module} is not compiled"
        if sources.get(module) != source_digest(module):
            return f"{module}.py changed since compiling: run scripts/compile"
    return None


class _PureFinder(importlib.abc.MetaPathFinder):
    """Imports the listed modules from their .py files even where a compiled one sits beside them."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != PACKAGE or name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, HERE / f"{name}.py")


def choose() -> None:
    """Decide the build once, before any listed module is imported; install the pure finder if needed."""
    if any(f"{PACKAGE}.{module}" in sys.modules for module in COMPILED):
        return  # already imported: the decision was made (or the package re-imported)
    if not any(compiled_files(module) for module in COMPILED):
        _state.update(build="pure", why="nothing compiled; scripts/setup builds it unless --pure, or scripts/compile")
        return
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        why: str | None = f"{PURE_ENV} is set"
    else:
        why = _stale()
    if why is None:
        _state.update(build="compiled", why=f"mypyc {_stamp_version()}")
        return
    if not any(isinstance(finder, _PureFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PureFinder())
    _state.update(build="pure", why=why)


def _stamp_version() -> str:
    try:
        return str(json.loads((HERE / STAMP).read_text()).get("mypyc", "?"))
    except (OSError, ValueError, AttributeError):
        return "?"


def in_use() -> list[str]:
    """The listed modules imported so far that are compiled."""
    return [module for module in COMPILED
            if (mod := sys.modules.get(f"{PACKAGE}.{module}")) is not None
            and not str(getattr(mod, "__file__", "")).endswith(".py")]


def status() -> str:
    """One line for --version and verbose output: which build generation runs on, and why."""
    if _state["build"] == "compiled":
        return f"constraint modules: compiled ({_state['why']}, {len(COMPILED)} modules)"
    return f"constraint modules: pure Python ({_state['why']})"


def is_compiled() -> bool:
    """True when the compiled build was chosen (tests that patch module globals need the pure one)."""
    return _state["build"] == "compiled"
