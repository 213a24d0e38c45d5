"""The solver's reading of a TravelPlanner query: the natural-language request of the paper's
data set ("Could you help create a 5-day travel itinerary for a group of 4, starting from New
York and visiting 2 cities in Louisiana from March 15th to March 19th, 2022? …").

It reads what a careful model reads from the words: the origin, the destination (a city, or a
state and how many of its cities to visit), the dates, the travellers, the budget, and the
local constraints (a house rule the accommodation must allow, a room type, cuisines to try,
transportation to avoid). Where the words leave a value open or say it twice in two ways it
names what is open (``Trip.problem``), never guesses; the one default is a query that names no
travellers, read as the one person asking (docs/travelplanner.md "Read by the solver").

This is the solver's own reading, independent of how planprobe derives the training queries'
fields (it imports nothing of the family).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass

from .itinerary_query import Query

MONTHS = {m: i + 1 for i, m in enumerate((
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December"))}
_MONTH = "|".join(MONTHS)
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10, "eleven": 11, "twelve": 12}
_NUMBER = r"\d+|" + "|".join(NUMBERS)
CUISINES = ("American", "Chinese", "Italian", "Mexican", "Indian", "Mediterranean", "French")

# a place name: capitalised words, with the abbreviations cities are spelled with ("St. Petersburg")
_WORD = r"(?:(?:St|Ste|Mt|Ft)\.|[A-Z][A-Za-z'&-]*)"
_PLACE = rf"{_WORD}(?: {_WORD})*"
_ORIGIN = re.compile(rf"\b(?:departing from|departing|departs from|depart from|starting from|starting in|starts in|"
                     rf"start in|beginning in|begin in|leaving from|leaving|setting off from|taking off from|"
                     rf"originating from|originate from|from)\s+({_PLACE})")
_TOWARDS = re.compile(rf"\b(?:heading to|head to|heading into|venturing into|towards|to|visiting|visit|ending in|"
                      rf"arriving in|arrive in|exploring|touring|covering|stopping in|in)\s+({_PLACE})")
_CITIES = re.compile(rf"\b((?i:{_NUMBER}))\s+(?:different |distinct |separate |unique )?cities\b"
                     rf"(?:\s+(?:in|across|of|within)\s+({_PLACE}))?")
_DATE_MD = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DATE_DM = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)\s+(?:of\s+)?({_MONTH})\b")
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b")
_YEAR = re.compile(r"\b(20\d\d)\b")
_LENGTH = re.compile(rf"\b({_NUMBER})[- ]days?\b|\b(?:a|one)[- ]week\b|\bweek-long\b", re.IGNORECASE)
_BUDGET = re.compile(r"\$\s*(\d[\d,]*(?:\.\d+)?)")
_PEOPLE = (
    re.compile(rf"\b(?:group|party) of ({_NUMBER})\b", re.IGNORECASE),
    re.compile(rf"\b({_NUMBER}) (?:people|persons|individuals|travell?ers|adults)\b", re.IGNORECASE),
    re.compile(rf"\bfor ({_NUMBER})\b(?![- ](?:days?|nights?|weeks?|cities|different|distinct|\w+ cities))",
               re.IGNORECASE),
)
_ONE = re.compile(r"\b(?:solo|alone|single[- ]person|single traveler|single person|one person|by myself)\b",
                  re.IGNORECASE)
_TWO = re.compile(r"\ba (?:pair|couple)\b", re.IGNORECASE)
HOUSE_RULES = (  # what a query asks the accommodation to allow, and how TravelPlanner names it
    ("pets", re.compile(r"\bpets?\b|\bpet-friendly\b", re.IGNORECASE)),
    ("smoking", re.compile(r"\bsmok(?:e|ing)\b", re.IGNORECASE)),
    ("parties", re.compile(r"\bparties\b|\bparty\b(?! of)", re.IGNORECASE)),
    ("children under 10", re.compile(r"\bchildren\b|\bkids\b", re.IGNORECASE)),
    ("visitors", re.compile(r"\bvisitors\b", re.IGNORECASE)),
)
ROOMS = (  # a room type asked for, and the room types (the 'room type' column) that meet it
    ("not shared room", re.compile(r"\b(?:not|no|non)[- ](?:a )?shared rooms?\b", re.IGNORECASE),
     lambda t: t != "Shared room"),
    ("shared room", re.compile(r"(?<!not )(?<!no )(?<!non-)\bshared rooms?\b", re.IGNORECASE),
     lambda t: t == "Shared room"),
    ("private room", re.compile(r"\bprivate rooms?\b", re.IGNORECASE), lambda t: t == "Private room"),
    ("entire room", re.compile(r"\bentire (?:rooms?|homes?|apartments?|apt|place)\b", re.IGNORECASE),
     lambda t: t == "Entire home/apt"),
)
_FLY = re.compile(r"\b(?:flights?|flying|fly|airplanes?|planes?|air travel)\b", re.IGNORECASE)
_DRIVE = re.compile(r"\bself[- ]?driv\w*|\bdrive\b|\bdriving\b", re.IGNORECASE)
_NOT = re.compile(r"\b(?:not|no|non|never|avoid|without)\b|n't\b|\bnon-", re.IGNORECASE)


@dataclass(frozen=True)
class Trip:
    """A query read: the itinerary search's ``Query`` (rules not yet read), or what is open."""

    query: Query | None
    problem: str | None = None


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word.lower()]


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.?!])\s+", text) if s.strip()]


def _people(text: str) -> tuple[int | None, str | None]:
    found: set[int] = set()
    for pattern in _PEOPLE:
        found |= {_number(m.group(1)) for m in pattern.finditer(text)}
    if _ONE.search(text):
        found.add(1)
    if _TWO.search(text):
        found.add(2)
    if len(found) > 1:
        return None, f"the query names {sorted(found)} travellers"
    return (found.pop() if found else 1), None


def _dates(text: str) -> tuple[tuple[str, ...] | None, str | None]:
    years = set(_YEAR.findall(text))
    if len(years) != 1:
        return None, "the query does not name one year for its dates"
    year = int(years.pop())
    marks: list[tuple[int, int | None, int]] = []  # (position, month or None, day)
    taken: list[tuple[int, int]] = []
    for m in _DATE_MD.finditer(text):
        marks.append((m.start(), MONTHS[m.group(1)], int(m.group(2))))
        taken.append(m.span())
    for m in _DATE_DM.finditer(text):
        marks.append((m.start(), MONTHS[m.group(2)], int(m.group(1))))
        taken.append(m.span())
    for m in _ORDINAL.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            marks.append((m.start(), None, int(m.group(1))))
    marks.sort()
    months = {mo for _, mo, _ in marks if mo is not None}
    if len(marks) != 2 or not months:
        return None, "the query does not name a first and a last date"
    if len(months) > 1 and any(mo is None for _, mo, _ in marks):
        return None, "the query's dates do not say their months"
    (_, m1, d1), (_, m2, d2) = marks
    only = next(iter(months))
    try:
        first = datetime.date(year, m1 or only, d1)
        last = datetime.date(year, m2 or only, d2)
    except ValueError:
        return None, "the query's dates are not dates of the calendar"
    if last < first:
        return None, "the query's last date is before its first"
    n = (last - first).days + 1
    return tuple((first + datetime.timedelta(days=i)).isoformat() for i in range(n)), None


def _stated_length(text: str) -> set[int]:
    out = set()
    for m in _LENGTH.finditer(text):
        out.add(_number(m.group(1)) if m.group(1) else 7)
    return out


def _destination(text: str, origin: str) -> tuple[str | None, int, bool, str | None]:
    """(destination, cities to visit, whether it is a state, problem)."""
    counts = [( _number(m.group(1)), m.group(2)) for m in _CITIES.finditer(text)]
    towards = [m.group(1) for m in _TOWARDS.finditer(text)
               if m.group(1) != origin and m.group(1).split()[0] not in MONTHS]
    if counts:
        numbers = {n for n, _ in counts}
        states = {s for _, s in counts if s}
        if len(numbers) != 1:
            return None, 0, False, f"the query names {sorted(numbers)} cities to visit"
        if not states and towards:
            states = {towards[0]}
        if len(states) != 1:
            return None, 0, False, "the query does not name the one state whose cities it visits"
        return states.pop(), numbers.pop(), True, None
    if not towards:
        return None, 0, False, "the query does not name where the trip goes"
    return towards[0], 1, False, None


@dataclass(frozen=True)
class Local:
    """The query's local constraints."""

    allow: str | None = None
    room: tuple[str, Callable[[str], bool]] | None = None
    cuisines: tuple[str, ...] = ()
    no_flight: bool = False
    no_driving: bool = False


def _local(text: str) -> tuple[Local, str | None]:
    rules = [name for name, pattern in HOUSE_RULES if pattern.search(text)]
    if len(rules) > 1:
        return Local(), f"the query asks the accommodation to allow several things ({', '.join(rules)})"
    rooms = [(name, test) for name, pattern, test in ROOMS if pattern.search(text)]
    if len(rooms) > 1:
        return Local(), f"the query asks for several room types ({', '.join(n for n, _ in rooms)})"
    no_flight = no_driving = False
    for sentence in _sentences(text):
        fly, drive = _FLY.search(sentence), _DRIVE.search(sentence)
        if not (fly or drive):
            continue
        if not _NOT.search(sentence):
            return Local(), f"a transportation wish the reader cannot read: {sentence.strip()!r}"
        if fly and drive:
            return Local(), f"a sentence that rules out flights or driving, or both: {sentence.strip()!r}"
        no_flight |= bool(fly)
        no_driving |= bool(drive)
    return Local(allow=rules[0] if rules else None, room=rooms[0] if rooms else None,
                 cuisines=tuple(c for c in CUISINES if re.search(rf"\b{c}\b", text)),
                 no_flight=no_flight, no_driving=no_driving), None


def read_trip(text: str) -> Trip:
    """The query's values, or what the words leave open."""
    text = " ".join(text.split())
    origins = [m.group(1) for m in _ORIGIN.finditer(text) if m.group(1).split()[0] not in MONTHS]
    if not origins:
        return Trip(None, "the query does not name where the trip starts")
    origin = origins[0]
    destination, cities, state, problem = _destination(text, origin)
    if problem or destination is None:
        return Trip(None, problem)
    dates, problem = _dates(text)
    if problem or dates is None:
        return Trip(None, problem)
    stated = _stated_length(text)
    if stated and stated != {len(dates)}:
        return Trip(None, f"the query's length ({sorted(stated)} days) and its dates ({len(dates)} days) disagree")
    budgets = {float(b.replace(",", "")) for b in _BUDGET.findall(text)}
    if len(budgets) != 1:
        return Trip(None, "the query does not name one budget")
    people, problem = _people(text)
    if problem or people is None:
        return Trip(None, problem)
    local, problem = _local(text)
    if problem:
        return Trip(None, problem)
    return Trip(Query(days=len(dates), people=people, origin=origin, destination=destination, cities=cities,
                      state=state, dates=dates, budget=budgets.pop(), allow=local.allow,
                      room=local.room[1] if local.room else None, room_text=local.room[0] if local.room else None,
                      cuisines=local.cuisines, no_flight=local.no_flight, no_driving=local.no_driving))
