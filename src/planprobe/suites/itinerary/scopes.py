"""Each constraint's ground-truth scope: ``local`` when one sub-task (one leg, one
stay, one meal or visit) can check it alone, ``global`` when only the whole plan
can (PMC's local/global split). Ground truth carried in each case and verdict; no code
grades an agent's split against it (docs/itinerary.md says why)."""

SCOPES: dict[str, str] = {
    # commonsense
    "is_valid_information_in_sandbox": "local",       # each entry exists, on its own
    "is_valid_information_in_current_city": "local",  # each day's entries are in that day's cities
    "is_valid_accommodation": "local",                # one stay's nights against its minimum
    "is_reasonable_visiting_city": "global",          # the route as a whole closes and stays in the state
    "is_valid_restaurants": "global",                 # no restaurant twice across the trip
    "is_valid_attractions": "global",                 # no attraction twice across the trip
    "is_valid_transportation": "global",              # vehicles of all legs must not conflict
    "is_not_absent": "global",                        # every day filled, the right days and cities
    # hard
    "valid_room_rule": "local",                       # each accommodation
    "valid_room_type": "local",                       # each accommodation
    "valid_transportation": "local",                  # each leg
    "valid_cuisine": "global",                        # covered by the trip's meals together
    "valid_cost": "global",                           # the sum over every part
    "minimum_cost": "global",                         # cost-aware cases: the sum equals the minimum
}
