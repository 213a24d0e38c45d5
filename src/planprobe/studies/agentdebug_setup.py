"""What the AgentDebug study is made of: the paper, the families standing in for its
environments, the detectors and repairs it compares, its sizes, and ``FamilyResult`` (one
family's files as read back). Shared by the study (``agentdebug.py``), its steps and its tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PAPER = ("Zhu et al., Where LLM Agents Fail and How They Can Learn from Failures (AgentDebug: AgentErrorTaxonomy, "
         "AgentErrorBench), seed 003")
# (key, title, the paper's environment it stands in for)
FAMILIES = (("blocksworld", "Blocksworld", "ALFWorld"), ("constraints", "Constraints", "WebShop"),
            ("logistics", "Logistics", "GAIA"))
METRICS = (("S", "step"), ("S+M", "step_module"), ("ALL", "all_correct"))
PAPER_DETECTORS = (("direct", "Direct Prompting"), ("brute-force", "Brute Force"),
                   ("binary-search", "Binary Search"), ("agentdebug", "AgentDebug"))
PLANPROBE_DETECTORS = (("random", "planprobe: random pick (chance)"),
                       ("oracle", "planprobe: oracle (the formal label: the ceiling)"))
DETECTORS = tuple(d for d, _ in PAPER_DETECTORS + PLANPROBE_DETECTORS)
REPAIRS = (("agentdebug", "AgentDebug"), ("none", "Best-of-N"), ("self-refine", "Self-Refine"))
PLANPROBE_REPAIRS = (("oracle", "planprobe: from the formal E (oracle pick)"),
                     ("random", "planprobe: from a random step"))
CONDITIONS = tuple(c for c, _ in REPAIRS + PLANPROBE_REPAIRS)
NO_FAILURE = "no failed trajectory to score: every case passed (or failed with no step to name)"


@dataclass(frozen=True)
class AgentDebugSize:
    cases: tuple[int, int, int]  # per family, in FAMILIES' order
    iterations: int
    timeout: float
    rounds: int
    detector_tokens: int
    blocks: tuple[int, int]
    actions: tuple[int, int]
    cities: tuple[int, int]  # logistics
    locations: tuple[int, int]
    packages: tuple[int, int]
    repairs: tuple[str, ...] = CONDITIONS  # the repair conditions run


SIZES = {
    # full: planprobe's generator defaults for the worlds (the paper's environments are not these)
    "full": AgentDebugSize(cases=(100, 50, 50), iterations=50, timeout=180.0, rounds=5, detector_tokens=400,
                           blocks=(3, 5), actions=(3, 5), cities=(2, 3), locations=(1, 3), packages=(1, 3)),
    # quick: minutes on the embedded model, whose calls are nearly all of the time: one case per family
    # in the smallest worlds, so trajectories (and the detectors' prompts, one per step and module) stay
    # short; a perfect agent still fits every case in the cap (5: the tightest it fits); AgentDebug's
    # repair and Best-of-N only (the paper's method and the baseline planprobe pairs it with)
    "quick": AgentDebugSize(cases=(1, 1, 1), iterations=5, timeout=300.0, rounds=1, detector_tokens=96,
                            blocks=(2, 2), actions=(2, 2), cities=(2, 2), locations=(1, 1), packages=(1, 1),
                            repairs=("agentdebug", "none")),
    "tiny": AgentDebugSize(cases=(2, 2, 2), iterations=24, timeout=180.0, rounds=2, detector_tokens=200,
                           blocks=(3, 4), actions=(3, 4), cities=(2, 2), locations=(1, 2), packages=(1, 2)),
}


@dataclass
class FamilyResult:
    """One family's run, bench, picks and repairs, as read from its files."""

    key: str
    cases: int = 0
    passed: int = 0
    bench: list[dict[str, Any]] | None = None  # every labelled failure (critical_error None: no step)
    picks: dict[str, list[dict[str, Any]]] | None = None  # detector -> rows
    repairs: dict[str, list[dict[str, Any]]] | None = None  # condition -> CaseRepair rows
    unlabellable: int = 0

    @property
    def scored(self) -> list[dict[str, Any]]:
        return [r for r in self.bench or [] if r["critical_error"] is not None]


def span(r: tuple[int, int]) -> str:
    return str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"

