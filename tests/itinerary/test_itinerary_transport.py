"""#26 item 2: in the strict reading every transportation entry is recognised and
verified — a flight by its number in any spelling of the label, or the entry is invalid
in the sandbox; the official reading is unchanged."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases
from planprobe.suites.travelplanner.cases import prepare
from planprobe.suites.travelplanner.evaluate import Evaluator
from planprobe.suites.travelplanner.text import flight_numbers, transport_modes


def _flying_case() -> tuple[Any, list[dict[str, Any]], int, dict[str, Any]]:
    """A witness that flies, the day of its first flight and that flight's row."""
    for case in generate_cases(ItineraryOptions(n=30, seed=11)):
        plan = case.spec["reference_plan"]
        for i, day in enumerate(plan):
            if day["transportation"].startswith("Flight Number: "):
                number = day["transportation"].split(",")[0].split(": ")[1]
                row = next(r for r in prepare(case).sandbox.flights_numbered(number))
                return case, plan, i, row
    pytest.fail("no witness flies")


def _evaluate(case: Any, plan: list[dict[str, Any]], strict: bool):
    cc = prepare(case)
    return Evaluator(cc.fields, cc.sandbox, strict=strict).evaluate(plan)


@pytest.mark.parametrize("label", ["Flight {n}", "FLIGHT {n}", "flight no. {n}", "Flight #{n}",
                                   "Flight Number: {n}", "{n}"])
def test_a_flight_in_any_spelling_is_verified_and_priced(label):
    case, plan, i, row = _flying_case()
    a, b = row["OriginCityName"], row["DestCityName"]
    tail = f", from {a} to {b}, Departure Time: {row['DepTime']}, Arrival Time: {row['ArrTime']}"
    good = copy.deepcopy(plan)
    good[i]["transportation"] = label.format(n=row["Flight Number"]) + tail
    ok = _evaluate(case, good, strict=True)
    assert ok.final_pass and ok.cost == case.spec["min_cost"], ok.failed()
    # a number the sandbox does not fly on that route and day
    bad = copy.deepcopy(plan)
    bad[i]["transportation"] = label.format(n="F0000001") + tail
    ev = _evaluate(case, bad, strict=True)
    assert ev.commonsense["is_valid_information_in_sandbox"] == (
        False, f"The flight number in day {i + 1} is invalid in the sandbox.")


def test_official_reading_still_ignores_a_flight_without_its_label():
    case, plan, i, row = _flying_case()
    a, b = row["OriginCityName"], row["DestCityName"]
    bad = copy.deepcopy(plan)
    bad[i]["transportation"] = f"Flight F0000001, from {a} to {b}, Departure Time: 08:00, Arrival Time: 09:00"
    official = _evaluate(case, bad, strict=False)
    assert official.commonsense["is_valid_information_in_sandbox"] == (True, None)
    assert official.cost is not None and official.cost < case.spec["min_cost"]  # the flight is not priced
    assert _evaluate(case, bad, strict=True).commonsense["is_valid_information_in_sandbox"][0] is False


@pytest.mark.parametrize("entry,why", [
    ("Bus, from {a} to {b}", "names no mode"),
    ("Walk from {a} to {b}", "names no mode"),
    ("Taxi to the airport, then Flight {n}, from {a} to {b}", "names Flight and Taxi"),
    ("Flight {n} or F0000001, from {a} to {b}", "should name one flight number (it names 2)"),
    ("Flight, from {a} to {b}", "should name one flight number (it names 0)"),
])
def test_an_entry_the_strict_reading_cannot_verify_is_invalid(entry, why):
    case, plan, i, row = _flying_case()
    bad = copy.deepcopy(plan)
    bad[i]["transportation"] = entry.format(a=row["OriginCityName"], b=row["DestCityName"], n=row["Flight Number"])
    ok, message = _evaluate(case, bad, strict=True).commonsense["is_valid_information_in_sandbox"]
    assert ok is False and why in (message or "") and f"day {i + 1}" in (message or "")


def test_the_strict_modes_and_numbers_of_an_entry():
    assert transport_modes("Flight F3573659, from A to B") == {"Flight"}
    assert transport_modes("F3573659, from A to B") == {"Flight"}
    assert transport_modes("Self driving, from A to B") == {"Self-driving"}
    assert transport_modes("Taxi, from A to B") == {"Taxi"}
    assert transport_modes("Bus, from A to B") == set()
    assert flight_numbers("flight no. f3573659 (F3573659)") == ["F3573659"]
    assert flight_numbers("Flight Number: F3573659, from Fargo to B") == ["F3573659"]


def test_self_driving_spelled_without_hyphen_counts_for_the_rules():
    """A strict reader that recognises 'Self driving' must also count it as self-driving in
    the non-conflicting and transportation-rule checks."""
    case, plan, i, _ = _flying_case()
    cc = prepare(case)
    bad = copy.deepcopy(plan)
    legs = [k for k, d in enumerate(bad) if d["transportation"] != "-" and k != i]
    k = legs[0]
    a, b = bad[k]["current_city"][5:].split(" to ")
    bad[k]["transportation"] = f"Self driving, from {a} to {b}"
    ev = Evaluator(cc.fields, cc.sandbox, strict=True).evaluate(bad)
    assert ev.commonsense["is_valid_transportation"] == (False, "The transportation is conflicting.")
