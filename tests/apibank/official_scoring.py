"""An independent re-implementation of API-Bank's official call scoring, for the tests.

Written from API-Bank's evaluator.py / evaluator_by_json.py / lv3_evaluator.py and the
``check_api_call_correctness`` methods, separately from planprobe's ``checks`` module
(a table of rule kinds instead of one function per API), so the tests compare two
readings of the same source. It judges a predicted call given the result an API
returned for it.
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Callable
from typing import Any

# -- evaluator.py's samples ---------------------------------------------------------


def official_samples(history: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], dict[str, Any]]]:
    out = []
    for i, turn in enumerate(history):
        if turn["role"] == "API":
            out.append((history[:i], turn))
            if i + 1 < len(history):
                out.append((history[: i + 1], history[i + 1]))
    return out


# -- value normalisations the rules use ------------------------------------------------


def _fmt(text: Any, pattern: str) -> Any:
    text = text.strip()
    bits = text.split("-")
    if len(bits) == 3 and len(bits[0]) != 4:
        bits[0] = bits[0].zfill(4)
    text = "-".join(bits)
    try:
        return datetime.datetime.strptime(text, pattern).strftime(pattern)
    except Exception as exc:  # noqa: BLE001
        return exc


def _dt(text: Any) -> Any:
    return _fmt(text, "%Y-%m-%d %H:%M:%S")


def _d(text: Any) -> Any:
    return _fmt(text, "%Y-%m-%d")


def _history(text: Any) -> Any:
    text = text.strip()
    bits = text.split("-")
    if len(bits) == 3 and len(bits[0]) != 4:
        bits[0] = bits[0].zfill(4)
    text = "-".join(bits)
    for pattern in ("%Y-%m-%d", "%m-%d"):
        try:
            return datetime.datetime.strptime(text, pattern).strftime("%m-%d")
        except Exception:  # noqa: BLE001, S112 -- as API-Bank's own code: try the next pattern
            continue
    return ValueError(text)


def _health_time(text: Any) -> Any:
    text = text.strip()
    bits = text.split("-")
    if len(bits) == 3 and len(bits[0]) != 4:
        bits[0] = bits[0].zfill(4)
    try:
        return datetime.datetime.strptime("-".join(bits), "%Y-%m-%d %H:%M:%S")
    except Exception as exc:  # noqa: BLE001
        return exc


def _jaccard(a: str, b: str) -> bool:
    x, y = set(a.split(" ")), set(b.split(" "))
    return len(x & y) / len(x | y) > 0.5


def _devices(devs: Any) -> Any:
    devs = copy.deepcopy(devs)
    for d in devs:
        d["name"], d["description"] = d["name"].strip().lower(), d["description"].strip()
    return sorted(devs, key=lambda d: d["name"])


# -- the rules, as (what each compares) ---------------------------------------------------

OUT_EXC = ("output", "exception")


def _fields(r: dict, g: dict, keys: tuple[str, ...]) -> bool:
    return all(r[k] == g[k] for k in keys)


def _norm_inputs(norms: dict[str, Callable[[Any], Any]]) -> Callable[[dict, dict], bool]:
    def rule(r: dict, g: dict) -> bool:
        return all(f(r["input"][k]) == f(g["input"][k]) for k, f in norms.items())

    return rule


def _rule(kind: str, **kw: Any) -> Callable[[dict, dict], bool]:
    if kind == "exact":
        return lambda r, g: _fields(r, g, ("input",) + OUT_EXC)
    if kind == "agenda":
        return lambda r, g: (_jaccard(r["input"]["content"], g["input"]["content"])
                             and r["input"]["time"] == g["input"]["time"]
                             and r["input"]["location"] == g["input"]["location"] and _fields(r, g, OUT_EXC))
    if kind == "reminder":
        return lambda r, g: (_jaccard(r["input"]["content"].lower(), g["input"]["content"].lower())
                             and r["input"]["time"] == g["input"]["time"] and _fields(r, g, OUT_EXC))
    if kind == "meeting":
        def meeting(r: dict, g: dict) -> bool:
            ri, gi = dict(r["input"]), dict(g["input"])
            ok = _jaccard(ri.pop("meeting_topic"), gi.pop("meeting_topic"))
            return ok and ri == gi and _fields(r, g, OUT_EXC)
        return meeting
    if kind == "delete":
        def delete(r: dict, g: dict) -> bool:
            if r["output"] == "success" == g["output"]:
                return r["input"]["time"] == g["input"]["time"]
            return _fields(r, g, OUT_EXC)
        return delete
    if kind == "normalised":
        inputs = _norm_inputs(kw["norms"])
        tail = kw.get("tail", OUT_EXC)
        return lambda r, g: inputs(r, g) and _fields(r, g, tail)
    raise AssertionError(kind)


def _strip(v: Any) -> Any:
    return v.strip()


def _lower(v: Any) -> Any:
    return v.strip().lower()


def _opt(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else f(v)


def _symptom(v: Any) -> Any:
    v = v.strip()
    if v == "":
        raise AttributeError("empty")
    return v.lower()


def _get_today(r: dict, g: dict) -> bool:
    return r["output"] is not None and r["exception"] is None and r["input"] is None


def _add_scene(r: dict, g: dict) -> bool:
    return (_lower(r["input"]["name"]) == _lower(g["input"]["name"])
            and _devices(r["input"]["devices"]) == _devices(g["input"]["devices"])
            and not (g["output"] is None and r["output"] is not None) and r["exception"] == g["exception"])


def _modify_scene(r: dict, g: dict) -> bool:
    return (_lower(r["input"]["name"]) == _lower(g["input"]["name"])
            and _devices(r["input"]["devices"]) == _devices(g["input"]["devices"]) and _fields(r, g, OUT_EXC))


def _appointment(r: dict, g: dict) -> bool:
    ri, gi = r["input"], g["input"]
    return (ri["patient_name"].strip() == gi["patient_name"].strip() and _d(ri["date"]) == _d(gi["date"])
            and ri["doctor_name"].strip() == gi["doctor_name"].strip()
            and not (g["output"] is None and r["output"] is not None) and r["exception"] == g["exception"])


def _register(r: dict, g: dict) -> bool:
    return not (g["output"] is None and r["output"] is not None) and _fields(r, g, ("input", "exception"))


def _search_engine(r: dict, g: dict) -> bool:
    if r["api_name"] != g["api_name"] or r["exception"] != g["exception"]:
        return False
    if r["output"] is None or g["output"] is None:
        raise KeyError("unbound")
    key = lambda x: x["title"] + x["abstract"]
    return sorted(r["output"], key=key, reverse=True) == sorted(g["output"], key=key, reverse=True)


def _by_name(name_key: str) -> Callable[[dict, dict], bool]:
    return lambda r, g: r["api_name"] == g["api_name"] and _fields(r, g, OUT_EXC)


def _stock(v: dict) -> Any:
    return (v["stock_code"].upper().strip() or None, _d(v["date"]))


def _health(v: dict) -> Any:
    return (v["user_id"].upper().strip() or None, _health_time(v["start_time"]), _health_time(v["end_time"]))


LEVEL12: dict[str, Callable[[dict, dict], bool]] = {
    **{n: _rule("agenda") for n in ("AddAgenda", "ModifyAgenda", "QueryAgenda")},
    **{n: _rule("reminder") for n in ("AddReminder", "ModifyReminder", "QueryReminder")},
    **{n: _rule("meeting") for n in ("AddMeeting", "ModifyMeeting", "QueryMeeting")},
    **{n: _rule("delete") for n in ("DeleteAgenda", "DeleteMeeting", "DeleteReminder")},
    **{n: _rule("exact") for n in ("AddAlarm", "DeleteAlarm", "ModifyAlarm", "QueryAlarm", "BookHotel",
                                   "CheckToken", "DeleteAccount", "ForgotPassword", "GetUserToken",
                                   "OpenBankAccount", "ImageCaption", "ModifyPassword", "SpeechRecognition")},
    "AddScene": _add_scene, "ModifyScene": _modify_scene, "AppointmentRegistration": _appointment,
    "Calculator": lambda r, g: (r["input"]["formula"].replace(" ", "") == g["input"]["formula"].replace(" ", "")
                                and _fields(r, g, OUT_EXC)),
    "CancelRegistration": _rule("normalised", norms={"appointment_id": _strip}),
    "CancelTimedSwitch": _rule("normalised", norms={"name": _lower, "time": _dt}),
    "TimedSwitch": _rule("normalised", norms={"name": _lower, "time": _dt, "on": lambda v: v}),
    "DeleteScene": _rule("normalised", norms={"name": _lower}),
    "QueryScene": _rule("normalised", norms={"name": _lower}),
    "Dictionary": lambda r, g: r["api_name"] == "Dictionary" and _fields(r, g, OUT_EXC),
    "DocumentQA": _rule("normalised", norms={"url": _strip, "question": _strip}),
    "EmergencyKnowledge": _rule("normalised", norms={"symptom": _symptom}),
    "SymptomSearch": _rule("normalised", norms={"symptom": _symptom}),
    "GetToday": _get_today,
    "ModifyRegistration": lambda r, g: (str(r["input"]["appointment_id"]).strip() == g["input"]["appointment_id"].strip()
                                        and _opt(_d)(r["input"]["new_appointment_date"])
                                        == _opt(_d)(g["input"]["new_appointment_date"])
                                        and _opt(_strip)(r["input"]["new_appointment_doctor"])
                                        == _opt(_strip)(g["input"]["new_appointment_doctor"])
                                        and _fields(r, g, OUT_EXC)),
    "QueryBalance": _rule("normalised", norms={"token": _strip}),
    "QueryHealthData": lambda r, g: _health(r["input"]) == _health(g["input"]) and _fields(r, g, OUT_EXC),
    "QueryHistoryToday": _rule("normalised", norms={"date": _history}),
    "QueryRegistration": _rule("normalised", norms={"patient_name": _strip, "date": _d}),
    "QueryStock": lambda r, g: _stock(r["input"]) == _stock(g["input"]) and _fields(r, g, OUT_EXC),
    "RecordHealthData": lambda r, g: (str(r["input"]["user_id"]).upper().strip() == g["input"]["user_id"].upper().strip()
                                      and _dt(r["input"]["time"]) == _dt(g["input"]["time"])
                                      and _fields(r, g, OUT_EXC)),
    "RegisterUser": _register, "SearchEngine": _search_engine,
    "SendEmail": lambda r, g: (_lower(r["input"]["receiver"]) == _lower(g["input"]["receiver"])
                               and r["input"]["subject"].strip() == g["input"]["subject"].strip()
                               and r["input"]["content"].strip() == g["input"]["content"].strip()
                               and _fields(r, g, OUT_EXC)),
    "Translate": lambda r, g: (r["api_name"] == g["api_name"] and r["input"]["src"] == g["input"]["src"]
                               and _fields(r, g, OUT_EXC)),
    "Wiki": _by_name("Wiki"), "PlayMusic": lambda r, g: r["output"] == g["output"],
    "ToolSearcher": lambda r, g: _fields(r, g, OUT_EXC),
}

LEVEL3: dict[str, Callable[[dict, dict], bool]] = {
    "AddMeeting": _rule("meeting"), "Calculator": LEVEL12["Calculator"], "ToolSearcher": LEVEL12["ToolSearcher"],
    # API-Bank pops 'content' from both inputs: a call without it raises KeyError (incorrect)
    "EmailReminder": lambda r, g: ("content" in r["input"] and "content" in g["input"]
                                   and {k: v for k, v in r["input"].items() if k != "content"}
                                   == {k: v for k, v in g["input"].items() if k != "content"}
                                   and _fields(r, g, OUT_EXC)),
    "HotelAvailability": lambda r, g: (all(r["input"][k] == g["input"][k]
                                           for k in ("destination", "check_in_date", "check_out_date"))
                                       and r["output"]["hotels"] == g["output"]["hotels"]),
    "NearbyRestaurants": lambda r, g: r["input"] == g["input"],
    "TaxCalculator": lambda r, g: (r["input"]["salary"] == g["input"]["salary"]
                                   and r["output"]["salary_after_tax"] == g["output"]["salary_after_tax"]
                                   and r["exception"] == g["exception"]),
    "UpdateAccountInfo": lambda r, g: _fields(r, g, ("input", "output")),
}


def official_correct(api: str, response: dict, groundtruth: dict, level: int) -> tuple[bool, str]:
    table = LEVEL3 if level == 3 else LEVEL12
    rule = table.get(api, _rule("exact"))
    try:
        ok = rule(copy.deepcopy(response), copy.deepcopy(groundtruth))
    except Exception:  # noqa: BLE001  (a rule that breaks: KeyError in API-Bank, or a crash)
        return False, "KEY_ERROR"
    if ok:
        return True, ""
    if response["exception"]:
        return False, "HAS_EXCEPTION"
    if response["output"] != groundtruth["output"]:
        return False, "OUTPUT_MISMATCH"
    return False, "INPUT_MISMATCH"


def official_verdict(name: str, args: dict | None, gold: dict, declared: dict, required: list[str],
                     execute: Callable[[str, dict], dict], level: int) -> tuple[bool, str]:
    """evaluator.py's path for one predicted call: name, parameters, run, rule."""
    if args is None:
        return False, "FAILED_PARSE_API_CALL"
    if name != gold["api_name"]:
        return False, "API_NAME_MISMATCH"
    # ToolManager.api_call asserts every argument is declared (lv3_evaluator calls it too)
    if any(k not in declared for k in args):
        return False, "INVALID_INPUT_PARAMETER"
    if any(k not in args for k in required):
        return False, "MISS_INPUT_ARGUMENT"
    return official_correct(gold["api_name"], execute(name, args), gold["result"], level)


# -- API-Bank's text path (api_call_extraction.parse_api_call) ------------------------------

_CALL = r"\[(\w+)\((.*)\)\]"
_PARAM = r"(\w+)\s*=\s*['\"](.+?)['\"]|(\w+)\s*=\s*(\[.*\])|(\w+)\s*=\s*(\w+)"


def api_bank_call_text(name: str, args: dict[str, Any]) -> str:
    """A call as API-Bank's data writes it (``level-3-batch-inf.json``): every value quoted,
    numbers and lists included."""
    return f"[{name}(" + ", ".join(f"{k}='{v}'" for k, v in args.items()) + ")]"


def parse_api_call(text: str) -> tuple[str, dict[str, str]]:
    """API-Bank's parser: every value comes back as text (a quoted value ends at its first quote)."""
    import re

    match = re.search(_CALL, text, re.MULTILINE)
    assert match is not None
    params: dict[str, str] = {}
    for m in re.finditer(_PARAM, match.group(2)):
        if m.group(1):
            params[m.group(1)] = m.group(2)
        elif m.group(3):
            params[m.group(3)] = m.group(4)
        elif m.group(5):
            params[m.group(5)] = m.group(6)
    return match.group(1), params
