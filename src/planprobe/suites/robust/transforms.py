"""Turn formal cases into robustness variants (APB §3, made exact).

``--transform`` names, composable (each at most once):

* ``extraneous:K`` — K distractor tools with close names and descriptions; calling
  one is an ``extraneous_tool`` error.
* ``broken`` — one needed tool fails with a realistic service error; a designated
  replacement tool does the same job. The agent's reaction is classified into APB's
  five behaviours.
* ``unsolvable`` / ``unsolvable:removal|contradiction|missing-info`` — half the
  cases (chosen by the seed) become unsolvable, the other half stay solvable as
  controls; every case gets a ``refuse`` tool. A refusal of an unsolvable case
  passes, a refusal of a solvable one fails: refusal is scored for calibration.
* ``cost`` — every tool has a cost and cheaper composite tools do two actions in
  one call; only a cheapest valid plan passes (basic-mode constraint cases).

What a transform needs to know about the base family (distractor tools, a
contradiction, the cheapest plan) it asks through optional family capabilities
(suites/base.py): ``OffersDistractors``, ``Contradicts``, ``PricesPlans``.
"""

from __future__ import annotations

import random
from typing import Iterable, Iterator, Optional

from ...errors import PlanprobeError
from ...schema import Case, ToolSpec
from ..base import Contradicts, OffersDistractors, PricesPlans
from ..registry import get_family
from .spec import FAMILY, REFUSE_TOOL, Broken, Composite, RobustSpec, Unsolvable

UNSOLVABLE_KINDS = ("removal", "contradiction", "missing-info")
TRANSFORM_HELP = ("extraneous:K | broken | unsolvable | unsolvable:removal|contradiction|missing-info | cost "
                  "(repeatable; they compose)")

REFUSE_SPEC = ToolSpec(
    name=REFUSE_TOOL,
    description=(
        "Refuse the request. Call this only if the tasks cannot be carried out as required: for example "
        "a tool you need does not exist or cannot work, the requirements contradict each other, or "
        "information you need was not given. Give the reason. Do not call it if the tasks can be done."
    ),
    parameters={
        "type": "object",
        "properties": {"reason": {"type": "string", "description": "Why the tasks cannot be done."}},
        "required": ["reason"],
        "additionalProperties": False,
    },
)
REFUSE_NOTE = f"If the tasks cannot be carried out as required, call the tool {REFUSE_TOOL} and say why."
COST_NOTE = ("Every tool call costs the credits its description states. Carry out the tasks at the lowest "
             "total cost.")

BROKEN_ERRORS = (
    "Error 503 Service Unavailable: the service behind '{tool}' is down for maintenance.",
    "Error 500 Internal Server Error: '{tool}' failed with an unexpected exception (request id 7f3a9c).",
    "Error: connection to the '{tool}' backend timed out after 30 s.",
    "Error 410 Gone: '{tool}' has been retired and no longer accepts requests.",
)
MISSING_PARAMS = (
    ("booking_reference", "The booking reference the customer was given."),
    ("account_id", "The account id of the person this is done for."),
    ("ticket_number", "The number of the support ticket this belongs to."),
    ("employee_id", "The id of the employee who approved this task."),
)


def parse_transforms(names: list[str]) -> list[tuple[str, Optional[str]]]:
    """Validate ``--transform`` values: [(kind, argument)], each kind once."""
    out: list[tuple[str, Optional[str]]] = []
    for raw in names:
        kind, _, arg = raw.partition(":")
        if kind == "extraneous":
            if not arg.isdigit() or int(arg) < 1:
                raise PlanprobeError(f"--transform {raw!r}: expected extraneous:K with K a positive number")
        elif kind == "unsolvable":
            if arg and arg not in UNSOLVABLE_KINDS:
                raise PlanprobeError(f"--transform {raw!r}: the unsolvable kinds are {', '.join(UNSOLVABLE_KINDS)}")
        elif kind in ("broken", "cost"):
            if arg:
                raise PlanprobeError(f"--transform {raw!r}: {kind} takes no argument")
        else:
            raise PlanprobeError(f"--transform {raw!r}: unknown transform; use {TRANSFORM_HELP}")
        if any(k == kind for k, _ in out):
            raise PlanprobeError(f"--transform {kind} is given twice")
        out.append((kind, arg or None))
    return out


def _needed_tools(case: Case) -> list[str]:
    """The tools the base case's reference plan calls, in order, each once."""
    seen: list[str] = []
    for call in get_family(case.family).reference_plan(case):
        if call.name not in seen:
            seen.append(call.name)
    return seen


def _unsupported(case: Case, transform: str) -> PlanprobeError:
    return PlanprobeError(f"case {case.id}: the {case.family!r} family does not support --transform {transform}")


def _unsolvable_kinds(case: Case) -> tuple[str, ...]:
    """The kinds a plain ``unsolvable`` draws from: all of them, less ``contradiction`` for a
    family that cannot make one (the built-ins can: their draws are unchanged)."""
    if isinstance(get_family(case.family), Contradicts):
        return UNSOLVABLE_KINDS
    return tuple(k for k in UNSOLVABLE_KINDS if k != "contradiction")


def robustify(case: Case, transforms: list[tuple[str, Optional[str]]], seed: int = 0) -> Case:
    """One robustness variant of a formal case; deterministic in (seed, case id)."""
    if case.family == FAMILY:
        raise PlanprobeError(f"case {case.id} is already a robustness variant")
    rng = random.Random(f"planprobe/robust/{seed}/{case.id}")
    kinds = dict(transforms)
    base = case
    tools = list(case.tools)
    needed = _needed_tools(case)
    tags: list[str] = []
    notes: list[str] = []
    spec = RobustSpec(base={}, transforms=[k if a is None else f"{k}:{a}" for k, a in transforms])

    if "unsolvable" in kinds:
        spec.refuse_tool = REFUSE_TOOL
        notes.append(REFUSE_NOTE)
        if rng.random() < 0.5:
            kind = kinds["unsolvable"] or rng.choice(_unsolvable_kinds(case))
            base, tools, spec.unsolvable = _unsolvable(case, tools, needed, kind, rng)
            tags.append(f"unsolvable-{kind}")
        else:
            tags.append("solvable")
    if "extraneous" in kinds:
        k = int(kinds["extraneous"])
        family = get_family(case.family)
        distractors = (list(family.distractor_tools(case, k, rng)) if isinstance(family, OffersDistractors)
                       else near_duplicate_tools(tools, k, rng))
        spec.distractors = [t.name for t in distractors]
        for tool in distractors:  # spread among the real tools: position carries no hint
            tools.insert(rng.randrange(len(tools) + 1), tool)
        tags.append(f"x{k}")
    if "broken" in kinds:
        candidates = [t for t in needed if spec.unsolvable is None
                      or t not in (spec.unsolvable.removed_tool, spec.unsolvable.missing_tool)]
        name = rng.choice(candidates)
        original = next(t for t in tools if t.name == name)
        replacement = _replacement_name(name, {t.name for t in tools})
        spec.broken = Broken(tool=name, replacement=replacement, error=rng.choice(BROKEN_ERRORS).format(tool=name))
        tools.insert(rng.randrange(len(tools) + 1), ToolSpec(
            name=replacement, parameters=original.parameters,
            description=f"Version 2 of {name}, on a separate service. {original.description}",
        ))
        tags.append("broken")
    if "cost" in kinds:
        if spec.broken is not None:
            raise PlanprobeError("--transform cost does not compose with broken (the replacement has no price)")
        tools = _priced(case, tools, spec, rng)
        notes.append(COST_NOTE)
        tags.append("cost")
    if spec.refuse_tool:
        tools.append(REFUSE_SPEC)

    spec.base = base.model_dump(mode="json")
    task = base.task.rstrip() + ("\n" + " ".join(notes) if notes else "")
    meta = case.meta.model_copy(update={
        "transforms": [*case.meta.transforms, *spec.transforms],
        "tags": [*case.meta.tags, *tags],
        "parent": case.id,
    })
    return Case(id=f"{case.id}+{'+'.join(tags)}", family=FAMILY, task=task, system=case.system, tools=tools,
                oracle=case.oracle, spec=spec.model_dump(mode="json"), meta=meta)


NEAR_DUPLICATES = (
    ("{name}_legacy", "Legacy version of {name}, kept for old integrations; it does not carry out the task. {desc}"),
    ("{name}_preview", "Preview of {name}: shows what would happen without doing it. {desc}"),
    ("bulk_{name}", "Bulk variant of {name} for batches of records from a file upload. {desc}"),
    ("{name}_sandbox", "Runs {name} in the test sandbox; nothing changes in the real world. {desc}"),
    ("undo_{name}", "Reverts what {name} did."),
    ("schedule_{name}", "Schedules {name} for a later date instead of doing it now. {desc}"),
)


def near_duplicate_tools(tools: list[ToolSpec], k: int, rng: random.Random) -> list[ToolSpec]:
    """Distractors for a family with no lexicon of its own: near-duplicates of its tools
    whose descriptions say, as real APIs do, why they are not the tool to use."""
    taken = {t.name for t in tools}
    candidates = [(t, pattern) for t in tools for pattern in NEAR_DUPLICATES]
    rng.shuffle(candidates)
    out: list[ToolSpec] = []
    for tool, (name_pattern, desc_pattern) in candidates:
        if len(out) == k:
            break
        name = name_pattern.format(name=tool.name)
        if name in taken or len(name) > 64:
            continue
        taken.add(name)
        out.append(ToolSpec(name=name, parameters=tool.parameters,
                            description=desc_pattern.format(name=tool.name, desc=tool.description)))
    return out


def transform_lines(lines: Iterable[str], transforms: list[tuple[str, Optional[str]]], seed: int = 0) -> Iterator[str]:
    """Suite lines in, variant lines out (streaming: suites of any size)."""
    for line in lines:
        yield robustify(Case.model_validate_json(line), transforms, seed).model_dump_json()


def _replacement_name(name: str, taken: set[str]) -> str:
    candidate = f"{name}_v2"[:64]
    k = 3
    while candidate in taken:
        candidate = f"{name[:60]}_v{k}"
        k += 1
    return candidate


def _unsolvable(case: Case, tools: list[ToolSpec], needed: list[str], kind: str,
                rng: random.Random) -> tuple[Case, list[ToolSpec], Unsolvable]:
    if kind == "removal":
        gone = rng.choice(needed)
        return case, [t for t in tools if t.name != gone], Unsolvable(
            kind=kind, removed_tool=gone, proof=f"the task needs {gone}, and no tool can do it")
    if kind == "contradiction":
        family = get_family(case.family)
        if not isinstance(family, Contradicts):
            raise _unsupported(case, "unsolvable:contradiction")
        changed, proof = family.contradict(case, rng)
        return changed, list(changed.tools), Unsolvable(kind=kind, proof=proof)
    tool_name = rng.choice(needed)
    param, description = rng.choice(MISSING_PARAMS)
    out = []
    for t in tools:
        if t.name == tool_name:
            params = dict(t.parameters)
            props = dict(params.get("properties") or {})
            props[param] = {"type": "string", "description": description}
            params["properties"] = props
            params["required"] = sorted({*params.get("required", []), param})
            params.setdefault("type", "object")
            t = t.model_copy(update={"parameters": params})
        out.append(t)
    return case, out, Unsolvable(kind=kind, missing_tool=tool_name, missing_param=param,
                                 proof=f"{tool_name} needs {param}, which the task never gives")


def _priced(case: Case, tools: list[ToolSpec], spec: RobustSpec, rng: random.Random) -> list[ToolSpec]:
    """Price every tool and add composites, some of them usable in a valid order."""
    costs = {t.name: rng.randint(2, 9) for t in tools}
    plan = [c.name for c in get_family(case.family).reference_plan(case)]
    pairs = [(plan[i], plan[i + 1]) for i in range(len(plan) - 1)]
    rng.shuffle(pairs)
    chosen = pairs[: max(1, len(pairs) // 2)]
    if len(plan) >= 2:  # and one that is never usable: it does the actions in the wrong order
        trap = (plan[-1], plan[0])
        if trap not in chosen:
            chosen.append(trap)
    composites = []
    for k, (a, b) in enumerate(chosen, 1):
        saving = rng.randint(1, max(1, min(costs[a], costs[b]) - 1))
        composites.append(Composite(tool=f"combo_{k}", first=a, second=b, cost=costs[a] + costs[b] - saving))
    family = get_family(case.family)
    if not isinstance(family, PricesPlans):
        raise _unsupported(case, "cost")
    total, best = family.min_cost_plan(
        case, costs, [(c.tool, c.first, c.second, c.cost) for c in composites])
    spec.costs, spec.composites, spec.min_cost, spec.min_cost_plan = costs, composites, total, best
    by_name = {t.name: t for t in tools}
    priced = [t.model_copy(update={"description": f"{t.description} Cost: {costs[t.name]} credits."}) for t in tools]
    for c in composites:
        first = by_name[c.first]
        priced.append(ToolSpec(
            name=c.tool, parameters=first.parameters,
            description=(f"Carries out {c.first} and then, immediately after it, {c.second}, in one call. "
                         f"Cost: {c.cost} credits."),
        ))
    return priced
