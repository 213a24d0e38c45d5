"""A robustness variant that cannot be made from a case is a clear error naming the case, the
transform and why, not an ``IndexError`` from an empty draw: the transforms that change a tool the
reference plan calls (unsolvable's removal and missing-info, broken) find none in a family whose
answer is text (TravelPlanner, itinerary, PlanBench, a planning-protocol wrapper), and
``extraneous:K`` finds nothing to imitate in a case without tools."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import cases, subprocess_env
from planprobe.errors import PlanprobeError
from planprobe.schema import Case
from planprobe.suites.registry import get_family
from planprobe.suites.robust import parse_transforms, robustify

TOOL_TRANSFORMS = {  # transform -> what the error says is missing
    "unsolvable": "no tool whose removal makes it unsolvable",
    "unsolvable:removal": "no tool whose removal makes it unsolvable",
    "unsolvable:missing-info": "no tool that could need a parameter",
    "broken": "no needed tool to break",
}


def _travelplanner() -> list[Case]:
    family = get_family("travelplanner")
    try:
        return family.solver_sample(1, 1)  # type: ignore[attr-defined]  # one query in each mode
    except PlanprobeError as exc:  # SampleUnavailable: the shared data is not here
        pytest.skip(str(exc))


def _itinerary() -> list[Case]:
    return list(get_family("itinerary").generate(1, 1))[:1]  # type: ignore[attr-defined]


def _planbench() -> list[Case]:
    return get_family("planbench").solver_sample(1, 1)[:1]  # type: ignore[attr-defined]


def _holistic() -> list[Case]:
    from planprobe.suites.protocols import wrap_holistic

    return [wrap_holistic(cases(1, seed=2)[0])]


SOURCES = {"travelplanner": _travelplanner, "itinerary": _itinerary, "planbench": _planbench,
           "holistic": _holistic}


@pytest.mark.parametrize("transform", sorted(TOOL_TRANSFORMS))
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_tool_transform_on_a_case_whose_plan_calls_no_tool_says_why(source, transform):
    for case in SOURCES[source]():
        for seed in range(4):  # the coin between variant and control: both sides must say it
            with pytest.raises(PlanprobeError) as caught:
                robustify(case, parse_transforms([transform]), seed)
            message = str(caught.value)
            assert message.startswith(f"case {case.id}: cannot make --transform {transform.partition(':')[0]}")
            assert TOOL_TRANSFORMS[transform] in message and "reference plan calls no tool" in message


def test_extraneous_on_a_case_without_tools_says_why():
    toolless = [c for c in _planbench() + _travelplanner() if not c.tools]
    assert toolless
    for case in toolless:
        with pytest.raises(PlanprobeError) as caught:
            robustify(case, parse_transforms(["extraneous:2"]), 1)
        assert str(caught.value) == (f"case {case.id}: cannot make --transform extraneous:2: the case has no "
                                     "tool, so no distractor tool can be made (its answer is text)")


def test_the_variants_that_can_be_made_still_are():
    # two-stage TravelPlanner and itinerary cases have tools to imitate; constraint cases every transform
    with_tools = [c for c in _itinerary() + _travelplanner() if c.tools]
    for case in with_tools:
        assert len(robustify(case, parse_transforms(["extraneous:2"]), 1).tools) == len(case.tools) + 2
    for transform in [*TOOL_TRANSFORMS, "extraneous:3", "cost"]:
        for case in cases(3, seed=2):
            robustify(case, parse_transforms([transform]), 0)


TOOLLESS_FAMILY = '''
import sys
from planprobe.suites.registry import get_family, register_family

class Toolless:
    """A plug-in whose reference plan calls no tool (its cases: constraint tasks, renamed)."""
    name = "toolless-test"
    faults = {}
    def _base(self): return get_family("constraints")
    def validate(self, case): pass
    def environment(self, case, limits, trial=0, agent=""): return self._base().environment(case, limits, trial, agent)
    def check(self, case, trace): return self._base().check(case, trace)
    def reference_plan(self, case): return []
    def random_plan(self, case, rng): return []
    def faulty_plan(self, case, fault, rng): return None
    def generate(self, n, seed):
        from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases
        for case in generate_cases(ConstraintSuiteOptions(actions=(3, 3), n=n, seed=seed)):
            yield case.model_copy(update={"family": self.name})

register_family(Toolless)
from planprobe.cli.root import main
sys.argv = ["planprobe", *sys.argv[1:]]
main()
'''


@pytest.mark.parametrize("transform", ["unsolvable", "broken"])
def test_the_cli_says_it_in_one_line_and_exits_2(tmp_path, transform):
    out = tmp_path / "suite.jsonl"
    r = subprocess.run([sys.executable, "-c", TOOLLESS_FAMILY, "generate", "toolless-test", "--n", "2",
                        "--transform", transform, "-o", str(out), "-q"],
                       check=False, capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert r.returncode == 2, r.stderr[-800:]
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-800:]
    assert f"cannot make --transform {transform}" in lines[0] and "toolless-test" not in lines[0].split("case ")[0]
    assert TOOL_TRANSFORMS[transform] in lines[0] and "case " in lines[0]
