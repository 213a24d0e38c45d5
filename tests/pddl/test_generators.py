"""Generators: uniform Blocksworld states, solvable problems, determinism."""

from __future__ import annotations

import collections
import random
import subprocess

import pytest

from helpers import planprobe_cmd, shared_path, subprocess_env
from planprobe.errors import PlanprobeError
from planprobe.pddl import load_domain, problem_to_pddl, solve, validate
from planprobe.pddl.constructive import constructive_plan
from planprobe.pddl.generators import (
    BLOCKSWORLD_GOALS,
    LOGISTICS_GOALS,
    LogisticsSize,
    block_names,
    blocksworld_problem,
    count_states,
    logistics_problem,
    random_towers,
    standard_domain,
)
from planprobe.pddl.satisficing import greedy_plan


def test_state_counts_are_oeis_a000262():
    assert [count_states(n) for n in range(1, 9)] == [1, 3, 13, 73, 501, 4051, 37633, 394353]


def test_random_towers_are_uniform_over_all_states():
    rng = random.Random(7)
    draws = 13_000
    seen = collections.Counter(frozenset(tuple(t) for t in random_towers(list("abc"), rng)) for _ in range(draws))
    assert len(seen) == 13
    assert all(abs(c - 1000) < 150 for c in seen.values()), seen  # ~4.7 standard deviations


def test_block_names_continue_past_z():
    names = block_names(30)
    assert names[:3] == ["a", "b", "c"] and names[25:28] == ["z", "aa", "ab"] and len(set(names)) == 30


def _check_blocksworld_state(problem):
    blocks = {o.name for o in problem.objects}
    init = set(problem.init)
    below = collections.Counter()
    for b in blocks:
        on = [a for a in init if a.predicate == "on" and a.args[0] == b]
        table = any(a.predicate == "ontable" and a.args == (b,) for a in init)
        assert len(on) + table == 1, b  # each block stands on exactly one thing
        for a in on:
            below[a.args[1]] += 1
    for b in blocks:
        clear = any(a.predicate == "clear" and a.args == (b,) for a in init)
        assert clear == (below[b] == 0), b
    assert any(a.predicate == "handempty" for a in init)


@pytest.mark.parametrize("goal", BLOCKSWORLD_GOALS)
def test_blocksworld_problems_are_well_formed_nontrivial_and_solvable(goal):
    rng = random.Random(f"bw/{goal}")
    for i in range(60):
        n = 2 + i % 5
        p = blocksworld_problem(n, rng, goal)
        _check_blocksworld_state(p)
        assert not set(p.init).issuperset(lit.atom for lit in p.goal), "goal already holds"
        if goal == "on":
            assert all(lit.atom.predicate == "on" for lit in p.goal)
        plan = constructive_plan(p)
        assert plan is not None and validate(p, plan).valid
        if n <= 5:
            optimal = solve(p)
            assert validate(p, optimal.steps).valid and optimal.cost <= len(plan)


def test_large_blocksworld_problems_have_a_valid_plan():
    for n in (10, 25, 40):
        p = blocksworld_problem(n, random.Random(n), "full")
        assert len(p.objects) == n
        assert validate(p, constructive_plan(p)).valid


@pytest.mark.parametrize("goal", LOGISTICS_GOALS)
def test_logistics_problems_are_solvable_by_the_planner(goal):
    rng = random.Random(f"log/{goal}")
    for i in range(25):
        size = LogisticsSize(cities=1 + i % 2, locations=1 + i % 3 + (i % 2 == 0 and i % 3 == 0),
                             packages=1 + i % 2, airplanes=1)
        p = logistics_problem(size, rng, goal)
        plan = solve(p, time_limit=None)  # no test depends on the machine's speed
        assert validate(p, plan.steps).valid
        assert validate(p, constructive_plan(p)).valid
        at = {a.args[0]: a.args[1] for a in p.init if a.predicate == "at"}
        assert any(at[lit.atom.args[0]] != lit.atom.args[1] for lit in p.goal), "goal already holds"


def test_logistics_layout_follows_planbench():
    p = logistics_problem(LogisticsSize(cities=3, locations=3, packages=4, airplanes=2), random.Random(3))
    assert p.name == "logistics-c3-s3-p4-a2"
    init = set(p.init)
    kinds = collections.Counter(a.predicate for a in init if len(a.args) == 1)
    assert kinds == {"airplane": 2, "city": 3, "truck": 3, "location": 9, "airport": 3, "obj": 4}
    airports = {a.args[0] for a in init if a.predicate == "airport"}
    assert airports == {"l0-0", "l1-0", "l2-0"}
    at = {a.args[0]: a.args[1] for a in init if a.predicate == "at"}
    assert all(at[f"a{i}"] in airports for i in range(2))
    assert all(at[f"t{c}"].startswith(f"l{c}-") for c in range(3))  # each truck in its own city


def test_larger_logistics_problems_have_a_valid_plan():
    for seed in range(5):
        p = logistics_problem(LogisticsSize(cities=4, locations=3, packages=8, airplanes=2), random.Random(seed))
        assert validate(p, constructive_plan(p)).valid
    p = logistics_problem(LogisticsSize(cities=3, locations=3, packages=5, airplanes=2), random.Random(1))
    assert validate(p, greedy_plan(p, time_limit=None).steps).valid


@pytest.mark.parametrize("size, message", [
    (LogisticsSize(cities=2, airplanes=0), "need at least one airplane"),
    (LogisticsSize(cities=1, locations=1), "nowhere to move"),
    (LogisticsSize(packages=0), "at least 1"),
])
def test_bad_logistics_sizes_are_one_line_errors(size, message):
    with pytest.raises(PlanprobeError, match=message):
        logistics_problem(size, random.Random(0))


def test_bad_blocksworld_arguments():
    with pytest.raises(PlanprobeError, match="at least 2 blocks"):
        blocksworld_problem(1, random.Random(0))
    with pytest.raises(PlanprobeError, match="goal 'most'"):
        blocksworld_problem(3, random.Random(0), "most")


def test_same_seed_same_problem_text():
    for make in (lambda r: blocksworld_problem(6, r, "partial"),
                 lambda r: logistics_problem(LogisticsSize(3, 2, 3, 2), r, "partial")):
        a, b, c = (problem_to_pddl(make(random.Random(s))) for s in (5, 5, 6))
        assert a == b and a != c


@pytest.mark.parametrize("name", ["blocksworld", "logistics"])
def test_shipped_domains_equal_planbench(name):
    theirs = load_domain(shared_path("data", "planbench", "instances", name, "generated_domain.pddl"))
    ours = standard_domain(name)
    assert (ours.name, ours.predicates, ours.actions) == (theirs.name, theirs.predicates, theirs.actions)


def test_cli_suite_is_byte_identical_for_the_same_seed(tmp_path):
    outs = []
    for k, seed in enumerate((1, 1, 2)):
        out = tmp_path / f"s{k}.jsonl"
        subprocess.run([*planprobe_cmd(), "generate", "pddl", "--domain", "logistics", "--size", "1-2",
                        "--n", "20", "--seed", str(seed), "--obfuscate", "random", "-o", str(out)],
                       check=True, capture_output=True, env=subprocess_env())
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0] != outs[2]
    assert outs[0].count(b"\n") == 20


def test_cli_bad_options_are_one_line_errors(tmp_path):
    r = subprocess.run([*planprobe_cmd(), "generate", "pddl", "--domain", "logistics", "--blocks", "3",
                        "-o", str(tmp_path / "x.jsonl")], capture_output=True, text=True, env=subprocess_env())
    assert r.returncode == 2 and "--blocks is a blocksworld option" in r.stderr
    assert "Traceback" not in r.stderr
