"""The solver's constraint reader (issue #27), without the backend: views are built from what a
model is shown (system prompt, task text, tool schemas; never ``case.spec``), an episode is driven
here (decide, run the chosen calls in the family's environment, show the results), and the
family's oracle judges it. The reader itself may not import the family: checked on its source."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from solver_helpers import drive, view_of

from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.schema import Case
from planprobe.solver.base import ChatView, Decision, Observed, Step
from planprobe.solver.constraints_plan import Bounds, schedule_completion
from planprobe.solver.constraints_reader import READER
from planprobe.solver.constraints_text import read_requirement, tokenize
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_case
from planprobe.suites.protocols import stepwise_rng, wrap_holistic, wrap_stepwise
from planprobe.suites.registry import get_family
from planprobe.suites.robust.transforms import parse_transforms, robustify

FAMILY = get_family("constraints")
SOLVER_DIR = Path(__file__).resolve().parents[2] / "src" / "planprobe" / "solver"


def play(case: Case) -> tuple[bool, list[Decision], Any]:
    """One episode (``solver_helpers.drive``): passed, the decisions, the trace."""
    episode = drive(READER, case)
    return episode.verdict.passed, episode.decisions, episode.trace


def cases(n: int, seed: int, **opts) -> list[Case]:
    o = ConstraintSuiteOptions(n=n, seed=seed, **opts)
    return [generate_case(i, o) for i in range(n)]


SAMPLES = {
    "basic": dict(actions=(2, 8)),
    "extended": dict(actions=(2, 6), extended=True),
    "extended-long": dict(actions=(2, 6), extended=True, max_duration=5),
    "paper": dict(actions=(2, 6), style="paper"),
    "paper-extended": dict(actions=(2, 6), style="paper", extended=True),
}


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_every_case_passes_from_its_text(sample):
    failed, under = [], []
    for case in cases(40, 3, **SAMPLES[sample]):
        ok, decisions, _ = play(case)
        under += [(case.id, d.underspecified) for d in decisions if d.underspecified]
        if not ok:
            failed.append(case.id)
    assert under == [] and failed == []


ROBUST = ["extraneous:3", "broken", "unsolvable", "cost", "unsolvable,cost", "extraneous:2,unsolvable"]


@pytest.mark.parametrize("transform", ROBUST)
@pytest.mark.parametrize("style", ["planprobe", "paper"])
@pytest.mark.parametrize("extended", [False, True])
def test_robustness_variants_pass_and_unsolvable_ones_are_refused(transform, style, extended):
    """Distractors never called, a failed tool replaced by its twin, the cheapest plan, and every
    unsolvable variant refused (a missing tool, an unknown parameter, a contradiction) while its
    solvable controls pass, in both styles (a paper-style variant states its tasks)."""
    failed, under = [], []
    for case in cases(24, 4, actions=(2, 5), extended=extended, style=style):
        variant = robustify(case, parse_transforms(transform.split(",")), 1)
        ok, decisions, _ = play(variant)
        under += [(variant.id, d.underspecified) for d in decisions if d.underspecified]
        if not ok:
            failed.append(variant.id)
    assert under == [] and failed == []


def test_paper_style_distractors_pass_from_the_text():
    """Once a finding: in the paper's style the text did not list the tasks, so a distractor read
    exactly like a task the requirement happens not to constrain. Every variant of a paper-style
    case now states its tasks (and the distractors are written in the paper's style): with
    distractors the solver plays the tasks only and passes, none under-specified."""
    for case in cases(24, 4, actions=(2, 5), style="paper"):
        for transform in ("extraneous:2", "extraneous:3,unsolvable:removal"):
            variant = robustify(case, parse_transforms(transform.split(",")), 1)
            assert "The tasks are: " in variant.task and variant.task.startswith(case.task.rstrip())
            ok, decisions, _ = play(variant)
            assert ok and not any(d.underspecified for d in decisions), variant.id
            tools = {t.name: t.description for t in variant.tools}
            paper_like = {n for n, d in tools.items() if "Call this tool" not in d}
            assert paper_like == set(tools), variant.id  # no planprobe-style distractor among the paper's tools


PROTOCOL_SAMPLES = [
    ("holistic", None), ("stepwise", 1), ("stepwise", 3),
]


@pytest.mark.parametrize("protocol, k", PROTOCOL_SAMPLES)
@pytest.mark.parametrize("style", ["planprobe", "paper"])
@pytest.mark.parametrize("extended", [False, True])
def test_planning_protocols_are_answered_from_the_text(protocol, k, style, extended):
    """Holistic: the whole plan as JSON, timed with the durations the descriptions state;
    step-wise: the next k steps after the steps shown with their results."""
    failed, under = [], []
    for case in cases(20, 6, actions=(2, 6), extended=extended, style=style):
        wrapped = wrap_holistic(case) if protocol == "holistic" else wrap_stepwise(case, k, stepwise_rng(1, case))
        ok, decisions, _ = play(wrapped)
        under += [d.underspecified for d in decisions if d.underspecified]
        if not ok:
            failed.append(wrapped.id)
    assert under == [] and failed == []


@pytest.mark.parametrize("transform", ["unsolvable", "cost", "extraneous:2"])
def test_holistic_variants_refuse_in_the_chain_and_plan_cheapest(transform):
    for case in cases(20, 6, actions=(2, 5)):
        wrapped = wrap_holistic(robustify(case, parse_transforms([transform]), 1))
        ok, decisions, _ = play(wrapped)
        assert ok and not decisions[-1].underspecified, wrapped.id


def test_holistic_over_timed_variants_passes_and_broken_is_refused_by_the_wrapper():
    """Once findings. Over an extended variant the holistic tool JSON now states every tool's
    duration (distractors' too): the plan is made from the text and passes. A holistic plan over a
    broken pair is not built (APB has broken tools step-wise only): wrapping one is an error."""
    for style in ("planprobe", "paper"):
        for case in cases(12, 6, actions=(2, 5), extended=True, style=style):
            for transform in ("extraneous:2", "cost", "unsolvable", "extraneous:2,unsolvable:missing-info"):
                wrapped = wrap_holistic(robustify(case, parse_transforms(transform.split(",")), 1))
                ok, decisions, _ = play(wrapped)
                assert ok and not any(d.underspecified for d in decisions), wrapped.id
    broken = robustify(cases(1, 6, actions=(3, 3))[0], parse_transforms(["broken"]), 1)
    with pytest.raises(PlanprobeError, match="step-wise only"):
        wrap_holistic(broken)
    assert wrap_stepwise(broken, 1, stepwise_rng(1, broken)).family == "stepwise"


def test_long_extended_cases_pass_from_their_text():
    """Once a finding: extended cases whose durations added up to more than a day had no schedule.
    The generator now draws durations that fit in a day, so every case of a sample where that
    used to happen (5-8 tasks of up to 5 hours) passes from its text, none under-specified."""
    full_days = 0
    for case in cases(40, 1, actions=(5, 8), extended=True, max_duration=5):
        ok, decisions, _ = play(case)
        assert ok and not any(d.underspecified or d.refuse for d in decisions), case.id
        full_days += sum(a["duration"] for a in case.spec["actions"]) > 18  # the test, not the reader, looks
    assert full_days > 0


def test_paper_style_unconstrained_tasks_pass_from_the_text():
    """Once read as the distractors' finding: with --allow-unconstrained, a task the requirement never
    mentions. A paper-style text that lists no tasks has no tools but its tasks (every variant that
    adds tools states the tasks), so the solver runs every activity tool, in both styles."""
    seen = 0
    for style in ("paper", "planprobe"):
        for case in cases(60, 3, actions=(3, 9), style=style, allow_unconstrained=True):
            if not case.meta.difficulty.get("unconstrained"):
                continue
            seen += style == "paper"
            ok, decisions, _ = play(case)
            assert ok and not any(d.underspecified for d in decisions), case.id
    assert seen > 0


def test_restarts_happen_and_still_pass():
    """Extended cases where the first plan, made before any duration is known, breaks: the
    reader learns the durations from the results, asks for a restart, and then passes."""
    restarted = 0
    for case in cases(60, 5, actions=(3, 6), extended=True, max_duration=5):
        ok, decisions, trace = play(case)
        assert ok, case.id
        if any(s.tool == "request_restart" for d in decisions for s in d.calls):
            restarted += 1
            assert trace.restarts >= 1
    assert restarted > 0


def test_the_reading_matches_the_generated_constraints():
    """The test (not the reader) compares the atoms read from the text with the spec."""
    for opts in SAMPLES.values():
        for case in cases(30, 11, **opts):
            actions = case.spec["actions"]
            idx = {a["id"]: k for k, a in enumerate(actions)}
            want = set()
            for c in case.spec["constraints"]:
                if c["kind"] == "order":
                    want.add(("<", idx[c["a"]], idx[c["b"]]))
                else:
                    want.add(("s>=" if c["kind"] == "start_ge" else "e<=", idx[c["a"]], c["hour"]))
            req = case.task.split("Here is the requirement:\n")[1]
            reading = read_requirement(req, [a["name"] for a in actions])
            assert reading.problem is None and set(reading.atoms) == want, case.id


NAMES = ["sanitizing tools", "cutting hair", "washing hair"]


@pytest.mark.parametrize("sentence, problem", [
    ("Sanitizing tools happens by 15:00.", "whole task"),  # its end, or only its start?
    ("Sanitizing tools starts after 10:00.", "strict bound"),  # is 10:00 itself allowed?
    ("After 10:00, sanitizing tools starts.", "strict bound"),
    ("Sanitizing tools follows cutting hair.", "no reading"),  # immediately?
    ("Cutting hair and washing hair, which must happen before sanitizing tools, happen.", "no reading"),
])
def test_unclear_phrases_are_named_not_guessed(sentence, problem):
    reading = read_requirement(sentence, NAMES)
    assert reading.problem is not None and problem in reading.problem and sentence in reading.problem


def test_which_after_two_tasks_has_two_readings_unless_the_verb_decides():
    two = read_requirement("Sanitizing tools comes before cutting hair and washing hair, which must happen "
                           "before 11:00.", NAMES)
    assert two.problem is not None
    amb = read_requirement("Sanitizing tools precedes cutting hair and washing hair, which must start at "
                           "or after 11:00.", NAMES)
    assert amb.problem is not None and "2 readings" in amb.problem
    one = read_requirement("Sanitizing tools precedes cutting hair and washing hair, which starts at or "
                           "after 11:00.", NAMES)
    assert one.problem is None and ("s>=", 2, 11) in one.atoms and ("s>=", 1, 11) not in one.atoms


def test_names_are_matched_longest_first():
    toks = tokenize("Washing hair dryers precedes washing hair.", ["washing hair", "washing hair dryers"])
    assert toks == [1, "precedes", 0, "."]


def test_an_impossible_requirement_is_refused():
    case = cases(1, 1, actions=(3, 3))[0]
    names = [t.description.split(".")[0] for t in case.tools]
    task = case.task.split("Here is the requirement:\n")[0] + "Here is the requirement:\n" + (
        f"{names[0]} comes before {names[1].lower()}. {names[1]} comes before {names[2].lower()}. "
        f"{names[2]} comes before {names[0].lower()}.")
    d = READER.decide(ChatView(system="", task=task, tools=view_of(case).tools))
    assert d.refuse is not None and "cycle" in d.refuse


def test_extended_infeasible_with_revealed_durations_is_refused():
    bounds = Bounds.of(2, frozenset({("<", 0, 1), ("e<=", 1, 3)}))
    assert schedule_completion(bounds, [1, 1], [], 0) == [(0, 0), (1, 1)]
    assert schedule_completion(bounds, [2, 2], [], 0) is None


def test_a_broken_prefix_asks_for_a_restart():
    case = cases(1, 2, actions=(2, 2), extended=True)[0]
    view = view_of(case)
    first = READER.decide(view).calls[0]
    other = next(t.name for t in case.tools if t.name not in (first.tool, "request_restart"))
    # run the other task first at 23:00: nothing can follow it before 24:00
    bad = Step(other, {"start_time": 23})
    env = FAMILY.environment(case, Limits(), 0, "t")
    result = env.call(bad.tool, json.dumps(bad.arguments))
    d = READER.decide(view_of(case, (Observed(bad, result),)))
    assert d.calls == (Step("request_restart", {}),)


def test_a_call_with_bad_arguments_is_retried_not_taken_for_a_broken_tool():
    case = cases(1, 2, actions=(2, 2), extended=True)[0]
    first = READER.decide(view_of(case)).calls[0]
    bad = Step(first.tool, {"start_time": 30})
    env = FAMILY.environment(case, Limits(), 0, "t")
    result = env.call(bad.tool, json.dumps(bad.arguments))
    assert result.startswith("Error")
    again = READER.decide(view_of(case, (Observed(bad, result),)))
    assert again.calls == (first,)


def test_the_reader_imports_nothing_of_the_families_agents_or_runner():
    for path in sorted(SOLVER_DIR.glob("constraints_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                targets = [("." * node.level) + base]
            else:
                continue
            for t in targets:
                resolved = t
                if t.startswith("."):
                    resolved = "planprobe.solver." + t.lstrip(".") if not t.startswith("..") else "planprobe." + t.lstrip(".")
                assert not resolved.startswith(("planprobe.suites", "planprobe.agents", "planprobe.runner")), (
                    path.name, t)
                allowed = {"__future__", "re", "json", "collections", "dataclasses", "typing", "z3"}
                assert resolved.startswith("planprobe.solver") or resolved.split(".")[0] in allowed, (path.name, t)
