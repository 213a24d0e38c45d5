"""The import graph of the ``planprobe`` package, read from the source with ``ast``
(nothing is imported): which planprobe modules each module imports."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "planprobe"


def module_name(path: Path, root: Path = SRC) -> str:
    parts = ["planprobe", *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = SRC) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(body: list[ast.stmt], in_functions: bool, type_checking: bool = False) -> Iterator[ast.stmt]:
    """The statements that run when the module is imported (class bodies, top-level if/try/with;
    not ``if TYPE_CHECKING``); with ``in_functions`` also those inside functions, with
    ``type_checking`` also those under ``if TYPE_CHECKING``."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if in_functions:
                yield from _statements(node.body, in_functions, type_checking)
        elif isinstance(node, ast.If):
            if type_checking or not _is_type_checking(node):
                yield from _statements(node.body, in_functions, type_checking)
                yield from _statements(node.orelse, in_functions, type_checking)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *[h.body for h in node.handlers]):
                yield from _statements(block, in_functions, type_checking)
        elif isinstance(node, (ast.ClassDef, ast.With, ast.For, ast.While)):
            yield from _statements(node.body, in_functions, type_checking)


def imports_of(name: str, path: Path, known: set[str], in_functions: bool = False,
               type_checking: bool = False) -> set[str]:
    """The planprobe modules ``name`` imports: ``from a import b`` counts as importing
    ``a.b`` when that is a module, else ``a``. The parent packages Python imports on the
    way are not edges (every module would otherwise depend on ``planprobe/__init__``)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in _statements(ast.parse(path.read_text(encoding="utf-8")).body, in_functions, type_checking):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "planprobe")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "planprobe":
                continue
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            out.update(subs)
            if len(subs) < len(node.names):
                out.add(target)
    out.discard(name)
    return {m for m in out if m in known}


def graph(in_functions: bool = False, root: Path = SRC, type_checking: bool = False) -> dict[str, set[str]]:
    """Every module's imports; ``in_functions`` / ``type_checking``: also those inside functions / under
    ``if TYPE_CHECKING`` (every import a reader of the code follows)."""
    mods = modules(root)
    known = set(mods)
    return {name: imports_of(name, path, known, in_functions, type_checking) for name, path in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle as [a, b, ..., a], or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    for start in sorted(edges):
        if state.get(start):
            continue
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(edges.get(child, ())))))
    return None
