"""A per-case sandbox drawn from a seed: cities of one state plus an origin, dated
flights, a distance matrix, accommodations, restaurants and attractions, in the
row shapes TravelPlanner's database has (so its tools and evaluator read them)."""

from __future__ import annotations

import itertools
import random
from typing import Any

SYLLABLES = ("ka", "lo", "ver", "min", "dar", "sel", "bri", "mon", "pel", "rus", "ga", "nel", "tor", "vin",
             "ash", "bel", "cor", "dun", "el", "fen", "hal", "ives", "jun", "kel", "lar", "mer", "nor", "ol")
STATES = ("Aldoria", "Brevant", "Caldemar", "Dunmere", "Estoria", "Felmark", "Garrow", "Halvane")
CUISINES = ("Chinese", "American", "Italian", "Mexican", "Indian", "Mediterranean", "French")
ROOM_TYPES = ("Entire home/apt", "Private room", "Shared room")
RULES = ("No smoking", "No parties", "No children under 10", "No visitors", "No pets")
KINDS = ("Cafe", "Grill", "Kitchen", "Bistro", "Diner", "House", "Table", "Garden")
SIGHTS = ("Museum", "Park", "Gallery", "Tower", "Bridge", "Market", "Garden", "Castle")
STAYS = ("Loft", "Suite", "Cottage", "Studio", "Flat", "Villa", "Cabin", "Room")
RESTAURANTS, ATTRACTIONS, ACCOMMODATIONS = 8, 6, 5


def _pick(r: Any, items: tuple[Any, ...]) -> Any:
    return items[int(r() * len(items))]


def _clean(word: str) -> bool:
    """No word the evaluator's text rules would misread ('from', 'to', vehicle names)."""
    low = word.lower()
    return not any(bad in low for bad in ("from", "to", "taxi", "flight", "driving"))


WORDS2 = tuple(w for w in ((a + b).capitalize() for a in SYLLABLES for b in SYLLABLES) if _clean(w))
WORDS3 = tuple(w for w in ((a + b + c).capitalize() for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES)
               if _clean(w))


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def draw_world(rng: random.Random, n_cities: int, dates: list[str]) -> dict[str, Any]:
    """Tables for an origin and ``n_cities`` cities of one state, flights on ``dates``."""
    state, org_state = rng.sample(STATES, 2)
    names = rng.sample(WORDS3, n_cities + 1)
    org, cities = names[0], names[1:]
    every = [org] + cities
    tables: dict[str, Any] = {"flights": [], "accommodations": [], "restaurants": [], "attractions": [],
                              "distances": [], "cities": {org: org_state, **{c: state for c in cities}}}
    km: dict[frozenset[str], int] = {}
    for a in every:
        for b in every:
            if a == b:
                continue
            key = frozenset((a, b))
            if key not in km:
                km[key] = 80 + int(rng.random() * 1520) if org in key else 40 + int(rng.random() * 460)
            d = km[key]
            minutes = d * 60 // 85
            tables["distances"].append([a, b, f"{minutes // 60} hours {minutes % 60} mins", f"{d} km"])
    number = rng.randrange(1000000, 8000000)
    r = rng.random
    pairs = [(a, b, km[frozenset((a, b))]) for a in every for b in every if a != b]
    for date in dates:
        for a, b, d in pairs:
            if r() < 0.45:
                continue
            if True:
                dep = 300 + int(r() * 1020)
                dur = 40 + d // 9
                number += 1 + int(r() * 996)
                tables["flights"].append({
                    "Flight Number": f"F{number}", "Price": 40 + int(r() * 80) + d // 8, "DepTime": _hhmm(dep),
                    "ArrTime": _hhmm(dep + dur), "ActualElapsedTime": f"{dur // 60} hours {dur % 60} minutes",
                    "FlightDate": date, "OriginCityName": a, "DestCityName": b, "Distance": float(d)})
    pick = _pick
    words = rng.sample(WORDS2, len(cities) * (ACCOMMODATIONS + RESTAURANTS + ATTRACTIONS))
    for n_city, city in enumerate(cities):
        mine = iter(words[n_city * (ACCOMMODATIONS + RESTAURANTS + ATTRACTIONS):])
        for w in itertools.islice(mine, ACCOMMODATIONS):
            rules = " & ".join([x for x in RULES if r() < 0.3])
            tables["accommodations"].append({
                "NAME": f"{w} {pick(r, STAYS)}", "price": 30 + int(r() * 370), "room type": pick(r, ROOM_TYPES),
                "house_rules": rules, "minimum nights": pick(r, (1, 1, 1, 2, 2, 3)),
                "maximum occupancy": 1 + int(r() * 5), "review rate number": 1 + int(r() * 5), "city": city})
        for w in itertools.islice(mine, RESTAURANTS):
            kinds = [c for c in CUISINES if r() < 0.3] or [pick(r, CUISINES)]
            tables["restaurants"].append({"Name": f"{w} {pick(r, KINDS)}", "Average Cost": 8 + int(r() * 82),
                                          "Cuisines": ", ".join(kinds), "Aggregate Rating": (20 + int(r() * 30)) / 10,
                                          "City": city})
        for w in itertools.islice(mine, ATTRACTIONS):
            tables["attractions"].append({"Name": f"{w} {pick(r, SIGHTS)}", "Latitude": 0.0, "Longitude": 0.0,
                                          "Address": f"{1 + int(r() * 998)} {w} Road", "Phone": "-",
                                          "Website": "-", "City": city})
    tables["_org"], tables["_cities"] = org, cities
    return tables
