"""planprobe: test, benchmark and diagnose the planning of LLM agents.

The public Python API. The command line (``planprobe …``) is a thin layer over it.
"""

from .agents import AgentEntry, AgentRequest, make_agent, register_agent
from .analysis.summary import RunSummary, summarize
from .api import check, run_suite
from .environment import Environment, IterationLimitExceeded, Limits
from .errors import InfrastructureError, PlanprobeError
from .models import ModelEntry, ModelOptions, register_model
from .runner.engine import RunConfig, run_episode
from .runner.store import RunStore
from .schema import (
    SCHEMA_VERSION,
    Case,
    CaseMeta,
    ErrorClass,
    Evidence,
    Message,
    OracleKind,
    ToolCall,
    ToolSpec,
    Trace,
    TraceStatus,
    Usage,
    Verdict,
)
from .suites.base import Family, PlannedCall
from .suites.constraints.generator import (
    ConstraintSuiteOptions,
    generate_case,
    generate_cases,
)
from .suites.constraints.synthesis import SynthesisOptions
from .suites.io import iter_suite, load_suite, write_suite
from .suites.registry import families, get_family, register_family
from .version import __version__

__all__ = [
    "SCHEMA_VERSION", "Case", "CaseMeta", "ErrorClass", "Evidence", "Message", "OracleKind", "ToolCall",
    "ToolSpec", "Trace", "TraceStatus", "Usage", "Verdict", "InfrastructureError", "PlanprobeError",
    "Environment", "IterationLimitExceeded", "Limits", "iter_suite", "load_suite", "write_suite", "get_family",
    "ConstraintSuiteOptions", "SynthesisOptions", "generate_case", "generate_cases", "make_agent", "RunConfig",
    "run_episode", "RunStore", "RunSummary", "summarize", "check", "run_suite", "__version__",
    # extension points (docs/extending.md)
    "Family", "PlannedCall", "families", "register_family", "AgentEntry", "AgentRequest", "register_agent",
    "ModelEntry", "ModelOptions", "register_model",
]

# agents with roles and re-rollout (issue #13 items 5-6)
from .models.roles import RoleModels
from .runner.rollout import rerollout, rerollout_in_run
from .schema import TRACE_VERSION

__all__ += ["TRACE_VERSION", "RoleModels", "rerollout", "rerollout_in_run"]
