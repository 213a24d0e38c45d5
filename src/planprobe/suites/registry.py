"""Case families by name (``Case.family``)."""

from __future__ import annotations

from typing import Optional

from ..errors import PlanprobeError
from ..schema import Case, ToolSpec
from .base import Family

_FAMILIES: dict[str, Family] = {}


def register(family: Family) -> None:
    _FAMILIES[family.name] = family


def get_family(name: str) -> Family:
    if not _FAMILIES:
        _register_builtins()
    try:
        return _FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(_FAMILIES))
        raise PlanprobeError(f"unknown case family {name!r} (known: {known})") from None


def restart_tool_of(case: Case) -> Optional[ToolSpec]:
    """The tool whose valid calls the case's environment grants as restarts, as the case
    offers it (its schema decides which calls are valid); None when there is none. The
    family says which tool that is (optional hook ``restart_tool(case) -> Optional[str]``);
    families without the hook grant no restarts."""
    return case.derived("restart_tool", _find_restart_tool)[0]  # a tuple: None is a value worth caching


def _find_restart_tool(case: Case) -> tuple[Optional[ToolSpec]]:
    hook = getattr(get_family(case.family), "restart_tool", None)
    name = hook(case) if hook is not None else None
    return (next((t for t in case.tools if t.name == name), None) if name is not None else None,)


def families() -> dict[str, Family]:
    if not _FAMILIES:
        _register_builtins()
    return dict(_FAMILIES)


def _register_builtins() -> None:
    from .constraints.family import ConstraintFamily

    register(ConstraintFamily())
    from .protocols import HolisticFamily, StepwiseFamily

    register(HolisticFamily())
    register(StepwiseFamily())
    from .robust.family import RobustFamily

    register(RobustFamily())
    from .judged.family import JudgedFamily

    register(JudgedFamily())
    from .pddl.agent.family import PDDLAgentFamily

    register(PDDLAgentFamily())
    from .pddl.planbench.family import PlanBenchFamily

    register(PlanBenchFamily())
    from .travelplanner.family import TravelPlannerFamily

    register(TravelPlannerFamily())
    from .apibank.family import ApiBankFamily, ApiBankResponseFamily

    register(ApiBankFamily())
    register(ApiBankResponseFamily())
