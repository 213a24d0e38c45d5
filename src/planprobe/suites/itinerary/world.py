"""A per-case sandbox drawn from a seed: cities of one state plus an origin, dated
flights, a distance matrix, accommodations, restaurants and attractions, in the
row shapes TravelPlanner's database has (so its tools and evaluator read them)."""

from __future__ import annotations

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


def _word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def _names(rng: random.Random, n: int, parts: int, avoid: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        w = _word(rng, parts)
        low = w.lower()
        if w in avoid or "from" in low or "to" in low or "taxi" in low or "flight" in low:
            continue
        avoid.add(w)
        out.append(w)
    return out


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def draw_world(rng: random.Random, n_cities: int, dates: list[str]) -> dict[str, Any]:
    """Tables for an origin and ``n_cities`` cities of one state, flights on ``dates``."""
    used: set[str] = set()
    state, org_state = rng.sample(STATES, 2)
    names = _names(rng, n_cities + 1, 3, used)
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
                km[key] = rng.randrange(80, 1600) if org in key else rng.randrange(40, 500)
            d = km[key]
            minutes = d * 60 // 85
            tables["distances"].append([a, b, f"{minutes // 60} hours {minutes % 60} mins", f"{d} km"])
    number = rng.randrange(1000000, 8000000)
    for date in dates:
        for a in every:
            for b in every:
                if a == b or rng.random() < 0.45:
                    continue
                d = km[frozenset((a, b))]
                dep = rng.randrange(300, 1320)
                dur = 40 + d // 9
                number += rng.randrange(1, 997)
                tables["flights"].append({
                    "Flight Number": f"F{number}", "Price": rng.randrange(40, 120) + d // 8, "DepTime": _hhmm(dep),
                    "ArrTime": _hhmm(dep + dur), "ActualElapsedTime": f"{dur // 60} hours {dur % 60} minutes",
                    "FlightDate": date, "OriginCityName": a, "DestCityName": b, "Distance": float(d)})
    for city in cities:
        local: set[str] = set()
        for w in _names(rng, ACCOMMODATIONS, 2, local):
            rules = " & ".join(r for r in RULES if rng.random() < 0.3)
            tables["accommodations"].append({
                "NAME": f"{w} {rng.choice(STAYS)}", "price": rng.randrange(30, 400), "room type": rng.choice(ROOM_TYPES),
                "house_rules": rules, "minimum nights": rng.choice((1, 1, 1, 2, 2, 3)),
                "maximum occupancy": rng.randrange(1, 6), "review rate number": rng.randrange(1, 6), "city": city})
        for w in _names(rng, RESTAURANTS, 2, local):
            kinds = rng.sample(CUISINES, rng.randrange(1, 4))
            tables["restaurants"].append({"Name": f"{w} {rng.choice(KINDS)}", "Average Cost": rng.randrange(8, 90),
                                          "Cuisines": ", ".join(kinds), "Aggregate Rating": rng.randrange(20, 50) / 10,
                                          "City": city})
        for w in _names(rng, ATTRACTIONS, 2, local):
            tables["attractions"].append({"Name": f"{w} {rng.choice(SIGHTS)}", "Latitude": 0.0, "Longitude": 0.0,
                                          "Address": f"{rng.randrange(1, 999)} {w} Road", "Phone": "-",
                                          "Website": "-", "City": city})
    tables["_org"], tables["_cities"] = org, cities
    return tables
