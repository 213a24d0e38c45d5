"""TravelPlanner's evaluator against an independent port of the official one, on the
45 annotated training plans, on mutated plans (one per constraint) and on random
plans; the strict reading; the training fields against the hand-checked fixture."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

import travelplanner_port as port
from helpers import shared_path
from planprobe.suites.travelplanner import reference_answers
from planprobe.suites.travelplanner.evaluate import Evaluator
from planprobe.suites.travelplanner.evaluation import COMMONSENSE, HARD
from planprobe.suites.travelplanner.metrics import tally
from planprobe.suites.travelplanner.plan import format_problem, read_answer
from planprobe.suites.travelplanner.sandbox import Sandbox
from planprobe.suites.travelplanner.training import load_training, training_sandbox

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "travelplanner_train_fields.json"
STRICT_ONLY = {"stay_city_meal", "name_prefix", "unterminated_repeat", "lowercase_mode"}


@pytest.fixture(scope="module")
def train():
    directory = shared_path("data", "travelplanner")
    queries = load_training(directory)
    return queries, training_sandbox(queries, str(directory))


def tables(box: Sandbox) -> port.Tables:
    dist = [{"origin": d.origin, "destination": d.destination, "duration": d.duration, "distance": d.distance}
            for d in box.distances]
    return port.Tables(box.flights, box.accommodations, box.restaurants, box.attractions, dist, box.cities)


def qdict(fields) -> dict:
    return fields.to_json()


def same_as_port(t: port.Tables, fields, box: Sandbox, plan) -> None:
    """Every constraint's verdict equals the port's (and the hard ones are scored exactly when it scores them)."""
    mine = Evaluator(fields, box).evaluate(plan)
    common, hard = port.evaluate(t, qdict(fields), plan)
    assert {k: v[0] for k, v in mine.commonsense.items()} == {k: v[0] for k, v in common.items()}, plan
    if hard is None:
        assert mine.hard is None
    else:
        assert mine.hard is not None
        assert {k: v[0] for k, v in mine.hard.items()} == {k: v[0] for k, v in hard.items()}, plan


def test_training_fields_match_the_hand_checked_fixture(train):
    queries, _ = train
    expected = json.loads(FIXTURE.read_text())
    assert len(queries) == len(expected) == 45
    for t, want in zip(queries, expected):
        got = t.fields.to_json()
        got.pop("query")
        assert {"idx": t.idx, **got} == want, t.idx
    assert [t.fields.level for t in queries] == ["easy"] * 15 + ["medium"] * 15 + ["hard"] * 15
    assert sum(t.fields.hard_total() for t in queries) == 105  # eval.py's fixed train denominator


def test_all_45_reference_plans_pass_every_official_check(train):
    queries, box = train
    t = tables(box)
    evals = []
    for q in queries:
        assert format_problem(q.plan, q.fields.days) is None
        ev = Evaluator(q.fields, box).evaluate(q.plan)
        assert ev.failed() == [], (q.idx, ev.failed())
        assert set(ev.commonsense) == set(COMMONSENSE) and ev.hard is not None and set(ev.hard) == set(HARD)
        same_as_port(t, q.fields, box, q.plan)
        evals.append((q.fields, ev))
    figures = tally(evals).figures()
    assert figures == {k: 1.0 for k in figures}
    assert figures == port.scores(t, [qdict(q.fields) for q in queries], [q.plan for q in queries],
                                  [q.fields.hard_total() for q in queries])


def test_strict_reading_catches_query_42(train):
    """Query 42's annotated plan visits a San Angelo museum on a day spent in Houston:
    the official check reads the letters of 'Houston', not the city."""
    queries, box = train
    failing = {q.idx: Evaluator(q.fields, box, strict=True).evaluate(q.plan).failed() for q in queries}
    failing = {k: v for k, v in failing.items() if v}
    assert list(failing) == [42]
    assert [k for k, _ in failing[42]] == ["is_valid_information_in_current_city"]


@pytest.mark.parametrize("name", sorted(reference_answers.MUTATIONS))
def test_each_mutation_scores_as_the_official_evaluator(train, name):
    queries, box = train
    t = tables(box)
    applied = official_fails = strict_fails = 0
    for q in queries:
        plan = reference_answers.mutate(name, q.plan, q.fields, box, random.Random(q.idx))
        if plan is None:
            continue
        applied += 1
        assert format_problem(plan, q.fields.days) is None
        same_as_port(t, q.fields, box, plan)
        official_fails += not Evaluator(q.fields, box).evaluate(plan).final_pass
        strict_fails += not Evaluator(q.fields, box, strict=True).evaluate(plan).final_pass
    assert applied >= 3, f"{name} applied to {applied} plans"
    assert strict_fails >= official_fails
    if name in STRICT_ONLY:
        assert strict_fails > official_fails, f"{name}: the strict reading should catch what the official misses"
    else:
        assert official_fails >= 1


def test_mutation_fails_the_constraint_it_names(train):
    queries, box = train
    expect = {"open_route": "is_reasonable_visiting_city", "repeat_restaurant": "is_valid_restaurants",
              "repeat_attraction": "is_valid_attractions", "short_stay": "is_valid_accommodation",
              "conflicting_transport": "is_valid_transportation", "wrong_city_meal": "is_valid_information_in_current_city",
              "unknown_restaurant": "is_valid_information_in_sandbox", "missing_meal": "is_not_absent",
              "house_rule": "valid_room_rule", "room_type": "valid_room_type", "cuisine": "valid_cuisine",
              "transport_rule": "valid_transportation", "over_budget": "valid_cost"}
    for name, key in expect.items():
        hits = 0
        for q in queries:
            plan = reference_answers.mutate(name, q.plan, q.fields, box, random.Random(q.idx))
            if plan is not None:
                hits += key in dict(Evaluator(q.fields, box).evaluate(plan).failed())
        assert hits >= 1, name


def test_flight_of_another_day_is_caught_only_by_strict(train):
    queries, box = train
    q = queries[0]
    first = q.plan[0]["transportation"]
    number = first.split("Flight Number: ")[1].split(",")[0]
    row = box.flights_numbered(number)[0]
    flights = [dict(r, FlightDate="2022-01-01") if r is row else r for r in box.flights]
    moved = Sandbox(source="t", flights=flights, accommodations=box.accommodations,
                    restaurants=box.restaurants, attractions=box.attractions, distances=box.distances,
                    cities=box.cities).index()
    assert Evaluator(q.fields, moved).evaluate(q.plan).final_pass
    strict = Evaluator(q.fields, moved, strict=True).evaluate(q.plan)
    assert ("is_valid_information_in_sandbox" in dict(strict.failed()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_plans_score_as_the_official_evaluator(train, seed):
    queries, box = train
    t = tables(box)
    plans = [reference_answers.random_plan(q.fields, box, random.Random(f"{seed}/{q.idx}")) for q in queries]
    for q, plan in zip(queries, plans):
        same_as_port(t, q.fields, box, plan)
    mine = tally([(q.fields, Evaluator(q.fields, box).evaluate(p)) for q, p in zip(queries, plans)]).figures()
    theirs = port.scores(t, [qdict(q.fields) for q in queries], plans, [q.fields.hard_total() for q in queries])
    assert mine == pytest.approx(theirs)
    assert mine["delivery_rate"] == 1.0 and mine["final_pass_rate"] < 0.5


def test_plan_reader_text_layout_and_json(train):
    queries, _ = train
    plan = [d for d in queries[0].plan if d]
    text = "\n\n".join(f"Day {d['days']}:\n" + "\n".join(f"{k.replace('_', ' ').title()}: {d[k]}"
                                                           for k in d if k != "days") for d in plan)
    got, how = read_answer("Here is the plan.\n" + text)
    assert how == "text" and got == plan
    got, how = read_answer("```json\n" + json.dumps(plan) + "\n```")
    assert how == "json" and got == plan
    assert read_answer("I cannot help.")[0] is None
    bad = copy.deepcopy(plan)
    bad[0]["transportation"] = "flight number F1, from A to B"
    assert format_problem(bad, 3).field == "plan[0].transportation"
    del bad[1]["current_city"]
    bad[0]["transportation"] = "-"
    assert format_problem(bad, 3).field == "plan[1].current_city"


def test_official_example_submission_passes_the_format_check():
    """TravelPlanner's own validation example submission is read as its format checker reads it."""
    path = shared_path("data", "travelplanner", "example_submission_validation.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == 180 and [r["idx"] for r in rows] == list(range(1, 181))
    for r in rows:
        # its format checker evaluates every plan against a 7-day placeholder query
        assert format_problem(r["plan"], 7) is None, r["idx"]
