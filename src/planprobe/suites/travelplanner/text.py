"""How TravelPlanner's evaluator reads the text fields of a plan (its regular
expressions, reproduced so both modes read a plan the same way)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13 on

_T = TypeVar("_T")

_FROM_TO = re.compile(r"from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)")
_BEFORE_PAREN = re.compile(r"^(.*?)\([^)]*\)")
_NAME_CITY = re.compile(r"(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$")
NO_MORE_DAYS = "You don't need to fill in the information for this or later days."


def from_to(text: str) -> tuple[str | None, str | None]:
    """'A' and 'B' of the first "from A to B" (B ends at a comma), or (None, None)."""
    m = _FROM_TO.search(text)
    return (m.group(1), m.group(2)) if m else (None, None)


def before_parenthesis(text: str) -> str:
    """'San Antonio' of 'San Antonio(Texas)'; the text itself without a parenthesis."""
    m = _BEFORE_PAREN.search(text)
    return m.group(1) if m else text


def name_city(text: str) -> tuple[str, str]:
    """('Name', 'City') of 'Name, City': the city after the last comma; ('-', '-')
    when there is no comma."""
    m = _NAME_CITY.search(text)
    if not m:
        return "-", "-"
    return m.group(1).strip(), before_parenthesis(m.group(2).strip()).strip()


def flight_number(value: str) -> str | None:
    """The number after 'Flight Number: ' up to the next comma; None without that label."""
    parts = value.split("Flight Number: ")
    return parts[1].split(",")[0] if len(parts) > 1 else None


_FLIGHT_NUMBER = re.compile(r"(?<![A-Za-z0-9])[Ff]\d+(?![A-Za-z0-9])")
_SELF_DRIVING = re.compile(r"self[\s-]?driv", re.IGNORECASE)


def flight_numbers(value: str) -> list[str]:
    """Every flight number in an entry, in any spelling of its label ('Flight Number: F0123456',
    'Flight F0123456', 'flight no. f0123456'): 'F' then digits, standing alone; distinct, upper-case."""
    return list(dict.fromkeys(m.group(0).upper() for m in _FLIGHT_NUMBER.finditer(value)))


def transport_modes(text: str) -> set[str]:
    """Every mode an entry names (the strict reading): 'Flight' for the word or a flight
    number, 'Self-driving' for 'self-driving' / 'self driving', 'Taxi'."""
    low = text.lower()
    modes = set()
    if "flight" in low or flight_numbers(text):
        modes.add("Flight")
    if _SELF_DRIVING.search(text):
        modes.add("Self-driving")
    if "taxi" in low:
        modes.add("Taxi")
    return modes


def transport_kind(text: str) -> str | None:
    low = text.lower()
    if "taxi" in low:
        return "Taxi"
    if "self-driving" in low:
        return "Self-driving"
    if "flight" in low:
        return "Flight"
    return None


def filled(value: _T | None) -> TypeIs[_T]:
    """A field the evaluator counts as given: truthy and not '-' (so, to a checker, not None)."""
    return bool(value) and value != "-"
