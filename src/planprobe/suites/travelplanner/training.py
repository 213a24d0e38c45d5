"""TravelPlanner's 45 training queries as distributed in chat form
(``train_queries_and_plans.jsonl``: system / user / assistant messages, the
query at the end of the user message, the annotated plan as the assistant's
reply) with their reference information (``train_ref_info.jsonl``, same order).

That distribution has no structured fields, so they are derived here — for the
training set only (TravelPlanner's rules forbid parsing validation or test
queries, and planprobe never does: those fields come from the data set). How
each field is obtained (docs/travelplanner.md; every value is checked by hand in
tests/data/travelplanner_train_fields.json):

* ``org``, ``date``, ``days``: the first and last "Flight from A to B on DATE"
  entries of the reference information (A of the first is the origin; the dates
  are every day from the first date to the last).
* ``visiting_city_number``: the cities the reference information lists
  attractions for.
* ``dest``: that city for a one-city trip; otherwise the US state the query names.
* ``people_number``, ``budget``, ``local_constraint``: read from the query text
  with the fixed phrasings below; ``level``: easy without local constraints,
  medium with one, hard with more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from ...errors import PlanprobeError
from ..io import parse_json_line
from .fields import QueryFields, parse_fields
from .literal import LiteralError, read_literal
from .sandbox import Sandbox

QUERIES_FILE = "train_queries_and_plans.jsonl"
REFERENCE_FILE = "train_ref_info.jsonl"

US_STATES = (
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
    "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
    "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada",
    "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma",
    "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah",
    "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "Puerto Rico",
)
CUISINES = ("American", "Chinese", "Italian", "Mexican", "Indian", "Mediterranean", "French")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10}
_PEOPLE = [
    (re.compile(r"\b(?:group|party) of (\d+|\w+)\b", re.IGNORECASE), None),
    (re.compile(r"\bfor (\d+|\w+) (?:people|persons|individuals|travell?ers)\b", re.IGNORECASE), None),
    (re.compile(r"\b(\d+|\w+) (?:people|persons|individuals)\b", re.IGNORECASE), None),
    (re.compile(r"\bfor (two|2)\b|\bpair\b|\bcouple\b|\btwo individuals\b", re.IGNORECASE), 2),
    (re.compile(r"\b(?:single person|solo|alone|one person|1 person|single-person)\b", re.IGNORECASE), 1),
]
_HOUSE = [
    ("parties", re.compile(r"\bparties\b", re.IGNORECASE)),  # not "a party of 5"
    ("smoking", re.compile(r"\bsmoking\b", re.IGNORECASE)),
    ("children under 10", re.compile(r"\bchildren under (?:the age of )?10\b", re.IGNORECASE)),
    ("visitors", re.compile(r"\bvisitors\b", re.IGNORECASE)),
    ("pets", re.compile(r"\bpets?\b|\bpet-friendly\b", re.IGNORECASE)),
]
_ROOM = [
    ("not shared room", re.compile(r"\bnot? shared rooms?\b", re.IGNORECASE)),
    ("shared room", re.compile(r"\bshared rooms?\b", re.IGNORECASE)),
    ("private room", re.compile(r"\bprivate rooms?\b", re.IGNORECASE)),
    ("entire room", re.compile(r"\bentire rooms?\b", re.IGNORECASE)),
]
_NO_FLIGHT = re.compile(r"\b(?:not|avoid|no)\b[^.]*\b(?:flights?|flying|fly)\b", re.IGNORECASE)
_NO_DRIVING = re.compile(r"non-self-driving|\b(?:not|don't|no)\b[^.]*\b(?:self-driv\w*|drive ourselves)\b", re.IGNORECASE)
_NO_PREFERENCE = re.compile(r"\bno specific\b", re.IGNORECASE)
_FLIGHT_KEY = re.compile(r"^Flight from (.+) to (.+) on (\d{4}-\d{2}-\d{2})$")


@dataclass
class TrainingQuery:
    idx: int  # 1-based, TravelPlanner's idx
    fields: QueryFields
    reference: dict[str, Any]
    plan: list[dict[str, Any]]
    system: str
    user: str


def load_training(directory: Path) -> list[TrainingQuery]:
    """The 45 training queries of ``directory``; errors name the file and line."""
    directory = Path(directory)
    qpath, rpath = directory / QUERIES_FILE, directory / REFERENCE_FILE
    for p in (qpath, rpath):
        if not p.is_file():
            raise PlanprobeError(f"{p}: missing (expected TravelPlanner's training files in {directory})")
    queries = _lines(qpath)
    refs = _lines(rpath)
    if len(queries) != len(refs):
        raise PlanprobeError(f"{rpath}: {len(refs)} lines, but {qpath} has {len(queries)} queries")
    out = []
    for n, ((qline, row), (rline, ref)) in enumerate(zip(queries, refs), 1):
        where = f"{qpath}:{qline}"
        system, user, plan = _chat(row, where)
        if not isinstance(ref, dict):
            raise PlanprobeError(f"{rpath}:{rline}: expected an object of reference information")
        query = user.rsplit("Query:", 1)[-1].strip()
        derived = derive_fields(query, ref, f"{rpath}:{rline}")
        out.append(TrainingQuery(n, parse_fields(derived, where), ref, plan, system, user))
    return out


def _lines(path: Path) -> list[tuple[int, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            if line.strip():
                rows.append((n, parse_json_line(line, f"{path}:{n}")))
    return rows


def _chat(row: Any, where: str) -> tuple[str, str, list[dict[str, Any]]]:
    messages = row.get("messages") if isinstance(row, dict) else None
    if not isinstance(messages, list) or len(messages) < 3:
        raise PlanprobeError(f"{where}: field 'messages': expected system, user and assistant messages")
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages[:3]]
    if roles != ["system", "user", "assistant"]:
        raise PlanprobeError(f"{where}: field 'messages': expected roles system, user, assistant, got {roles}")
    texts = [m.get("content") for m in messages[:3]]
    if not all(isinstance(t, str) for t in texts):
        raise PlanprobeError(f"{where}: field 'messages[].content': expected texts")
    if "Query:" not in texts[1]:
        raise PlanprobeError(f"{where}: field 'messages[1].content': no 'Query:' in the user message")
    try:
        plan = read_literal(texts[2])
    except LiteralError as exc:
        raise PlanprobeError(f"{where}: field 'messages[2].content': the annotated plan cannot be read "
                             f"({exc})") from None
    if not isinstance(plan, list) or not all(isinstance(d, dict) for d in plan):
        raise PlanprobeError(f"{where}: field 'messages[2].content': expected a list of day objects")
    return texts[0], texts[1], plan


def derive_fields(query: str, ref: dict[str, Any], where: str) -> dict[str, Any]:
    """The structured fields of one training query (see the module docstring)."""
    flights = [m for k in ref if (m := _FLIGHT_KEY.match(k))]
    if not flights:
        raise PlanprobeError(f"{where}: no 'Flight from A to B on DATE' entry to read the origin and dates from")
    org = flights[0].group(1)
    first, last = date.fromisoformat(flights[0].group(3)), date.fromisoformat(flights[-1].group(3))
    days = (last - first).days + 1
    visited = [k[len("Attractions in "):] for k in ref if k.startswith("Attractions in ")]
    if len(visited) == 1:
        dest: str | None = visited[0]
    else:
        states = [s for s in US_STATES if re.search(rf"\b{re.escape(s)}\b", query)]
        dest = max(states, key=len) if states else None
    local = {"house rule": _first(_HOUSE, query), "cuisine": [c for c in _in_order(CUISINES, query)] or None,
             "room type": _first(_ROOM, query), "transportation": None}
    if not _NO_PREFERENCE.search(query):
        if _NO_FLIGHT.search(query):
            local["transportation"] = "no flight"
        elif _NO_DRIVING.search(query):
            local["transportation"] = "no self-driving"
    else:
        local = {k: None for k in local} if "preferences about house rules" in query else local
    budget = re.search(r"\$([\d,]+)", query)
    count = sum(v is not None for v in local.values())
    return {
        "org": org, "dest": dest, "days": days, "visiting_city_number": len(visited),
        "date": [(first + timedelta(days=i)).isoformat() for i in range(days)],
        "people_number": _people(query), "local_constraint": local,
        "budget": int(budget.group(1).replace(",", "")) if budget else None,
        "level": "easy" if count == 0 else "medium" if count == 1 else "hard", "query": query,
    }


def _first(options: list[tuple[str, re.Pattern]], text: str) -> str | None:
    for value, pattern in options:
        if pattern.search(text):
            return value
    return None


def _in_order(words: tuple[str, ...], text: str) -> list[str]:
    found = [(m.start(), w) for w in words if (m := re.search(rf"\b{w}\b", text))]
    return [w for _, w in sorted(found)]


def _people(text: str) -> int:
    for pattern, fixed in _PEOPLE:
        m = pattern.search(text)
        if not m:
            continue
        if fixed is not None:
            return fixed
        word = m.group(1).lower()
        if word.isdigit():
            return int(word)
        if word in _NUMBER_WORDS:
            return _NUMBER_WORDS[word]
    return 1


def training_sandbox(queries: list[TrainingQuery], source: str) -> Sandbox:
    """The sandbox rebuilt from every training query's reference information (the
    official evaluator searches the whole database, not one query's share of it)."""
    from .sandbox import from_reference, merge

    boxes = [from_reference(t.reference, f"{source}:{t.idx}", t.fields.dest if t.fields.days > 3 else None,
                            t.fields.org) for t in queries]
    return merge(boxes, source)
