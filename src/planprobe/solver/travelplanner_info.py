"""The reference information of a sole-planning TravelPlanner task, read as a model reads it:
``Given Information:`` then a list of ``{'Description': …, 'Content': …}`` entries (a Python
literal, read with ``ast.literal_eval``: data, never code), whose contents are text tables as
pandas prints them (right-aligned columns one space apart, sometimes with a row number first)
or the distance sentence ("self-driving, from A to B, duration: …, distance: …, cost: N").

The facts are the itinerary search's (``itinerary_facts``), keyed as the search tools would key
them, and closed: what the information does not list does not exist.
"""

from __future__ import annotations

import ast
import re

from .itinerary_facts import (
    CITIES,
    DRIVE,
    FLIGHT,
    FOOD,
    HOTEL,
    SIGHT,
    Facts,
    Key,
    Row,
)

_GIVEN = re.compile(r"^\s*Given [Ii]nformation:\s*(.*?)\s*\n?\s*Query:\s*(.*?)\s*(?:Travel Plan:\s*)?\Z", re.DOTALL)
_DESCRIPTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Attractions in (.+)$"), SIGHT),
    (re.compile(r"^Restaurants in (.+)$"), FOOD),
    (re.compile(r"^Accommodations in (.+)$"), HOTEL),
    (re.compile(r"^Flight from (.+) to (.+) on (\d{4}-\d{2}-\d{2})$"), FLIGHT),
    (re.compile(r"^Self-driving from (.+) to (.+)$"), "self-driving"),
    (re.compile(r"^Taxi from (.+) to (.+)$"), "taxi"),
    (re.compile(r"^Cities in (.+)$"), CITIES),
)
_COST = re.compile(r"\bcost: (\d+(?:\.\d+)?)\s*$")
# TravelPlanner's column names of more than one word (its database's, as its prompt describes them): a
# table's header separates columns by one space, so these are told apart from two columns by name
PHRASES = ("Flight Number", "Average Cost", "Aggregate Rating", "room type", "minimum nights", "maximum occupancy",
           "review rate number")
_NONE = re.compile(r"^(?:No valid information|There is no)", re.IGNORECASE)


def split_given(task: str) -> tuple[str, str] | None:
    """(the information's text, the query) of a sole-planning task, or None when it is not one."""
    m = _GIVEN.match(task)
    return (m.group(1), m.group(2)) if m else None


def _columns(header: str, phrases: tuple[str, ...]) -> list[tuple[str, int]]:
    """The header's column names with where each ends (names are right-aligned over their cells)."""
    words = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"\S+", header)]
    out: list[tuple[str, int]] = []
    i = 0
    while i < len(words):
        for phrase in sorted(phrases, key=len, reverse=True):
            parts = phrase.split()
            got = words[i:i + len(parts)]
            if ([w for w, _, _ in got] == parts
                    and all(got[k + 1][1] == got[k][2] + 1 for k in range(len(got) - 1))):
                out.append((phrase, got[-1][2]))
                i += len(parts)
                break
        else:
            out.append((words[i][0], words[i][2]))
            i += 1
    return out


def read_pandas_table(text: str, phrases: tuple[str, ...] = PHRASES) -> list[Row] | None:
    """The rows of a table as pandas prints it, or None when the text is not one."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if len(lines) < 2:
        return None
    header, body = lines[0], lines[1:]
    columns = _columns(header, phrases)
    if not columns:
        return None
    start = 0
    lead = len(header) - len(header.lstrip())
    numbered = [re.match(r"(\d+)\s", ln) for ln in body]
    if all(numbered) and lead > 0:
        # a row number, left-aligned, before the first column (its header is blank)
        start = max(len(m.group(1)) for m in numbered if m) + 1
    rows = []
    for line in body:
        row, at = {}, start
        for name, end in columns:
            row[name] = line[at:end].strip()
            at = end
        rows.append(row)
    return rows


def read_information(text: str, phrases: tuple[str, ...] = PHRASES) -> tuple[Facts, list[str]]:
    """The facts the information lists (closed), and what could not be read."""
    facts = Facts(closed=True)
    problems: list[str] = []
    try:
        entries = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        return facts, [f"the given information is not a list of entries ({type(exc).__name__})"]
    if not isinstance(entries, list):
        return facts, ["the given information is not a list of entries"]
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("Description"), str):
            problems.append(f"an entry without a description: {str(entry)[:80]!r}")
            continue
        description, content = entry["Description"].strip(), str(entry.get("Content", ""))
        for pattern, kind in _DESCRIPTIONS:
            m = pattern.match(description)
            if m is None:
                continue
            if kind in ("self-driving", "taxi"):
                cost = _COST.search(content.strip())
                facts.costs[(DRIVE, m.group(1), m.group(2), kind)] = float(cost.group(1)) if cost else None
            elif kind == CITIES:
                facts.states[(CITIES, m.group(1))] = re.findall(r"'([^']*)'", content) or None
            else:
                key: Key = (kind, *m.groups())
                if _NONE.match(content.strip()):
                    facts.tables[key] = []
                    break
                rows = read_pandas_table(content, phrases)
                if rows is None:
                    problems.append(f"the table of {description!r} cannot be read")
                else:
                    facts.tables[key] = rows
            break
        else:
            problems.append(f"an entry the reader does not know: {description!r}")
    return facts, problems


def cities_with(facts: Facts, kind: str = HOTEL) -> list[str]:
    """The cities the information lists a table of ``kind`` for, in its order."""
    return list(dict.fromkeys(key[1] for key in facts.tables if key[0] == kind))
