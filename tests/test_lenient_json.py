"""The one lenient reader of JSON in model replies (judge, protocols, PMC, modular agent,
detectors): what it repairs, what it refuses, and that it never evaluates text."""

from __future__ import annotations

from planprobe.lenient_json import (
    braced_spans,
    fenced_blocks,
    find_json,
    first_object,
    load_lenient,
    outermost_object,
)


def test_load_lenient_repairs_and_names_each_repair():
    value, repairs = load_lenient("{'grade': 0.8, ok: True, 'errors': ['E1',],}")
    assert value == {"grade": 0.8, "ok": True, "errors": ["E1"]}
    assert repairs == ["Python literals", "single quotes", "trailing commas", "unquoted keys"]
    assert load_lenient('{"a": 1}') == ({"a": 1}, [])
    value, repairs = load_lenient('{"a": [1, 2')  # cut off by the token limit
    assert value == {"a": [1, 2]} and "truncated object" in repairs


def test_find_json_takes_the_accepted_value_else_an_object_else_says_why():
    reply = 'Plan:\n```json\n[{"tool": "a"},]\n```\nthanks'
    value, why = find_json(reply, lambda v: isinstance(v, list))
    assert value == [{"tool": "a"}] and why is None
    value, why = find_json('text {"other": 1} more', lambda v: isinstance(v, list))
    assert value == {"other": 1} and why is None  # the caller says what the object lacks
    assert find_json("no json at all", lambda v: True) == (None, "it contains no JSON object")
    value, why = find_json('{"a": }', lambda v: True)
    assert value is None and why is not None and why.startswith("the JSON in it is not valid")


def test_spans_and_objects_are_found_in_prose():
    assert fenced_blocks("x ```json\n{\"a\": 1}\n``` y") == ['{"a": 1}\n']
    assert braced_spans('a {"b": "}"} c {"d": 1') == ['{"b": "}"}', '{"d": 1']
    assert outermost_object('say ```json\n{"a": {"b": 1}}\n```') == '{"a": {"b": 1}}'
    assert outermost_object("no braces") is None
    assert first_object('x [1] {"a": 1} {"b": 2}') == {"a": 1}


def test_code_is_data_never_run():
    text = "__import__('os').system('echo hi')"
    assert first_object(text) is None
    assert find_json(text, lambda v: True)[0] is None
    assert load_lenient("{'x': __import__('os')}") == (None, ["single quotes", "unquoted values"])
