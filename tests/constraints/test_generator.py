import json

import pytest

from planprobe.errors import PlanprobeError
from planprobe.schema import Case
from planprobe.suites.constraints.generator import (
    ConstraintSuiteOptions,
    generate_case,
    generate_cases,
)
from planprobe.suites.constraints.lexicon import default_lexicon
from planprobe.suites.constraints.prepared import prepare
from planprobe.suites.constraints.z3model import extended_satisfiable
from planprobe.suites.io import load_suite, write_suite


def test_same_seed_gives_a_byte_identical_suite(tmp_path):
    opts = ConstraintSuiteOptions(n=200, seed=42, extended=True)
    write_suite(generate_cases(opts), tmp_path / "a.jsonl")
    write_suite(generate_cases(opts), tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    write_suite(generate_cases(ConstraintSuiteOptions(n=200, seed=43, extended=True)), tmp_path / "c.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() != (tmp_path / "c.jsonl").read_bytes()


def test_a_case_can_be_regenerated_alone():
    opts = ConstraintSuiteOptions(n=30, seed=3)
    suite = list(generate_cases(opts))
    assert generate_case(17, opts) == suite[17]


def test_generated_suites_load_and_validate(tmp_path):
    path = tmp_path / "s.jsonl"
    write_suite(generate_cases(ConstraintSuiteOptions(n=50, seed=1)), path)
    loaded = load_suite(path)
    assert len(loaded) == 50 and all(isinstance(c, Case) for c in loaded)


def test_a_case_draws_its_actions_from_one_job_and_respects_the_action_range():
    lex = default_lexicon()
    for case in generate_cases(ConstraintSuiteOptions(n=200, seed=5, actions=(2, 9))):
        cc = prepare(case)
        job = lex.job(case.meta.topic)
        assert set(cc.names) <= set(job.activities)
        assert 2 <= cc.n <= 9
        assert case.meta.difficulty["actions"] == cc.n
        assert [t.name for t in case.tools] == cc.tools
        for name in cc.names:
            assert name in case.task


def test_extended_cases_are_solvable_with_the_durations_the_tools_reveal():
    for case in generate_cases(ConstraintSuiteOptions(n=300, seed=8, extended=True, actions=(2, 7))):
        cc = prepare(case)
        atoms = [("order", a, b) for _, a, b in cc.orders] + [(k, a, h) for _, k, a, h in cc.windows]
        assert extended_satisfiable(cc.durations, atoms), case.id
        assert case.tools[-1].name == "request_restart"
        assert all(t.parameters["required"] == ["start_time"] for t in case.tools[:-1])


def test_topic_option_restricts_to_one_job():
    for case in generate_cases(ConstraintSuiteOptions(n=20, seed=1, topic="Barber")):
        assert case.meta.topic == "Barber"


@pytest.mark.parametrize("kwargs, message", [
    ({"actions": (1, 3)}, "at least 2 actions"),
    ({"actions": (5, 3)}, "range is empty"),
    ({"actions": (3, 21)}, "more actions than"),
    ({"actions": (3, 13), "extended": True}, "at most 12"),
    ({"topic": "Astronaut"}, "unknown topic"),
    ({"max_duration": 0}, "max-duration"),
    ({"max_duration": 13, "extended": True}, "between 1 and 12 hours"),
])
def test_impossible_options_are_refused(kwargs, message):
    with pytest.raises(PlanprobeError, match=message):
        ConstraintSuiteOptions(**kwargs).check()


def test_write_suite_leaves_nothing_behind_when_generation_fails(tmp_path):
    def cases():
        yield from generate_cases(ConstraintSuiteOptions(n=3))
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_suite(cases(), tmp_path / "s.jsonl")
    assert list(tmp_path.iterdir()) == []


def test_suite_lines_are_single_json_objects(tmp_path):
    path = tmp_path / "s.jsonl"
    write_suite(generate_cases(ConstraintSuiteOptions(n=5)), path)
    lines = path.read_text().splitlines()
    assert len(lines) == 5 and all(json.loads(line)["family"] == "constraints" for line in lines)
