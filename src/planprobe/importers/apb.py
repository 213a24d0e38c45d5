"""Import the Agent Planning Benchmark's split JSONL files as judged cases.

APB (seed ``001_…``; github.com/Mikivishy/AgentPlanningBenchmark, data on
Hugging Face) ships one JSONL file per split. The fields read here are those
its evaluation code reads: ``id``, ``split``, ``planning_regime``,
``task_category``, ``task_family``, ``source``, ``source_subset``, ``query``,
``tools_json``, ``tool_names_json``, ``extraneous_tool_names_json``,
``unsolvable_type``, ``plan``, ``tool_chain_json`` (holistic reference),
``prediction_horizon``, ``trajectory_prefix_json``, ``ground_truth_steps_json``,
``reference_remaining_steps_json``, ``broken_tool_name``,
``replacement_tool_json`` (step-wise) and ``files``. ``*_json`` fields hold JSON
text (an already-decoded list or object is accepted too).

Each row becomes one case of the ``judged`` family. The agent gets the query,
the tools and — for step-wise splits — the steps already taken, plus the
protocol's instruction (act out the whole task; take only the next N steps;
avoid distractors; recover from a broken tool; refuse an impossible task). The
mock tools replay the outputs recorded in the trajectories. The reference
(tool chain or next steps) goes to the judge only.

APB's tool lists come in several shapes (OpenAI function objects,
``{"tool_name", "description"}``, ``{"name", "description", "example"}``, plain
names); all become planprobe tool specs. Tool names outside ``[A-Za-z0-9_-]``
are rewritten with ``_`` (and every reference to them follows). APB cases are
multimodal; planprobe's agents are text-only, so referenced files are kept in
the spec and named in the task but not loaded.

Every problem names the file, line and field. Tool lists are read by ``apb_tools``,
trajectories by ``apb_steps``; this module turns a row into a case.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import PlanprobeError
from ..schema import Case, CaseMeta, OracleKind, ToolSpec
from ..suites.judged.apb_format import SPLIT_SETTINGS, SPLITS
from ..suites.judged.render import render_steps
from ..suites.judged.spec import (
    FAMILY,
    SPEC_VERSION,
    JudgedSpec,
    Reference,
    Step,
    check_spec,
)
from .apb_records import (
    ApbRowError,
    numbered_lines,
    row_json,
    row_json_list,
    skip_or_stop,
)
from .apb_steps import future_steps, read_steps, recorded_outputs
from .apb_tools import ToolNames, raw_name, tool_spec

INSTRUCTIONS = {
    "plan": "Carry out this task with the available tools, one call at a time (the tools return recorded "
            "outputs). When you are done, reply with a short summary of what you did.",
    "next_steps": "Take only the next {h} step(s): make the tool call(s) for them, one at a time, then stop "
                  "and reply with one sentence saying what you did.",
    "extraneous": "Some of the available tools are irrelevant distractors: use only the tools the task needs.",
    "broken": "A tool may be broken. If a tool fails, do not retry it: recover with an appropriate replacement.",
    "unsolvable": "This task may be impossible with the information or tools given. If it is, call no tools "
                  "and reply starting with REFUSE: and say what is missing or conflicting. Otherwise carry it "
                  "out with the tools, one call at a time.",
}

# ---------------------------------------------------------------------------
# Reading the file
# ---------------------------------------------------------------------------


def iter_apb(path: Path, splits: Iterable[str] | None = None, skip_invalid: bool = False,
             on_skip: Callable[[str], None] = lambda msg: None) -> Iterator[Case]:
    """Cases from an APB split file, in file order; ``splits`` keeps only those splits.
    A bad row stops the import with file:line:field, or is reported through
    ``on_skip`` and left out when ``skip_invalid``."""
    path = Path(path)
    wanted = set(splits) if splits else None
    if wanted:
        unknown = sorted(wanted - set(SPLITS))
        if unknown:
            raise PlanprobeError(f"unknown APB split {unknown[0]!r} (known: {', '.join(SPLITS)})")
    seen: dict[str, int] = {}
    for lineno, line in numbered_lines(path):
        where = f"{path}:{lineno}"
        try:
            row = _load_row(line)
            if wanted and row.get("split") not in wanted:
                continue
            case = convert_row(row, path.name, lineno)
            first = seen.get(case.id)
            if first is not None:
                raise ApbRowError("id", f"duplicate id {case.id!r} (first on line {first})")
        except ApbRowError as exc:
            skip_or_stop(f"{where}: field '{exc.field}': {exc.message}", skip_invalid, on_skip)
            continue
        seen[case.id] = lineno
        yield case


def _load_row(line: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ApbRowError("(row)", f"not valid JSON ({getattr(exc, 'msg', exc)})") from None
    if not isinstance(row, dict):
        raise ApbRowError("(row)", f"expected a JSON object, got {type(row).__name__}")
    return row


# ---------------------------------------------------------------------------
# One row -> one case
# ---------------------------------------------------------------------------


def convert_row(row: dict[str, Any], file_name: str = "", lineno: int = 0) -> Case:
    """One APB record as a judged case; raises ApbRowError naming the field."""
    split = row.get("split")
    if not isinstance(split, str) or not split:
        raise ApbRowError("split", f"missing; expected one of {', '.join(SPLITS)}")
    if split not in SPLIT_SETTINGS:
        raise ApbRowError("split", f"unknown split {split!r} (known: {', '.join(SPLITS)})")
    settings = list(SPLIT_SETTINGS[split])
    step_wise = split.startswith("step_wise")
    query = row.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ApbRowError("query", "missing or empty; every case needs the user's task")
    raw_id = row.get("id")
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        raw_id = f"{split}-{lineno}"
    elif not isinstance(raw_id, (str, int)):
        raise ApbRowError("id", f"expected a string or number, got {type(raw_id).__name__}")

    names = ToolNames()
    tools = []
    repeated = 0
    for i, t in enumerate(row_json_list(row, "tools_json")):
        if raw_name(t) in names.by_original:  # APB accepts a tool listed twice; the first definition is kept
            repeated += 1
            continue
        tools.append(tool_spec(t, f"tools_json[{i}]", names))
    replacement = row_json(row, "replacement_tool_json", None)
    replacement_name = None
    if replacement not in (None, "", {}):
        replacement_spec = tool_spec(replacement, "replacement_tool_json", names, allow_existing=True)
        replacement_name = replacement_spec.name
        if all(t.name != replacement_name for t in tools):
            tools.append(replacement_spec)
    broken = row.get("broken_tool_name")
    broken_name = None
    if broken not in (None, ""):
        if not isinstance(broken, str):
            raise ApbRowError("broken_tool_name", f"expected a tool name, got {type(broken).__name__}")
        broken_name = names.lookup(broken)
        if broken_name is None:  # the trajectory used it; the agent must see it to find it broken
            broken_name = names.add(broken, "broken_tool_name")
            tools.append(ToolSpec(name=broken_name, description=f"{broken} (the tool used in the steps so far).",
                                  parameters={"type": "object", "properties": {}}))
    if "broken" in settings and broken_name is None:
        raise ApbRowError("broken_tool_name", "a step_wise_tool_broken row needs the broken tool's name")
    distractors = []
    for i, d in enumerate(row_json_list(row, "extraneous_tool_names_json")):
        if not isinstance(d, str):
            raise ApbRowError(f"extraneous_tool_names_json[{i}]", "expected a tool name")
        name = names.lookup(d)
        if name is None:
            raise ApbRowError(f"extraneous_tool_names_json[{i}]", f"{d!r} is not one of the row's tools")
        distractors.append(name)

    frames = "framethinker" in str(row.get("source") or "").lower()
    prefix = read_steps(row_json(row, "trajectory_prefix_json", []), "trajectory_prefix_json", names, frames)
    horizon = None
    reference = None
    remaining: list[Step] = []
    if step_wise:
        truth, remaining = future_steps(row, names, frames)
        horizon = _horizon(row.get("prediction_horizon"), len(truth))
        reference = Reference(steps=truth) if truth else None
    elif "unsolvable" not in settings:
        plan = row.get("plan")
        if plan is not None and not isinstance(plan, str):
            raise ApbRowError("plan", f"expected text, got {type(plan).__name__}")
        chain = read_steps(row_json(row, "tool_chain_json", []), "tool_chain_json", names)
        reference = Reference(plan=plan, steps=chain) if (plan or chain) else None

    unsolvable_type = row.get("unsolvable_type")
    if unsolvable_type is not None and not isinstance(unsolvable_type, str):
        raise ApbRowError("unsolvable_type", f"expected text, got {type(unsolvable_type).__name__}")
    files = _files(row.get("files"))
    future = (reference.steps if reference else []) + remaining
    spec = JudgedSpec(
        version=SPEC_VERSION, settings=settings, horizon=horizon if "next_steps" in settings else None,
        prefix=prefix, reference=reference, remaining=remaining, distractors=distractors, broken_tool=broken_name,
        replacement_tool=replacement_name, unsolvable_type=unsolvable_type or None,
        outputs=recorded_outputs(future, prefix, broken_name), files=files,
        source={k: row[k] for k in ("id", "split", "planning_regime", "task_category", "task_family", "source",
                                    "source_subset") if row.get(k) is not None},
    )
    case = Case(
        id=f"apb-{raw_id}", family=FAMILY, task=_task(query, spec), tools=tools, oracle=OracleKind.JUDGED,
        spec=spec.model_dump(mode="json", exclude_defaults=True),
        meta=CaseMeta(
            topic=_text(row.get("task_category")) or _text(row.get("source")),
            difficulty={k: float(v) for k, v in (("horizon", horizon), ("reference_steps", len(future)),
                                                  ("tools", len(tools))) if v is not None},
            generator={"importer": "apb", "file": file_name, "line": lineno, "split": split,
                       **({"repeated_tools": repeated} if repeated else {})},
            tags=["apb", split] + (["has_files"] if files else []),
        ),
    )
    try:
        check_spec(case, spec)
    except PlanprobeError as exc:  # a cross-field inconsistency of the row
        raise ApbRowError("(row)", str(exc)) from None
    return case


def _task(query: str, spec: JudgedSpec) -> str:
    parts = [query.strip()]
    if spec.files:
        listed = ", ".join(spec.files[:5]) + (" …" if len(spec.files) > 5 else "")
        parts.append(f"(The task refers to {len(spec.files)} file(s) that are not available here: {listed}.)")
    if "next_steps" in spec.settings:
        parts.append("Steps already taken:\n" + (render_steps(spec.prefix, 400) if spec.prefix else "(none)"))
    base = "unsolvable" if "unsolvable" in spec.settings else "next_steps" if "next_steps" in spec.settings else "plan"
    lines = [INSTRUCTIONS[base].replace("{h}", str(spec.horizon or 1))]
    lines += [INSTRUCTIONS[s] for s in ("extraneous", "broken") if s in spec.settings]
    parts.append(" ".join(lines))
    return "\n\n".join(parts)


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _horizon(value: Any, truth_steps: int) -> int:
    if value is None or value == "":
        return max(1, min(truth_steps, 10)) if truth_steps else 1
    m = re.search(r"\d+", str(value))
    if isinstance(value, bool) or not m or not 1 <= int(m.group(0)) <= 10:
        raise ApbRowError("prediction_horizon", f"expected a number of steps from 1 to 10, got {value!r}")
    return int(m.group(0))


def _files(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [value]
    if isinstance(value, dict):
        value = value.get("files", [value])
    if not isinstance(value, list):
        raise ApbRowError("files", f"expected a list of files, got {type(value).__name__}")
    out = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("path"), str):
            out.append(item["path"])
        elif isinstance(item, str):
            out.append(item)
    return out



def import_apb(path: Path, out: Path, splits: Iterable[str] | None = None, skip_invalid: bool = False,
               on_skip: Callable[[str], None] = lambda msg: None) -> int:
    """Write the cases of an APB file to a suite file; returns how many were written."""
    from ..suites.io import write_suite

    count = write_suite(iter_apb(path, splits, skip_invalid, on_skip), out)
    if count == 0:
        Path(out).unlink(missing_ok=True)
        raise PlanprobeError(f"{path}: no cases to import" + (" in the chosen splits" if splits else ""))
    return count

