"""The built-in ``--agent`` names as registry entries (imported only when one is used)."""

from __future__ import annotations

from ..errors import PlanprobeError
from ..schema import DEFAULT_ROLE
from .base import Agent
from .registry import AgentEntry, AgentRequest


def _params(request: AgentRequest):
    from ..models.base import ChatParams

    return request.params or ChatParams(seed=request.seed)


def _single_role_model(request: AgentRequest, agent: str):
    """The one model of a single-role agent; roles it does not have are refused."""
    if request.models is not None:
        request.models.check_roles([DEFAULT_ROLE], agent)
    return request.model_for(DEFAULT_ROLE)


def _tools(request: AgentRequest) -> Agent:
    from .tools_agent import ToolsAgent

    return ToolsAgent(_single_role_model(request, "tools"), _params(request))


def _react(request: AgentRequest) -> Agent:
    from .react import ReactAgent

    return ReactAgent(_single_role_model(request, "react"), _params(request))


def _modular(request: AgentRequest) -> Agent:
    from .modular import ModularAgent

    return ModularAgent(_single_role_model(request, "modular"), _params(request))


def _python(request: AgentRequest) -> Agent:
    from .python_adapter import load_callable

    return load_callable(request.arg, models=request.models, params=request.params)


def _oracle(request: AgentRequest) -> Agent:
    from .reference import OracleAgent

    return OracleAgent()


def _random(request: AgentRequest) -> Agent:
    from .reference import RandomAgent

    return RandomAgent(request.seed)


def _faulty(request: AgentRequest) -> Agent:
    from . import known_faults
    from .reference import FaultyAgent

    faults = known_faults()
    if request.arg not in faults:
        raise PlanprobeError(
            f"unknown fault {request.arg!r} in --agent {request.spec}: choose one of {', '.join(faults)}"
            if request.arg else f"--agent faulty needs a fault, e.g. faulty:drop (faults: {', '.join(faults)})")
    return FaultyAgent(request.arg, request.seed)


def _shortcut(request: AgentRequest) -> Agent:
    from .shortcut import ShortcutAgent, cue_names

    if not request.arg:
        raise PlanprobeError(f"--agent shortcut needs a cue, e.g. shortcut:also (cues: {', '.join(cue_names())})")
    return ShortcutAgent(request.arg, request.seed)


def _misread(request: AgentRequest) -> Agent:
    from .misread import MisreadAgent, misread_words

    if not request.arg:
        raise PlanprobeError(f"--agent misread needs a word, e.g. misread:after (words: {', '.join(misread_words())})")
    return MisreadAgent(request.arg, request.seed)


TOOLS = AgentEntry("tools", _tools, needs_model=True, help="function calling", roles=(DEFAULT_ROLE,))
REACT = AgentEntry("react", _react, needs_model=True, help="ReAct text", roles=(DEFAULT_ROLE,))
MODULAR = AgentEntry("modular", _modular, needs_model=True, help="memory/reflection/plan/action (AgentDebug)",
                     roles=(DEFAULT_ROLE,))
PYTHON = AgentEntry("python", _python, argument="<module or file.py>:<function>", accepts_model=True,
                    help="your own callable; takes --model when given")
ORACLE = AgentEntry("oracle", _oracle, help="solves each case from its hidden spec")
RANDOM = AgentEntry("random", _random, help="every action once, in random order")
FAULTY = AgentEntry("faulty", _faulty, argument="<fault>", help="the reference plan with one fault")
SHORTCUT = AgentEntry("shortcut", _shortcut, argument="<cue>", help="exploits one surface cue, no planning")
MISREAD = AgentEntry("misread", _misread, argument="<word>",
                     help="reads constraint requirements exactly but takes one word for its opposite")


def _pmc(request: AgentRequest) -> Agent:
    from .pmc import PmcAgent

    return PmcAgent(request.models, _params(request))


PMC = AgentEntry("pmc", _pmc, needs_model=True, help="PMC: manager, executors, supervisor, deliverer (docs/pmc.md)",
                 roles=("manager", "executor", "supervisor", "deliverer"))


def _langgraph(request: AgentRequest) -> Agent:
    from ..integrations.langgraph_agent import make_langgraph_agent

    if not request.arg:
        raise PlanprobeError("--agent langgraph needs a factory: langgraph:<module or file.py>:<factory>")
    # without --model the factory gets model=None: a graph that builds its own chat model needs none
    model = _single_role_model(request, "langgraph") if request.models is not None else None
    return make_langgraph_agent(request.arg, model, _params(request))


LANGGRAPH = AgentEntry("langgraph", _langgraph, accepts_model=True, argument="<module or file.py>:<factory>",
                       help="your LangGraph/LangChain agent: factory(tools, model) -> graph; model is None "
                            "without --model (docs/integrations.md)",
                       roles=(DEFAULT_ROLE,))
