"""Delete/Modify/Query of agendas, alarms, reminders and meetings are built from one
lookup and a table per kind; API-Bank's differences between them (its messages, what a
miss with empty fields returns, whose items are seen) must survive that. No data needed."""

from __future__ import annotations

from typing import Any

from planprobe.suites.apibank.apis import World

T1, T2 = "2023-03-01 10:00:00", "2023-03-02 11:00:00"


def _world() -> World:
    return World({
        "Account": {"ann": {"token": "ta"}, "bob": {"token": "tb"}},
        "Agenda": {1: {"username": "ann", "content": "lunch", "time": T1, "location": "x"}},
        "Alarm": {1: {"username": "ann", "time": T1}},
        "Reminder": {"0": {"username": "ann", "content": "call", "time": T1}},
        "Meeting": {"0": {"username": "ann", "meeting_topic": "plan", "start_time": T1, "end_time": T2,
                          "location": "y", "attendees": ["bob"]}},
    })


def _call(w: World, api: str, **args: Any) -> tuple[Any, Any]:
    r = w.call(api, args)
    return r["output"], r["exception"]


def test_each_kind_keeps_api_banks_messages_on_a_miss():
    w = _world()
    agenda = dict(token="ta", content="dinner", time="", location="z")
    assert _call(w, "DeleteAgenda", **agenda) == (None, "You have no meeting about dinner")  # sic
    assert _call(w, "ModifyAgenda", **agenda) == (None, "You have no agenda about dinner")
    assert _call(w, "QueryAgenda", **{**agenda, "content": ""}) == (None, "Error")  # raised
    assert _call(w, "ModifyAgenda", **{**agenda, "content": ""}) == ("Error", None)  # returned
    assert _call(w, "DeleteAgenda", **{**agenda, "content": ""}) == ("success", None)
    assert _call(w, "QueryAlarm", token="ta", time=T2) == (None, f"You have no alarm clock at time : {T2}")
    assert _call(w, "ModifyAlarm", token="ta", from_time=T2, to_time=T1) == (None, f"You have no agenda at time : {T2}")
    assert _call(w, "QueryReminder", token="ta", content="x", time=T2) == \
        (None, f"You have no reminder about x or at time : {T2}")
    assert _call(w, "QueryMeeting", token="ta", meeting_topic="", start_time=T2, end_time="") == \
        (None, f"You have no meeting at time : {T2}")
    assert _call(w, "DeleteMeeting", token="ta", meeting_topic="", start_time="", end_time="") == \
        (None, "Meeting Topic and start_time should not be null both")


def test_items_are_found_by_either_field_and_only_for_their_owner():
    w = _world()
    assert _call(w, "QueryAgenda", token="tb", content="lunch", time=T1, location="") == \
        (None, "You have no agenda about lunch")  # bob does not see ann's agenda
    assert _call(w, "QueryAgenda", token="ta", content="other", time=T1, location="")[0]["content"] == "lunch"
    assert _call(w, "ModifyAgenda", token="ta", content="brunch", time=T1, location="z") == ("success", None)
    assert w.table("Agenda")[1] == {"username": "ann", "content": "brunch", "time": T1, "location": "z"}
    assert _call(w, "ModifyAlarm", token="ta", from_time=T1, to_time=T2) == ("success", None)
    assert w.table("Alarm")[1] == {"username": "ann", "time": T2}
    assert _call(w, "ModifyReminder", token="ta", content="call", time=T2) == ("success", None)
    assert w.table("Reminder")["0"] == {"username": "ann", "content": "call", "time": T2}
    assert _call(w, "ModifyMeeting", token="ta", meeting_topic="", start_time=T1, end_time=T1) == ("success", None)
    assert w.table("Meeting")["0"]["meeting_topic"] == "plan"  # an empty topic is not written
    assert w.table("Meeting")["0"]["end_time"] == T1
    for api, args in (("DeleteAgenda", dict(content="brunch", time="", location="")), ("DeleteAlarm", dict(time=T2)),
                      ("DeleteReminder", dict(content="call", time=T2)),
                      ("DeleteMeeting", dict(meeting_topic="plan", start_time="", end_time=""))):
        assert _call(w, api, token="ta", **args) == ("success", None)
    assert not any(w.table(t) for t in ("Agenda", "Alarm", "Reminder", "Meeting"))
    assert _call(w, "DeleteAlarm", token="nope", time=T1) == (None, "The token is invalid.")
