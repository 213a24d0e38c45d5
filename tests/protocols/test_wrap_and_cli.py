"""Wrapping is lossless and deterministic; the command line generates protocol suites
that the real runner judges (oracle agent: everything passes)."""

import json
import subprocess

import pytest

from helpers import cases, planprobe_cmd, planprobe_here, subprocess_env
from planprobe.errors import PlanprobeError
from planprobe.schema import Case
from planprobe.suites.io import load_suite, write_suite
from planprobe.suites.protocols import (
    base_case,
    stepwise_rng,
    wrap_holistic,
    wrap_lines,
    wrap_stepwise,
)
from planprobe.suites.registry import get_family

BASE = cases(6, seed=3) + cases(6, seed=3, extended=True)


@pytest.mark.parametrize("wrap", [wrap_holistic, lambda c: wrap_stepwise(c, 2, stepwise_rng(0, c))],
                         ids=["holistic", "stepwise"])
def test_wrap_unwrap_round_trip(wrap, tmp_path):
    wrapped = [wrap(c) for c in BASE]
    write_suite(wrapped, tmp_path / "s.jsonl")
    loaded = load_suite(tmp_path / "s.jsonl")  # validated by the wrapper families on the way in
    for original, case in zip(BASE, loaded):
        assert case.model_dump() == Case.model_validate(json.loads(case.model_dump_json())).model_dump()
        assert base_case(case).model_dump() == original.model_dump()  # the base case comes back whole
        assert case.task.startswith(original.task) and case.tools == []
        assert case.meta.parent == original.id and case.family in case.meta.tags
        get_family(case.family).validate(case)


def test_wrapping_is_deterministic_per_seed_and_case():
    lines = [c.model_dump_json() for c in BASE]
    once = list(wrap_lines(lines, "stepwise", 3, seed=9))
    assert once == list(wrap_lines(lines, "stepwise", 3, seed=9))
    other = list(wrap_lines(lines, "stepwise", 3, seed=10))
    prefix = [json.loads(x)["meta"]["generator"]["prefix"] for x in once]
    assert prefix != [json.loads(x)["meta"]["generator"]["prefix"] for x in other]
    assert list(wrap_lines(lines, "execute")) == lines


def test_bad_options_and_cases_are_named():
    with pytest.raises(PlanprobeError, match="--steps 4"):
        wrap_lines([], "stepwise", 4)
    with pytest.raises(PlanprobeError, match="--steps is for --protocol stepwise"):
        wrap_lines([], "holistic", 2)
    with pytest.raises(PlanprobeError, match="already a holistic case"):
        wrap_holistic(wrap_holistic(BASE[0]))
    bad = wrap_holistic(BASE[0]).model_copy(update={"spec": {"version": 1, "base": {"id": "x"}}})
    with pytest.raises(PlanprobeError, match=r"field 'spec\.base\.family'"):
        get_family("holistic").validate(bad)
    bad = wrap_stepwise(BASE[0], 1, stepwise_rng(0, BASE[0])).model_copy(update={"spec": {"base": {}, "k": 7}})
    with pytest.raises(PlanprobeError, match=r"field 'spec\.k'"):
        get_family("stepwise").validate(bad)


def pp(*args):
    """The command line in this process (helpers.planprobe_here): its output and files are checked."""
    r = planprobe_here(*args)
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.parametrize("family, options", [
    ("constraints", ["--protocol", "holistic"]),
    ("constraints", ["--protocol", "stepwise", "--steps", "3", "--extended"]),
    ("pddl", ["--protocol", "stepwise", "--steps", "2"]),
], ids=["holistic", "stepwise-extended", "pddl-stepwise"])
def test_generate_run_show_through_the_cli(tmp_path, family, options):
    suite = tmp_path / "suite.jsonl"
    pp("generate", family, "--n", "12", "--seed", "5", "-o", str(suite), "-q", *options)
    lines = suite.read_text().splitlines()
    assert len(lines) == 12 and all(json.loads(x)["family"] == options[1] for x in lines)
    pp("run", str(suite), "--agent", "oracle", "--out", str(tmp_path / "run"), "-q")
    data = json.loads(pp("show", str(tmp_path / "run"), "--json").stdout)
    assert data["cases"] == data["passed"] == 12 and data["errors"] == {}


def test_cli_refuses_a_bad_protocol(tmp_path):
    r = subprocess.run(planprobe_cmd() + ["generate", "constraints", "--n", "2", "-o", str(tmp_path / "x.jsonl"),
                                          "--protocol", "holistc"],
                       capture_output=True, text=True, env=subprocess_env(), timeout=300)
    assert r.returncode != 0 and "--protocol 'holistc'" in r.stderr and not (tmp_path / "x.jsonl").exists()


def test_holistic_variants_state_every_duration_and_broken_is_refused(tmp_path):
    """Over a timed variant every tool a plan may call states how long it takes (distractors too,
    so no description tells them from tasks); the restart tool is left out; the oracle agent
    passes. Holistic over a broken pair is refused with a one-line error and no file."""
    import re

    from helpers import run_agent
    from planprobe.agents import make_agent
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        generate_cases,
    )
    from planprobe.suites.robust import parse_transforms, robustify
    from planprobe.suites.robust.spec import spec_of

    for style in ("planprobe", "paper"):
        for base in generate_cases(ConstraintSuiteOptions(n=8, seed=5, extended=True, style=style)):
            variant = robustify(base, parse_transforms(["extraneous:2", "unsolvable"]), 3)
            shown = wrap_holistic(variant)
            tools = json.loads(shown.task.split("The tools, as JSON:\n", 1)[1].split("\n]\n", 1)[0] + "\n]")
            names = {t["name"] for t in tools}
            assert "request_restart" not in names and set(spec_of(variant).distractors) <= names
            for t in tools:
                if "start_time" in t["parameters"].get("properties", {}):
                    assert re.search(r"It takes \d+ hours?\.", t["description"]), t
                    assert "Returns how many hours" not in t["description"]
            assert shown == wrap_holistic(variant)  # deterministic
            assert get_family(shown.family).check(shown, run_agent(make_agent("oracle"), shown)).passed
    broken = robustify(cases(1, seed=5)[0], parse_transforms(["broken"]), 3)
    with pytest.raises(PlanprobeError, match="step-wise only"):
        wrap_holistic(broken)
    out = tmp_path / "b.jsonl"
    r = subprocess.run([*planprobe_cmd(), "generate", "constraints", "--n", "2", "--transform", "broken",
                        "--protocol", "holistic", "-o", str(out)], capture_output=True, text=True, env=subprocess_env())
    assert r.returncode != 0 and "step-wise only" in r.stderr and not out.exists()
