"""Agenda, alarm, reminder and meeting APIs of API-Bank, as its classes behave.

One group of ``apis.World``'s handlers (see ``apis`` for the common behaviour):
each takes the world and the converted arguments and returns the output or raises
``ApiFailure``. Delete, Modify and Query of one kind of item differ only in what
they do with the item found, so they are built from one table per kind (``_Items``:
its checks, how an item is matched, what a miss says); API-Bank's own
inconsistencies between them — DeleteAgenda's "no meeting" message, ModifyAlarm's
"no agenda", what a miss with empty fields returns — are kept in those tables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .api_support import DATETIME, ApiFailure, ApiWorld, Handler, fail, strptime

# -- agenda, alarm, reminder, meeting ------------------------------------------


def _next_id_len(table: dict[str, Any]) -> int:
    return len(table) + 1


def _next_id_max(table: dict[str, Any]) -> str:
    return str(max(int(k) for k in table) + 1) if table else "0"


def _add_agenda(w: ApiWorld, a: dict[str, Any]) -> Any:
    strptime(a["time"], DATETIME)
    if a["content"].strip() == "":
        raise fail("Content should not be null")
    table = w.table("Agenda")
    key = _next_id_len(table)
    username = w.username_of(a["token"])
    table[key] = {"username": username, "content": a["content"], "time": a["time"], "location": a["location"]}
    return "success"


def _add_alarm(w: ApiWorld, a: dict[str, Any]) -> Any:
    strptime(a["time"], DATETIME)
    table = w.table("Alarm")
    key = _next_id_len(table)
    table[key] = {"username": w.username_of(a["token"]), "time": a["time"]}
    return "success"


def _reminder_checks(a: dict[str, Any]) -> None:
    strptime(a["time"], DATETIME)
    if a["content"].strip() == "":
        raise fail("Content should not be null")


def _add_reminder(w: ApiWorld, a: dict[str, Any]) -> Any:
    _reminder_checks(a)
    table = w.table("Reminder")
    key = _next_id_max(table)
    table[key] = {"username": w.username_of(a["token"]), "content": a["content"], "time": a["time"]}
    return "success"


def _add_meeting(w: ApiWorld, a: dict[str, Any]) -> Any:
    strptime(a["start_time"], DATETIME)
    strptime(a["end_time"], DATETIME)
    if a["meeting_topic"].strip() == "":
        raise fail("Meeting Topic should not be null")
    table = w.table("Meeting")
    key = _next_id_max(table)
    table[key] = {"username": w.username_of(a["token"]), "meeting_topic": a["meeting_topic"],
                  "start_time": a["start_time"], "end_time": a["end_time"], "location": a["location"],
                  "attendees": a["attendees"]}
    return "success"


# -- Delete / Modify / Query: one lookup, the kind's table, the verb's action ------------


@dataclass(frozen=True)
class _Items:
    """One kind of item as Delete/Modify/Query find it: ``table``; ``checks`` run on
    the arguments first; an item of the caller matches when any ``match`` pair
    (item field, argument) is equal; ``miss(a)`` is the failure when none matches
    (None: no failure, the verb's fallback is the result)."""

    table: str
    checks: Callable[[dict[str, Any]], None]
    match: tuple[tuple[str, str], ...]
    miss: Callable[[dict[str, Any]], ApiFailure | None]


def _lookup(w: ApiWorld, a: dict[str, Any], items: _Items) -> tuple[dict[str, Any], Any] | None:
    """The caller's first matching item as (table, key), after the checks; raises the miss."""
    items.checks(a)
    username, table = w.username_of(a["token"]), w.table(items.table)
    for key, item in table.items():
        if item["username"] == username and any(item[f] == a[arg] for f, arg in items.match):
            return table, key
    problem = items.miss(a)
    if problem is not None:
        raise problem
    return None


def _delete(items: _Items) -> Handler:
    def handler(w: ApiWorld, a: dict[str, Any]) -> Any:
        found = _lookup(w, a, items)
        if found is not None:
            table, key = found
            del table[key]
        return "success"
    return handler


def _modify(items: _Items, update: Callable[[dict[str, Any], Any, dict[str, Any]], None], fallback: str) -> Handler:
    """``update(table, key, a)`` changes the item found; ``fallback`` is returned on a silent miss."""
    def handler(w: ApiWorld, a: dict[str, Any]) -> Any:
        found = _lookup(w, a, items)
        if found is None:
            return fallback
        update(*found, a)
        return "success"
    return handler


def _query(items: _Items, miss_raises: bool) -> Handler:
    """On a silent miss API-Bank raises "Error" (``miss_raises``) or returns it."""
    def handler(w: ApiWorld, a: dict[str, Any]) -> Any:
        found = _lookup(w, a, items)
        if found is None:
            if miss_raises:
                raise fail("Error")
            return "Error"  # API-Bank returns (not raises) Exception('Error') here
        table, key = found
        return table[key]
    return handler


def _time_if_given(*fields: str) -> Callable[[dict[str, Any]], None]:
    def checks(a: dict[str, Any]) -> None:
        for f in fields:
            if a[f]:
                strptime(a[f], DATETIME)
    return checks


def _times(*fields: str) -> Callable[[dict[str, Any]], None]:
    def checks(a: dict[str, Any]) -> None:
        for f in fields:
            strptime(a[f], DATETIME)
    return checks


def _no_item(noun: str, about: str, at: str) -> Callable[[dict[str, Any]], ApiFailure | None]:
    """A miss names the ``about`` argument if given, else the ``at`` time, else is silent."""
    def miss(a: dict[str, Any]) -> ApiFailure | None:
        if a[about]:
            return fail(f"You have no {noun} about {a[about]}")
        if a[at]:
            return fail(f"You have no {noun} at time : {a[at]}")
        return None
    return miss


def _no_alarm(a: dict[str, Any]) -> ApiFailure | None:
    return fail(f"You have no alarm clock at time : {a['time']}") if a["time"] else None


def _no_reminder(a: dict[str, Any]) -> ApiFailure | None:
    return fail(f"You have no reminder about {a['content']} or at time : {a['time']}")


def _meeting_checks(a: dict[str, Any]) -> None:
    _time_if_given("start_time", "end_time")(a)
    if a["meeting_topic"].strip() == "" and not a["start_time"]:
        raise fail("Meeting Topic and start_time should not be null both")


_AGENDA = _Items("Agenda", _time_if_given("time"), (("content", "content"), ("time", "time")), _no_item("agenda", "content", "time"))
_ALARM = _Items("Alarm", _times("time"), (("time", "time"),), _no_alarm)
_REMINDER = _Items("Reminder", _reminder_checks, (("content", "content"), ("time", "time")), _no_reminder)
_MEETING = _Items("Meeting", _meeting_checks, (("meeting_topic", "meeting_topic"), ("start_time", "start_time")),
                  _no_item("meeting", "meeting_topic", "start_time"))


def _replace_agenda(table: dict[str, Any], key: Any, a: dict[str, Any]) -> None:
    table[key] = {"username": table[key]["username"], "content": a["content"], "time": a["time"],
                  "location": a["location"]}


def _replace_alarm(table: dict[str, Any], key: Any, a: dict[str, Any]) -> None:
    table[key] = {"username": table[key]["username"], "time": a["to_time"]}


def _update_reminder(table: dict[str, Any], key: Any, a: dict[str, Any]) -> None:
    table[key]["content"], table[key]["time"] = a["content"], a["time"]


def _update_meeting(table: dict[str, Any], key: Any, a: dict[str, Any]) -> None:
    item = table[key]
    if a["meeting_topic"]:
        item["meeting_topic"] = a["meeting_topic"]
    if a["start_time"]:
        item["start_time"] = a["start_time"]
        item["end_time"] = a["end_time"]


HANDLERS: dict[str, Handler] = {
    "AddAgenda": _add_agenda,
    "AddAlarm": _add_alarm,
    "AddMeeting": _add_meeting,
    "AddReminder": _add_reminder,
    # API-Bank's DeleteAgenda says "meeting" where Modify/Query say "agenda"
    "DeleteAgenda": _delete(_Items("Agenda", _AGENDA.checks, _AGENDA.match, _no_item("meeting", "content", "time"))),
    "DeleteAlarm": _delete(_ALARM),
    "DeleteMeeting": _delete(_MEETING),
    "DeleteReminder": _delete(_REMINDER),
    "ModifyAgenda": _modify(_AGENDA, _replace_agenda, "Error"),  # API-Bank returns Exception('Error') here
    # ModifyAlarm matches from_time and says "agenda" on a miss, as API-Bank does
    "ModifyAlarm": _modify(_Items("Alarm", _times("from_time", "to_time"), (("time", "from_time"),),
                                  lambda a: fail(f"You have no agenda at time : {a['from_time']}")),
                           _replace_alarm, "success"),
    "ModifyMeeting": _modify(_MEETING, _update_meeting, "success"),
    "ModifyReminder": _modify(_REMINDER, _update_reminder, "success"),
    "QueryAgenda": _query(_AGENDA, miss_raises=True),
    "QueryAlarm": _query(_ALARM, miss_raises=True),
    "QueryMeeting": _query(_MEETING, miss_raises=False),
    "QueryReminder": _query(_REMINDER, miss_raises=True),
}
