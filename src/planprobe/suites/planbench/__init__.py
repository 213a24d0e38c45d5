"""PlanBench's eight tasks as a case family (issue #5, item 5): text prompts in
PlanBench's layout, the model's reply parsed and scored as PlanBench scores it.
See docs/pddl.md, "The PlanBench tasks"."""

from .family import PlanBenchFamily
from .generator import (
           SYSTEM,
           PlanBenchOptions,
           generate_case,
           generate_cases,
           generate_lines,
)
from .spec import FAMILY, PLAN_TASKS, TASKS, VERIFY_LEVELS, PlanBenchSpec

__all__ = ["FAMILY", "PLAN_TASKS", "SYSTEM", "TASKS", "VERIFY_LEVELS", "PlanBenchFamily", "PlanBenchOptions", "PlanBenchSpec",
           "generate_case", "generate_cases", "generate_lines"]
