"""The PDDL core on IPC-style tasks (tests/pddl/data/ipc_style): parsing with
``either`` types, grounding by joins, and optimal planning that agrees with
breadth-first search and, when installed, with Fast Downward."""

from __future__ import annotations

import pytest
from pddl_data import IPC_STYLE as DATA
from pddl_data import freecell_deal

from planprobe.pddl import (
    PDDLSyntaxError,
    PlannerError,
    PlanStepError,
    domain_to_pddl,
    fast_downward,
    ground,
    load,
    parse_domain,
    parse_problem,
    problem_to_pddl,
    run,
    solve,
    validate,
)
from planprobe.pddl.grounding import GroundProblem
from planprobe.pddl.model import ROOT_TYPE

TASKS = sorted((d.name, p.name) for d in DATA.iterdir() if d.is_dir() for p in d.glob("p*.pddl"))
# optimal plan lengths, each confirmed by blind A* (breadth-first in effect, below) and by Fast Downward
OPTIMAL = {("depot", "p01.pddl"): 10, ("depot", "p02.pddl"): 11, ("elevators", "p01.pddl"): 13,
           ("freecell", "p01.pddl"): 6, ("freecell", "p02.pddl"): 9, ("zenotravel", "p01.pddl"): 9}


def task(name: str, problem: str = "p01.pddl"):
    return load(DATA / name / "domain.pddl", DATA / name / problem)


def test_every_task_has_a_known_optimum():
    assert set(TASKS) == set(OPTIMAL)


@pytest.mark.parametrize("name,problem", TASKS)
@pytest.mark.parametrize("heuristic", ["lmcut", "hmax", "blind"])
def test_optimal_plans_agree_across_heuristics(name, problem, heuristic):
    prob = task(name, problem)
    result = solve(prob, heuristic=heuristic)
    assert result.cost == OPTIMAL[(name, problem)]
    assert validate(prob, result.steps).valid


@pytest.mark.parametrize("name,problem", TASKS)
def test_fast_downward_finds_the_same_optimum(name, problem):
    if not fast_downward.available():
        pytest.skip("Fast Downward (pip install 'planprobe[planner]') is not installed")
    prob = task(name, problem)
    result = fast_downward.solve(prob, time_limit=60)
    assert result.cost == OPTIMAL[(name, problem)]
    assert validate(prob, result.steps).valid


# --- grounding ------------------------------------------------------------------------


def _naive_actions(gp: GroundProblem) -> list[str]:
    """The old grounder's answer, by enumeration: bindings in parameter order, each
    static or equality precondition tested as soon as its parameters are bound (so
    the test stays small), then delete-relaxed reachability over the survivors."""
    prob, domain = gp.problem, gp.domain
    objects = [o.name for o in prob.all_objects]
    init = set(prob.init)
    static = domain.static_predicates
    candidates = []
    for schema in domain.actions:
        params = [p.name for p in schema.parameters]
        pools = [[o for o in objects if p.type == ROOT_TYPE or domain.is_subtype(prob.object_type(o), p.type)]
                 for p in schema.parameters]
        checks = [lit for lit in schema.precondition if lit.is_equality or lit.atom.predicate in static]
        due = [[lit for lit in checks if max((params.index(x) for x in lit.atom.args if x in params), default=0) == i]
               for i in range(len(params))]

        def holds(lit, binding) -> bool:
            args = tuple(binding.get(x, x) for x in lit.atom.args)
            if lit.is_equality:
                return (args[0] == args[1]) == lit.positive
            return (type(lit.atom)(lit.atom.predicate, args) in init) == lit.positive

        def extend(i: int, binding: dict, params=params, schema=schema, pools=pools, due=due) -> None:
            if i == len(params):
                candidates.append(gp.ground(schema.name, [binding[p] for p in params]))
                return
            for obj in pools[i]:
                binding[params[i]] = obj
                if all(holds(lit, binding) for lit in due[i]):
                    extend(i + 1, binding)
            binding.pop(params[i], None)

        if not params:
            if all(holds(lit, {}) for lit in checks):
                candidates.append(gp.ground(schema.name, []))
        else:
            extend(0, {})
    reached, usable, changed = gp.init, set(), True
    while changed:
        changed = False
        for a in candidates:
            if id(a) not in usable and reached & a.pre_pos == a.pre_pos:
                usable.add(id(a))
                reached |= a.add
                changed = True
    return [str(a) for a in candidates if id(a) in usable]


@pytest.mark.parametrize("name,problem", TASKS)
def test_grounding_by_joins_equals_brute_force_in_the_same_order(name, problem):
    prob = task(name, problem)
    joined = [str(a) for a in GroundProblem(prob).actions()]
    assert joined == _naive_actions(GroundProblem(task(name, problem)))


def test_grounding_a_full_untyped_deal_does_not_blow_up():
    """Freecell is untyped: enumerating 'to-home' alone means 73^6 bindings. Joins over
    the reachable atoms try only a few candidates per ground action found."""
    domain = parse_domain((DATA / "freecell" / "domain.pddl").read_text())
    prob = parse_problem(freecell_deal(), domain)
    gp = GroundProblem(prob)
    actions = gp.actions()
    stats = gp.grounding_stats
    assert len(actions) == stats.bindings > 1000
    assert stats.probes < 20 * (stats.bindings + stats.atoms), stats.as_dict()
    n = len(prob.all_objects)
    naive = sum(n ** len(a.parameters) for a in domain.actions)
    assert naive > 10_000 * stats.probes  # what enumerate-and-test would have tried


# --- either types and the tokenizer ------------------------------------------------------

EITHER_DOMAIN = """(define (domain tour) (:requirements :typing)
  (:types person aircraft city)
  (:predicates (at ?x - (either person aircraft) ?c - city) (seen ?x - (either person aircraft)))
  (:action wave :parameters (?x - (either person aircraft) ?c - city)
    :precondition (at ?x ?c) :effect (seen ?x)))"""


def _either_problem(objects: str = "ada - person jet - aircraft rome - city", init: str = "(at ada rome) (at jet rome)",
                    goal: str = "(and (seen ada) (seen jet))"):
    return parse_problem(f"(define (problem p) (:domain tour) (:objects {objects}) (:init {init}) (:goal {goal}))",
                         parse_domain(EITHER_DOMAIN), "p.pddl")


def test_either_parameters_accept_every_member_type_and_nothing_else():
    prob = _either_problem()
    assert prob.domain.action("wave").parameters[0].type == "(either person aircraft)"
    assert solve(prob).cost == 2
    assert sorted(str(a) for a in ground(prob).actions()) == ["(wave ada rome)", "(wave jet rome)"]
    with pytest.raises(PlanStepError, match=r"must be of type '\(either person aircraft\)', but 'rome' is of "
                                            r"type 'city'"):
        list(run(ground(prob), ["(wave rome rome)"]))
    assert not validate(prob, ["(wave rome rome)"]).valid
    with pytest.raises(PDDLSyntaxError, match=r"argument 1 of 'at' must be of type '\(either person aircraft\)', "
                                              r"but 'rome' is of type 'city'"):
        _either_problem(init="(at rome rome)")


def test_either_round_trips_through_the_writer():
    prob = _either_problem()
    again = parse_problem(problem_to_pddl(prob), parse_domain(domain_to_pddl(prob.domain)), "p.pddl")
    assert again.domain == prob.domain and again == prob


@pytest.mark.parametrize("text,message", [
    ("(define (domain d) (:types a b) (:constants c - (either a b)))", "supported for predicate and action parameters"),
    ("(define (domain d) (:types a b c - (either a b)))", "supported for predicate and action parameters"),
    ("(define (domain d) (:types a) (:predicates (p ?x - (either a zz))))", "unknown type 'zz'"),
    ("(define (domain d) (:types a) (:predicates (p ?x - (either))))", "at least one type in '(either …)'"),
])
def test_either_errors_name_the_place(text, message):
    with pytest.raises(PDDLSyntaxError, match=r"domain.pddl:1:\d+: .*" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_domain(text)


def test_a_question_mark_starts_a_token_as_in_fast_downward():
    domain = parse_domain("(define (domain d) (:predicates (p ?x) (q ?x)) (:action a :parameters (?x) "
                          ":precondition (and (p?x)) :effect (q ?x)))")
    assert str(domain.action("a").precondition[0]) == "(p ?x)"


def test_fast_downward_refuses_either_action_parameters_in_one_line():
    if not fast_downward.available():
        pytest.skip("Fast Downward is not installed")
    with pytest.raises(PlannerError, match=r"Fast Downward does not accept an 'either' type for an action parameter "
                                           r"\(\?x of 'wave'\): use the built-in planner"):
        fast_downward.solve(_either_problem())
