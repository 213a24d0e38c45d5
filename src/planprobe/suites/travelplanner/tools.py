"""TravelPlanner's search tools over a sandbox (two-stage mode). Results are
tables in the column order of the official tools, or their 'no result' sentences."""

from __future__ import annotations

from typing import Any

from .sandbox import TABLES, Row, Sandbox
from .text import before_parenthesis


def table(rows: list[Row], columns: tuple[str, ...]) -> str:
    """Rows as an aligned text table (header first)."""
    cells = [[str(c) for c in columns]] + [["" if r[c] is None else _fmt(r[c]) for c in columns] for r in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(columns))]
    return "\n".join("  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells)


def _fmt(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def run_tool(box: Sandbox, name: str, args: dict[str, Any]) -> tuple[str, str | None]:
    if name == "FlightSearch":
        a, b, d = args["departure_city"], args["destination_city"], args["date"]
        rows = box.flight_search(a, b, d)
        if not rows:
            return f"There is no flight from {a} to {b} on {d}.", None
        return table(rows, TABLES["flights"][1]), None
    if name == "GoogleDistanceMatrix":
        a, b, mode = before_parenthesis(args["origin"]), before_parenthesis(args["destination"]), args["mode"]
        route = box.distance(a, b)
        cost = route.cost(mode) if route is not None else None
        if route is None or cost is None:
            return f"{mode}, from {a} to {b}, no valid information.", None
        return f"{mode}, from {a} to {b}, duration: {route.duration}, distance: {route.distance}, cost: {cost}", None
    if name in ("AccommodationSearch", "RestaurantSearch", "AttractionSearch"):
        kind = {"AccommodationSearch": "accommodations", "RestaurantSearch": "restaurants",
                "AttractionSearch": "attractions"}[name]
        rows = box.city_rows(kind, args["city"])
        if not rows:
            return f"There is no {kind[:-1]} in this city.", None
        return table(rows, TABLES[kind][1]), None
    if name == "CitySearch":
        cities = box.cities_in(args["state"])
        return (str(cities) if cities else "Invalid State"), None
    raise AssertionError(name)  # the environment checked the name
