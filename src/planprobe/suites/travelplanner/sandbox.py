"""TravelPlanner's sandbox: the six tables its tools search and its evaluator reads.

Two sources, one shape:

* ``load_database(DIR)`` reads the official database directory (the CSV files the
  official tools load with pandas). Rows are read as pandas reads them: pandas'
  default missing-value strings count as missing, and a row with any missing cell
  is dropped (the official tools call ``dropna()`` on the whole file); the row
  order is kept, because the official evaluator takes the first matching row.
* ``from_reference(REF)`` rebuilds a per-query sandbox from TravelPlanner's
  reference information (``train_ref_info.jsonl``: the rows the annotators saw).

Lookups follow the official evaluator: names are matched as substrings of the
table's names within a city (``str.contains(re.escape(name))``) unless ``exact``.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import PlanprobeError

# pandas.read_csv's default missing-value strings (pandas 2.x)
NA_STRINGS = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
    "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})

# table -> (file in the database directory, columns the official tools keep, numeric columns)
TABLES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "flights": ("flights/clean_Flights_2022.csv",
                ("Flight Number", "Price", "DepTime", "ArrTime", "ActualElapsedTime", "FlightDate", "OriginCityName",
                 "DestCityName", "Distance"), ("Price", "Distance")),
    "accommodations": ("accommodations/clean_accommodations_2022.csv",
                       ("NAME", "price", "room type", "house_rules", "minimum nights", "maximum occupancy",
                        "review rate number", "city"), ("price", "minimum nights", "maximum occupancy",
                                                        "review rate number")),
    "restaurants": ("restaurants/clean_restaurant_2022.csv",
                    ("Name", "Average Cost", "Cuisines", "Aggregate Rating", "City"),
                    ("Average Cost", "Aggregate Rating")),
    "attractions": ("attractions/attractions.csv",
                    ("Name", "Latitude", "Longitude", "Address", "Phone", "Website", "City"),
                    ("Latitude", "Longitude")),
    "distances": ("googleDistanceMatrix/distance.csv", ("origin", "destination", "duration", "distance"), ()),
}
CITIES_FILE = "background/citySet_with_states.txt"
# the column holding the entity name and the city, per searchable table
NAME_CITY = {"accommodations": ("NAME", "city"), "restaurants": ("Name", "City"), "attractions": ("Name", "City")}

Row = dict[str, Any]


@dataclass
class Distance:
    """One origin-destination pair of the distance matrix (duration/distance None when unknown)."""

    origin: str
    destination: str
    duration: str | None
    distance: str | None

    def cost(self, mode: str) -> int | None:
        """The official cost: 0.05 per km self-driving, 1 per km by taxi, None when the
        pair has no valid route (missing values, or a duration counted in days). The
        official code ``eval``s the distance text; it is read as a number here."""
        if self.duration is None or self.distance is None or "day" in self.duration:
            return None
        km = _number(self.distance.replace("km", "").replace(",", "").strip())
        if km is None:
            return None
        if "driving" in mode:
            return int(km * 0.05)
        if mode == "taxi":
            return int(km)
        return None


@dataclass
class Sandbox:
    """The tables, indexed the ways the tools and the evaluator search them."""

    source: str
    flights: list[Row] = field(default_factory=list)
    accommodations: list[Row] = field(default_factory=list)
    restaurants: list[Row] = field(default_factory=list)
    attractions: list[Row] = field(default_factory=list)
    distances: list[Distance] = field(default_factory=list)
    cities: dict[str, str | None] = field(default_factory=dict)  # city -> state (None: not known)
    _by_number: dict[str, list[Row]] = field(default_factory=dict, repr=False)
    _by_city: dict[str, dict[str, list[Row]]] = field(default_factory=dict, repr=False)
    _by_route: dict[tuple[str, str], Distance] = field(default_factory=dict, repr=False)

    def index(self) -> Sandbox:
        self._by_number = {}
        for row in self.flights:
            self._by_number.setdefault(row["Flight Number"], []).append(row)
        self._by_city = {}
        for table, (_, city_col) in NAME_CITY.items():
            grouped: dict[str, list[Row]] = {}
            for row in getattr(self, table):
                grouped.setdefault(row[city_col], []).append(row)
            self._by_city[table] = grouped
        self._by_route = {}
        for d in self.distances:
            self._by_route.setdefault((d.origin, d.destination), d)  # the first row, as the official code reads
        return self

    # -- the evaluator's lookups ------------------------------------------------

    def rows(self, table: str, name: str, city: str, exact: bool = False) -> list[Row]:
        """Rows of a searchable table in ``city`` whose name contains ``name`` (the
        official match) or equals it (``exact``), in table order."""
        name_col = NAME_CITY[table][0]
        in_city = self._by_city[table].get(city, ())
        if exact:
            wanted = name.strip()
            return [r for r in in_city if str(r[name_col]).strip() == wanted]
        return [r for r in in_city if name in str(r[name_col])]

    def flights_numbered(self, number: str) -> list[Row]:
        return self._by_number.get(number, [])

    def distance(self, origin: str, destination: str) -> Distance | None:
        return self._by_route.get((origin, destination))

    # -- the tools' searches (TravelPlanner's tool semantics) --------------------

    def city_rows(self, table: str, city: str) -> list[Row]:
        return list(self._by_city[table].get(city, ()))

    def flight_search(self, origin: str, destination: str, date: str) -> list[Row]:
        return [r for r in self.flights
                if r["OriginCityName"] == origin and r["DestCityName"] == destination and r["FlightDate"] == date]

    def cities_in(self, state: str) -> list[str]:
        return [c for c, s in self.cities.items() if s == state]


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _typed(value: str, numeric: bool, where: str, column: str) -> Any:
    if not numeric:
        return value
    number = _number(value)
    if number is None:
        raise PlanprobeError(f"{where}: field '{column}': {value!r} is not a number")
    return int(number) if number.is_integer() and "." not in value and "e" not in value.lower() else number


# ---------------------------------------------------------------------------
# the official database directory
# ---------------------------------------------------------------------------


def _csv_rows(path: Path, columns: tuple[str, ...], numeric: tuple[str, ...], dropna: bool) -> Iterator[Row]:
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        raise PlanprobeError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            raise PlanprobeError(f"{path}:1: empty file (expected a header with {', '.join(columns)})") from None
        except (csv.Error, UnicodeDecodeError) as exc:
            raise PlanprobeError(f"{path}:1: not a CSV file ({exc})") from None
        missing = [c for c in columns if c not in header]
        if missing:
            raise PlanprobeError(f"{path}:1: missing column {missing[0]!r} (the header has {', '.join(header)})")
        where_col = {c: header.index(c) for c in columns}
        line = 1
        try:
            for cells in reader:
                line = reader.line_num
                if len(cells) != len(header):
                    if not cells:
                        continue
                    raise PlanprobeError(f"{path}:{line}: {len(cells)} cells, the header has {len(header)}")
                if dropna and any(c in NA_STRINGS for c in cells):
                    continue
                row: Row = {}
                for c in columns:
                    raw = cells[where_col[c]]
                    if raw in NA_STRINGS:
                        row[c] = None
                    else:
                        row[c] = _typed(raw, c in numeric, f"{path}:{line}", c)
                yield row
        except (csv.Error, UnicodeDecodeError) as exc:
            raise PlanprobeError(f"{path}:{line + 1}: not valid CSV ({exc})") from None


def check_layout(directory: Path) -> None:
    """Every table file of the official layout is there (before any is read)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PlanprobeError(f"{directory}: not a directory (expected TravelPlanner's database directory)")
    for table, (rel, _, _) in TABLES.items():
        if not (directory / rel).is_file():
            raise PlanprobeError(f"{directory}: missing table {table!r} ({rel})")
    if not (directory / CITIES_FILE).is_file():
        raise PlanprobeError(f"{directory}: missing table 'cities' ({CITIES_FILE})")


def load_database(directory: Path, progress=None) -> Sandbox:
    """The official database directory as a sandbox; every problem names its file and line."""
    directory = Path(directory)
    check_layout(directory)
    box = Sandbox(source=str(directory))
    for table, (rel, columns, numeric) in TABLES.items():
        if table == "distances":
            continue
        setattr(box, table, list(_csv_rows(directory / rel, columns, numeric, dropna=True)))
        if progress is not None:
            progress(table)
    rel, columns, _ = TABLES["distances"]
    box.distances = [Distance(r["origin"], r["destination"], r["duration"], r["distance"])
                     for r in _csv_rows(directory / rel, columns, (), dropna=False)]
    box.cities = _read_cities(directory / CITIES_FILE)
    return box.index()


def _read_cities(path: Path) -> dict[str, str | None]:
    cities: dict[str, str | None] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanprobeError(f"{path}: cannot read ({exc})") from None
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise PlanprobeError(f"{path}:{n}: expected 'city<TAB>state'")
        cities[parts[0]] = parts[1]
    return cities


# ---------------------------------------------------------------------------
# reference information (per query)
# ---------------------------------------------------------------------------

_FLIGHT_KEY = re.compile(r"^Flight from (.+) to (.+) on (\d{4}-\d{2}-\d{2})$")
_DRIVE_KEY = re.compile(r"^(Self-driving|Taxi) from (.+) to (.+)$")
_ROUTE = re.compile(r"duration: (.+), distance: (.+), cost: (.+)$")
_TABLE_KEY = re.compile(r"^(Attractions|Restaurants|Accommodations) in (.+)$")
REF_TABLES = {"Attractions": "attractions", "Restaurants": "restaurants", "Accommodations": "accommodations"}


def from_reference(ref: dict[str, Any], where: str, visited_state: str | None = None,
                   origin: str | None = None) -> Sandbox:
    """A sandbox holding exactly the rows of one query's reference information. The
    city map knows the cities the information names; ``visited_state`` (the query's
    destination state, for multi-city trips) is the state of the cities it lists
    attractions, restaurants or accommodations for."""
    box = Sandbox(source=where)
    cities: dict[str, str | None] = {}
    if origin:
        cities[origin] = None
    routes: dict[tuple[str, str], Distance] = {}
    for key, value in ref.items():
        m = _TABLE_KEY.match(key)
        if m:
            table = REF_TABLES[m.group(1)]
            if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
                raise PlanprobeError(f"{where}: field {key!r}: expected a list of rows")
            columns = TABLES[table][1]
            for r in value:
                missing = [c for c in columns if c not in r]
                if missing:
                    raise PlanprobeError(f"{where}: field {key!r}: a row has no {missing[0]!r}")
            getattr(box, table).extend({c: r[c] for c in columns} for r in value)
            cities[m.group(2)] = visited_state
            continue
        m = _FLIGHT_KEY.match(key)
        if m:
            cities.setdefault(m.group(1), None)
            cities.setdefault(m.group(2), None)
            if isinstance(value, list):
                columns = TABLES["flights"][1]
                for r in value:
                    if not isinstance(r, dict) or any(c not in r for c in columns):
                        raise PlanprobeError(f"{where}: field {key!r}: a flight row lacks a column")
                box.flights.extend({c: r[c] for c in columns} for r in value)
            continue
        m = _DRIVE_KEY.match(key)
        if m:
            a, b = m.group(2), m.group(3)
            cities.setdefault(a, None)
            cities.setdefault(b, None)
            if not isinstance(value, str):
                raise PlanprobeError(f"{where}: field {key!r}: expected a text")
            route = _ROUTE.search(value)
            known = routes.get((a, b))
            if route and (known is None or known.duration is None):
                routes[(a, b)] = Distance(a, b, route.group(1), route.group(2))
            elif known is None:
                routes[(a, b)] = Distance(a, b, None, None)
            continue
        raise PlanprobeError(f"{where}: field {key!r}: not a kind of reference information TravelPlanner has")
    box.distances = list(routes.values())
    box.cities = cities
    return box.index()


def merge(boxes: list[Sandbox], source: str) -> Sandbox:
    """One sandbox holding every row of ``boxes`` once (first occurrence first), as
    the official database holds every query's rows: a plan may use any of them."""
    out = Sandbox(source=source)
    for table in ("flights", "accommodations", "restaurants", "attractions"):
        seen: set[tuple[Any, ...]] = set()
        rows: list[Row] = []
        for box in boxes:
            for row in getattr(box, table):
                key = tuple(row.values())
                if key not in seen:
                    seen.add(key)
                    rows.append(row)
        setattr(out, table, rows)
    routes: dict[tuple[str, str], Distance] = {}
    for box in boxes:
        for d in box.distances:
            known = routes.get((d.origin, d.destination))
            if known is None or (known.duration is None and d.duration is not None):
                routes[(d.origin, d.destination)] = d
        for city, state in box.cities.items():
            if out.cities.get(city) is None:
                out.cities[city] = state
    out.distances = list(routes.values())
    return out.index()
