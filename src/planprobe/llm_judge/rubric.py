"""planprobe's judge rubric as data: six error categories, a six-step grading
scale, and the prompt that asks a model to apply them.

The structure follows the Agent Planning Benchmark (seed ``001_…``, Figs. 31–33
and 35–41): six error slots (E1 goal … E6 hallucination, under APB's names so
verdicts line up with APB's), grades on the 0.0–1.0 grid in steps of 0.2, any
error ruling out a full grade, and one extra instruction per setting
(distractor tools, a failing tool, an impossible task, next-step prediction).
Every sentence is planprobe's own: APB's repository states no licence, so none
of its prompt text is copied (a test compares this package with APB's prompt
files when a clone is on the machine). The prompt is deliberately compact: the
judge may be a small local model with a 4k-token context.

Untrusted text (the task, the trace) is inserted by concatenation, never through
``str.format``, so braces in a model's output cannot break or steer rendering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PROMPT_VERSION = "rubric-3"  # part of a judgement's identity: change it when the prompt changes


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
              "Pursues something other than what the user asked for, or loses sight of it on the way."),
    ErrorCode("E2", "TASK_COMPLETENESS", "PREMATURE_CONCLUSION", "moderate",
              "Leaves part of the request undone, or declares success before every needed step is taken."),
    ErrorCode("E3", "CONSTRAINT_VIOLATION", "CONSTRAINT_VIOLATION", "major",
              "Breaks a stated requirement of the task, e.g. an ordering, a deadline, a source, a format "
              "or a prescribed method."),
    ErrorCode("E4", "LOGICAL_DEFECT", "LOGIC_ERROR", "minor",
              "The steps do not hang together: one uses a value nobody has produced yet, one discards a "
              "result already in hand, or the order leads nowhere."),
    ErrorCode("E5", "TOOL_USE_ERROR", "TOOL_USE_ERROR", "minor",
              "A real tool used badly: for a job it does not do, or with arguments its description "
              "does not allow (wrong, missing)."),
    ErrorCode("E6", "HALLUCINATION_ERROR", "HALLUCINATION_ERROR", "major",
              "Relies on something that is not there: a tool nobody offered, or facts and tool results "
              "the agent made up."),
)

CODES: tuple[str, ...] = tuple(e.code for e in ERROR_CODES)
BY_CODE: dict[str, ErrorCode] = {e.code: e for e in ERROR_CODES}


def label(code: str) -> str:
    return BY_CODE[code].label


# The grade scale: (grade, name, meaning). APB grades on this grid only.
GRADES: tuple[tuple[float, str, str], ...] = (
    (1.0, "Correct", ("Nothing to fault: the steps fit together and reach what the user wanted; "
                      "a route different from the reference is fine if it works.")),
    (0.8, "Very good", "Right in substance, with a blemish so small (say, a slight E5) that the outcome stands."),
    (0.6, "Acceptable", "Exactly one small slip, an E4 or an E5, and the result still holds."),
    (0.4, "Problematic", "Two or more small slips, or a single E2 (something left undone or stopped early)."),
    (0.2, "Severe", "One serious error (E1, E3 or E6), or two or more E2-level errors."),
    (0.0, "Failed", "Two or more serious errors, or nothing usable at all."),
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
    "plan": "Decide whether what the agent did, and the answer it gave, accomplish the task with the tools "
            "it was offered and without breaking any requirement.",
    "next_steps": "The agent saw the steps taken so far and was to take only what comes next. Decide whether "
                  "its actions are a right continuation; another workable continuation than the reference's "
                  "counts as right.",
    "extraneous": "Some of the offered tools have nothing to do with the task (they are listed below). Using "
                  "one of them counts as E5, however good the rest is.",
    "broken": "One tool fails (named below) and a stand-in for it is offered. Good behaviour: see the failure "
              "and carry on with the stand-in, or with any other offered tool that does the same job (APB "
              "accepts both). Calling the failing tool again, or giving up, is an error.",
    "unsolvable": "The task cannot be done with what the agent was given. Grade 1.0 only when the agent says so "
                  "plainly or asks for what is lacking; going ahead anyway, making up what is lacking, or using "
                  "tools that were not offered gets 0.0.",
}

SYSTEM_PROMPT = (
    "Your job is to grade how an AI agent planned and acted. Ask whether it works, not whether it is the "
    "best: a reference, when shown, is one working answer among possibly many.\n\n"
    "Kinds of error (mark each that occurs):\n"
    + "\n".join(f"{e.code} {e.name}: {e.definition}" for e in ERROR_CODES)
    + "\n\nGrades:\n"
    + "\n".join(f"{g:.1f} ({name}): {meaning}" for g, name, meaning in GRADES)
    + "\n\nWith any error marked the grade is below 1.0, and is_correct is true only if none is marked."
)

JSON_FORMAT = (
    "Answer with a single JSON object and nothing around it, with the keys is_correct (true/false), grade "
    "(0.0, 0.2, 0.4, 0.6, 0.8 or 1.0), error_list (a list of six 0/1 flags, in the order E1 to E6) and "
    "reasoning (a sentence or two)."
)

TOOL_FORMAT = "Give your verdict through one call of the tool submit_judgement."


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
