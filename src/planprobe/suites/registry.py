"""Case families by name (``Case.family``): the built-ins, those registered with
``register_family``, and plug-ins from the entry-point group ``planprobe.families``.

The built-ins are named here as import paths, not imported, so the families (which
look each other up through this module) never form an import cycle with it.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TypeVar, cast

from ..errors import PlanprobeError
from ..plugins import Registry, missing_members
from ..schema import Case, ToolSpec
from .base import Family, GrantsRestarts

GROUP = "planprobe.families"
# the order is the order of ``families()``: where two families name the same fault,
# the first one decides the class a wrapper reports for it
BUILTIN_FAMILIES = {
    "constraints": "planprobe.suites.constraints.family:ConstraintFamily",
    "holistic": "planprobe.suites.protocols.holistic:HolisticFamily",
    "stepwise": "planprobe.suites.protocols.stepwise:StepwiseFamily",
    "robust": "planprobe.suites.robust.family:RobustFamily",
    "judged": "planprobe.suites.judged.family:JudgedFamily",
    "pddl": "planprobe.suites.pddl_agent.family:PDDLAgentFamily",
    "planbench": "planprobe.suites.planbench.family:PlanBenchFamily",
    "travelplanner": "planprobe.suites.travelplanner.family:TravelPlannerFamily",
    "apibank": "planprobe.suites.apibank.family:ApiBankFamily",
    "apibank-response": "planprobe.suites.apibank.family:ApiBankResponseFamily",
    "itinerary": "planprobe.suites.itinerary.family:ItineraryFamily",
}
MEMBERS = ("name", "faults", "validate", "environment", "check", "reference_plan", "random_plan", "faulty_plan")


def _as_family(name: str, obj: object) -> Family:
    """A Family instance (a class is instantiated with no arguments), checked member by member."""
    family = obj() if inspect.isclass(obj) else obj
    # member by member without evaluating them (``isinstance(x, Family)`` would: a wrapper's
    # derived fault set lists the families, which are being registered right now)
    missing = missing_members(family, MEMBERS)
    if missing:
        raise PlanprobeError(f"family {name!r}: {type(family).__name__} is not a Family; it lacks "
                             f"{', '.join(missing)} (see docs/extending.md)")
    own = getattr(family, "name", None)
    if own != name:
        raise PlanprobeError(f"family {name!r}: its 'name' is {own!r}; the two must be equal "
                             "(cases name their family)")
    for member in MEMBERS[2:]:
        if not callable(inspect.getattr_static(family, member)):
            raise PlanprobeError(f"family {name!r}: '{member}' is not callable")
    faults = inspect.getattr_static(family, "faults")
    if not isinstance(faults, property):  # a derived fault set (wrappers) is read when asked, not now
        if not isinstance(faults, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                      for k, v in faults.items()):
            raise PlanprobeError(f"family {name!r}: 'faults' must map fault names to error classes (str -> str)")
    return cast(Family, family)


_REGISTRY: Registry[Family] = Registry("family", GROUP, BUILTIN_FAMILIES, _as_family)

F = TypeVar("F")


def register_family(family: F) -> F:
    """Add a family (an instance, or a class that takes no arguments; usable as a class
    decorator). Its name must be new: the built-ins and earlier registrations stay."""
    instance = family() if inspect.isclass(family) else family
    name = getattr(instance, "name", None)
    _REGISTRY.register(name if isinstance(name, str) else "", instance)
    return family


def register(family: Family) -> None:
    """The old name of ``register_family`` (kept for existing callers)."""
    register_family(family)


def unregister_family(name: str) -> None:
    """Remove a registered family (tests, notebooks); built-ins always stay."""
    _REGISTRY.unregister(name)


def get_family(name: str) -> Family:
    family = _REGISTRY.get(name)
    if family is None:
        raise PlanprobeError(f"unknown case family {name!r} (known: {', '.join(sorted(_REGISTRY.names()))})")
    return family


def families() -> dict[str, Family]:
    """Every family, built-ins first; loads installed plug-ins."""
    return _REGISTRY.all()


def family_names() -> list[str]:
    """Every family name, importing nothing (plug-ins by their entry-point names)."""
    return _REGISTRY.names()


def is_builtin(name: str) -> bool:
    return _REGISTRY.builtin(name)


def restart_tool_of(case: Case) -> ToolSpec | None:
    """The tool whose valid calls the case's environment grants as restarts, as the case
    offers it (its schema decides which calls are valid); None when there is none. The
    family says which tool that is (capability ``GrantsRestarts``); families without it
    grant no restarts."""
    return case.derived("restart_tool", _find_restart_tool)[0]  # a tuple: None is a value worth caching


def _find_restart_tool(case: Case) -> tuple[ToolSpec | None]:
    family = get_family(case.family)
    name = family.restart_tool(case) if isinstance(family, GrantsRestarts) else None
    return (next((t for t in case.tools if t.name == name), None) if name is not None else None,)
