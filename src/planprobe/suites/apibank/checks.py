"""API-Bank's per-API call-correctness rules (``check_api_call_correctness``).

API-Bank judges a predicted call by running it and comparing the result dict
(``input``/``output``/``exception``) with the recorded one, each API with its own
rule: most want equal inputs, outputs and exceptions; some compare inputs after
their own normalisation (dates, case, spaces); the agenda/reminder/meeting family
accepts a content or topic whose word sets overlap by more than half (Jaccard >
0.5) — for the meeting APIs on top of otherwise equal inputs. The rules here are
those of API-Bank's ``apis`` (levels 1-2) and ``lv3_apis`` (level 3), read from its
source; ``check`` returns (correct, API-Bank's error category when not).

A rule that would raise in API-Bank (a missing key: ``KEY_ERROR``; an assertion)
makes the call incorrect, as in ``evaluator.py``. Rules work on copies: API-Bank's
mutate their arguments.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .api_health import health_span
from .api_support import history_date, normalise_time

Result = dict[str, Any]
_DT = "%Y-%m-%d %H:%M:%S"
_D = "%Y-%m-%d"


def _same(r: Result, g: Result, *keys: str) -> bool:
    return all(r[k] == g[k] for k in keys)


def _jaccard_over_half(a: str, b: str) -> bool:
    x, y = set(a.split(" ")), set(b.split(" "))
    return len(x & y) / len(x | y) > 0.5


def _exact(r: Result, g: Result) -> bool:
    return _same(r, g, "input", "output", "exception")


def _agenda_like(r: Result, g: Result) -> bool:  # AddAgenda, ModifyAgenda, QueryAgenda
    ri, gi = r["input"], g["input"]
    return (_jaccard_over_half(ri["content"], gi["content"]) and ri["time"] == gi["time"]
            and ri["location"] == gi["location"] and _same(r, g, "output", "exception"))


def _reminder_like(r: Result, g: Result) -> bool:  # Add/Modify/QueryReminder: content lower-cased
    ri, gi = r["input"], g["input"]
    return (_jaccard_over_half(ri["content"].lower(), gi["content"].lower()) and ri["time"] == gi["time"]
            and _same(r, g, "output", "exception"))


def _meeting_like(r: Result, g: Result) -> bool:  # Add/Modify/QueryMeeting (and lv3 AddMeeting)
    ri, gi = dict(r["input"]), dict(g["input"])
    ok = _jaccard_over_half(ri.pop("meeting_topic"), gi.pop("meeting_topic"))
    return ok and ri == gi and _same(r, g, "output", "exception")


def _deletion(r: Result, g: Result) -> bool:  # DeleteAgenda/DeleteMeeting/DeleteReminder
    if g["output"] == "success" and r["output"] == "success":
        return r["input"]["time"] == g["input"]["time"]  # DeleteMeeting has no 'time': KeyError
    return _same(r, g, "output", "exception")


def _scene_devices(devices: Any) -> Any:
    out = copy.deepcopy(devices)
    for d in out:
        d["name"] = d["name"].strip().lower()
        d["description"] = d["description"].strip()
    out.sort(key=lambda d: d["name"])
    return out


def _scene(compare_output: bool) -> Callable[[Result, Result], bool]:
    def rule(r: Result, g: Result) -> bool:
        if r["input"]["name"].strip().lower() != g["input"]["name"].strip().lower():
            return False
        if _scene_devices(r["input"]["devices"]) != _scene_devices(g["input"]["devices"]):
            return False
        if compare_output:
            if r["output"] != g["output"]:
                return False
        elif g["output"] is None and r["output"] is not None:
            return False
        return r["exception"] == g["exception"]

    return rule


def _appointment_registration(r: Result, g: Result) -> bool:
    ri, gi = r["input"], g["input"]
    return (ri["patient_name"].strip() == gi["patient_name"].strip()
            and normalise_time(ri["date"], _D) == normalise_time(gi["date"], _D)
            and ri["doctor_name"].strip() == gi["doctor_name"].strip()
            and not (g["output"] is None and r["output"] is not None)
            and r["exception"] == g["exception"])


def _calculator(r: Result, g: Result) -> bool:
    return (r["input"]["formula"].replace(" ", "") == g["input"]["formula"].replace(" ", "")
            and _same(r, g, "output", "exception"))


def _cancel_registration(r: Result, g: Result) -> bool:
    return (r["input"]["appointment_id"].strip() == g["input"]["appointment_id"].strip()
            and _same(r, g, "output", "exception"))


def _timed(with_on: bool) -> Callable[[Result, Result], bool]:
    def rule(r: Result, g: Result) -> bool:
        ri, gi = r["input"], g["input"]
        if ri["name"].strip().lower() != gi["name"].strip().lower():
            return False
        if normalise_time(ri["time"], _DT) != normalise_time(gi["time"], _DT):
            return False
        if with_on and ri["on"] != gi["on"]:
            return False
        return _same(r, g, "output", "exception")

    return rule


def _output_and_exception(r: Result, g: Result) -> bool:
    return _same(r, g, "output", "exception")


def _dictionary(r: Result, g: Result) -> bool:
    return r["api_name"] == "Dictionary" and _same(r, g, "output", "exception")


def _document_qa(r: Result, g: Result) -> bool:
    return (r["input"]["url"].strip() == g["input"]["url"].strip()
            and r["input"]["question"].strip() == g["input"]["question"].strip()
            and _same(r, g, "output", "exception"))


def _symptom_rule(empty_raises_attribute: bool) -> Callable[[Result, Result], bool]:
    def norm(text: str) -> str:
        text = text.strip()
        if text == "":
            raise AttributeError("'Exception' object has no attribute 'lower'") if empty_raises_attribute \
                else ValueError("The symptom cannot be empty.")
        return text.lower()

    def rule(r: Result, g: Result) -> bool:
        return norm(r["input"]["symptom"]) == norm(g["input"]["symptom"]) and _same(r, g, "output", "exception")

    return rule


def _get_today(r: Result, g: Result) -> bool:
    return r["output"] is not None and r["exception"] is None and r["input"] is None


def _modify_registration(r: Result, g: Result) -> bool:
    ri, gi = r["input"], g["input"]

    def date(v: Any) -> Any:
        return normalise_time(v, _D) if v is not None else None

    def doctor(v: Any) -> Any:
        return v.strip() if v is not None else None

    return (str(ri["appointment_id"]).strip() == gi["appointment_id"].strip()
            and date(ri["new_appointment_date"]) == date(gi["new_appointment_date"])
            and doctor(ri["new_appointment_doctor"]) == doctor(gi["new_appointment_doctor"])
            and _same(r, g, "output", "exception"))


def _query_balance(r: Result, g: Result) -> bool:
    return r["input"]["token"].strip() == g["input"]["token"].strip() and _same(r, g, "output", "exception")


def _health_key(i: dict[str, Any]) -> tuple[Any, Any, Any]:
    # a time that does not parse is its exception object: never equal to another one
    return health_span(i)


def _query_health_data(r: Result, g: Result) -> bool:
    return _health_key(r["input"]) == _health_key(g["input"]) and _same(r, g, "output", "exception")


def _query_history_today(r: Result, g: Result) -> bool:
    return (history_date(r["input"]["date"]) == history_date(g["input"]["date"])
            and _same(r, g, "output", "exception"))


def _query_registration(r: Result, g: Result) -> bool:
    return (r["input"]["patient_name"].strip() == g["input"]["patient_name"].strip()
            and normalise_time(r["input"]["date"], _D) == normalise_time(g["input"]["date"], _D)
            and _same(r, g, "output", "exception"))


def _query_scene(r: Result, g: Result) -> bool:
    return (r["input"]["name"].strip().lower() == g["input"]["name"].strip().lower()
            and _same(r, g, "output", "exception"))


def _stock_key(i: dict[str, Any]) -> tuple[Any, Any]:
    return (i["stock_code"].upper().strip() or None), normalise_time(i["date"], _D)


def _query_stock(r: Result, g: Result) -> bool:
    return _stock_key(r["input"]) == _stock_key(g["input"]) and _same(r, g, "output", "exception")


def _record_health_data(r: Result, g: Result) -> bool:
    return (str(r["input"]["user_id"]).upper().strip() == g["input"]["user_id"].upper().strip()
            and normalise_time(r["input"]["time"], _DT) == normalise_time(g["input"]["time"], _DT)
            and _same(r, g, "output", "exception"))


def _register_user(r: Result, g: Result) -> bool:
    if g["output"] is None and r["output"] is not None:
        return False
    return _same(r, g, "input", "exception")


def _search_engine(r: Result, g: Result) -> bool:
    if r["api_name"] != g["api_name"] or r["exception"] != g["exception"]:
        return False

    def order(out: Any) -> Any:
        return sorted(out, key=lambda x: x["title"] + x["abstract"], reverse=True)

    # API-Bank leaves the sorted copy unbound when an output is None (NameError): never correct
    if r["output"] is None or g["output"] is None:
        raise KeyError("output")
    return order(r["output"]) == order(g["output"])


def _send_email(r: Result, g: Result) -> bool:
    ri, gi = r["input"], g["input"]
    return (ri["receiver"].strip().lower() == gi["receiver"].strip().lower()
            and ri["subject"].strip() == gi["subject"].strip() and ri["content"].strip() == gi["content"].strip()
            and _same(r, g, "output", "exception"))


def _translate(r: Result, g: Result) -> bool:
    return (r["api_name"] == g["api_name"] and r["input"]["src"] == g["input"]["src"]
            and _same(r, g, "output", "exception"))


def _wiki(r: Result, g: Result) -> bool:
    return r["api_name"] == g["api_name"] and _same(r, g, "output", "exception")


def _play_music(r: Result, g: Result) -> bool:
    return bool(r["output"] == g["output"])


def _exact_input_output(r: Result, g: Result) -> bool:  # lv3 UpdateAccountInfo: exception not compared
    return _same(r, g, "input", "output")


def _hotel_availability(r: Result, g: Result) -> bool:
    ri, gi = r["input"], g["input"]
    return (ri["destination"] == gi["destination"] and ri["check_in_date"] == gi["check_in_date"]
            and ri["check_out_date"] == gi["check_out_date"] and r["output"]["hotels"] == g["output"]["hotels"])


def _email_reminder(r: Result, g: Result) -> bool:
    ri, gi = dict(r["input"]), dict(g["input"])
    ri.pop("content")
    gi.pop("content")
    return ri == gi and _same(r, g, "output", "exception")


def _input_only(r: Result, g: Result) -> bool:
    return bool(r["input"] == g["input"])


def _tax_calculator(r: Result, g: Result) -> bool:
    return (r["input"]["salary"] == g["input"]["salary"]
            and r["output"]["salary_after_tax"] == g["output"]["salary_after_tax"]
            and r["exception"] == g["exception"])


RULES: dict[str, Callable[[Result, Result], bool]] = {
    "AddAgenda": _agenda_like, "ModifyAgenda": _agenda_like, "QueryAgenda": _agenda_like,
    "AddReminder": _reminder_like, "ModifyReminder": _reminder_like, "QueryReminder": _reminder_like,
    "AddMeeting": _meeting_like, "ModifyMeeting": _meeting_like, "QueryMeeting": _meeting_like,
    "DeleteAgenda": _deletion, "DeleteMeeting": _deletion, "DeleteReminder": _deletion,
    "AddAlarm": _exact, "DeleteAlarm": _exact, "ModifyAlarm": _exact, "QueryAlarm": _exact,
    "BookHotel": _exact, "CheckToken": _exact, "DeleteAccount": _exact, "ForgotPassword": _exact,
    "GetUserToken": _exact, "OpenBankAccount": _exact, "ImageCaption": _exact, "ModifyPassword": _exact,
    "SpeechRecognition": _exact,
    "AddScene": _scene(False), "ModifyScene": _scene(True), "AppointmentRegistration": _appointment_registration,
    "Calculator": _calculator, "CancelRegistration": _cancel_registration,
    "CancelTimedSwitch": _timed(False), "TimedSwitch": _timed(True),
    "DeleteScene": _query_scene, "QueryScene": _query_scene, "Dictionary": _dictionary,
    "DocumentQA": _document_qa, "EmergencyKnowledge": _symptom_rule(True), "SymptomSearch": _symptom_rule(False),
    "GetToday": _get_today, "ModifyRegistration": _modify_registration, "QueryBalance": _query_balance,
    "QueryHealthData": _query_health_data, "QueryHistoryToday": _query_history_today,
    "QueryRegistration": _query_registration, "QueryStock": _query_stock, "RecordHealthData": _record_health_data,
    "RegisterUser": _register_user, "SearchEngine": _search_engine, "SendEmail": _send_email,
    "Translate": _translate, "Wiki": _wiki, "PlayMusic": _play_music, "ToolSearcher": _output_and_exception,
}

# level 3 (API-Bank's lv3_apis): every rule not listed is the exact one
LV3_RULES: dict[str, Callable[[Result, Result], bool]] = {
    "AddMeeting": _meeting_like, "Calculator": _calculator, "EmailReminder": _email_reminder,
    "HotelAvailability": _hotel_availability, "NearbyRestaurants": _input_only, "TaxCalculator": _tax_calculator,
    "UpdateAccountInfo": _exact_input_output, "ToolSearcher": _output_and_exception,
}


def check(api: str, response: Result, groundtruth: Result, level: int = 1) -> tuple[bool, str]:
    """(correct, category); category is "" when correct, else "OUTPUT_MISMATCH",
    "INPUT_MISMATCH", "HAS_EXCEPTION" (API-Bank's evaluator_by_json categories, chosen
    as it chooses them) or "KEY_ERROR" when the rule itself breaks."""
    rules = LV3_RULES if level == 3 else RULES
    rule = rules.get(api, _exact)
    try:
        ok = bool(rule(copy.deepcopy(response), copy.deepcopy(groundtruth)))
    except (KeyError, TypeError, AttributeError, ValueError, AssertionError):
        return False, "KEY_ERROR"
    if ok:
        return True, ""
    if response.get("exception"):
        return False, "HAS_EXCEPTION"
    if response.get("output") != groundtruth.get("output"):
        return False, "OUTPUT_MISMATCH"
    return False, "INPUT_MISMATCH"
