"""``planprobe pddl validate / plan``: verdicts, exit codes, one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess

import pytest
from pddl_data import instances

from helpers import planprobe_here
from planprobe.pddl.fast_downward import available as fast_downward_available

BW_DOMAIN = """(define (domain bw) (:requirements :strips)
  (:predicates (clear ?x) (ontable ?x) (handempty) (holding ?x) (on ?x ?y))
  (:action pick-up :parameters (?ob) :precondition (and (clear ?ob) (ontable ?ob) (handempty))
    :effect (and (holding ?ob) (not (clear ?ob)) (not (ontable ?ob)) (not (handempty))))
  (:action stack :parameters (?ob ?underob) :precondition (and (clear ?underob) (holding ?ob))
    :effect (and (handempty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob)) (not (holding ?ob)))))
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    """``planprobe pddl …`` in this process (helpers.planprobe_here): its output and exit code are checked."""
    return planprobe_here("pddl", *args)


@pytest.fixture
def bw(tmp_path):
    base = instances() / "blocksworld"
    return base / "generated_domain.pddl", base / "generated_basic" / "instance-2.pddl", tmp_path


def _one_line_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_validate_valid_and_invalid(bw):
    domain, problem, tmp = bw
    plan = tmp / "plan.txt"
    plan.write_text("(unstack d c)\n(put-down d)\n(pick-up c)\n(stack c a)\n; cost = 4 (unit cost)\n")
    proc = _run("validate", domain, problem, plan)
    assert proc.returncode == 0 and proc.stdout.strip() == "Plan valid: 4 steps executed, goal satisfied."
    plan.write_text("(unstack d c)\n(pick-up c)\n")
    proc = _run("validate", domain, problem, plan)
    assert proc.returncode == 1
    assert "step 2 (pick-up c) is not executable" in proc.stdout and "(Set (handempty) to true)" in proc.stdout
    proc = _run("validate", domain, problem, plan, "--relax", "precondition", "--json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1 and data["outcome"] == "goal_not_reached" and data["relax"] == "precondition"
    assert data["unmet_goals"] == ["(on c a)"]


def test_unknown_object_in_plan_is_one_line(bw):
    domain, problem, tmp = bw
    plan = tmp / "plan.txt"
    plan.write_text("(unstack d zz)\n")
    proc = _run("validate", domain, problem, plan)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout.strip() == ("Plan invalid: step 1 '(unstack d zz)' is not an action of the problem: "
                                   "unknown object 'zz' (the problem has: a, b, c, d).")


def test_bad_input_is_one_line_with_exit_2(bw):
    domain, problem, tmp = bw
    plan = tmp / "plan.txt"
    plan.write_text("(unstack d c)\n")
    bad = tmp / "bad-domain.pddl"
    bad.write_text(BW_DOMAIN.replace("(and (clear ?underob) (holding ?ob))", "(and (clear ?underob) (holdng ?ob))"))
    _one_line_error(_run("validate", bad, problem, plan), f"{bad}:5:", "unknown predicate 'holdng'")
    _one_line_error(_run("validate", domain, problem, tmp / "missing.txt"), "missing.txt: cannot read the plan")
    _one_line_error(_run("validate", domain, problem, plan, "--relax", "lots"), "--relax 'lots'")
    _one_line_error(_run("plan", problem, problem), "expected 'domain', got 'problem'")
    _one_line_error(_run("plan", domain, problem, "--planner", "magic"), "--planner 'magic'")


def test_plan_writes_an_optimal_plan_that_validates(bw):
    domain, problem, tmp = bw
    out = tmp / "plan.txt"
    proc = _run("plan", domain, problem, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "optimal plan of 4 steps by builtin astar(lmcut)" in proc.stderr
    # the default planner is auto: it says which planner ran and why
    assert "planner choice: builtin: " in proc.stderr
    assert out.read_text().splitlines()[-1] == "; cost = 4 (unit cost)"
    assert _run("validate", domain, problem, out).returncode == 0


def test_unsolvable_and_time_out_are_one_line(tmp_path):
    domain = tmp_path / "domain.pddl"
    domain.write_text(BW_DOMAIN)
    problem = tmp_path / "problem.pddl"
    problem.write_text("(define (problem p) (:domain bw) (:objects a b) (:init (handempty) (ontable a) (clear a) "
                       "(ontable b) (clear b)) (:goal (and (on a b) (on b a))))")
    _one_line_error(_run("plan", domain, problem), "unsolvable: the search space is exhausted")
    _one_line_error(_run("plan", domain, problem, "--planner", "builtin", "--node-limit", "1"),
                    "no plan found within the node limit")
    # auto: past the node limit Fast Downward takes over (when installed), and proves it unsolvable
    _one_line_error(_run("plan", domain, problem, "--node-limit", "1"),
                    "unsolvable (Fast Downward" if fast_downward_available() else "no plan found within the node limit")
