"""The studies by name, for ``planprobe study NAME`` and ``--list``. The planned ones are
listed with their steps (docs/studies.md) and refused in one line until they are built."""

from __future__ import annotations

from ..errors import PlanprobeError
from .base import Study

BUILT = ("pdoctor", "planbench", "agentdebug")
PLANNED = {
    "apb": ("Agent Planning Benchmark: its splits and regimes, scored by its judge (planned)",
            "APB's data set (--apb-data FILE)"),
    "pmc": (("PMC: TravelPlanner with and without the unconventional hint, sole-planning / two-stage, and "
            "API-Bank level 3 (planned)"), ("TravelPlanner's validation split and database (--travelplanner DIR), "
                                          "API-Bank's data (--api-bank DIR)")),
}
NAMES = BUILT + tuple(PLANNED)


def get_study(name: str) -> Study:
    """The study called ``name``; a one-line error for a planned or unknown one."""
    if name == "pdoctor":
        from .pdoctor import STUDY as pdoctor

        return pdoctor
    if name == "planbench":
        from .planbench import STUDY as planbench

        return planbench
    if name == "agentdebug":
        from .agentdebug import STUDY as agentdebug

        return agentdebug
    if name in PLANNED:
        raise PlanprobeError(f"study {name!r} is planned, not built yet (its steps: docs/studies.md); built: "
                             f"{', '.join(BUILT)}")
    raise PlanprobeError(f"unknown study {name!r}: expected one of {', '.join(NAMES)} (planprobe study --list)")


def listing() -> list[tuple[str, str, str]]:
    """(name, one-line description, the data it needs) of every study, built first."""
    out = []
    for name in BUILT:
        s = get_study(name)
        out.append((name, s.description, s.needs))
    out += [(name, desc, needs) for name, (desc, needs) in PLANNED.items()]
    return out
