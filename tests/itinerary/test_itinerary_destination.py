"""#26 item 1: the stay city must be the destination for every trip length in the strict
reading (the itinerary oracle's); the official reading keeps its >3-day-only check."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases
from planprobe.suites.travelplanner import reference_answers
from planprobe.suites.travelplanner.cases import prepare
from planprobe.suites.travelplanner.evaluate import Evaluator
from planprobe.suites.travelplanner.family import evaluate_answer


def _trips_to(case: Any, city: str) -> Iterator[list[dict[str, Any]]]:
    """3-day plans to ``city`` by car or taxi: each stay of 2 nights or less, the three
    cheapest restaurants, the first attraction."""
    cc = prepare(case)
    q, box = cc.fields, cc.sandbox
    rests = sorted(box.city_rows("restaurants", city), key=lambda r: r["Average Cost"])[:3]
    sight = box.city_rows("attractions", city)[0]["Name"]
    for mode, stay in itertools.product(("Self-driving", "Taxi"), box.city_rows("accommodations", city)):
        if stay["minimum nights"] > 2:
            continue
        bed = f"{stay['NAME']}, {city}"
        yield [
            {"days": 1, "current_city": f"from {q.org} to {city}", "transportation": f"{mode}, from {q.org} to {city}",
             "breakfast": "-", "attraction": "-", "lunch": "-", "dinner": "-", "accommodation": bed},
            {"days": 2, "current_city": city, "transportation": "-", "breakfast": f"{rests[0]['Name']}, {city}",
             "attraction": f"{sight}, {city};", "lunch": f"{rests[1]['Name']}, {city}",
             "dinner": f"{rests[2]['Name']}, {city}", "accommodation": bed},
            {"days": 3, "current_city": f"from {city} to {q.org}", "transportation": f"{mode}, from {city} to {q.org}",
             "breakfast": "-", "attraction": "-", "lunch": "-", "dinner": "-", "accommodation": "-"},
        ]


def test_a_three_day_trip_to_another_city_fails_strict_and_passes_official():
    cases = list(generate_cases(ItineraryOptions(n=24, seed=7, days=(3,))))
    wrong: set[str] = set()
    for case in cases:
        cc = prepare(case)
        dest = cc.fields.dest
        assert cc.fields.visiting_city_number == 1 and dest in cc.sandbox.cities
        others = [c for c in cc.sandbox.cities_in(cc.sandbox.cities[dest] or "") if c != dest]
        for city in others:
            for plan in _trips_to(case, city):
                _, official, strict, why = evaluate_answer(case, reference_answers.dump(plan))
                assert official is not None and strict is not None, why
                if not official.final_pass:
                    continue
                wrong.add(case.id)
                assert [k for k, _ in strict.failed()] == ["is_reasonable_visiting_city"], strict.failed()
                assert strict.commonsense["is_reasonable_visiting_city"][1] == f"{city} is not in {dest}."
        # the same plans to the destination itself: the strict reading has no objection to the city
        for plan in _trips_to(case, dest):
            strict = Evaluator(cc.fields, cc.sandbox, strict=True).evaluate(plan)
            assert strict.commonsense["is_reasonable_visiting_city"] == (True, None)
    assert "itinerary-7-00001" in wrong  # the reproducer (asks for Locorhal)
    assert len(wrong) > len(cases) // 2  # the official gap is wide on these sandboxes


def test_multi_city_trips_still_judge_the_state():
    for case in generate_cases(ItineraryOptions(n=6, seed=3, days=(3,), cities=2)):
        cc = prepare(case)
        assert cc.fields.dest not in cc.sandbox.cities  # a state
        _, _, strict, why = evaluate_answer(case, reference_answers.dump(cc.plan))
        assert strict is not None and strict.final_pass, (why, strict and strict.failed())
