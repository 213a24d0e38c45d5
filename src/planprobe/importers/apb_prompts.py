"""APB's prompt texts, read at run time from the user's checkout of APB's code.

APB's repository (github.com/Mikivishy/AgentPlanningBenchmark) states no
licence, so planprobe ships none of its prose. APB mode needs the exact texts
(the tested model's system prompt, the six split instructions, the five judge
prompts) or its figures are not APB's, so they are read from the user's own
checkout: ``--apb-code DIR`` or ``PLANPROBE_APB_CODE=DIR``, file
``evaluation/apb_eval/prompts.py``.

That file is untrusted input: it is parsed with ``ast`` and read as data,
never imported or executed. Only module-level assignments of string constants
are accepted, plus ``+`` and f-strings whose fields name strings assigned
earlier; anything else bound to a needed name is refused with one line naming
the file, line and variable. The SHA-256 of the file is kept with the texts so
that cases and judgements can say which prompts produced them.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import PlanprobeError

ENV_VAR = "PLANPROBE_APB_CODE"
APB_REPO = "https://github.com/Mikivishy/AgentPlanningBenchmark"
PROMPTS_FILE = "evaluation/apb_eval/prompts.py"
HOW_TO_GET = (f"APB mode needs APB's prompt texts, which planprobe does not ship (APB's code states no licence): "
              f"run 'git clone {APB_REPO}' and pass --apb-code AgentPlanningBenchmark (or set {ENV_VAR} to that "
              "directory)")

# The names APB's code gives its prompts: the tested model's system prompt, the
# six split instructions, the five judge system prompts.
PREDICT_NAMES: tuple[str, ...] = (
    "PREDICT_SYSTEM", "HOLISTIC_INSTRUCTION", "HOLISTIC_TOOL_EXTRANEOUS_INSTRUCTION", "UNSOLVABLE_INSTRUCTION",
    "STEP_WISE_INSTRUCTION", "STEP_WISE_TOOL_EXTRANEOUS_INSTRUCTION", "STEP_WISE_TOOL_BROKEN_INSTRUCTION",
)
JUDGE_NAMES: tuple[str, ...] = (
    "HOLISTIC_JUDGE_PROMPT", "TOOL_EXTRANEOUS_JUDGE_PROMPT", "UNSOLVABLE_JUDGE_PROMPT", "STEP_WISE_JUDGE_PROMPT",
    "TOOL_BROKEN_JUDGE_PROMPT",
)
NAMES: tuple[str, ...] = PREDICT_NAMES + JUDGE_NAMES


@dataclass(frozen=True)
class ApbPrompts:
    """APB's prompt texts by their names in APB's code, and the file they came from."""

    texts: Mapping[str, str]
    path: Path
    sha256: str

    def __getitem__(self, name: str) -> str:
        return self.texts[name]

    def describe(self) -> str:
        return f"APB prompts from {self.path} (sha256 {self.sha256[:12]})"


def locate(code_dir: Path | None = None) -> Path:
    """The prompts file of ``code_dir``, else of ``$PLANPROBE_APB_CODE``; PlanprobeError
    (saying how to get APB's code) when neither is given or the file is not there."""
    if code_dir is not None:
        root, how = Path(code_dir), f"--apb-code {code_dir}"
    elif os.environ.get(ENV_VAR):
        root = Path(os.environ[ENV_VAR])
        how = f"{ENV_VAR}={root}"
    else:
        raise PlanprobeError(HOW_TO_GET)
    if not root.is_dir():
        raise PlanprobeError(f"{how}: not a directory (it must be a checkout of {APB_REPO})")
    path = root / PROMPTS_FILE
    if not path.is_file():
        raise PlanprobeError(f"{how}: no {PROMPTS_FILE} in it (the directory must be a checkout of {APB_REPO})")
    return path


def load(code_dir: Path | None = None) -> ApbPrompts:
    """APB's prompts from ``--apb-code DIR`` or ``$PLANPROBE_APB_CODE`` (read once per file version)."""
    path = locate(code_dir).resolve()
    st = path.stat()
    return _read_cached(str(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _read_cached(path: str, mtime_ns: int, size: int) -> ApbPrompts:
    return read_prompts(Path(path))


def read_prompts(path: Path) -> ApbPrompts:
    """Parse one prompts.py as data; every needed name must be a string it can read."""
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise PlanprobeError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return ApbPrompts(texts=parse_prompts(source, path), path=path, sha256=hashlib.sha256(source).hexdigest())


class _NotAString(Exception):
    """An expression that is not a string this reader accepts (the message says what it is)."""


def parse_prompts(source: bytes | str, path: Path) -> dict[str, str]:
    """The ``NAMES`` texts of a prompts.py source, read without running it."""
    try:
        tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        raise PlanprobeError(f"{path}:{line or 1}: not valid Python ({getattr(exc, 'msg', exc)})") from None
    values: dict[str, str] = {}
    refused: dict[str, str] = {}  # name -> "LINE: why"
    for stmt in tree.body:
        simple = _simple_targets(stmt)
        for name in _bound_names(stmt) - set(simple):
            values.pop(name, None)
            refused[name] = f"{stmt.lineno}: bound by a statement of kind {type(stmt).__name__}, not a plain assignment"
        if not simple:
            continue
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        try:
            text = _string(value, values)
        except _NotAString as exc:
            for name in simple:
                values.pop(name, None)
                refused[name] = f"{stmt.lineno}: {exc}"
            continue
        for name in simple:
            values[name] = text
            refused.pop(name, None)
    texts = {}
    for name in NAMES:
        if name in values:
            texts[name] = values[name]
        elif name in refused:
            line, why = refused[name].split(": ", 1)
            raise PlanprobeError(f"{path}:{line}: variable {name}: {why} (planprobe reads APB's prompts as data: "
                                 "string constants and simple f-strings only, never runs them)")
        else:
            raise PlanprobeError(f"{path}: variable {name}: not assigned at module level (is this APB's "
                                 f"{PROMPTS_FILE}?)")
    return texts


def _simple_targets(stmt: ast.stmt) -> list[str]:
    """Names a plain ``NAME = …`` / ``NAME: T = …`` statement assigns; [] for anything else."""
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return [stmt.target.id]
    return []


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Every module-level name a statement binds or deletes (function and class bodies
    bind their own scope, except through ``global``)."""
    names: set[str] = set()
    for node in _walk_module_scope(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Global):
            names.update(node.names)
    return names


def _walk_module_scope(node: ast.AST) -> Iterator[ast.AST]:
    yield node
    scoped = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
    for child in ast.iter_child_nodes(node):
        if scoped:  # inside a new scope only ``global`` statements reach the module
            yield from (n for n in ast.walk(child) if isinstance(n, ast.Global))
        else:
            yield from _walk_module_scope(child)


def _string(node: ast.expr | None, values: Mapping[str, str]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise _NotAString(f"refers to {node.id}, which is not a string assigned above")
        return values[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string(node.left, values) + _string(node.right, values)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
            elif (isinstance(part, ast.FormattedValue) and part.conversion in (-1, ord("s"))
                  and part.format_spec is None and isinstance(part.value, ast.Name)):
                parts.append(_string(part.value, values))
            else:
                raise _NotAString("an f-string field other than the name of a string assigned above")
        return "".join(parts)
    what = "nothing" if node is None else type(node).__name__
    raise _NotAString(f"not a string constant (an expression of kind {what})")
