"""Obfuscation: PlanBench's vocabularies, bijective renaming, validity preserved."""

from __future__ import annotations

import random

import pytest

from helpers import shared_path
from planprobe.errors import PlanprobeError
from planprobe.pddl import (
    domain_to_pddl,
    load_domain,
    parse_domain,
    parse_problem,
    problem_to_pddl,
    solve,
    validate,
)
from planprobe.pddl.constructive import constructive_plan
from planprobe.pddl.generators import (
    LogisticsSize,
    blocksworld_problem,
    logistics_problem,
    standard_domain,
)
from planprobe.pddl.obfuscate import (
    OBJECT_NAMING,
    STYLES,
    Renaming,
    obfuscate,
    obfuscate_domain,
    obfuscate_problem,
)

TYPED_DOMAIN = """
(define (domain courier)
  (:requirements :strips :typing :equality :negative-preconditions)
  (:types truck parcel - vehicle-or-parcel place vehicle-or-parcel)
  (:constants depot - place)
  (:predicates (at ?x - vehicle-or-parcel ?p - place) (in ?c - parcel ?t - truck) (road ?a ?b - place)
               (broken ?t - truck))
  (:action drive :parameters (?t - truck ?a ?b - place)
    :precondition (and (at ?t ?a) (road ?a ?b) (not (= ?a ?b)) (not (broken ?t)))
    :effect (and (at ?t ?b) (not (at ?t ?a))))
  (:action load :parameters (?c - parcel ?t - truck ?p - place)
    :precondition (and (at ?c ?p) (at ?t ?p))
    :effect (and (in ?c ?t) (not (at ?c ?p))))
  (:action unload :parameters (?c - parcel ?t - truck ?p - place)
    :precondition (and (in ?c ?t) (at ?t ?p))
    :effect (and (at ?c ?p) (not (in ?c ?t)))))
"""
TYPED_PROBLEM = """
(define (problem courier-1) (:domain courier)
  (:objects van - truck box1 box2 - parcel north south - place)
  (:init (at van depot) (at box1 north) (at box2 depot) (road depot north) (road north depot)
         (road north south) (road south north))
  (:goal (and (at box1 south) (at box2 north))))
"""


def _problems():
    rng = random.Random(11)
    out = [blocksworld_problem(2 + i % 4, rng, ("on", "full", "partial")[i % 3]) for i in range(12)]
    out += [logistics_problem(LogisticsSize(1 + i % 2, 2, 1 + i % 2, 1), rng) for i in range(8)]
    typed = parse_domain(TYPED_DOMAIN)
    out.append(parse_problem(TYPED_PROBLEM, typed))
    return out


PROBLEMS = _problems()


def _reparse(problem):
    """Through PDDL text and back, as a planner or a suite file would see it."""
    domain = parse_domain(domain_to_pddl(problem.domain))
    return parse_problem(problem_to_pddl(problem), domain)


def _random_plan(problem, rng, n):
    objs = [o.name for o in problem.all_objects]
    plan = []
    for _ in range(n):
        a = rng.choice(problem.domain.actions)
        plan.append(f"({' '.join([a.name, *(rng.choice(objs) for _ in a.parameters)])})")
    return plan


@pytest.mark.parametrize("objects", OBJECT_NAMING)
@pytest.mark.parametrize("style", STYLES)
def test_round_trip_preserves_validity(style, objects):
    rng = random.Random(f"{style}/{objects}")
    for k, original in enumerate(PROBLEMS):
        obf = obfuscate(original, style, seed=k, objects=objects)
        renamed = _reparse(obf.problem)
        r = obf.renaming
        # a plan found for the renamed problem, translated back, solves the original
        plan = solve(renamed).steps
        assert validate(renamed, plan).valid
        assert validate(original, r.restore_plan(plan)).valid
        assert len(plan) == solve(original).cost  # the same problem for a planner
        # and the other way
        assert validate(renamed, r.obfuscate_plan(solve(original).steps)).valid
        # random (mostly invalid) plans get the same verdict, at the same step, in both vocabularies
        for _ in range(15):
            bad = _random_plan(original, rng, rng.randint(1, 6))
            a, b = validate(original, bad), validate(renamed, r.obfuscate_plan(bad))
            assert (a.outcome, a.step) == (b.outcome, b.step)
            assert r.restore_plan(r.obfuscate_plan(bad)) == [s.lower() for s in bad]


def test_mystery_blocksworld_is_planbenchs():
    domain, r = obfuscate_domain(standard_domain("blocksworld"), "mystery")
    assert r.actions == {"pick-up": "attack", "put-down": "succumb", "stack": "overcome", "unstack": "feast"}
    assert r.predicates == {"clear": "province", "ontable": "planet", "handempty": "harmony", "holding": "pain",
                            "on": "craves"}
    theirs = load_domain(shared_path("data", "planbench", "instances", "blocksworld", "mystery",
                                     "generated_domain.pddl"))
    assert domain.name == theirs.name
    assert _shape(domain) == _shape(theirs)


def test_deceptive_logistics_is_planbenchs():
    domain, r = obfuscate_domain(standard_domain("logistics"), "mystery")
    assert r.actions["load-truck"] == "clip" and r.predicates["in-city"] == "collect"
    theirs = load_domain(shared_path("data", "planbench", "instances", "obfuscated_deceptive_logistics",
                                     "generated_domain.pddl"))
    assert domain.name == theirs.name
    assert _shape(domain) == _shape(theirs)


def _shape(domain):
    """Actions with parameters replaced by their positions (variable names differ)."""
    out = {}
    for a in domain.actions:
        pos = {p.name: i for i, p in enumerate(a.parameters)}
        norm = lambda atom, pos=pos: (atom.predicate, tuple(pos.get(x, x) for x in atom.args))
        out[a.name] = (frozenset((norm(lit.atom), lit.positive) for lit in a.precondition),
                       frozenset(map(norm, a.add_effects)), frozenset(map(norm, a.del_effects)))
    return out


def test_nothing_of_the_original_vocabulary_is_left():
    typed = PROBLEMS[-1]
    for style in STYLES:
        obf = obfuscate(typed, style, seed=3)
        text = domain_to_pddl(obf.domain) + problem_to_pddl(obf.problem)
        for word in ("courier", "truck", "parcel", "place", "depot", "drive", "load", "road", "broken", "van",
                     "box1", "north", "?t", "?c"):
            assert word not in text, (style, word)
        assert set(obf.renaming.types) == {"truck", "parcel", "vehicle-or-parcel", "place"}
        assert "depot" in obf.renaming.objects  # the constant is renamed with the objects


def test_names_are_deterministic_per_seed_and_valid_tool_names():
    import re

    p = PROBLEMS[14]
    for style in STYLES:
        a, b, c = (obfuscate(p, style, seed=s) for s in (1, 1, 2))
        assert a.renaming == b.renaming and problem_to_pddl(a.problem) == problem_to_pddl(b.problem)
        assert a.renaming.objects != c.renaming.objects
        names = [*a.renaming.actions.values(), *a.renaming.predicates.values(), *a.renaming.objects.values()]
        assert len(set(names)) == len(names)
        assert all(re.fullmatch(r"[a-z][a-z0-9_-]*", n) for n in names)


def test_neutral_objects_are_numbered_and_keep_is_identity():
    p = PROBLEMS[14]
    neutral = obfuscate(p, "mystery", objects="neutral").renaming.objects
    assert sorted(neutral.values(), key=lambda s: int(s[1:])) == [f"o{i}" for i in range(len(p.objects))]
    kept = obfuscate(p, "random", objects="keep").renaming.objects
    assert all(k == v for k, v in kept.items())


def test_unknown_names_never_become_valid():
    p = PROBLEMS[0]
    obf = obfuscate(p, "mystery", objects="keep")
    # "(pick-up a)" is no action of the mystery domain; restored it must not become one
    restored = obf.renaming.restore_plan(["(pick-up a)"])
    assert restored == ["(pick-up~ a)"]
    assert not validate(p, restored).valid


def test_renaming_json_round_trip_and_errors():
    obf = obfuscate(PROBLEMS[3], "random", seed=9)
    assert Renaming.from_json(obf.renaming.to_json()) == obf.renaming
    with pytest.raises(PlanprobeError, match="obfuscation style"):
        obfuscate(PROBLEMS[0], "silly")
    with pytest.raises(PlanprobeError, match="object naming"):
        obfuscate(PROBLEMS[0], "mystery", objects="silly")
    domain, renaming = obfuscate_domain(standard_domain("logistics"))
    with pytest.raises(PlanprobeError, match="is for domain"):
        obfuscate_problem(PROBLEMS[0], domain, renaming)


def test_many_objects_run_past_the_word_list():
    p = blocksworld_problem(600, random.Random(1), "full")
    obf = obfuscate(p, "mystery")
    names = list(obf.renaming.objects.values())
    assert len(set(names)) == 600
    assert validate(obf.problem, obf.renaming.obfuscate_plan(constructive_plan(p))).valid
