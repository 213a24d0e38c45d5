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

Every problem names the file, line and field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ...errors import PlanprobeError
from ...schema import Case, CaseMeta, OracleKind, ToolSpec
from ..judged.render import render_steps
from ..judged.spec import FAMILY, SPEC_VERSION, JudgedSpec, Reference, Step, check_spec
from .apb_format import SPLIT_SETTINGS, SPLITS, json_field
from .apb_records import numbered_lines, skip_or_stop

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

_JSON_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
_TYPE_ALIASES = {"str": "string", "text": "string", "int": "integer", "float": "number", "double": "number",
                 "bool": "boolean", "list": "array", "dict": "object", "json": "object"}


class RowError(Exception):
    """A problem with one field of one row (turned into file:line:field by the caller)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


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
                raise RowError("id", f"duplicate id {case.id!r} (first on line {first})")
        except RowError as exc:
            skip_or_stop(f"{where}: field '{exc.field}': {exc.message}", skip_invalid, on_skip)
            continue
        seen[case.id] = lineno
        yield case


def _load_row(line: str) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise RowError("(row)", f"not valid JSON ({getattr(exc, 'msg', exc)})") from None
    if not isinstance(row, dict):
        raise RowError("(row)", f"expected a JSON object, got {type(row).__name__}")
    return row


# ---------------------------------------------------------------------------
# One row -> one case
# ---------------------------------------------------------------------------


def convert_row(row: dict[str, Any], file_name: str = "", lineno: int = 0) -> Case:
    """One APB record as a judged case; raises RowError naming the field."""
    split = row.get("split")
    if not isinstance(split, str) or not split:
        raise RowError("split", f"missing; expected one of {', '.join(SPLITS)}")
    if split not in SPLIT_SETTINGS:
        raise RowError("split", f"unknown split {split!r} (known: {', '.join(SPLITS)})")
    settings = list(SPLIT_SETTINGS[split])
    step_wise = split.startswith("step_wise")
    query = row.get("query")
    if not isinstance(query, str) or not query.strip():
        raise RowError("query", "missing or empty; every case needs the user's task")
    raw_id = row.get("id")
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        raw_id = f"{split}-{lineno}"
    elif not isinstance(raw_id, (str, int)):
        raise RowError("id", f"expected a string or number, got {type(raw_id).__name__}")

    names = _Names()
    tools = []
    repeated = 0
    for i, t in enumerate(_json_list(row, "tools_json")):
        if _raw_name(t) in names.by_original:  # APB accepts a tool listed twice; the first definition is kept
            repeated += 1
            continue
        tools.append(_tool(t, f"tools_json[{i}]", names))
    replacement = _json_field(row, "replacement_tool_json", None)
    replacement_name = None
    if replacement not in (None, "", {}):
        replacement_spec = _tool(replacement, "replacement_tool_json", names, allow_existing=True)
        replacement_name = replacement_spec.name
        if all(t.name != replacement_name for t in tools):
            tools.append(replacement_spec)
    broken = row.get("broken_tool_name")
    broken_name = None
    if broken not in (None, ""):
        if not isinstance(broken, str):
            raise RowError("broken_tool_name", f"expected a tool name, got {type(broken).__name__}")
        broken_name = names.lookup(broken)
        if broken_name is None:  # the trajectory used it; the agent must see it to find it broken
            broken_name = names.add(broken, "broken_tool_name")
            tools.append(ToolSpec(name=broken_name, description=f"{broken} (the tool used in the steps so far).",
                                  parameters={"type": "object", "properties": {}}))
    if "broken" in settings and broken_name is None:
        raise RowError("broken_tool_name", "a step_wise_tool_broken row needs the broken tool's name")
    distractors = []
    for i, d in enumerate(_json_list(row, "extraneous_tool_names_json")):
        if not isinstance(d, str):
            raise RowError(f"extraneous_tool_names_json[{i}]", "expected a tool name")
        name = names.lookup(d)
        if name is None:
            raise RowError(f"extraneous_tool_names_json[{i}]", f"{d!r} is not one of the row's tools")
        distractors.append(name)

    frames = "framethinker" in str(row.get("source") or "").lower()
    prefix = _steps(_json_field(row, "trajectory_prefix_json", []), "trajectory_prefix_json", names, frames)
    horizon = None
    reference = None
    remaining: list[Step] = []
    if step_wise:
        truth, remaining = _future(row, names, frames)
        horizon = _horizon(row.get("prediction_horizon"), len(truth))
        reference = Reference(steps=truth) if truth else None
    elif "unsolvable" not in settings:
        plan = row.get("plan")
        if plan is not None and not isinstance(plan, str):
            raise RowError("plan", f"expected text, got {type(plan).__name__}")
        chain = _steps(_json_field(row, "tool_chain_json", []), "tool_chain_json", names)
        reference = Reference(plan=plan, steps=chain) if (plan or chain) else None

    unsolvable_type = row.get("unsolvable_type")
    if unsolvable_type is not None and not isinstance(unsolvable_type, str):
        raise RowError("unsolvable_type", f"expected text, got {type(unsolvable_type).__name__}")
    files = _files(row.get("files"))
    future = (reference.steps if reference else []) + remaining
    spec = JudgedSpec(
        version=SPEC_VERSION, settings=settings, horizon=horizon if "next_steps" in settings else None,
        prefix=prefix, reference=reference, remaining=remaining, distractors=distractors, broken_tool=broken_name,
        replacement_tool=replacement_name, unsolvable_type=unsolvable_type or None,
        outputs=_outputs(future, prefix, broken_name), files=files,
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
        raise RowError("(row)", str(exc)) from None
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


# ---------------------------------------------------------------------------
# Fields
# ---------------------------------------------------------------------------


def _json_field(row: dict[str, Any], key: str, default: Any) -> Any:
    try:
        return json_field(row, key, default)
    except (ValueError, RecursionError) as exc:
        raise RowError(key, f"not valid JSON text ({getattr(exc, 'msg', exc)})") from None


def _json_list(row: dict[str, Any], key: str) -> list:
    value = _json_field(row, key, [])
    if not isinstance(value, list):
        raise RowError(key, f"expected a JSON list, got {type(value).__name__}")
    return value


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _horizon(value: Any, truth_steps: int) -> int:
    if value is None or value == "":
        return max(1, min(truth_steps, 10)) if truth_steps else 1
    m = re.search(r"\d+", str(value))
    if isinstance(value, bool) or not m or not 1 <= int(m.group(0)) <= 10:
        raise RowError("prediction_horizon", f"expected a number of steps from 1 to 10, got {value!r}")
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
        raise RowError("files", f"expected a list of files, got {type(value).__name__}")
    out = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("path"), str):
            out.append(item["path"])
        elif isinstance(item, str):
            out.append(item)
    return out


class _Names:
    """Original tool names -> planprobe names (``[A-Za-z0-9_-]{1,64}``), collision-checked."""

    def __init__(self) -> None:
        self.by_original: dict[str, str] = {}
        self.taken: dict[str, str] = {}

    @staticmethod
    def clean(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9_-]", "_", name.strip())[:64]

    def add(self, original: str, field: str, allow_existing: bool = False) -> str:
        if original in self.by_original:
            if allow_existing:
                return self.by_original[original]
            raise RowError(field, f"tool {original!r} is listed twice")
        name = self.clean(original)
        if not name.strip("_"):
            raise RowError(field, f"tool name {original!r} has no letters or digits")
        other = self.taken.get(name)
        if other is not None:
            raise RowError(field, f"tool names {other!r} and {original!r} both become {name!r}; rename one")
        self.by_original[original] = name
        self.taken[name] = original
        return name

    def lookup(self, original: str) -> str | None:
        found = self.by_original.get(original)
        if found is None and self.clean(original) in self.taken:
            found = self.clean(original)
        return found


def _raw_name(raw: Any) -> str | None:
    """A tool's name as the row writes it (None when it has none)."""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, dict):
        return None
    body: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else raw
    return next((body[k] for k in ("name", "tool_name", "api_name") if isinstance(body.get(k), str)), None)


def _tool(raw: Any, field: str, names: _Names, allow_existing: bool = False) -> ToolSpec:
    if isinstance(raw, str):
        if not raw.strip():
            raise RowError(field, "empty tool name")
        return ToolSpec(name=names.add(raw, field, allow_existing), description=raw.strip(),
                        parameters={"type": "object", "properties": {}})
    if not isinstance(raw, dict):
        raise RowError(field, f"expected a tool object or name, got {type(raw).__name__}")
    body: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else raw
    name = next((body[k] for k in ("name", "tool_name", "api_name") if isinstance(body.get(k), str)), None)
    if not name or not name.strip():
        raise RowError(field, "the tool has no name (expected 'name', 'tool_name' or 'function.name')")
    description = body.get("description") or raw.get("description") or ""
    if not isinstance(description, str):
        description = json.dumps(description, ensure_ascii=False)
    example = body.get("example")
    if example:
        description = f"{description} Example: {example if isinstance(example, str) else json.dumps(example)}"
    params_raw = next((body[k] for k in ("parameters", "input_schema", "arguments", "inputs", "args")
                       if k in body), None)
    if params_raw is None and ("required_parameters" in body or "optional_parameters" in body):
        params_raw = [dict(p, required=True) for p in body.get("required_parameters") or [] if isinstance(p, dict)]
        params_raw += [p for p in body.get("optional_parameters") or [] if isinstance(p, dict)]
    return ToolSpec(name=names.add(name, field, allow_existing), description=description.strip() or name,
                    parameters=_schema(params_raw, field))


def _schema(raw: Any, field: str) -> dict[str, Any]:
    """A permissive JSON schema from whatever APB gives: extra arguments are allowed,
    since the mock tools accept anything and APB's schemas are descriptive."""
    props: dict[str, Any] = {}
    required: list[str] = []
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = None
    if isinstance(raw, dict) and ("properties" in raw or raw.get("type") == "object"):
        src = raw.get("properties") or {}
        if not isinstance(src, dict):
            raise RowError(field, "parameters.properties is not an object")
        props = {str(k): _prop(v) for k, v in src.items()}
        req = raw.get("required") or []
        required = [r for r in req if isinstance(r, str) and r in props] if isinstance(req, list) else []
    elif isinstance(raw, dict):
        props = {str(k): _prop(v) for k, v in raw.items()}
    elif isinstance(raw, list):
        for p in raw:
            if isinstance(p, dict) and isinstance(p.get("name"), str):
                props[p["name"]] = _prop(p)
                if p.get("required") is True or p.get("optional") is False:
                    required.append(p["name"])
            elif isinstance(p, str):
                props[p] = {"type": "string"}
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def _prop(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"type": "string", "description": value}
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    kind = value.get("type")
    if isinstance(kind, str):
        kind = _TYPE_ALIASES.get(kind.lower(), kind.lower())
        if kind in _JSON_TYPES:
            out["type"] = kind
    if isinstance(value.get("description"), str):
        out["description"] = value["description"]
    if isinstance(value.get("enum"), list) and value["enum"]:
        out["enum"] = value["enum"]
    if out.get("type") == "array":
        out["items"] = value["items"] if isinstance(value.get("items"), dict) else {}
    return out


# ---------------------------------------------------------------------------
# Trajectories
# ---------------------------------------------------------------------------

_TOOL_KEYS = ("tool", "tool_name", "name", "action", "function")
_NAME_LIKE = re.compile(r"^[A-Za-z_][\w.:-]{0,63}$")  # a tool name, not a sentence
_ARG_KEYS = ("arguments", "args", "parameters", "parameter_description", "action_input", "tool_input", "input")
_THOUGHT_KEYS = ("thought", "reason", "reasoning", "rationale")
_OUTPUT_KEYS = ("output", "observation", "result", "response", "tool_output")


def _future(row: dict[str, Any], names: _Names, frames: bool) -> tuple[list[Step], list[Step]]:
    """(ground-truth steps, later steps), read as one trajectory so that an output recorded
    at the start of the later steps is attached to the last ground-truth call."""
    truth_raw = _json_field(row, "ground_truth_steps_json", [])
    later_raw = _json_field(row, "reference_remaining_steps_json", [])
    truth = _steps(truth_raw, "ground_truth_steps_json", names, frames)
    later = _steps(later_raw, "reference_remaining_steps_json", names, frames)
    if isinstance(truth_raw, list) and isinstance(later_raw, list) and truth and later:
        joined = _steps(truth_raw + later_raw, "ground_truth_steps_json", names, frames)
        if len(joined) == len(truth) + len(later) - 1:  # the first later item was the last call's output
            return joined[: len(truth)], joined[len(truth):]
    return truth, later


_ACTION_TAG = re.compile(r"<action>(.*?)</action>", re.DOTALL)
_THINK_TAG = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_ACTION_LINE = re.compile(r"(?:^|\n)\s*action:\s*(.+)", re.DOTALL | re.IGNORECASE)
_THINK_LINE = re.compile(r"^\s*think:\s*(.*?)(?:\n\s*action:|$)", re.DOTALL | re.IGNORECASE)


def _text_action(content: str) -> Step | None:
    """A FrameThinker-style turn (``<think>…</think><action>…</action>`` or ``think: … action: …``)
    as an action step; None when the text holds no action."""
    m = _ACTION_TAG.search(content) or _ACTION_LINE.search(content)
    if not m or not m.group(1).strip():
        return None
    t = _THINK_TAG.search(content) or _THINK_LINE.search(content)
    return Step(action=m.group(1).strip(), thought=t.group(1).strip() if t and t.group(1).strip() else None)


def _steps(raw: Any, field: str, names: _Names, frames: bool = False) -> list[Step]:
    """Normalize a trajectory (OpenAI-style messages, thought/action records, tool-chain
    entries, or plain text) into steps; a tool message's content becomes the output
    of the tool step before it. With ``frames`` (FrameThinker), a user message after
    the first is a tool's output, as APB's loader reads it."""
    if raw is None or raw == "":
        return []
    if isinstance(raw, dict):
        raw = raw.get("steps") if isinstance(raw.get("steps"), list) else [raw]
    if isinstance(raw, str):
        return [Step(text=raw)]
    if not isinstance(raw, list):
        raise RowError(field, f"expected a list of steps, got {type(raw).__name__}")
    steps: list[Step] = []
    seen_user = False
    for i, item in enumerate(raw):
        where = f"{field}[{i}]"
        if isinstance(item, str):
            steps.append(Step(text=item))
            continue
        if not isinstance(item, dict):
            steps.append(Step(text=json.dumps(item, ensure_ascii=False)))
            continue
        role = item.get("role")
        content = _content(item.get("content"))
        if role == "user" and frames:
            role = "tool" if seen_user else role
            seen_user = True
        if role in ("tool", "function", "observation", "ipython"):
            _attach_output(steps, content, item.get("name"), names)
            continue
        calls = item.get("tool_calls")
        if isinstance(calls, list) and calls:
            for one in calls:
                fn = one.get("function", one) if isinstance(one, dict) else {}
                tool = fn.get("name") if isinstance(fn, dict) else None
                if not isinstance(tool, str):
                    raise RowError(where, "a tool call without a function name")
                steps.append(Step(tool=_known(names, tool), arguments=_arguments(fn.get("arguments")),
                                  thought=content or None))
            continue
        call: dict[str, Any] = item["tool_call"] if isinstance(item.get("tool_call"), dict) else item
        tool = next((call[k] for k in _TOOL_KEYS if isinstance(call.get(k), str) and call[k].strip()), None)
        if tool is not None and names.lookup(tool) is None and not _NAME_LIKE.match(tool.strip()):
            # an action written as text (OpenCUA: "Click on the 'Personal info' link …"): kept as it is
            output = next((item[k] for k in _OUTPUT_KEYS if k in item), None)
            steps.append(Step(action=tool.strip(), thought=content or None,
                              output=_content(output) if output is not None else None))
            continue
        if tool is None and role == "assistant" and content and (found := _text_action(content)) is not None:
            steps.append(found)
            continue
        if tool is not None and role not in ("user", "system"):
            args = next((call[k] for k in _ARG_KEYS if k in call), None)
            thought = next((item[k] for k in _THOUGHT_KEYS if isinstance(item.get(k), str)), None) or content or None
            output = next((item[k] for k in _OUTPUT_KEYS if k in item), None)
            steps.append(Step(tool=_known(names, tool), arguments=_arguments(args), thought=thought,
                              output=_content(output) if output is not None else None))
        elif content or any(isinstance(item.get(k), str) for k in _THOUGHT_KEYS):
            prefix = f"{role}: " if isinstance(role, str) else ""
            text = content or next(item[k] for k in _THOUGHT_KEYS if isinstance(item.get(k), str))
            steps.append(Step(text=prefix + text))
    return steps


def _known(names: _Names, tool: str) -> str:
    """A step's tool as planprobe names it; a name that is not a tool stays as written
    (cleaned), so the judge can see the reference called something unavailable."""
    return names.lookup(tool) or _Names.clean(tool) or "unknown_tool"


def _attach_output(steps: list[Step], content: str, name: Any, names: _Names) -> None:
    for k in range(len(steps) - 1, -1, -1):
        s = steps[k]
        if s.action and s.output is None and not isinstance(name, str):
            steps[k] = s.model_copy(update={"output": content})
            return
        if s.tool and s.output is None and (not isinstance(name, str) or _known(names, name) == s.tool):
            steps[k] = s.model_copy(update={"output": content})
            return
    steps.append(Step(text=f"tool: {content}"))


def _content(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # multimodal parts
        parts = []
        for p in value:
            if isinstance(p, dict) and isinstance(p.get("text"), str):
                parts.append(p["text"])
            elif isinstance(p, dict):
                parts.append(f"[{p.get('type', 'part')}]")
            elif isinstance(p, str):
                parts.append(p)
        return " ".join(parts)
    return json.dumps(value, ensure_ascii=False)


def _arguments(value: Any) -> dict[str, Any] | str | None:
    if value is None:
        return None
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return json.dumps(value, ensure_ascii=False)


def _outputs(future: list[Step], prefix: list[Step], broken: str | None) -> dict[str, list[str]]:
    """Per tool, the outputs the mock replays: those recorded after the prefix first
    (the agent continues from there), then the prefix's own."""
    out: dict[str, list[str]] = {}
    for s in future + prefix:
        if s.tool and s.output and s.tool != broken:
            out.setdefault(s.tool, []).append(s.output)
    return out


def import_apb(path: Path, out: Path, splits: Iterable[str] | None = None, skip_invalid: bool = False,
               on_skip: Callable[[str], None] = lambda msg: None) -> int:
    """Write the cases of an APB file to a suite file; returns how many were written."""
    from ..io import write_suite

    count = write_suite(iter_apb(path, splits, skip_invalid, on_skip), out)
    if count == 0:
        Path(out).unlink(missing_ok=True)
        raise PlanprobeError(f"{path}: no cases to import" + (" in the chosen splits" if splits else ""))
    return count
