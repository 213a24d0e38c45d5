"""Agenda, alarm, reminder and meeting APIs of API-Bank, as its classes behave.

One group of ``apis.World``'s handlers (see ``apis`` for the common behaviour):
each takes the world and the converted arguments and returns the output or raises
``ApiFailure``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .api_support import DATETIME, ApiFailure, Handler, fail, strptime

if TYPE_CHECKING:
    from .apis import World

# -- agenda, alarm, reminder, meeting ------------------------------------------


def _own_items(w: World, table: str, token: Any) -> tuple[str, dict[str, Any]]:
    return w.username_of(token), w.table(table)


def _next_id_len(table: dict[str, Any]) -> int:
    return len(table) + 1


def _next_id_max(table: dict[str, Any]) -> str:
    return str(max(int(k) for k in table) + 1) if table else "0"


def _add_agenda(w: World, a: dict[str, Any]) -> Any:
    strptime(a["time"], DATETIME)
    if a["content"].strip() == "":
        raise fail("Content should not be null")
    table = w.table("Agenda")
    key = _next_id_len(table)
    username = w.username_of(a["token"])
    table[key] = {"username": username, "content": a["content"], "time": a["time"], "location": a["location"]}
    return "success"


def _delete_agenda(w: World, a: dict[str, Any]) -> Any:
    content, time = a["content"], a["time"]
    if time:
        strptime(time, DATETIME)
    username, table = _own_items(w, "Agenda", a["token"])
    for key in list(table):
        item = table[key]
        if item["username"] == username and (item["content"] == content or item["time"] == time):
            del table[key]
            return "success"
    if content:
        raise fail(f"You have no meeting about {content}")
    if time:
        raise fail(f"You have no meeting at time : {time}")
    return "success"


def _modify_agenda(w: World, a: dict[str, Any]) -> Any:
    content, time = a["content"], a["time"]
    if time:
        strptime(time, DATETIME)
    username, table = _own_items(w, "Agenda", a["token"])
    for key in table:
        item = table[key]
        if item["username"] == username and (item["content"] == content or item["time"] == time):
            table[key] = {"username": username, "content": content, "time": time, "location": a["location"]}
            return "success"
    if content:
        raise fail(f"You have no agenda about {content}")
    if time:
        raise fail(f"You have no agenda at time : {time}")
    return "Error"  # API-Bank returns (not raises) Exception('Error') here


def _query_agenda(w: World, a: dict[str, Any]) -> Any:
    content, time = a["content"], a["time"]
    if time:
        strptime(time, DATETIME)
    username, table = _own_items(w, "Agenda", a["token"])
    for item in table.values():
        if item["username"] == username and (item["content"] == content or item["time"] == time):
            return item
    if content:
        raise fail(f"You have no agenda about {content}")
    if time:
        raise fail(f"You have no agenda at time : {time}")
    raise fail("Error")


def _add_alarm(w: World, a: dict[str, Any]) -> Any:
    strptime(a["time"], DATETIME)
    table = w.table("Alarm")
    key = _next_id_len(table)
    table[key] = {"username": w.username_of(a["token"]), "time": a["time"]}
    return "success"


def _delete_alarm(w: World, a: dict[str, Any]) -> Any:
    time = a["time"]
    strptime(time, DATETIME)
    username, table = _own_items(w, "Alarm", a["token"])
    for key in list(table):
        if table[key]["username"] == username and table[key]["time"] == time:
            del table[key]
            return "success"
    if time:
        raise fail(f"You have no alarm clock at time : {time}")
    return "success"


def _modify_alarm(w: World, a: dict[str, Any]) -> Any:
    strptime(a["from_time"], DATETIME)
    strptime(a["to_time"], DATETIME)
    username, table = _own_items(w, "Alarm", a["token"])
    for key in table:
        if table[key]["username"] == username and table[key]["time"] == a["from_time"]:
            table[key] = {"username": username, "time": a["to_time"]}
            return "success"
    raise fail(f"You have no agenda at time : {a['from_time']}")


def _query_alarm(w: World, a: dict[str, Any]) -> Any:
    strptime(a["time"], DATETIME)
    username, table = _own_items(w, "Alarm", a["token"])
    for item in table.values():
        if item["username"] == username and item["time"] == a["time"]:
            return item
    raise fail(f"You have no alarm clock at time : {a['time']}")


def _reminder_checks(a: dict[str, Any]) -> None:
    strptime(a["time"], DATETIME)
    if a["content"].strip() == "":
        raise fail("Content should not be null")


def _add_reminder(w: World, a: dict[str, Any]) -> Any:
    _reminder_checks(a)
    table = w.table("Reminder")
    key = _next_id_max(table)
    table[key] = {"username": w.username_of(a["token"]), "content": a["content"], "time": a["time"]}
    return "success"


def _find_reminder(w: World, a: dict[str, Any]) -> str | None:
    username, table = _own_items(w, "Reminder", a["token"])
    for key, item in table.items():
        if item["username"] == username and (item["content"] == a["content"] or item["time"] == a["time"]):
            return key
    return None


def _no_reminder(a: dict[str, Any]) -> ApiFailure:
    return fail(f"You have no reminder about {a['content']} or at time : {a['time']}")


def _delete_reminder(w: World, a: dict[str, Any]) -> Any:
    _reminder_checks(a)
    key = _find_reminder(w, a)
    if key is None:
        raise _no_reminder(a)
    del w.table("Reminder")[key]
    return "success"


def _modify_reminder(w: World, a: dict[str, Any]) -> Any:
    _reminder_checks(a)
    key = _find_reminder(w, a)
    if key is None:
        raise _no_reminder(a)
    item = w.table("Reminder")[key]
    item["content"], item["time"] = a["content"], a["time"]
    return "success"


def _query_reminder(w: World, a: dict[str, Any]) -> Any:
    _reminder_checks(a)
    key = _find_reminder(w, a)
    if key is None:
        raise _no_reminder(a)
    return w.table("Reminder")[key]


def _meeting_checks(a: dict[str, Any]) -> None:
    if a["start_time"]:
        strptime(a["start_time"], DATETIME)
    if a["end_time"]:
        strptime(a["end_time"], DATETIME)
    if a["meeting_topic"].strip() == "" and not a["start_time"]:
        raise fail("Meeting Topic and start_time should not be null both")


def _find_meeting(w: World, a: dict[str, Any]) -> str | None:
    username, table = _own_items(w, "Meeting", a["token"])
    for key, item in table.items():
        if item["username"] == username and (item["meeting_topic"] == a["meeting_topic"]
                                             or item["start_time"] == a["start_time"]):
            return key
    return None


def _no_meeting(a: dict[str, Any]) -> ApiFailure | None:
    if a["meeting_topic"]:
        return fail(f"You have no meeting about {a['meeting_topic']}")
    if a["start_time"]:
        return fail(f"You have no meeting at time : {a['start_time']}")
    return None


def _add_meeting(w: World, a: dict[str, Any]) -> Any:
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


def _delete_meeting(w: World, a: dict[str, Any]) -> Any:
    _meeting_checks(a)
    key = _find_meeting(w, a)
    if key is None:
        problem = _no_meeting(a)
        if problem is not None:
            raise problem
        return "success"
    del w.table("Meeting")[key]
    return "success"


def _modify_meeting(w: World, a: dict[str, Any]) -> Any:
    _meeting_checks(a)
    key = _find_meeting(w, a)
    if key is None:
        problem = _no_meeting(a)
        if problem is not None:
            raise problem
        return "success"
    item = w.table("Meeting")[key]
    if a["meeting_topic"]:
        item["meeting_topic"] = a["meeting_topic"]
    if a["start_time"]:
        item["start_time"] = a["start_time"]
        item["end_time"] = a["end_time"]
    return "success"


def _query_meeting(w: World, a: dict[str, Any]) -> Any:
    _meeting_checks(a)
    key = _find_meeting(w, a)
    if key is None:
        problem = _no_meeting(a)
        if problem is not None:
            raise problem
        return "Error"  # API-Bank returns (not raises) Exception('Error') here
    return w.table("Meeting")[key]


HANDLERS: dict[str, Handler] = {
    "AddAgenda": _add_agenda,
    "AddAlarm": _add_alarm,
    "AddMeeting": _add_meeting,
    "AddReminder": _add_reminder,
    "DeleteAgenda": _delete_agenda,
    "DeleteAlarm": _delete_alarm,
    "DeleteMeeting": _delete_meeting,
    "DeleteReminder": _delete_reminder,
    "ModifyAgenda": _modify_agenda,
    "ModifyAlarm": _modify_alarm,
    "ModifyMeeting": _modify_meeting,
    "ModifyReminder": _modify_reminder,
    "QueryAgenda": _query_agenda,
    "QueryAlarm": _query_alarm,
    "QueryMeeting": _query_meeting,
    "QueryReminder": _query_reminder,
}
