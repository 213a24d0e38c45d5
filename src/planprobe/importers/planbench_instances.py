"""Where PlanBench's PDDL lives under its ``instances`` folder, and which task a
record is: the configs planprobe knows (``LAYOUTS``), PlanBench's task names
(``TASKS``, ``task_id``) and the problems, parsed and optimally solved once
(``PlanBenchInstances``). Used by the re-scoring (``planbench``) and benchmarks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlanprobeError
from ..pddl import Domain, Problem, load_domain, load_problem, solve
from ..pddl.translation import DomainTranslation, load_translation

__all__ = ["LAYOUTS", "TASKS", "DomainLayout", "PlanBenchInstances", "task_id"]

TASKS = {
    "t1": "plan_generation", "t2": "plan_optimality", "t3": "plan_verification", "t4": "plan_reuse",
    "t5": "plan_generalization", "t6": "replanning", "t7": "plan_execution", "t8_1": "goal_shuffling",
    "t8_2": "full_to_partial", "t8_3": "partial_to_full",
}


@dataclass(frozen=True)
class DomainLayout:
    """Where a PlanBench config's PDDL lives under the instances folder, and its translation."""

    domain_file: str
    instances: str
    generalized: str
    translation: str


def _layout(folder: str, translation: str, basic: str = "generated_basic") -> DomainLayout:
    return DomainLayout(f"{folder}/generated_domain.pddl", f"{folder}/{basic}", f"{folder}/generated", translation)


LAYOUTS: dict[str, DomainLayout] = {
    "blocksworld": _layout("blocksworld", "blocksworld"),
    "blocksworld_3": _layout("blocksworld", "blocksworld", "generated_basic_3"),
    "mystery_blocksworld": _layout("blocksworld/mystery", "mystery_blocksworld"),
    "mystery_blocksworld_3": _layout("blocksworld/mystery", "mystery_blocksworld", "generated_basic_3"),
    "logistics": _layout("logistics", "logistics"),
    "obfuscated_deceptive_logistics": _layout("obfuscated_deceptive_logistics", "obfuscated_deceptive_logistics"),
    "obfuscated_randomized_logistics": _layout("obfuscated_randomized_logistics", "obfuscated_randomized_logistics"),
    "depots": _layout("depots", "depots"),
}


def task_id(value: str) -> str:
    """``t1``, ``1``, ``task_1_plan_generation``, ``task_8_2_full_to_partial`` → ``t1`` / ``t8_2``."""
    text = str(value).strip().lower()
    m = re.fullmatch(r"(?:t|task_?)?(\d)(?:_(\d))?(?:_[a-z_]+)?(?:\.jsonl(?:\.gz)?)?", text)
    if m is not None:
        key = f"t{m.group(1)}" + (f"_{m.group(2)}" if m.group(2) else "")
        if key in TASKS:
            return key
    for key, name in TASKS.items():
        if name in text:
            return key
    raise PlanprobeError(f"task {value!r}: expected one of {', '.join(TASKS)} (or PlanBench's task names)")


class PlanBenchInstances:
    """PlanBench's PDDL under one folder: problems parsed once, optimal lengths planned once."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        if not self.root.is_dir():
            raise PlanprobeError(f"{self.root}: no such folder (expected PlanBench's 'instances' folder)")
        self._domains: dict[str, Domain] = {}
        self._problems: dict[tuple[str, int, bool], Problem] = {}
        self._optimal: dict[tuple[str, int, bool], int] = {}

    def layout(self, domain: str) -> DomainLayout:
        layout = LAYOUTS.get(domain)
        if layout is None:
            raise PlanprobeError(f"domain {domain!r}: not a PlanBench config planprobe knows "
                                 f"({', '.join(LAYOUTS)})")
        return layout

    def translation(self, domain: str) -> DomainTranslation:
        return load_translation(self.layout(domain).translation)

    def problem(self, domain: str, instance_id: int, generalized: bool = False) -> Problem:
        key = (domain, instance_id, generalized)
        if key not in self._problems:
            layout = self.layout(domain)
            folder = layout.generalized if generalized else layout.instances
            domain_path = self.root / layout.domain_file
            path = self.root / folder / f"instance-{instance_id}.pddl"
            for p in (domain_path, path):
                if not p.is_file():
                    raise PlanprobeError(f"{p}: instance file not found (expected PlanBench's layout "
                                         f"DIR/<domain>/generated_basic/instance-N.pddl under {self.root})")
            if layout.domain_file not in self._domains:
                self._domains[layout.domain_file] = load_domain(domain_path)
            self._problems[key] = load_problem(path, self._domains[layout.domain_file])
        return self._problems[key]

    def optimal_length(self, domain: str, instance_id: int, generalized: bool = False) -> int:
        key = (domain, instance_id, generalized)
        if key not in self._optimal:
            self._optimal[key] = solve(self.problem(domain, instance_id, generalized)).cost
        return self._optimal[key]
