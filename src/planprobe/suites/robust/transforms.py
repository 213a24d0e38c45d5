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
  one call; only a cheapest valid plan passes (constraint cases, basic and timed, and
  pddl cases, whose composites take both actions' arguments: ``ComposesTools``).

What a transform needs to know about the base family (distractor tools, a
contradiction, the cheapest plan) it asks through optional family capabilities
(suites/base.py): ``OffersDistractors``, ``Contradicts``, ``PricesPlans`` (``PricesCalls`` when
the cheapest plan's calls take arguments, ``ChainsComposites`` for what a composite passes on).

The transforms' shared tool edits (and ``broken``, ``extraneous``'s near-duplicates) are in
``tool_edits``, ``unsolvable``'s variants and controls in ``unsolvable``, ``cost``'s prices and
composites in ``cost``; this module parses ``--transform`` and puts a variant together.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from ...errors import PlanprobeError
from ...schema import Case, ToolSpec
from ..base import Contradicts, OffersDistractors, StatesTasks
from ..registry import get_family
from .cost import _priced
from .spec import FAMILY, REFUSE_TOOL, RobustSpec
from .tool_edits import _NO_CALLS, _broken, _cannot, near_duplicate_tools
from .unsolvable import _control, _unsolvable

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

def parse_transforms(names: list[str]) -> list[tuple[str, str | None]]:
    """Validate ``--transform`` values: [(kind, argument)], each kind once."""
    out: list[tuple[str, str | None]] = []
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
    if {"cost", "broken"} <= {k for k, _ in out}:  # said before any case is made
        raise PlanprobeError("--transform cost does not compose with broken (the replacement has no price)")
    return out


def _needed_tools(case: Case) -> list[str]:
    """The tools the base case's reference plan calls, in order, each once."""
    seen: list[str] = []
    for call in get_family(case.family).reference_plan(case):
        if call.name not in seen:
            seen.append(call.name)
    return seen

# what a kind that works on a tool the reference plan calls lacks (tool_edits._NO_CALLS: why)
_NEEDS_CALLS = {"removal": "no tool whose removal makes it unsolvable",
                "missing-info": "no tool that could need a parameter the task does not give"}


def _unsolvable_kinds(case: Case, needed: list[str]) -> tuple[str, ...]:
    """The kinds a plain ``unsolvable`` draws from: all of them, less ``contradiction`` for a
    family that cannot make one and less the kinds that change a needed tool when the reference
    plan calls none (the built-ins' cases have both: their draws are unchanged)."""
    contradicts = isinstance(get_family(case.family), Contradicts)
    kinds = tuple(k for k in UNSOLVABLE_KINDS if (k != "contradiction" or contradicts)
                  and (needed or k not in _NEEDS_CALLS))
    if not kinds:
        raise _cannot(case, "unsolvable", f"the case has {_NEEDS_CALLS['removal']} and "
                      f"{_NEEDS_CALLS['missing-info']} ({_NO_CALLS}), and the {case.family!r} family cannot "
                      "contradict its goals")
    return kinds


def _check_needed(case: Case, needed: list[str], transform: str, kind: str) -> None:
    if not needed:
        raise _cannot(case, transform, f"the case has {_NEEDS_CALLS[kind]}: {_NO_CALLS}")


def robustify(case: Case, transforms: list[tuple[str, str | None]], seed: int = 0) -> Case:
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
    taken = {t.name for t in tools}

    if "unsolvable" in kinds:
        spec.refuse_tool = REFUSE_TOOL
        # the kind is drawn for controls too: each control carries that kind's change, made
        # solvable, so nothing but planning tells a variant from a control
        kind = kinds["unsolvable"] or rng.choice(_unsolvable_kinds(case, needed))
        if kind in _NEEDS_CALLS:
            _check_needed(case, needed, f"unsolvable:{kind}" if kinds["unsolvable"] else "unsolvable", kind)
        if rng.random() < 0.5:
            base, tools, spec.unsolvable, note = _unsolvable(case, tools, needed, kind, rng, spec, taken)
            tags.append(f"unsolvable-{kind}")
        else:
            base, tools, note = _control(case, tools, needed, kind, rng, spec, taken)
            tags.append("solvable")
        if note:
            notes.append(note)
        notes.append(REFUSE_NOTE)
    if "extraneous" in kinds:
        count = kinds["extraneous"]
        assert count is not None  # parse_transforms requires extraneous:K
        k = int(count)
        family = get_family(case.family)
        distractors = (list(family.distractor_tools(case, k, rng)) if isinstance(family, OffersDistractors)
                       else near_duplicate_tools(tools, k, rng))
        if not distractors and not case.tools:
            raise _cannot(case, f"extraneous:{k}", "the case has no tool, so no distractor tool can be made "
                          "(its answer is text)")
        spec.distractors += [t.name for t in distractors]
        taken |= {t.name for t in distractors}
        for tool in distractors:  # spread among the real tools: position carries no hint
            tools.insert(rng.randrange(len(tools) + 1), tool)
        tags.append(f"x{k}")
    if "broken" in kinds:
        tools = _broken(case, tools, needed, rng, spec, taken)
        tags.append("broken")
    if "cost" in kinds:
        if spec.broken is not None:
            raise PlanprobeError("--transform cost does not compose with broken (the replacement has no price)")
        tools = _priced(case, tools, spec, rng, base)
        notes.append(COST_NOTE)
        tags.append("cost")
    if spec.refuse_tool:
        tools.append(REFUSE_SPEC)

    spec.base = base.model_dump(mode="json")
    # the base text stays a prefix of the variant's (evidence spans point into it)
    family = get_family(case.family)
    stated = family.task_statement(base) if isinstance(family, StatesTasks) else None
    lines = [base.task.rstrip(), *([stated] if stated else []), *([" ".join(notes)] if notes else [])]
    task = "\n".join(lines)
    meta = case.meta.model_copy(update={
        "transforms": [*case.meta.transforms, *spec.transforms],
        "tags": [*case.meta.tags, *tags],
        "parent": case.id,
    })
    return Case(id=f"{case.id}+{'+'.join(tags)}", family=FAMILY, task=task, system=case.system, tools=tools,
                oracle=case.oracle, spec=spec.model_dump(mode="json"), meta=meta)

def transform_lines(lines: Iterable[str], transforms: list[tuple[str, str | None]], seed: int = 0) -> Iterator[str]:
    """Suite lines in, variant lines out (streaming: suites of any size)."""
    for line in lines:
        yield robustify(Case.model_validate_json(line), transforms, seed).model_dump_json()
