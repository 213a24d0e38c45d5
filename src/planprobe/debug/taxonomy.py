"""AgentErrorTaxonomy (AgentDebug, seed 003) as data: modules, error types, definitions.

The paper's Table 2 lists 17 types in five modules; the official detector code
(ulab-uiuc/AgentDebug, ``detector/error_definitions.py``) uses snake_case names and
differs in three places, reconciled here:

* it adds ``action/invalid_action`` (an action that does not exist) and a sixth
  module ``others/others`` (anything not covered); both are kept;
* Table 2's "Planning–Action Disconnect" is the code's ``action/misalignment``;
  the code's name is used, the paper's is kept as ``paper_name``;
* Table 2's "Progress Misassessment" is the code's ``progress_misjudge`` and
  "Inefficient Planning" the code's ``inefficient_plan``; "Step Limit Exhaustion"
  is ``step_limit``; memory's "Hallucination (False Memory)" is ``hallucination``
  (the same name as reflection's, told apart by the module).

Every type also says how planprobe can label it (``how``): ``exact`` (decided
from the trace and the case's formal oracle), ``heuristic`` (read from the
modular agent's own words, so it can be wrong) or ``llm`` (left to a detector).
Definitions are written for this project from the paper's and the code's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Module(str, Enum):
    MEMORY = "memory"
    REFLECTION = "reflection"
    PLANNING = "planning"
    ACTION = "action"
    SYSTEM = "system"
    OTHERS = "others"


class How(str, Enum):
    EXACT = "exact"
    HEURISTIC = "heuristic"
    LLM = "llm"


@dataclass(frozen=True)
class ErrorType:
    module: Module
    name: str  # the official code's key
    paper_name: str  # Table 2's name ("" for the code's additions)
    definition: str
    how: How
    how_detail: str  # what planprobe checks, or why it cannot

    @property
    def key(self) -> str:
        return f"{self.module.value}/{self.name}"


M, H = Module, How
TAXONOMY: tuple[ErrorType, ...] = (
    ErrorType(M.MEMORY, "over_simplification", "Over-simplification / Incomplete Summary",
              "The summary of earlier steps drops details that later reasoning needs.",
              H.LLM, "whether a summary is too coarse is a judgement about meaning"),
    ErrorType(M.MEMORY, "memory_retrieval_failure", "Retrieval Failure",
              "Information the agent has seen is not recalled when it is needed.",
              H.LLM, "what 'needed' means depends on the plan the agent had in mind"),
    ErrorType(M.MEMORY, "hallucination", "Hallucination (False Memory)",
              "Recalls steps, observations or states that never happened.",
              H.HEURISTIC, "a memory that names a past step together with a tool that step did not call"),
    ErrorType(M.REFLECTION, "progress_misjudge", "Progress Misassessment",
              "Judges progress wrongly: too optimistic, too pessimistic, or misses completion.",
              H.EXACT, "exact when the agent stops (a claim of completion) while the goal is unmet; "
                       "heuristic when a reflection says the task is done while the oracle says it is not"),
    ErrorType(M.REFLECTION, "outcome_misinterpretation", "Outcome Misinterpretation",
              "Misreads the result of the action it just took.",
              H.HEURISTIC, "a reflection that calls the last action successful when the environment rejected it"),
    ErrorType(M.REFLECTION, "causal_misattribution", "Causal Misattribution",
              "Sees that something failed but blames the wrong cause.",
              H.LLM, "the stated cause is free text"),
    ErrorType(M.REFLECTION, "hallucination", "Hallucination",
              "Reflects on results or events that never occurred.",
              H.LLM, "left to a detector (the memory check covers named steps)"),
    ErrorType(M.PLANNING, "constraint_ignorance", "Constraint Ignorance",
              "Plans against the task's limits (order, time windows, once-only tasks, resources).",
              H.EXACT, "the step after which the calls violate a stated constraint (Z3/solver-checked), "
                       "or after which the goal can no longer be reached (dead end)"),
    ErrorType(M.PLANNING, "impossible_action", "Impossible Action",
              "Attempts an action whose preconditions do not hold in the current state.",
              H.EXACT, "the PDDL simulator: a precondition false when the call was made"),
    ErrorType(M.PLANNING, "inefficient_plan", "Inefficient Planning",
              "A plan that could work but wastes steps (loops, detours).",
              H.EXACT, "a step that returns the world to a state it was already in, or is carried out "
                       "and changes nothing"),
    ErrorType(M.ACTION, "misalignment", "Planning–Action Disconnect",
              "The action taken is not the one the step's own plan announced.",
              H.HEURISTIC, "the plan names tools and the action calls none of them"),
    ErrorType(M.ACTION, "invalid_action", "",
              "Calls an action (tool) that does not exist.",
              H.EXACT, "a call of a tool the case does not offer"),
    ErrorType(M.ACTION, "format_error", "Format Error",
              "The action cannot be parsed.",
              H.EXACT, "arguments that are not a JSON object, or a reply with no action and no answer"),
    ErrorType(M.ACTION, "parameter_error", "Parameter Error",
              "The action's parameters are malformed or unreasonable.",
              H.EXACT, "arguments outside the tool's schema; a start time that overlaps or runs past the day"),
    ErrorType(M.SYSTEM, "step_limit", "Step Limit Exhaustion",
              "The run stops at the step cap.",
              H.EXACT, "the trace ended at the iteration limit"),
    ErrorType(M.SYSTEM, "tool_execution_error", "Tool Execution Error",
              "A tool misbehaves or fails.",
              H.EXACT, "a call the environment reports as a tool failure (planprobe's broken-tool variants)"),
    ErrorType(M.SYSTEM, "llm_limit", "LLM Limit",
              "The model service fails: time-outs, token or context limits.",
              H.EXACT, "the trace ended by time-out, context limit or a model-service failure"),
    ErrorType(M.SYSTEM, "environment_error", "Environment Error",
              "The environment or harness breaks, not the agent's reasoning.",
              H.LLM, "never assigned by the formal labeller: planprobe's environments are its own code, "
                     "and a failure of the harness or the model service is an infrastructure result"),
    ErrorType(M.OTHERS, "others", "",
              "Anything the types above do not cover.",
              H.EXACT, "the agent's own code crashed (planprobe's agent_crash), which no other type covers"),
)

_BY_KEY = {t.key: t for t in TAXONOMY}


def error_type(module: str, name: str) -> ErrorType:
    """The type ``module/name``; KeyError names the known keys."""
    found = _BY_KEY.get(f"{module}/{name}")
    if found is None:
        raise KeyError(f"unknown error type {module}/{name} (known: {', '.join(_BY_KEY)})")
    return found


def find(module: str, name: str) -> ErrorType | None:
    return _BY_KEY.get(f"{module}/{name}")


# A verdict's error class (schema.ErrorClass) in the taxonomy's terms: the nearest type, so
# verdict distributions and labels can be shown side by side. The labeller is finer (it
# tells an act error's invalid action, format and parameter errors apart, for one).
FROM_ERROR_CLASS: dict[str, str] = {
    "infra": "system/llm_limit",
    "agent_crash": "others/others",  # the agent's own crash; environment_error is the environment's bug
    "timeout": "system/step_limit",
    "missed_refusal": "planning/constraint_ignorance",  # planned around a contradiction it should have seen
    "wrong_refusal": "reflection/progress_misjudge",  # too pessimistic: a solvable task judged impossible
    "act_error": "action/invalid_action",
    "extraneous_tool": "planning/inefficient_plan",
    "action_lost": "reflection/progress_misjudge",  # stopped with a required action never done
    "repeated_action": "planning/constraint_ignorance",
    "parameter_error": "action/parameter_error",
    "order_error": "planning/constraint_ignorance",
    "suboptimal_cost": "planning/inefficient_plan",
}


def from_error_class(error: str) -> ErrorType | None:
    """The nearest taxonomy type of a verdict error class (None for an unknown class)."""
    key = FROM_ERROR_CLASS.get(error)
    return _BY_KEY.get(key) if key else None


def modules() -> list[str]:
    return [m.value for m in Module]


def types_of(module: str) -> list[str]:
    return [t.name for t in TAXONOMY if t.module.value == module]


def as_json() -> list[dict]:
    """The taxonomy as rows (module, type, paper name, definition, how it is labelled)."""
    return [dict(module=t.module.value, type=t.name, paper_name=t.paper_name, definition=t.definition,
                 how=t.how.value, how_detail=t.how_detail) for t in TAXONOMY]
