from planprobe.tool_args import parse_arguments, validate_arguments

SCHEMA = {
    "type": "object",
    "properties": {"start_time": {"type": "integer", "minimum": 0, "maximum": 23}},
    "required": ["start_time"],
    "additionalProperties": False,
}


def test_parse_accepts_objects_and_empty_text():
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments("") == {}
    assert parse_arguments("  {} ") == {}
    assert parse_arguments({"a": 1}) == {"a": 1}


def test_parse_rejects_what_is_not_a_json_object():
    for raw in ['{"a": 1', "[1, 2]", "3", "null", "start_time=3", '{"a": tru}']:
        assert parse_arguments(raw) is None, raw


def test_validate_finds_each_kind_of_problem():
    assert validate_arguments(SCHEMA, {"start_time": 5}) is None
    assert validate_arguments(SCHEMA, {"start_time": 5.0}) is None  # an integral number is an integer
    assert "missing required" in validate_arguments(SCHEMA, {})
    assert "unexpected argument 'x'" in validate_arguments(SCHEMA, {"start_time": 1, "x": 2})
    assert "must be integer" in validate_arguments(SCHEMA, {"start_time": "5"})
    assert "boolean" in validate_arguments(SCHEMA, {"start_time": True})
    assert "at most 23" in validate_arguments(SCHEMA, {"start_time": 24})
    assert "at least 0" in validate_arguments(SCHEMA, {"start_time": -1})
    assert "must be one of" in validate_arguments({"properties": {"c": {"enum": ["a"]}}}, {"c": "b"})
