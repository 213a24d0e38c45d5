"""The tool edits the robustness transforms share (``transforms.py``): errors that name the case and
the transform, service-style names unrelated to any task (a renamed tool, a broken tool's twin, a
removal's decoy), ``broken``'s failing tool and its working twin, and ``extraneous``'s near-duplicate
distractors for a family with no lexicon of its own.
"""

from __future__ import annotations

import random

from ...errors import PlanprobeError
from ...schema import Case, ToolSpec
from ..base import AliasesTools
from ..registry import get_family
from .spec import Broken, RobustSpec

BROKEN_ERRORS = (
    "Error 503 Service Unavailable: the service behind '{tool}' is down for maintenance.",
    "Error 500 Internal Server Error: '{tool}' failed with an unexpected exception (request id 7f3a9c).",
    "Error: connection to the '{tool}' backend timed out after 30 s.",
    "Error 410 Gone: '{tool}' has been retired and no longer accepts requests.",
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

def _unsupported(case: Case, transform: str) -> PlanprobeError:
    return PlanprobeError(f"case {case.id}: the {case.family!r} family does not support --transform {transform}")


def _cannot(case: Case, transform: str, why: str) -> PlanprobeError:
    """A variant that cannot be made from this case: say which case, which transform and why
    (instead of an ``IndexError`` from an empty draw)."""
    return PlanprobeError(f"case {case.id}: cannot make --transform {transform}: {why}")

# why a kind that works on a tool the reference plan calls finds none (an answer-text family:
# TravelPlanner, itinerary, PlanBench, a planning-protocol wrapper)
_NO_CALLS = "its reference plan calls no tool (the answer is text)"

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
