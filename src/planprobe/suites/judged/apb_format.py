"""APB's record format and prompts, as APB's own evaluation code reads and builds them.

APB mode must show the tested model and the judge exactly what APB's runner
(github.com/Mikivishy/AgentPlanningBenchmark, ``evaluation/apb_eval``) shows
them, or its figures are not comparable. This module restates that behaviour:

- ``json_field``: a ``*_json`` field is JSON text or an already decoded value;
  missing or empty gives the default. (APB also silently uses the default for
  JSON text it cannot decode; planprobe reports that row instead — see
  ``importers/apb_records``.) It lives with the ``judged`` family because the
  family's reference answers read APB's records with it too.
- ``prediction_payload`` / ``judge_payload``: the objects APB serialises (same
  keys, same order, same regime test: only ``planning_regime == "Holistic"``
  is holistic) and ``dumps`` serialises them the same way (indent 2, no ASCII
  escaping).
- ``prediction_instruction`` / ``judge_system_prompt``: which of APB's prompt
  texts a record gets. The texts themselves are not shipped: they are read
  from the user's checkout of APB's code (``importers/apb_prompts``) and passed in.

Pure functions over plain dicts: no I/O, no model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

SPLITS: tuple[str, ...] = (
    "holistic_planning", "holistic_tool_extraneous", "holistic_unsolvable",
    "step_wise_planning", "step_wise_tool_extraneous", "step_wise_tool_broken",
)
HOLISTIC_SPLITS = SPLITS[:3]
STEP_WISE_SPLITS = SPLITS[3:]
# the settings of planprobe's judged family each split's cases get
SPLIT_SETTINGS: dict[str, list[str]] = {
    "holistic_planning": ["plan"],
    "holistic_tool_extraneous": ["plan", "extraneous"],
    "holistic_unsolvable": ["unsolvable"],
    "step_wise_planning": ["next_steps"],
    "step_wise_tool_extraneous": ["next_steps", "extraneous"],
    "step_wise_tool_broken": ["next_steps", "broken"],
}

# The fields APB's loader, prompts and scorer read (in that order of appearance).
RECORD_FIELDS: tuple[str, ...] = (
    "id", "split", "planning_regime", "task_family", "task_category", "source", "source_subset", "query",
    "tools_json", "tool_names_json", "files", "plan", "tool_chain_json", "extraneous_tool_names_json",
    "unsolvable_type", "prediction_horizon", "trajectory_prefix_json", "ground_truth_steps_json",
    "reference_remaining_steps_json", "broken_tool_name", "replacement_tool_json",
)
JSON_FIELDS: tuple[str, ...] = tuple(f for f in RECORD_FIELDS if f.endswith("_json"))

_PREDICT_BY_SPLIT = {
    "holistic_planning": "HOLISTIC_INSTRUCTION",
    "holistic_tool_extraneous": "HOLISTIC_TOOL_EXTRANEOUS_INSTRUCTION",
    "holistic_unsolvable": "UNSOLVABLE_INSTRUCTION",
    "step_wise_planning": "STEP_WISE_INSTRUCTION",
    "step_wise_tool_extraneous": "STEP_WISE_TOOL_EXTRANEOUS_INSTRUCTION",
    "step_wise_tool_broken": "STEP_WISE_TOOL_BROKEN_INSTRUCTION",
}


def json_field(record: dict[str, Any], key: str, default: Any) -> Any:
    """A ``*_json`` field decoded; ValueError when it is text that is not JSON."""
    value = record.get(key)
    if value in (None, ""):
        return default
    if isinstance(value, str):
        return json.loads(value)
    return value


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def is_holistic(record: dict[str, Any]) -> bool:
    return record.get("planning_regime") == "Holistic"


def prediction_instruction(record: dict[str, Any], p: Mapping[str, str]) -> str:
    """The split's instruction out of APB's texts ``p``; an unrecognised split gets the
    step-wise one, as in APB."""
    return p[_PREDICT_BY_SPLIT.get(str(record.get("split")), "STEP_WISE_INSTRUCTION")]


def judge_system_prompt(record: dict[str, Any], p: Mapping[str, str]) -> str:
    """The judge's system prompt out of APB's texts ``p``, chosen by split then regime as APB does."""
    split = record.get("split")
    if split == "holistic_unsolvable":
        return p["UNSOLVABLE_JUDGE_PROMPT"]
    if split in ("holistic_tool_extraneous", "step_wise_tool_extraneous"):
        return p["TOOL_EXTRANEOUS_JUDGE_PROMPT"]
    if split == "step_wise_tool_broken":
        return p["TOOL_BROKEN_JUDGE_PROMPT"]
    if record.get("planning_regime") == "Step-wise":
        return p["STEP_WISE_JUDGE_PROMPT"]
    return p["HOLISTIC_JUDGE_PROMPT"]


def prediction_payload(record: dict[str, Any], p: Mapping[str, str]) -> dict[str, Any]:
    """What the tested model is shown (before any file context), key for key."""
    payload: dict[str, Any] = {
        "id": record.get("id"),
        "task_category": record.get("task_category"),
        "source": record.get("source"),
        "source_subset": record.get("source_subset"),
        "query": record.get("query"),
        "instruction": prediction_instruction(record, p),
        "available_tools": json_field(record, "tools_json", []),
        "tool_names": json_field(record, "tool_names_json", []),
    }
    if is_holistic(record):
        payload["unsolvable_type"] = record.get("unsolvable_type")
        payload["extraneous_tool_names"] = json_field(record, "extraneous_tool_names_json", [])
    else:
        payload["prediction_horizon"] = record.get("prediction_horizon")
        payload["trajectory_prefix"] = json_field(record, "trajectory_prefix_json", [])
        payload["extraneous_tool_names"] = json_field(record, "extraneous_tool_names_json", [])
        payload["broken_tool_name"] = record.get("broken_tool_name")
        payload["replacement_tool"] = json_field(record, "replacement_tool_json", None)
    return payload


def judge_payload(record: dict[str, Any]) -> dict[str, Any]:
    """What the judge is shown: the task, tools, prefix, the reference and the answer."""
    if is_holistic(record):
        reference: dict[str, Any] = {
            "plan": record.get("plan"),
            "tool_chain": json_field(record, "tool_chain_json", []),
            "unsolvable_type": record.get("unsolvable_type"),
        }
    else:
        reference = {
            "prediction_horizon": record.get("prediction_horizon"),
            "ground_truth_steps": json_field(record, "ground_truth_steps_json", []),
            "reference_remaining_steps": json_field(record, "reference_remaining_steps_json", []),
            "broken_tool_name": record.get("broken_tool_name"),
            "replacement_tool": json_field(record, "replacement_tool_json", None),
        }
    return {
        "id": record.get("id"),
        "task_category": record.get("task_category"),
        "query": record.get("query"),
        "available_tools": json_field(record, "tools_json", []),
        "extraneous_tool_names": json_field(record, "extraneous_tool_names_json", []),
        "trajectory_prefix": json_field(record, "trajectory_prefix_json", []),
        "reference": reference,
        "model_response": record.get("model_response", ""),
    }


def prediction_text(record: dict[str, Any], p: Mapping[str, str], file_context: str = "") -> str:
    """The text part of APB's user message to the tested model (``p``: APB's texts)."""
    payload = prediction_payload(record, p)
    if file_context:
        payload["file_context"] = file_context
    return dumps(payload)
