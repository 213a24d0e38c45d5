"""planprobe: test, benchmark and diagnose the planning of LLM agents.

The public Python API. The command line (``planprobe …``) is a thin layer over it.

Names are imported on first use (PEP 562): ``import planprobe`` — which every command line
start does — loads nothing else, so a command pays only for what it runs (issue #30).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .agents import AgentEntry, AgentRequest, make_agent, register_agent
    from .analysis.summary import RunSummary, summarize
    from .api import check, run_suite
    from .environment import Environment, IterationLimitExceeded, Limits
    from .errors import InfrastructureError, PlanprobeError
    from .models import ModelEntry, ModelOptions, register_model
    from .models.roles import RoleModels
    from .runner.engine import RunConfig, run_episode
    from .runner.rollout import rerollout, rerollout_in_run
    from .runner.store import RunStore
    from .schema import (
        SCHEMA_VERSION,
        TRACE_VERSION,
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

__all__ += ["TRACE_VERSION", "RoleModels", "rerollout", "rerollout_in_run"]

# where each public name lives
_EXPORTS: dict[str, str] = {
    "AgentEntry": ".agents",
    "AgentRequest": ".agents",
    "make_agent": ".agents",
    "register_agent": ".agents",
    "RunSummary": ".analysis.summary",
    "summarize": ".analysis.summary",
    "check": ".api",
    "run_suite": ".api",
    "Environment": ".environment",
    "IterationLimitExceeded": ".environment",
    "Limits": ".environment",
    "InfrastructureError": ".errors",
    "PlanprobeError": ".errors",
    "ModelEntry": ".models",
    "ModelOptions": ".models",
    "register_model": ".models",
    "RunConfig": ".runner.engine",
    "run_episode": ".runner.engine",
    "RunStore": ".runner.store",
    "SCHEMA_VERSION": ".schema",
    "Case": ".schema",
    "CaseMeta": ".schema",
    "ErrorClass": ".schema",
    "Evidence": ".schema",
    "Message": ".schema",
    "OracleKind": ".schema",
    "ToolCall": ".schema",
    "ToolSpec": ".schema",
    "Trace": ".schema",
    "TraceStatus": ".schema",
    "Usage": ".schema",
    "Verdict": ".schema",
    "Family": ".suites.base",
    "PlannedCall": ".suites.base",
    "ConstraintSuiteOptions": ".suites.constraints.generator",
    "generate_case": ".suites.constraints.generator",
    "generate_cases": ".suites.constraints.generator",
    "SynthesisOptions": ".suites.constraints.synthesis",
    "iter_suite": ".suites.io",
    "load_suite": ".suites.io",
    "write_suite": ".suites.io",
    "families": ".suites.registry",
    "get_family": ".suites.registry",
    "register_family": ".suites.registry",
    "RoleModels": ".models.roles",
    "rerollout": ".runner.rollout",
    "rerollout_in_run": ".runner.rollout",
    "TRACE_VERSION": ".schema",
}


def __getattr__(name: str) -> Any:
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
