"""The itinerary reader's reading of the query (task) and of the rules (system prompt).

The query gives the values (origin, destination, dates, people, budget, local constraints);
the system prompt states what each rule means (the cost model, what a room type or a house rule
asks for). Every sentence of the query must be read, and every rule the plan depends on must be
stated: otherwise the reading names what is missing (``Query.problem``), never guesses.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass

_TRIP = re.compile(
    r"Please plan a (\d+)-day trip for (one person|\d+ people) from (.+?) to (.+?)"
    r"(?:, visiting (\d+) cit(?:y|ies))?, from (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2}), "
    r"with a budget of \$(\d+(?:\.\d+)?(?:e\+\d+)?)\.")
_HOUSE = re.compile(r"Our accommodation must allow ([^.]+)\.")
_ROOM = re.compile(r"We want an? ([^.]+)\.")
_CUISINE = re.compile(r"We would like to try ([^.]+) cuisine\.")
_TRANSPORT = re.compile(r"Transportation: (no flight|no self-driving)\.")
_CHEAPEST = re.compile(r"Only the cheapest plan counts: [^.]+\.")
_ROOM_MEANS = re.compile(r"'([^']+)' means (any room type but )?'([^']+)'")

# what the plan depends on, and a phrase of the system prompt that states it
NEEDED_RULES = (
    ("the cost model", "The total cost is the sum of"),
    ("the flight cost", "each flight's Price times the number of people"),
    ("the self-driving cost", "one car per 5 people, rounded up"),
    ("the taxi cost", "one taxi per 4 people, rounded up"),
    ("the meal cost", "each meal's Average Cost times the number of people"),
    ("the accommodation cost", "one room per 'maximum occupancy' people, rounded up"),
    ("whether meals are needed on travel days", "meals on travel days are optional"),
    ("which days need an attraction", "A day that is not a travel day has at least one attraction"),
    ("the minimum-nights rule", "every stay lasts at least the accommodation's minimum nights"),
    ("which transportation modes may be combined", "flights and taxis may be combined"),
    ("where a flight must go and when", "on that day's date"),
    ("the route rule", "no city is entered again once left"),
    ("where the cuisines count", "outside the origin city"),
)


@dataclass(frozen=True)
class Query:
    """The values of one itinerary query, read from its text."""

    days: int = 0
    people: int = 0
    origin: str = ""
    destination: str = ""
    cities: int = 1
    state: bool = False          # the destination is a state (the query says how many cities to visit)
    dates: tuple[str, ...] = ()
    budget: float = 0.0
    allow: str | None = None     # the house rule the accommodation must allow
    room: Callable[[str], bool] | None = None
    room_text: str | None = None
    cuisines: tuple[str, ...] = ()
    no_flight: bool = False
    no_driving: bool = False
    cheapest: bool = False
    problem: str | None = None   # what the text leaves open

    def stay_ok(self, room_type: str, house_rules: str) -> bool:
        if self.allow is not None and f"No {self.allow}" in house_rules:
            return False
        return self.room is None or self.room(room_type)


def claims(task: str) -> bool:
    return _TRIP.search(task) is not None


def _dates(first: str, last: str, days: int) -> tuple[str, ...] | None:
    try:
        a, b = datetime.date.fromisoformat(first), datetime.date.fromisoformat(last)
    except ValueError:
        return None
    if (b - a).days != days - 1:
        return None
    return tuple((a + datetime.timedelta(days=i)).isoformat() for i in range(days))


def _room_test(target: str, negated: bool) -> Callable[[str], bool]:
    def test(room_type: str) -> bool:
        return (room_type != target) if negated else (room_type == target)
    return test


def _room_reading(system: str, wanted: str) -> Callable[[str], bool] | None:
    for m in _ROOM_MEANS.finditer(system):
        if m.group(1).lower() == wanted.lower():
            return _room_test(m.group(3), bool(m.group(2)))
    return None


def read_query(system: str, task: str) -> Query:
    m = _TRIP.search(task)
    if m is None:
        opening = " ".join(task.split()[:16])
        return Query(problem="the query does not say the trip in the form 'Please plan a N-day trip for … from ORIGIN to "
                             f"DESTINATION, from DATE to DATE, with a budget of $…' (it opens {opening!r})")
    days = int(m.group(1))
    people = 1 if m.group(2) == "one person" else int(m.group(2).split()[0])
    dates = _dates(m.group(6), m.group(7), days)
    if dates is None:
        return Query(problem=f"the dates {m.group(6)} to {m.group(7)} do not make a {days}-day trip")
    missing = [what for what, phrase in NEEDED_RULES if phrase not in system]
    if missing:
        return Query(problem="the prompt does not state " + ", ".join(missing))
    rest = task[m.end():]
    allow = room_text = transport = None
    room = None
    cuisines: tuple[str, ...] = ()
    h = _HOUSE.search(rest)
    if h:
        allow = h.group(1).strip()
        if "the matching 'No" not in system:
            return Query(problem="the prompt does not say which house rule forbids " + allow)
        rest = rest.replace(h.group(0), "")
    r = _ROOM.search(rest)
    if r:
        room_text = r.group(1).strip()
        room = _room_reading(system, room_text)
        if room is None:
            return Query(problem=f"the prompt does not say which room types a '{room_text}' is")
        rest = rest.replace(r.group(0), "")
    c = _CUISINE.search(rest)
    if c:
        cuisines = tuple(x.strip() for x in c.group(1).split(" and ") if x.strip())
        rest = rest.replace(c.group(0), "")
    t = _TRANSPORT.search(rest)
    if t:
        transport = t.group(1)
        rest = rest.replace(t.group(0), "")
    cheap = _CHEAPEST.search(rest)
    if cheap:
        rest = rest.replace(cheap.group(0), "")
    if rest.strip():
        return Query(problem=f"a sentence of the query the reader cannot read: {rest.strip()!r}")
    return Query(days=days, people=people, origin=m.group(3), destination=m.group(4),
                 cities=int(m.group(5)) if m.group(5) else 1, state=m.group(5) is not None, dates=dates,
                 budget=float(m.group(8)), allow=allow, room=room, room_text=room_text, cuisines=cuisines,
                 no_flight=transport == "no flight", no_driving=transport == "no self-driving",
                 cheapest=cheap is not None)
