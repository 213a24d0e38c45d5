"""The ``SolvableFromText`` claim for TravelPlanner: its cases come from its released data, not a
generator, so its solver sample is the training queries (their plans annotated), read from the
folder named by ``$PLANPROBE_TRAVELPLANNER_TRAIN``.

Declared in one line: ``SolverSampleFromTraining`` is first among ``TravelPlannerFamily``'s bases.
The contract test holds the family to 100% under ``--agent tools --model solver`` (and skips it,
saying why, where the data is not on the machine).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from ...schema import Case
from ..base import SampleUnavailable

TRAIN_ENV = "PLANPROBE_TRAVELPLANNER_TRAIN"
MODES = ("sole-planning", "two-stage")


def training_sample(n: int, seed: int) -> list[Case]:
    """``n`` training queries (drawn by the seed) in each mode, ids distinct, byte-identical for the
    same seed and data. Raises ``SampleUnavailable`` when the folder is not set or not there."""
    from .cases import training_cases

    folder = os.environ.get(TRAIN_ENV)
    if not folder or not Path(folder).is_dir():
        raise SampleUnavailable(f"TravelPlanner's training data: set ${TRAIN_ENV} to the folder of "
                                f"train_queries_and_plans.jsonl (now: {folder or 'unset'})")
    cases = training_cases(Path(folder), list(MODES), strict=False)
    out: list[Case] = []
    for mode in MODES:
        own = [c for c in cases if c.spec.get("mode") == mode]
        out += sorted(random.Random(f"planprobe/travelplanner/solver/{seed}/{mode}").sample(own, min(n, len(own))),
                      key=lambda c: c.id)
    return out


class SolverSampleFromTraining:
    """Mixed into a family's bases, it claims ``SolvableFromText`` with the training queries as the
    sample; no robustness variant applies to every case (the plan is the answer text: no called tool
    to remove or break, no plan to price; and a sole-planning case has no tool to imitate)."""

    solver_variants: tuple[tuple[str, ...], ...] = ()

    def solver_sample(self, n: int, seed: int) -> list[Case]:
        return training_sample(n, seed)
