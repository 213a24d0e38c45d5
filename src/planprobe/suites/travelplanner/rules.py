"""Every rule a TravelPlanner plan is judged by, one sentence each, keyed by the id the
evaluator gives the failure (``Evaluator._fail``) — the text planprobe's own prompts
state, so that everything a case is judged on is stated (a solver reading only the
prompt can meet every check). The sentences describe the strict reading; the official
reading is laxer, apart from the quirks docs/travelplanner.md lists.

A test maps every failure the evaluator and the itinerary oracle can give to its
sentence here and checks that the sentence is in the case's system prompt or task.
"""

from __future__ import annotations

# the answer itself (no plan read: evidence kind ``not_delivered``)
ANSWER_FORMAT = (
    "Answer with the plan as a JSON list of objects with the keys days, current_city, transportation, breakfast, "
    "attraction, lunch, dinner, accommodation, or as 'Day 1:' blocks with one 'Field: value' line per field; an "
    "answer without such a plan, with a day (up to the trip's length) that lacks current_city or transportation or "
    "has a value that is not text, with a current city that says 'from' without reading 'from A to B', or with a "
    "transportation entry that contains 'flight number' (in any case) but not 'Flight Number: ' or has no route "
    "'from A to B' in it or in its day's current city, counts as no plan."
)

RULES: dict[str, str] = {
    "answer_format": ANSWER_FORMAT,
    # the days and their fields (Complete Information)
    "day_count": "The plan has one entry for each day of the trip, in order from day 1, and no entry is empty or "
                 "says there is nothing more to plan before the last day.",
    "all_fields": "Every day has all seven fields: current city, transportation, breakfast, attraction, lunch, "
                  "dinner and accommodation ('-' when it has nothing).",
    "travel_transport": "A travel day (its current city reads 'from A to B') names its transportation.",
    "daily_meals": "A day that is not a travel day has a breakfast, a lunch and a dinner (meals on travel days are "
                   "optional).",
    "daily_attraction": "A day that is not a travel day has at least one attraction.",
    "nightly_bed": "Every day but the last has an accommodation for that night.",
    "half_filled": "Over the whole plan at least 3 values per day are filled in, counting each day's number and "
                   "current city and every field that is not '-'.",
    # the route (Reasonable City Route, and the number of cities)
    "route_start": "Day 1 leaves the origin: its current city reads 'from <origin> to <first city>'.",
    "route_closed": "The last day travels back to the origin, so the trip ends where it started.",
    "route_sequence": "Listing the cities the days name in order (a travel day 'from A to B' names A, then B), a "
                      "travel day starts in the city the previous day ended in, every city but the origin is "
                      "named on at least two days in a row (arrive, then stay or leave on a later day), and no "
                      "city is entered again once left (only the origin, at the end).",
    "route_known_city": "Every city named is a city of the sandbox, spelled as the sandbox spells it.",
    "route_destination": "Every city the trip visits (all but the origin) is the destination itself when the query "
                         "names one city to visit, or a city of the destination state when it names a state.",
    "city_count": "The trip visits exactly as many different cities, the origin not counted, as the query asks "
                  "(one when it names a single city).",
    # places (Within Sandbox, Within Current City, diversity, minimum nights)
    "place_in_sandbox": "Write every restaurant, attraction and accommodation as 'Name, City', the name exactly "
                        "as the sandbox lists it in that city; several attractions of a day are separated by ';', "
                        "each ending with ';'.",
    "meal_in_city": "Every meal is at a restaurant in one of that day's cities (on 'from A to B': A or B).",
    "attraction_in_city": "Every attraction is in one of that day's cities (on 'from A to B': A or B).",
    "accommodation_in_city": "A day's accommodation is in the city where that day ends (B on 'from A to B').",
    "restaurant_once": "No restaurant is used twice in the trip (any meal of any day).",
    "attraction_once": "No attraction is visited twice in the trip.",
    "minimum_nights": "Consecutive days with the same accommodation are one stay of that many nights; every stay "
                      "lasts at least the accommodation's minimum nights.",
    # transportation (Within Sandbox, Within Current City, Non-conf. Transportation)
    "first_day_transport": "Day 1's transportation is never '-'.",
    "transport_recognised": "Every transportation entry is exactly one of: a flight with its flight number ('F' "
                            "and digits), 'Self-driving, from A to B', or 'Taxi, from A to B', with its route "
                            "'from A to B' in the entry or in the day's current city; an entry naming no mode, "
                            "two modes, or a flight with no or several flight numbers is invalid.",
    "flight_in_sandbox": "Write a flight as 'Flight Number: F0123456, from A to B, Departure Time: hh:mm, Arrival "
                         "Time: hh:mm'; it must be a flight of the sandbox from A to B on that day's date (day 1 is "
                         "the first date of the trip, day 2 the next, and so on).",
    "drive_in_sandbox": "Self-driving or a taxi from A to B needs a route with a cost in the sandbox "
                        "(GoogleDistanceMatrix gives it when there is one).",
    "transport_names_cities": "A day's transportation entry names every city of that day's current city (on "
                              "'from A to B': both A and B).",
    "no_mixed_transport": "Do not combine self-driving with flights or with taxis anywhere in the trip (flights "
                          "and taxis may be combined).",
    # the query's own constraints (hard constraints)
    "budget": "The total cost must not exceed the budget. The total cost is the sum of: each flight's Price times "
              "the number of people; each self-driving leg's cost (the sandbox's cost for that route) times one "
              "car per 5 people, rounded up; each taxi leg's cost times one taxi per 4 people, rounded up; each "
              "meal's Average Cost times the number of people; and, for each day with an accommodation (one "
              "night), its price times one room per 'maximum occupancy' people, rounded up.",
    "house_rule": "When the query says the accommodation must allow something (smoking, parties, children under "
                  "10, visitors or pets), no accommodation of the plan may list the matching 'No …' rule (e.g. "
                  "'No pets') in its house_rules.",
    "room_type": "A room type the query asks for holds for every accommodation of the plan: 'not shared room' "
                 "means any room type but 'Shared room'; 'shared room' means 'Shared room'; 'private room' means "
                 "'Private room'; 'entire room' means 'Entire home/apt'.",
    "cuisine": "Each cuisine the query asks to try is among the Cuisines of at least one restaurant where the plan "
               "has a meal outside the origin city.",
    "transport_rule": "A transportation rule of the query holds for every entry: 'no flight' allows no flight; "
                      "'no self-driving' allows no self-driving.",
}

# the itinerary family's cost-aware cases (stated in their task)
MINIMUM_COST = ("Only the cheapest plan counts: a plan that meets every other rule passes only if its total cost "
                "equals the lowest total cost any plan meeting every rule can have.")

INTRO = ("The plan is judged by these rules ('the sandbox' is the travel information: the search tools' results, "
         "or the information given):")


def rules_text() -> str:
    """Every rule, one per line after the introduction (the order of ``RULES``)."""
    return "\n".join([INTRO] + [f"- {sentence}" for sentence in RULES.values()])
