"""Planning protocols (APB): holistic and step-wise planning of any executable case.

``wrap_holistic`` / ``wrap_stepwise`` turn a case of an executable family (the
constraint family; any family with the hooks described in ``suites/base.py``)
into a case of family "holistic" or "stepwise", where the agent answers with a
plan in JSON instead of executing tools, and the base family's oracle judges it
exactly. See docs/protocols.md.
"""

from .holistic import HolisticFamily
from .parse import ParsedPlan, extract_json, parse_plan
from .spec import HOLISTIC, PROTOCOLS, STEPWISE, base_case
from .stepwise import StepwiseFamily
from .wrap import (
    EXECUTE,
    check_protocol,
    replay,
    stepwise_rng,
    wrap,
    wrap_holistic,
    wrap_lines,
    wrap_stepwise,
)

__all__ = [
    "EXECUTE", "HOLISTIC", "PROTOCOLS", "STEPWISE", "HolisticFamily", "ParsedPlan", "StepwiseFamily", "base_case",
    "check_protocol", "extract_json", "parse_plan", "replay", "stepwise_rng", "wrap", "wrap_holistic", "wrap_lines",
    "wrap_stepwise",
]
