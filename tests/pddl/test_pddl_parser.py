"""The PDDL parser: every PlanBench file parses; bad input names file:line:column."""

from __future__ import annotations

import pytest
from pddl_data import domain, instances, problem

from planprobe.errors import PlanprobeError
from planprobe.pddl import (
    Atom,
    PDDLLiteral,
    PDDLSyntaxError,
    domain_to_pddl,
    load_domain,
    load_problem,
    parse_domain,
    parse_problem,
    problem_to_pddl,
)

BW = """(define (domain bw)
  (:requirements :strips)
  (:predicates (clear ?x) (ontable ?x) (handempty) (holding ?x) (on ?x ?y))
  (:action pick-up
    :parameters (?ob)
    :precondition (and (clear ?ob) (ontable ?ob) (handempty))
    :effect (and (holding ?ob) (not (clear ?ob)) (not (ontable ?ob)) (not (handempty))))
  (:action stack
    :parameters (?ob ?underob)
    :precondition (and (clear ?underob) (holding ?ob) (not (= ?ob ?underob)))
    :effect (and (handempty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob)) (not (holding ?ob)))))
"""

TYPED = """; a typed domain with constants
(define (domain Typed)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types truck plane - vehicle
          vehicle place - object)
  (:constants hub - place)
  (:predicates (at ?v - vehicle ?p - place) (broken ?v - vehicle))
  (:action MOVE
    :parameters (?v - vehicle ?from ?to - place)
    :precondition (and (at ?v ?from) (not (broken ?v)) (not (= ?from ?to)))
    :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action fly-to-hub
    :parameters (?p - plane ?from - place)
    :precondition (at ?p ?from)
    :effect (and (not (at ?p ?from)) (at ?p hub))))
"""

TYPED_PROBLEM = """(define (problem p1) (:domain typed)
  (:objects t1 - truck p1 - plane home work - place)
  (:init (at t1 home) (AT p1 work))
  (:goal (and (at t1 work) (not (at p1 work)) (at p1 HUB))))
"""


def test_every_planbench_file_parses():
    base = instances()
    domains = sorted(base.rglob("generated_domain.pddl"))
    assert len(domains) == 6
    count = 0
    for dfile in domains:
        dom = load_domain(dfile)
        assert dom.actions and dom.predicates
        for folder in sorted(p for p in dfile.parent.iterdir() if p.is_dir() and p.name != "mystery"):
            for pfile in sorted(folder.glob("*.pddl")):
                prob = load_problem(pfile, dom)
                assert prob.init and prob.goal
                count += 1
    assert count >= 3000


def test_empty_types_and_functions_sections_are_accepted():
    dom = domain("obfuscated_deceptive_logistics")
    assert dom.types == () and dom.constants == ()
    assert {a.name for a in dom.actions} == {"clip", "sip", "tightfisted", "paltry", "wretched", "memory"}
    prob = problem("obfuscated_deceptive_logistics", 1)
    assert prob.goal == (PDDLLiteral(Atom("next", ("o8", "o6"))),)  # a single goal atom, not wrapped in 'and'


def test_types_constants_case_insensitivity_and_negative_preconditions():
    dom = parse_domain(TYPED)
    assert dom.name == "typed"
    assert dom.is_subtype("truck", "vehicle") and dom.is_subtype("truck", "object")
    assert not dom.is_subtype("truck", "place")
    move = dom.action("Move")
    assert [str(p) for p in move.parameters] == ["?v - vehicle", "?from - place", "?to - place"]
    assert PDDLLiteral(Atom("broken", ("?v",)), False) in move.precondition
    assert PDDLLiteral(Atom("=", ("?from", "?to")), False) in move.precondition
    assert dom.action("fly-to-hub").add_effects == (Atom("at", ("?p", "hub")),)
    prob = parse_problem(TYPED_PROBLEM, dom)
    assert prob.object_type("t1") == "truck" and prob.object_type("hub") == "place"
    assert Atom("at", ("p1", "work")) in prob.init
    assert PDDLLiteral(Atom("at", ("p1", "work")), False) in prob.goal


def test_depots_subtypes():
    dom = domain("depots")
    assert dom.is_subtype("crate", "surface") and dom.is_subtype("crate", "locatable")
    prob = problem("depots", 1)
    assert prob.object_type("depot0") == "depot"


@pytest.mark.parametrize("name", ["blocksworld", "logistics", "depots", "blocksworld/mystery",
                                  "obfuscated_randomized_logistics"])
def test_writer_round_trip(name):
    dom = domain(name)
    again = parse_domain(domain_to_pddl(dom))
    assert again == dom
    for i in (1, 7, 50):
        prob = problem(name, i)
        assert parse_problem(problem_to_pddl(prob), again) == prob


def _syntax_error(text: str, filename: str = "domain.pddl", problem_of: str | None = None) -> PDDLSyntaxError:
    with pytest.raises(PDDLSyntaxError) as info:
        if problem_of is None:
            parse_domain(text, filename)
        else:
            parse_problem(text, parse_domain(problem_of), filename)
    return info.value


@pytest.mark.parametrize("old, new, where, message", [
    (":precondition (and (clear ?underob)", ":foo (and (clear ?underob)", "10:5",
     "expected ':precondition' or ':effect', got ':foo'"),
    ("(clear ?underob) (holding ?ob) (not", "(clr ?underob) (holding ?ob) (not", "10:25",
     "unknown predicate 'clr'"),
    ("(clear ?underob) (holding ?ob) (not", "(clear ?u) (holding ?ob) (not", "10:31",
     "unknown variable '?u' in action 'stack'"),
    ("(clear ?underob) (holding ?ob) (not", "(clear ?ob ?underob) (holding ?ob) (not", "10:24",
     "predicate 'clear' takes 1 argument, got 2"),
    ("(clear ?underob) (holding ?ob) (not", "(or (clear ?underob) (holding ?ob)) (not", "10:25",
     "disjunctive conditions ('or') are not supported"),
    ("(:requirements :strips)", "(:requirements strips)", "2:18", "expected a requirement like ':strips'"),
    ("(holding ?ob) (not (clear ?ob))", "(holding ?ob) (not (clear ?ob) (ontable ?ob))", "7:32",
     "expected exactly one atom inside 'not', got 2 items"),
    ("(:predicates", "(:predicate", "3:4", ("expected ':requirements', ':types', ':constants', ':predicates' or "
                                           "':action', got ':predicate'")),
    ("(on ?ob ?underob)", "(on ?ob b)", "11:50", "unknown constant 'b' in action 'stack' (declare it in :constants)"),
    ("(handempty) (clear ?ob)", "(= ?ob ?ob) (clear ?ob)", "11:19", "'=' cannot be an effect"),
])
def test_domain_errors_name_file_line_column(old, new, where, message):
    assert old in BW
    err = _syntax_error(BW.replace(old, new, 1))
    assert str(err).startswith(f"domain.pddl:{where}: "), str(err)
    assert message in str(err)
    assert isinstance(err, PlanprobeError) and "\n" not in str(err)


def test_structural_errors():
    assert str(_syntax_error(BW[:-3])).startswith("domain.pddl:11:")
    assert "not closed" in str(_syntax_error(BW[:-3]))
    assert "unbalanced ')'" in str(_syntax_error(BW + ")"))
    assert str(_syntax_error("")) == "domain.pddl:1:1: expected '(define', got end of file"
    assert "this looks like a problem file" in str(_syntax_error("(define (problem p) (:domain d))"))
    assert "type 'a' is its own ancestor" in str(_syntax_error("(define (domain d) (:types a - b b - a))"))
    err = _syntax_error("(define (domain d)\n  (:predicates (p ?x - thing)))")
    assert str(err).startswith("domain.pddl:2:24: unknown type 'thing'")
    assert "universal quantifiers" in str(_syntax_error(
        "(define (domain d) (:predicates (p ?x)) (:action a :parameters (?x) :effect (forall (?y) (p ?y))))"))
    assert "numeric fluents" in str(_syntax_error("(define (domain d) (:functions (total-cost)))"))
    assert "'either' types" in str(_syntax_error("(define (domain d) (:types a b) (:constants c - (either a b)))"))
    assert "action 'a' declared twice" in str(_syntax_error(
        "(define (domain d) (:predicates (p)) (:action a :effect (p)) (:action A :effect (p)))"))


PROBLEM = """(define (problem p)
  (:domain bw)
  (:objects a b c)
  (:init (handempty) (ontable a) (clear a) (on b c))
  (:goal (and (on a b) (not (clear c)))))
"""


@pytest.mark.parametrize("old, new, where, message", [
    ("(on b c)", "(on b e)", "4:50", "unknown object 'e' in :init (declare it in :objects)"),
    ("(on b c)", "(onn b c)", "4:45", "unknown predicate 'onn'"),
    ("(:domain bw)", "(:domain blocks)", "2:12", "the problem is for domain 'blocks', but domain.pddl defines 'bw'"),
    ("(:goal", "(:gaol", "5:4", "expected ':domain', ':requirements', ':objects', ':init' or ':goal', got ':gaol'"),
    ("(on b c)", "(not (on b c))", "4:45", "expected a ground atom in :init"),
    ("(on a b)", "(on a ?x)", "5:21", "unexpected variable '?x' in :goal"),
    ("(clear a)", "(clear)", "4:34", "predicate 'clear' takes 1 argument, got 0"),
])
def test_problem_errors_name_file_line_column(old, new, where, message):
    err = _syntax_error(PROBLEM.replace(old, new, 1), "p.pddl", problem_of=BW)
    assert str(err).startswith(f"p.pddl:{where}: "), str(err)
    assert message in str(err)


def test_problem_type_errors_and_missing_goal():
    dom = parse_domain(TYPED)
    with pytest.raises(PDDLSyntaxError, match="argument 1 of 'at' must be of type 'vehicle', but 'home' is of type "
                                              "'place'"):
        parse_problem(TYPED_PROBLEM.replace("(at t1 home)", "(at home t1)"), dom, "p.pddl")
    with pytest.raises(PDDLSyntaxError, match="unknown type 'boat'"):
        parse_problem(TYPED_PROBLEM.replace("p1 - plane", "p1 - boat"), dom)
    with pytest.raises(PDDLSyntaxError, match=r"expected a '\(:goal …\)' section"):
        parse_problem("(define (problem p) (:domain typed) (:init))", dom)


def test_unreadable_file_is_a_one_line_error(tmp_path):
    with pytest.raises(PlanprobeError, match="cannot read"):
        load_domain(tmp_path / "missing.pddl")


def test_deep_nesting_does_not_exhaust_the_stack():
    depth = 5000
    text = f"(define (domain d) (:predicates (p) (q)) (:action a :precondition {'(and ' * depth}(p) (not (q))" \
           f"{')' * depth} :effect (q)))"
    assert [str(lit) for lit in parse_domain(text).actions[0].precondition] == ["(p)", "(not (q))"]
