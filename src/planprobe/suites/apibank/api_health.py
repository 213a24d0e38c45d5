"""Hospital registration and health-data APIs of API-Bank, as its classes behave.

One group of ``apis.World``'s handlers (see ``apis`` for the common behaviour):
each takes the world and the converted arguments and returns the output or raises
``ApiFailure``."""

from __future__ import annotations

from typing import Any

from .api_support import (
    DATE,
    DATETIME,
    ApiWorld,
    Handler,
    fail,
    normalise_time,
    normalised_or_raise,
    pad_year,
    strptime,
)

# -- hospital, health ------------------------------------------------------------


def _register_appointment(w: ApiWorld, a: dict[str, Any]) -> Any:
    patient, doctor = a["patient_name"].strip(), a["doctor_name"].strip()
    if patient == "" or doctor == "":
        raise fail("Patient name or doctor name cannot be empty.")
    date = normalised_or_raise(a["date"], DATE)
    table = w.table("Appointments")
    for item in table.values():
        if item["patient_name"] == patient and normalise_time(item["date"], DATE) == date:
            if item["doctor_name"] == doctor:
                raise fail("This appointment has already been registered.")
            raise fail("This patient has already been registered in this day.")
    new_id = str(w.rng.randint(10000000, 99999999))
    while new_id in table:
        new_id = str(w.rng.randint(10000000, 99999999))
    table[new_id] = {"patient_name": patient, "date": date, "doctor_name": doctor}
    return new_id


def _cancel_registration(w: ApiWorld, a: dict[str, Any]) -> Any:
    key = a["appointment_id"].strip()
    table = w.table("Appointments")
    if key in table:
        del table[key]
        return "success"
    raise fail("The appointment ID is incorrect.")


def _modify_registration(w: ApiWorld, a: dict[str, Any]) -> Any:
    key = a["appointment_id"].strip()
    table = w.table("Appointments")
    if key not in table:
        raise fail("The appointment ID does not exist.")
    date = a.get("new_appointment_date")
    doctor = a.get("new_appointment_doctor")
    if date is not None:
        date = normalise_time(date, DATE)
    if doctor is not None:
        doctor = doctor.strip()
        if doctor == "":
            raise fail("Fail because the doctor name is empty.")
    if isinstance(date, Exception):
        raise date
    item = table[key]
    if date is None and doctor is None:
        raise fail("Fail because no modification is made.")
    if date is None:
        if doctor == item["doctor_name"]:
            raise fail("Fail because doctor is not changed.")
        item["doctor_name"] = doctor
    elif doctor is None:
        if date == item["date"]:
            raise fail("Fail because date is not changed.")
        item["date"] = date
    else:
        if date == item["date"] and doctor == item["doctor_name"]:
            raise fail("Fail because no modification is made.")
        if date == item["date"]:
            raise fail("Fail because date is not changed.")
        if doctor == item["doctor_name"]:
            raise fail("Fail because doctor is not changed.")
        item["date"], item["doctor_name"] = date, doctor
    return "success"


def _query_registration(w: ApiWorld, a: dict[str, Any]) -> Any:
    patient = a["patient_name"].strip()
    date = normalised_or_raise(a["date"], DATE)
    found = {k: v for k, v in w.table("Appointments").items()
             if v["patient_name"] == patient and normalise_time(v["date"], DATE) == date}
    if not found:
        raise fail("No appointments found.")
    return found


def _record_health_data(w: ApiWorld, a: dict[str, Any]) -> Any:
    user = a["user_id"].upper().strip()
    if user == "":
        raise fail("The user id cannot be empty.")
    time = normalised_or_raise(a["time"], DATETIME)
    data = a.get("health_data")
    if data is None or len(data) == 0:
        raise fail("The health data cannot be empty.")
    seen: set[Any] = set()
    for item in data:
        if "name" not in item:
            raise fail("The health data has invalid format.")
        if item["name"] in seen:
            raise fail("The health data cannot contain duplicate items.")
        seen.add(item["name"])
    records = w.table("HealthData").setdefault(user, [])
    target = None
    for record in records:
        if record["time"] == time:
            target = record
    if target is None:
        target = {"time": time}
        for item in data:
            target[item["name"]] = item["value"]
        records.append(target)
    else:
        for item in data:
            target[item["name"]] = item["value"]
    return "success"


def health_span(a: dict[str, Any]) -> tuple[Any, Any, Any]:
    """QueryHealthData's format_check: (USER, start, end), a time that does not parse
    given as its exception."""
    user = a["user_id"].upper().strip() or None

    def parse(text: Any) -> Any:
        try:
            return strptime(pad_year(text), DATETIME)
        except Exception as exc:  # noqa: BLE001
            return exc

    return user, parse(a["start_time"]), parse(a["end_time"])


def _query_health_data(w: ApiWorld, a: dict[str, Any]) -> Any:
    user, start, end = health_span(a)
    if user is None:
        raise fail("The user id cannot be empty.")
    if isinstance(start, Exception) and isinstance(end, Exception):
        raise fail(f"{start}; {end}")
    if isinstance(start, Exception):
        raise start
    if isinstance(end, Exception):
        raise end
    if start > end:
        raise fail("The start time cannot be later than the end time.")
    table = w.table("HealthData")
    if user not in table:
        raise fail("The user id does not exist.")
    found = [r for r in table[user] if start <= strptime(r["time"], DATETIME) <= end]
    if not found:
        raise fail("There is no health data in the given time span.")
    return found


def _symptom(text: str) -> str:
    text = text.strip().lower()
    if text == "":
        raise fail("The symptom cannot be empty.")
    return text


def _symptom_search(w: ApiWorld, a: dict[str, Any]) -> Any:
    key = _symptom(a["symptom"])
    table = w.table("Symptom")
    if key not in table:
        raise fail("The symptom does not exist.")
    return [{"name": r["name"], "description": r["description"]} for r in table[key]]


def _emergency_knowledge(w: ApiWorld, a: dict[str, Any]) -> Any:
    key = a["symptom"].strip()
    if key == "":
        # API-Bank stores an Exception in the variable and then calls .lower() on it
        raise fail("'Exception' object has no attribute 'lower'")
    key = key.lower()
    table = w.table("Symptom")
    if key not in table:
        raise fail("The symptom does not exist.")
    return [{"name": r["name"], "aid": r["aid"]} for r in table[key]]


HANDLERS: dict[str, Handler] = {
    "AppointmentRegistration": _register_appointment,
    "CancelRegistration": _cancel_registration,
    "EmergencyKnowledge": _emergency_knowledge,
    "ModifyRegistration": _modify_registration,
    "QueryHealthData": _query_health_data,
    "QueryRegistration": _query_registration,
    "RecordHealthData": _record_health_data,
    "SymptomSearch": _symptom_search,
}
