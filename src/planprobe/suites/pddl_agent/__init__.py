"""The PDDL family as agent tasks (issue #5, item 6): a planning problem whose
actions are tools, executed against the state by the environment and judged by
the validator. See docs/pddl.md, "The agent family"."""

from .family import PDDLAgentFamily
from .generator import PDDLSuiteOptions, build_case, generate_cases, generate_lines
from .spec import FAMILY, AgentSpec

__all__ = ["FAMILY", "AgentSpec", "PDDLAgentFamily", "PDDLSuiteOptions", "build_case", "generate_cases",
           "generate_lines"]
