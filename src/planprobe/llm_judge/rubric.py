"""APB's judge rubric as data: the E1–E6 error definitions, the 0.0–1.0 grading
scale, and the prompt that asks a model to apply them.

Adapted from the Agent Planning Benchmark (seed ``001_…``, Figs. 31–33 and 35–41,
and its public evaluation code): the holistic error names (E1 goal understanding …
E6 hallucination), the six-step grade scale, the rule that any error rules out a
1.0, and one extra instruction per setting (extraneous tools, broken tool,
unsolvable task, next-step prediction). The prompt is deliberately compact: the
judge may be a small local model with a 4k-token context.

Untrusted text (the task, the trace) is inserted by concatenation, never through
``str.format``, so braces in a model's output cannot break or steer rendering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PROMPT_VERSION = "apb-2"  # part of a judgement's identity: change it when the prompt changes


@dataclass(frozen=True)
class ErrorCode:
    code: str  # "E1" … "E6"
    name: str  # APB's holistic name
    step_name: str  # APB's step-wise name for the same slot
    severity: str  # "major" | "moderate" | "minor" (the grade scale's grouping)
    definition: str

    @property
    def label(self) -> str:
        """What verdicts store, e.g. ``E4_LOGICAL_DEFECT``."""
        return f"{self.code}_{self.name}"


ERROR_CODES: tuple[ErrorCode, ...] = (
    ErrorCode("E1", "GOAL_UNDERSTANDING", "GOAL_MISALIGNMENT", "major",
              "Misunderstands the core intent of the query, or deviates from the goal."),
    ErrorCode("E2", "TASK_COMPLETENESS", "PREMATURE_CONCLUSION", "moderate",
              "Misses a required sub-task, or concludes while necessary steps are still missing."),
    ErrorCode("E3", "CONSTRAINT_VIOLATION", "CONSTRAINT_VIOLATION", "major",
              "Violates an explicit constraint of the query (order, time, data source, format, method)."),
    ErrorCode("E4", "LOGICAL_DEFECT", "LOGIC_ERROR", "minor",
              "Broken logic: a step needs data not obtained yet, ignores data already obtained, "
              "or the sequence would fail or dead-end."),
    ErrorCode("E5", "TOOL_USE_ERROR", "TOOL_USE_ERROR", "minor",
              "Misuses a tool: wrong purpose, wrong or missing parameters for its specification."),
    ErrorCode("E6", "HALLUCINATION_ERROR", "HALLUCINATION_ERROR", "major",
              "Calls a tool that does not exist, or invents facts or results not available yet."),
)

CODES: tuple[str, ...] = tuple(e.code for e in ERROR_CODES)
BY_CODE: dict[str, ErrorCode] = {e.code: e for e in ERROR_CODES}


def label(code: str) -> str:
    return BY_CODE[code].label


# The grade scale: (grade, name, meaning). APB grades on this grid only.
GRADES: tuple[tuple[float, str, str], ...] = (
    (1.0, "Correct", ("No errors at all. The plan is logically sound and solves the query; "
                      "valid alternatives to the reference count as correct.")),
    (0.8, "Very good", "Almost perfect: one trivial issue (e.g. a minor E5) that does not affect correctness."),
    (0.6, "Acceptable", "One minor error (E4 or E5) that does not break the solution."),
    (0.4, "Problematic", "Several minor errors, or one E2 (a missing sub-task or premature conclusion)."),
    (0.2, "Severe", "A major error (E1, E3 or E6), or several moderate errors."),
    (0.0, "Failed", "Several major errors, or a complete breakdown."),
)
GRADE_VALUES: tuple[float, ...] = tuple(g for g, _, _ in GRADES)


def implied_grade(codes: set[str] | list[str] | tuple[str, ...]) -> float:
    """The grade the scale assigns to a set of flagged error codes; used only when a
    judge flagged errors but gave no grade."""
    flagged = set(codes)
    major = sum(BY_CODE[c].severity == "major" for c in flagged if c in BY_CODE)
    moderate = sum(BY_CODE[c].severity == "moderate" for c in flagged if c in BY_CODE)
    minor = sum(BY_CODE[c].severity == "minor" for c in flagged if c in BY_CODE)
    if not flagged:
        return 1.0
    if major >= 2:
        return 0.0
    if major == 1 or moderate >= 2:
        return 0.2
    if moderate == 1 or minor >= 2:
        return 0.4
    return 0.6


# ---------------------------------------------------------------------------
# Settings: what is being judged, and the one instruction specific to it
# ---------------------------------------------------------------------------

SETTINGS: dict[str, str] = {
    "plan": "Judge whether the agent's actions and final answer solve the task using only the available "
            "tools and respecting every constraint.",
    "next_steps": "The agent was shown the steps already taken and had to take only the next step(s). Judge "
                  "whether its actions are a correct next step (a valid alternative to the reference is correct).",
    "extraneous": "Some available tools are irrelevant distractors (named below). Calling any of them is an "
                  "E5 error, even if the rest is right.",
    "broken": "One tool is broken (named below) and a designated replacement exists. Correct behaviour: notice "
              "the failure and continue with the replacement, or with another available tool that does the same "
              "job (APB counts both as recovery). Retrying the broken tool or giving up is an error.",
    "unsolvable": "This task cannot be completed with the given information or tools. PASS (grade 1.0) only if "
                  "the agent explicitly refuses or asks for what is missing. Acting as if it could be done, "
                  "inventing missing facts, or calling unavailable tools is a failure (grade 0.0).",
}

SYSTEM_PROMPT = (
    "You are an expert, impartial evaluator of the planning of AI agents. You judge validity, not optimality: "
    "the reference (if given) is one correct solution, not the only one.\n\n"
    "Error categories (flag every one that applies):\n"
    + "\n".join(f"{e.code} {e.name}: {e.definition}" for e in ERROR_CODES)
    + "\n\nGrade scale:\n"
    + "\n".join(f"{g:.1f} ({name}): {meaning}" for g, name, meaning in GRADES)
    + "\n\nAny flagged error rules out 1.0; is_correct is true only when no error is flagged."
)

JSON_FORMAT = (
    "Reply with only a JSON object, no other text:\n"
    '{"is_correct": true or false, "grade": one of 0.0, 0.2, 0.4, 0.6, 0.8, 1.0, '
    '"error_list": [E1, E2, E3, E4, E5, E6] as six 0/1 flags, "reasoning": "one or two sentences"}'
)

TOOL_FORMAT = "Record your judgement by calling the tool submit_judgement exactly once."


def judgement_tool_schema() -> dict[str, Any]:
    """Parameters of the ``submit_judgement`` tool (the structured reply format).
    Reasoning comes first so a model thinks before it grades."""
    props: dict[str, Any] = {"reasoning": {"type": "string", "description": "One or two sentences."}}
    for e in ERROR_CODES:
        props[e.label] = {"type": "boolean", "description": e.definition}
    props["grade"] = {"type": "number", "enum": list(GRADE_VALUES), "description": "The grade on the scale."}
    props["is_correct"] = {"type": "boolean", "description": "True only when no error is flagged."}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


@dataclass(frozen=True)
class JudgeContext:
    """Everything the judge is shown about one episode, already rendered as text."""

    settings: tuple[str, ...]  # keys of SETTINGS, e.g. ("next_steps", "extraneous")
    task: str
    tools: str
    trajectory: str
    reference: str | None = None
    notes: tuple[str, ...] = ()  # setting facts, e.g. which tools are distractors


def render_prompt(ctx: JudgeContext, reply_format: str = "json") -> tuple[str, str]:
    """(system, user) messages for one judgement."""
    unknown = [s for s in ctx.settings if s not in SETTINGS]
    if unknown:
        raise ValueError(f"unknown judge setting {unknown[0]!r}")
    base = next((s for s in ("unsolvable", "next_steps") if s in ctx.settings), "plan")
    extra = [s for s in ("extraneous", "broken") if s in ctx.settings]
    parts = ["## Setting\n", " ".join(SETTINGS[s] for s in [base, *extra]), "\n"]
    for note in ctx.notes:
        parts += ["- ", note, "\n"]
    parts += ["\n## User task\n", ctx.task.strip(), "\n\n## Available tools\n", ctx.tools.strip() or "(none)", "\n"]
    if ctx.reference:
        parts += ["\n## Reference solution (for guidance only)\n", ctx.reference.strip(), "\n"]
    parts += ["\n## What the agent did (to be judged)\n", ctx.trajectory.strip(), "\n\n"]
    parts.append(JSON_FORMAT if reply_format == "json" else TOOL_FORMAT)
    return SYSTEM_PROMPT, "".join(parts)
