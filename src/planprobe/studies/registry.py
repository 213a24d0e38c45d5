"""The studies by name, for ``planprobe study NAME`` and ``--list``; each study's module is
imported only when it is asked for (start-up stays light)."""

from __future__ import annotations

import importlib

from ..errors import PlanprobeError
from .base import Study

BUILT = ("pdoctor", "planbench", "apb", "pmc", "agentdebug")  # the order of --list
NAMES = BUILT


def get_study(name: str) -> Study:
    """The study called ``name``; a one-line error naming the studies for an unknown one."""
    if name not in BUILT:
        raise PlanprobeError(f"unknown study {name!r}: expected one of {', '.join(NAMES)} (planprobe study --list)")
    study: Study = importlib.import_module(f"planprobe.studies.{name}").STUDY
    return study


def listing() -> list[tuple[str, str, str]]:
    """(name, one-line description, the data it needs) of every study."""
    return [(name, s.description, s.needs) for name in BUILT for s in (get_study(name),)]
