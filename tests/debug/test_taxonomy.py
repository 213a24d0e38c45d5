"""The taxonomy: the paper's Table 2 and the official code's definitions, reconciled."""

from planprobe.debug.taxonomy import (
    FROM_ERROR_CLASS,
    TAXONOMY,
    as_json,
    error_type,
    from_error_class,
    modules,
    types_of,
)
from planprobe.schema import ErrorClass

# the official code's keys (detector/error_definitions.py), module by module
OFFICIAL = {
    "memory": ["over_simplification", "memory_retrieval_failure", "hallucination"],
    "reflection": ["progress_misjudge", "outcome_misinterpretation", "causal_misattribution", "hallucination"],
    "planning": ["constraint_ignorance", "impossible_action", "inefficient_plan"],
    "action": ["misalignment", "invalid_action", "format_error", "parameter_error"],
    "system": ["step_limit", "tool_execution_error", "llm_limit", "environment_error"],
    "others": ["others"],
}


def test_every_official_type_and_only_those():
    assert modules() == list(OFFICIAL)
    for module, names in OFFICIAL.items():
        assert sorted(types_of(module)) == sorted(names)


def test_table_2_has_17_types_and_the_code_adds_two():
    assert sum(1 for t in TAXONOMY if t.paper_name) == 17
    assert sorted(t.key for t in TAXONOMY if not t.paper_name) == ["action/invalid_action", "others/others"]
    assert error_type("action", "misalignment").paper_name == "Planning–Action Disconnect"


def test_every_type_says_how_it_is_labelled():
    for row in as_json():
        assert row["how"] in ("exact", "heuristic", "llm") and row["how_detail"] and row["definition"]


def test_every_verdict_error_class_has_a_nearest_type():
    assert set(FROM_ERROR_CLASS) == {e.value for e in ErrorClass}
    for e in ErrorClass:
        assert from_error_class(e.value) is not None
    assert from_error_class("no_such_class") is None
