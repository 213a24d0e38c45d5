"""planprobe: test, benchmark and diagnose the planning of LLM agents.

The public Python API. The command line (``planprobe …``) is a thin layer over it.
"""

from .version import __version__  # noqa: E402,F401

from .schema import (  # noqa: E402  (the vocabulary every part speaks)
    SCHEMA_VERSION, Case, CaseMeta, ErrorClass, Evidence, Message, OracleKind, ToolCall, ToolSpec, Trace,
    TraceStatus, Usage, Verdict,
)
from .errors import InfrastructureError, PlanprobeError  # noqa: E402
from .environment import Environment, IterationLimitExceeded, Limits  # noqa: E402
from .suites.io import iter_suite, load_suite, write_suite  # noqa: E402
from .suites.registry import families, get_family, register_family  # noqa: E402
from .suites.base import Family, PlannedCall  # noqa: E402
from .suites.constraints.generator import ConstraintSuiteOptions, generate_case, generate_cases  # noqa: E402
from .suites.constraints.synthesis import SynthesisOptions  # noqa: E402
from .agents import AgentEntry, AgentRequest, make_agent, register_agent  # noqa: E402
from .models import ModelEntry, ModelOptions, register_model  # noqa: E402
from .runner.engine import RunConfig, run_episode  # noqa: E402
from .runner.store import RunStore  # noqa: E402
from .analysis.summary import RunSummary, summarize  # noqa: E402
from .api import check, run_suite  # noqa: E402

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
from .schema import TRACE_VERSION  # noqa: E402
from .models.roles import RoleModels  # noqa: E402
from .runner.rollout import rerollout, rerollout_in_run  # noqa: E402

__all__ += ["TRACE_VERSION", "RoleModels", "rerollout", "rerollout_in_run"]
