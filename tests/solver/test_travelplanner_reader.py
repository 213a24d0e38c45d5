"""The solver's TravelPlanner reader (issue #27), without the backend: views are built from what a
model is shown (system prompt, task text, tool schemas; never ``case.spec``), an episode is driven
by ``solver_helpers.drive`` and judged by the family. Only the tests look at the spec (the fields
checked by hand, to compare the reading of the query with)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from solver_helpers import drive, view_of

from helpers import shared_path
from planprobe.importers.travelplanner import build_cases
from planprobe.schema import Case
from planprobe.solver.base import ChatView
from planprobe.solver.itinerary_facts import FOOD, Facts
from planprobe.solver.readers import readers
from planprobe.solver.travelplanner_info import read_information, read_pandas_table
from planprobe.solver.travelplanner_query import read_trip
from planprobe.solver.travelplanner_reader import READER, unambiguous

# two-stage queries that run in well under a second each: one city (with and without local
# constraints), several cities of a state, each house rule, room type and transportation rule
TWO_STAGE_SAMPLE = (1, 8, 17, 21, 22, 31, 32, 33, 36, 38, 45)
TRANSPORT = {(False, False): None, (True, False): "no flight", (False, True): "no self-driving"}


@pytest.fixture(scope="module")
def train_dir() -> Path:
    return shared_path("data", "travelplanner")


def _cases(train_dir: Path, mode: str, strict: bool = False) -> list[Case]:
    return build_cases(modes=[mode], strict=strict, train_dir=train_dir)


def _failures(cases: list[Case]) -> list[tuple[str, object]]:
    out = []
    for case in cases:
        episode = drive(READER, case)
        last = episode.decisions[-1]
        if not episode.verdict.passed or last.answer is None:
            out.append((case.id, last.underspecified or last.refuse or [e.text for e in episode.verdict.evidence]))
    return out


def test_every_training_query_is_read_as_its_checked_fields(train_dir):
    """The reading of the natural-language query agrees with the fields checked by hand
    (tests/data/travelplanner_train_fields.json, as the importer carries them) on all 45 queries."""
    wrong = []
    for case in _cases(train_dir, "two-stage"):
        f = case.spec["fields"]
        local = f["local_constraint"]
        trip = read_trip(case.task.removeprefix("Query: "))
        assert trip.query is not None, (case.id, trip.problem)
        q = trip.query
        expected = (f["org"], f["dest"], f["visiting_city_number"], tuple(f["date"]), f["people_number"],
                    float(f["budget"]), local["house rule"], local["room type"], sorted(local["cuisine"] or []),
                    local["transportation"])
        got = (q.origin, q.destination, q.cities, q.dates, q.people, q.budget, q.allow, q.room_text,
               sorted(q.cuisines), TRANSPORT[(q.no_flight, q.no_driving)])
        if got != expected:
            wrong.append((case.id, expected, got))
    assert wrong == []


@pytest.mark.parametrize("strict", [False, True], ids=["official", "strict"])
def test_every_sole_planning_query_passes_from_its_text(train_dir, strict):
    """Sole-planning: the plan written from the task's information passes the reading the case asks
    for (TravelPlanner's own prompt for the official reading: all 45 queries; with planprobe's rules
    appended for --strict: every third here, all 45 in benchmarks/solver_travelplanner.py); none
    is under-specified or refused."""
    cases = _cases(train_dir, "sole-planning", strict)
    assert len(cases) == 45
    assert _failures(cases[::3] if strict else cases) == []


def test_two_stage_queries_pass_from_what_the_tools_tell(train_dir):
    """Two-stage: the query only, the information gathered with the search tools; a sample here
    (benchmarks/solver_travelplanner.py runs all 45 under every scaffold)."""
    cases = [c for c in _cases(train_dir, "two-stage", strict=True) if c.spec["idx"] in TWO_STAGE_SAMPLE]
    assert len(cases) == len(TWO_STAGE_SAMPLE)
    assert _failures(cases) == []


def test_the_answer_takes_the_format_the_prompt_asks_for(train_dir):
    """TravelPlanner's prompt (training, official reading) shows no example: the plan is written in
    the 'Day N:' layout of TravelPlanner's planner prompt; planprobe's prompts state a JSON list."""
    paper = _cases(train_dir, "sole-planning")[0]
    stated = _cases(train_dir, "sole-planning", strict=True)[0]
    text = READER.decide(view_of(paper)).answer
    assert text is not None and text.startswith("Day 1:\nCurrent City: from St. Petersburg to Rockford\n")
    as_json = READER.decide(view_of(stated)).answer
    assert as_json is not None and json.loads(as_json)[0]["current_city"] == "from St. Petersburg to Rockford"


def test_the_reader_claims_travelplanner_tasks_only(train_dir):
    sole, two = _cases(train_dir, "sole-planning")[0], _cases(train_dir, "two-stage")[0]
    claimed = {c.id: [r.name for r in readers() if r.claims(view_of(c))] for c in (sole, two)}
    assert claimed == {sole.id: ["travelplanner"], two.id: ["travelplanner"]}
    assert not READER.claims(ChatView(system="", task="Query: plan a trip"))  # no tools, no information


@pytest.mark.parametrize("query, missing", [
    ("Please plan a trip from Denver to Austin from March 3rd to March 5th, 2022.", "one budget"),
    ("Please plan a trip from Denver to Austin in March 2022 with a budget of $900.", "first and a last date"),
    ("Please plan a trip to Austin from March 3rd to March 5th, 2022, budget $900.", "starts"),
    ("A 3-day trip from Denver to Austin, from March 3rd to March 7th, 2022, budget $900.", "disagree"),
    ("A trip from Denver to Austin for a group of 3, from March 3rd to March 5th, 2022, for 2 people, $900.",
     "travellers"),
    ("A trip from Denver to Austin from March 3rd to March 5th, 2022, budget $900. We love to fly.",
     "transportation wish"),
])
def test_what_the_query_leaves_open_is_under_specified(query, missing):
    view = ChatView(system="... all details should align with commonsense ...", task=f"Query: {query}",
                    tools=tuple({"name": n} for n in ("FlightSearch", "GoogleDistanceMatrix", "AccommodationSearch",
                                                     "RestaurantSearch", "AttractionSearch", "CitySearch")))
    decision = READER.decide(view)
    assert decision.underspecified is not None and missing in decision.underspecified


def test_a_prompt_that_states_no_rules_is_under_specified(train_dir):
    case = _cases(train_dir, "sole-planning")[0]
    view = view_of(case)
    bare = ChatView(system="You are a planner.", task=view.task)
    decision = READER.decide(bare)
    assert decision.underspecified is not None and "rules" in decision.underspecified


def test_pandas_tables_are_read_with_their_row_numbers_and_names_of_several_words():
    # one space between columns, a row number before the first, and a 'room type' whose cells all
    # have the same two words (no column boundary can be told from the cells alone)
    text = ("                  NAME price    room type minimum nights city\n"
            "12  Cozy room, Astoria 120.0 Private room            1.0 Troy\n"
            "305       Loft in LIC!  99.0 Private room            2.0 Troy")
    rows = read_pandas_table(text)
    assert rows == [{"NAME": "Cozy room, Astoria", "price": "120.0", "room type": "Private room",
                     "minimum nights": "1.0", "city": "Troy"},
                    {"NAME": "Loft in LIC!", "price": "99.0", "room type": "Private room",
                     "minimum nights": "2.0", "city": "Troy"}]


def test_the_given_information_is_closed_and_read_safely():
    info = repr([{"Description": "Taxi from A to B", "Content": "taxi, from A to B, duration: 1 hour, "
                  "distance: 50 km, cost: 50"},
                 {"Description": "Self-driving from A to B", "Content": "No valid information."},
                 {"Description": "Restaurants in B", "Content": "There is no restaurant in this city."}])
    facts, problems = read_information(info)
    assert problems == [] and facts.closed
    assert facts.costs == {("GoogleDistanceMatrix", "A", "B", "taxi"): 50.0,
                           ("GoogleDistanceMatrix", "A", "B", "self-driving"): None}
    assert facts.tables == {(FOOD, "B"): []}
    _, bad = read_information("__import__('os').system('true')")
    assert bad and "not a list" in bad[0]


def test_a_name_listed_twice_at_different_prices_is_not_used():
    # the training sandbox lists two 'Burger King' in Yakima (98 and 13): a plan can only write
    # 'Burger King, Yakima', and the evaluator prices the first row; the reader uses neither
    rows = [{"Name": "Burger King", "Average Cost": "98"}, {"Name": "Haowin", "Average Cost": "12"},
            {"Name": "Burger King", "Average Cost": "13"}, {"Name": "Haowin", "Average Cost": "12"}]
    kept = unambiguous(Facts(tables={(FOOD, "Yakima"): rows})).tables[(FOOD, "Yakima")]
    assert kept == [{"Name": "Haowin", "Average Cost": "12"}]


def test_the_official_splits_layout_passes_from_its_text(train_dir):
    """An official split's sole-planning case ('Given information: … Query: … Travel Plan:' under
    planprobe's own system prompt, which states every rule and the JSON format), built here from
    training queries (no official split is in the shared data), passes under --strict."""
    from planprobe.solver.travelplanner_info import split_given
    from planprobe.suites.travelplanner.cases import make_case
    from planprobe.suites.travelplanner.fields import parse_fields

    cases = []
    for case in _cases(train_dir, "sole-planning")[::5]:
        given = split_given(case.task)
        assert given is not None
        cases.append(make_case(split="validation", idx=case.spec["idx"], mode="sole-planning",
                               fields=parse_fields(case.spec["fields"], case.id), sandbox=case.spec["sandbox"],
                               plan=None, strict=True, reference_information=given[0]))
    assert all(c.task.startswith("Given information: [") and c.task.endswith("\nTravel Plan:") for c in cases)
    assert _failures(cases) == []
