"""The task readers the solver tries, in order: the first that claims a view decides.

Built-ins are ``"module:attribute"`` strings (imported on first use, like the families and
models tables), all inside ``planprobe.solver``. A family's reader is added by one line here
(e.g. ``"constraints": "planprobe.solver.constraints_reader:READER"``); a plug-in family adds
its own through the entry-point group ``planprobe.solver_readers`` or ``register_reader``.
Readers are tried built-ins first, in this table's order, then the rest as registered.
"""

from __future__ import annotations

from typing import cast

from ..errors import PlanprobeError
from ..plugins import Registry, missing_members
from .base import TaskReader

GROUP = "planprobe.solver_readers"

BUILTIN_READERS = {
    "pddl": "planprobe.solver.pddl_reader:READER",
    "constraints": "planprobe.solver.constraints_reader:READER",
    "itinerary": "planprobe.solver.itinerary_reader:READER",
    "itinerary-pmc": "planprobe.solver.itinerary_pmc:READER",
    "planbench": "planprobe.solver.planbench_reader:READER",
    "travelplanner": "planprobe.solver.travelplanner_reader:READER",
}


def _check(name: str, obj: object) -> TaskReader:
    missing = missing_members(obj, ("name", "claims", "decide"))
    if missing:
        raise PlanprobeError(f"solver reader {name!r}: it lacks {', '.join(missing)} (see planprobe.solver.base)")
    reader = cast(TaskReader, obj)  # checked member by member above
    if reader.name != name:
        raise PlanprobeError(f"solver reader {name!r}: its name is {reader.name!r}; the two must be equal")
    return reader


_REGISTRY: Registry[TaskReader] = Registry("solver reader", GROUP, BUILTIN_READERS, _check)


def register_reader(reader: TaskReader) -> TaskReader:
    """Add a task reader (tried after the built-ins); its name must be new."""
    return _REGISTRY.register(reader.name, reader)


def unregister_reader(name: str) -> None:
    _REGISTRY.unregister(name)


def readers() -> list[TaskReader]:
    """Every reader, in the order they are tried."""
    return list(_REGISTRY.all().values())
