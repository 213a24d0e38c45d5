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
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from ...errors import PlanprobeError
from ...schema import Case, ToolSpec
from ..base import (
    AliasesTools,
    ComposesTools,
    Contradicts,
    OffersDistractors,
    PricesCalls,
    PricesPlans,
    Restates,
    StatesTasks,
)
from ..registry import get_family
from .spec import FAMILY, REFUSE_TOOL, Broken, Composite, Given, RobustSpec, Unsolvable

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
# (parameter, its description, the prefix of its values): plausible for any of the jobs
MISSING_PARAMS = (
    ("booking_reference", "The booking reference the customer was given.", "BR"),
    ("account_id", "The account id of the person this is done for.", "AC"),
    ("ticket_number", "The number of the work ticket this belongs to.", "TK"),
    ("employee_id", "The id of the employee who approved this work.", "EMP"),
    ("work_order", "The number of the work order this is recorded under.", "WO"),
    ("site_code", "The code of the site where the work is done.", "ST"),
)
# names of tools that stand for another (a renamed tool, a broken tool's twin, a removal's decoy):
# service-style, unrelated to any task's words
ALIAS_NAMES = (
    "process_request", "submit_work_order", "run_service_task", "dispatch_job", "queue_work_item",
    "execute_routine", "perform_duty", "handle_assignment", "complete_work_step", "log_field_activity",
    "start_procedure", "trigger_workflow", "run_operation", "carry_out_job", "ops_execute", "task_runner",
    "record_activity", "action_dispatch", "job_executor", "fulfil_request", "assignment_handler",
    "operation_submit", "workflow_step", "service_desk_call", "work_ticket_run",
)


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


def _unsupported(case: Case, transform: str) -> PlanprobeError:
    return PlanprobeError(f"case {case.id}: the {case.family!r} family does not support --transform {transform}")


def _cannot(case: Case, transform: str, why: str) -> PlanprobeError:
    """A variant that cannot be made from this case: say which case, which transform and why
    (instead of an ``IndexError`` from an empty draw)."""
    return PlanprobeError(f"case {case.id}: cannot make --transform {transform}: {why}")


# why a kind that works on a tool the reference plan calls finds none (an answer-text family:
# TravelPlanner, itinerary, PlanBench, a planning-protocol wrapper)
_NO_CALLS = "its reference plan calls no tool (the answer is text)"
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


def _alias_name(rng: random.Random, taken: set[str]) -> str:
    """A service-style name unrelated to any task (APB Fig. 13: a completely different name)."""
    options = [n for n in ALIAS_NAMES if n not in taken]
    name = rng.choice(options) if options else f"service_call_{len(taken)}"
    taken.add(name)
    return name


def _alias(case: Case, tool: ToolSpec, name: str, rng: random.Random) -> ToolSpec:
    """``tool`` under another name; a family may re-word its description (hook ``alias_tool``)
    so that the name it had shows nowhere."""
    family = get_family(case.family)
    return family.alias_tool(tool, name, rng) if isinstance(family, AliasesTools) else tool.model_copy(update={"name": name})


def _renamed(case: Case, tools: list[ToolSpec], name: str, new: str, rng: random.Random) -> list[ToolSpec]:
    """The tool list with one tool renamed in place."""
    return [_alias(case, t, new, rng) if t.name == name else t for t in tools]


def _broken(case: Case, tools: list[ToolSpec], needed: list[str], rng: random.Random, spec: RobustSpec,
            taken: set[str]) -> list[ToolSpec]:
    """A needed tool and a twin with an unrelated name and the same description and schema;
    one of the two (by a coin) fails with a realistic error, the other works. Which one fails
    shows only when it is called."""
    busy = {spec.given.tool if spec.given else None,
            *((spec.unsolvable.missing_tool, spec.unsolvable.removed_tool) if spec.unsolvable else ())}
    present = {t.name for t in tools}
    candidates = [t for t in needed if t in present and t not in busy] or [t for t in needed if t in present]
    if not candidates:
        raise _cannot(case, "broken", "the case has no needed tool to break: "
                      + (_NO_CALLS if not needed else "none of the tools its reference plan calls is offered"))
    name = rng.choice(candidates)
    original = next(t for t in tools if t.name == name)
    twin = _alias_name(rng, taken)
    spec.aliases[twin] = name
    broken, replacement = (name, twin) if rng.random() < 0.5 else (twin, name)
    spec.broken = Broken(tool=broken, replacement=replacement, error=rng.choice(BROKEN_ERRORS).format(tool=broken))
    out = list(tools)
    out.insert(rng.randrange(len(out) + 1), _alias(case, original, twin, rng))
    return out


def _with_param(tool: ToolSpec, param: str, text: str) -> ToolSpec:
    """The tool with one more required string parameter, named in its description as in its schema."""
    params = dict(tool.parameters)
    props = dict(params.get("properties") or {})
    props[param] = {"type": "string", "description": text}
    params["properties"] = props
    params["required"] = [*params.get("required", []), param]
    params.setdefault("type", "object")
    desc = tool.description
    words = text[:1].lower() + text[1:].rstrip(".")
    if "It takes no arguments." in desc:
        desc = desc.replace("It takes no arguments.", f"It takes one argument: {param}, {words}.")
    elif "Receives one argument: " in desc:
        head, _, rest = desc.partition("Receives one argument: ")
        first, dot, tail = rest.partition(". ")
        desc = f"{head}Receives two arguments: {first}; and {param}, {words}{dot}{tail}"
    else:
        desc = f"{desc.rstrip()} It requires {param}: {words}."
    return tool.model_copy(update={"description": desc, "parameters": params})


def _value(param: str, rng: random.Random) -> str:
    prefix = {p: v for p, _, v in MISSING_PARAMS}[param]
    return f"{prefix}-{rng.randrange(10000, 100000)}"


def _value_note(param: str, value: str) -> str:
    return f"The {param.replace('_', ' ')} to use is {value}."


def _unknown_note(param: str) -> str:
    return f"The {param.replace('_', ' ')} is not known."


def _notes(given: str, unknown: str, rng: random.Random) -> str:
    """Missing-info's two sentences (a value given, a parameter not known) in a random order."""
    return f"{given} {unknown}" if rng.random() < 0.5 else f"{unknown} {given}"


def _free_params(tools: list[ToolSpec], param: str) -> list[str]:
    """Missing-info's parameters other than ``param`` that no tool of the case takes."""
    taken = {p for t in tools for p in (t.parameters.get("properties") or {})}
    return [p for p, _, _ in MISSING_PARAMS if p != param and p not in taken]


def _free_param(case: Case, tools: list[ToolSpec], param: str, rng: random.Random) -> str:
    """One of ``_free_params``, drawn; a clear error when the case's tools take them all."""
    free = _free_params(tools, param)
    if not free:
        raise _cannot(case, "unsolvable:missing-info", "its tools already take every parameter missing-info "
                      f"can name ({', '.join(p for p, _, _ in MISSING_PARAMS)})")
    return rng.choice(free)


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


def transform_lines(lines: Iterable[str], transforms: list[tuple[str, str | None]], seed: int = 0) -> Iterator[str]:
    """Suite lines in, variant lines out (streaming: suites of any size)."""
    for line in lines:
        yield robustify(Case.model_validate_json(line), transforms, seed).model_dump_json()


def _unsolvable(case: Case, tools: list[ToolSpec], needed: list[str], kind: str, rng: random.Random,
                spec: RobustSpec, taken: set[str]) -> tuple[Case, list[ToolSpec], Unsolvable, str | None]:
    """An unsolvable variant: (base, tools, why, a note for the task)."""
    if kind == "removal":  # a needed tool goes; a tool for another activity, under an unrelated name, comes
        gone = rng.choice(needed)
        out = [t for t in tools if t.name != gone]
        decoy = _decoy(case, out, gone, rng, spec, taken)
        if decoy is not None:
            out.insert(rng.randrange(len(out) + 1), decoy)
        return case, out, Unsolvable(kind="removal", removed_tool=gone,
                                     proof=f"the task needs {gone}, and no tool can do it"), None
    if kind == "contradiction":
        family = get_family(case.family)
        if not isinstance(family, Contradicts):
            raise _unsupported(case, "unsolvable:contradiction")
        changed, proof = family.contradict(case, rng)
        return changed, list(changed.tools), Unsolvable(kind="contradiction", proof=proof), None
    assert kind == "missing-info", kind  # parse_transforms admits only UNSOLVABLE_KINDS
    tool_name = rng.choice(needed)
    param, description, _ = rng.choice(MISSING_PARAMS)
    other = _free_param(case, tools, param, rng)  # the task gives a value, not for this one
    out = [_with_param(t, param, description) if t.name == tool_name else t for t in tools]
    # the required parameter is named as in the controls, as not known: the text names one
    # required parameter and one that no tool takes in both (issue #26: "a required parameter the
    # text never names" told variants from controls with balanced accuracy 0.65 on mixed suites)
    notes = _notes(_value_note(other, _value(other, rng)), _unknown_note(param), rng)
    return case, out, Unsolvable(kind="missing-info", missing_tool=tool_name, missing_param=param,
                                 proof=f"{tool_name} needs {param}, and the task says it is not known"), notes


def _control(case: Case, tools: list[ToolSpec], needed: list[str], kind: str, rng: random.Random,
             spec: RobustSpec, taken: set[str]) -> tuple[Case, list[ToolSpec], str | None]:
    """A solvable control carrying the same kind of change as an unsolvable variant of ``kind``."""
    if kind == "removal":  # a needed tool under an unrelated name: the text's names and the tools mismatch as often
        name = rng.choice(needed)
        alias = _alias_name(rng, taken)
        spec.aliases[alias] = name
        return case, _renamed(case, tools, name, alias, rng), None
    if kind == "contradiction":  # one more sentence from the same grammar, restating a constraint
        family = get_family(case.family)
        if not isinstance(family, Restates):
            return case, tools, None
        changed = family.restate(case, rng)
        return changed, list(changed.tools), None
    tool_name = rng.choice(needed)
    param, description, _ = rng.choice(MISSING_PARAMS)
    value = _value(param, rng)
    spec.given = Given(tool=tool_name, param=param, value=value)
    unknown = _free_param(case, tools, param, rng)  # not known, and no tool takes it
    return case, [_with_param(t, param, description) if t.name == tool_name else t for t in tools], \
        _notes(_value_note(param, value), _unknown_note(unknown), rng)


def _decoy(case: Case, tools: list[ToolSpec], gone: str, rng: random.Random, spec: RobustSpec,
           taken: set[str]) -> ToolSpec | None:
    """What takes a removed tool's place, under an unrelated name, so that the tool count and the
    names the text does not mention are as in the controls: a tool for an activity the task does
    not ask for (families with ``distractor_tools``), else a twin of another tool of the case."""
    family = get_family(case.family)
    if isinstance(family, OffersDistractors):
        found = family.distractor_tools(case, 1, rng)
        if not found:
            return None
        decoy = found[0].model_copy(update={"name": _alias_name(rng, taken)})
        spec.distractors.append(decoy.name)
        return decoy
    removed = next((t for t in case.tools if t.name == gone), None)
    arity = len(removed.parameters.get("required", [])) if removed is not None else None
    others = [t for t in tools if t.name != gone and t.name != REFUSE_TOOL]
    if not others:
        return None
    # a twin taking as many arguments as the removed tool, so the schemas' sizes stay as in controls
    same = [t for t in others if len(t.parameters.get("required", [])) == arity]
    original = rng.choice(same or others)
    name = _alias_name(rng, taken)
    spec.aliases[name] = original.name
    return _alias(case, original, name, rng)


# timed cases: what start_time means for a composite (the second starts when the first ends)
_FOLLOW_ON = "start_time is the hour the first starts; the second starts the hour the first ends. "


def draw_pairs(actions: list[str], count: int, rng: random.Random, repeats: bool = False) -> list[tuple[str, str]]:
    """``count`` ordered pairs drawn from all pairs of ``actions`` (with ``repeats``, an action
    may follow itself), never from a plan: which pairs exist says nothing about the order."""
    pairs = [(a, b) for a in actions for b in actions if repeats or a != b]
    rng.shuffle(pairs)
    return pairs[:count]


def _priced(case: Case, tools: list[ToolSpec], spec: RobustSpec, rng: random.Random,
            base: Case | None = None) -> list[ToolSpec]:
    """Price every tool and add composites, some of them usable in a valid order. ``base`` is
    the case the cheapest plan is for (a contradiction's control has one more goal fact)."""
    costs = {t.name: rng.randint(2, 9) for t in tools}
    names = frozenset(t.name for t in tools)
    base_costs = {spec.base_name(n): c for n, c in costs.items()}
    family = get_family(case.family)
    composes = isinstance(family, ComposesTools)
    # no composite may do what the variant made impossible or conditional (a removed tool, a
    # tool that needs a parameter): it would be a way round the change
    blocked = {spec.given.tool if spec.given else None,
               *((spec.unsolvable.removed_tool, spec.unsolvable.missing_tool) if spec.unsolvable else ())}
    if composes:
        # every action schema of the case, each pair (one may follow itself): how many and which
        # composites exist depends on the domain, not on a plan's length or its actions
        actions = sorted({t.name for t in case.tools} - blocked)
        chosen = draw_pairs(actions, max(1, len(actions) // 2 + 1), rng, repeats=True)
    else:
        # composites for ordered pairs drawn from all the actions, not from the plan: which pairs
        # exist must say nothing about the order (some fit a valid order, some never do)
        plan = [c.name for c in family.reference_plan(case)]
        actions = sorted({n for n in plan if n not in blocked})
        chosen = draw_pairs(actions, max(1, len(plan) // 2 + 1), rng)
    composites = []
    for k, (a, b) in enumerate(chosen, 1):
        saving = rng.randint(1, max(1, min(base_costs[a], base_costs[b]) - 1))
        composites.append(Composite(tool=f"combo_{k}", first=a, second=b,
                                    cost=base_costs[a] + base_costs[b] - saving))
    spec.costs, spec.composites = costs, composites
    if not isinstance(family, PricesPlans):
        raise _unsupported(case, "cost")
    if spec.unsolvable is None:  # an unsolvable variant has no cheapest plan: it must be refused
        quads = [(c.tool, c.first, c.second, c.cost) for c in composites]
        priced_case = base if base is not None else case
        if isinstance(family, PricesCalls):  # with arguments (start times, objects)
            total, calls = family.min_cost_calls(priced_case, base_costs, quads)
            best = [name for name, _ in calls]
            spec.min_cost_args = [args for _, args in calls]
        else:
            total, best = family.min_cost_plan(priced_case, base_costs, quads)
        spec.min_cost = total
        spec.min_cost_plan = [n if n in names or n.startswith("combo_") else spec.alias_of(n, names) for n in best]
    by_name = {spec.base_name(t.name): t for t in tools}
    priced = [t.model_copy(update={"description": f"{t.description} Cost: {costs[t.name]} credits."}) for t in tools]
    for c in composites:
        first, second = by_name[c.first], by_name[c.second]
        parameters, how = first.parameters, ""
        if isinstance(family, ComposesTools):
            parameters, how = family.composite_parameters(case, first, second)
        priced.append(ToolSpec(
            name=c.tool, parameters=parameters,
            description=(f"Carries out {spec.alias_of(c.first, names)} and then, immediately after it, "
                         f"{spec.alias_of(c.second, names)}, in one call. " + how
                         + (_FOLLOW_ON if "start_time" in first.parameters.get("properties", {}) else "")
                         + f"Cost: {c.cost} credits."),
        ))
    return priced
