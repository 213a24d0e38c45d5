"""planprobe's API-Bank APIs behave as API-Bank's classes do (behaviours read from its
source), the offline ToolSearcher, and the whole command line on API-Bank data."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import shared_path
from planprobe.suites.apibank.apis import World
from planprobe.suites.apibank.calculator import calculate
from planprobe.suites.apibank.catalog import CallRefused, catalog, convert_arguments
from planprobe.suites.apibank.databases import read_databases
from planprobe.suites.apibank.searcher import level12_searcher, split_by_uppercase


@pytest.fixture(scope="module")
def dbs():
    return read_databases(shared_path("data", "api-bank"))[0]


def call(world: World, api: str, **args):
    return world.call(api, convert_arguments(catalog()[api], args))


def test_every_catalogued_api_is_implemented():
    from planprobe.suites.apibank.apis import implemented

    assert implemented() == set(catalog())


def test_calculator_keeps_api_banks_reduction():
    assert calculate("(1 + 2) * 3") == 9.0
    assert calculate("2*3-4/2") == 4.0
    for bad in ("7", "2+", "2^3", "(1+2", ""):
        with pytest.raises(Exception, match="invalid formula"):
            calculate(bad)
    with pytest.raises(ValueError, match=r"'\)' is not in list"):
        calculate("((1+2))*3")  # a group ends at the first ')'
    with pytest.raises(ZeroDivisionError):
        calculate("1/0")
    with pytest.raises(Exception, match="invalid formula"):
        calculate("-1+2")  # API-Bank's reduction never ends here


def test_results_have_api_banks_shape_and_messages(dbs):
    w = World(dbs)
    assert call(w, "GetToday") == {"api_name": "GetToday", "input": None, "output": "2023-03-31", "exception": None}
    r = call(w, "CheckToken", token="nope")
    assert r == {"input": {"token": "nope"}, "output": None, "exception": "The token is invalid."}  # no api_name
    token = call(w, "GetUserToken", username="JohnDoe", password="pass123")["output"]["token"]
    bad_time = call(w, "AddAgenda", token=token, content="x", time="tomorrow", location="here")
    assert bad_time["exception"] == "time data 'tomorrow' does not match format '%Y-%m-%d %H:%M:%S'"
    assert call(w, "EmergencyKnowledge", symptom=" ")["exception"] == "'Exception' object has no attribute 'lower'"
    url = next(iter(dbs["QuestionAnswering"]))
    question = dbs["QuestionAnswering"][url][0]["question"]
    assert call(w, "DocumentQA", url=url, question=question)["output"] == "The question is too difficult to answer."
    assert call(w, "QueryStock", stock_code=" aapl ", date="2022-01-01")["output"] == dbs["Stock"]["AAPL"]["2022-01-01"]
    assert call(w, "QueryStock", stock_code="AAPL", date="22-01-01")["exception"] == \
        "The stock price of this date is not maintained."  # the short year is padded to 0022
    assert call(w, "PlayMusic", music_name=" Hey Jude ")["output"] == "music://hey jude"


def test_state_is_shared_within_a_world_and_fresh_across_worlds(dbs):
    w = World(dbs, seed="a")
    token = call(w, "RegisterUser", username="newbie", password="pw", email="n@x.org")["output"]["token"]
    assert call(w, "CheckToken", token=token)["output"] == {"username": "newbie"}
    assert call(w, "AddReminder", token=token, content="call mom", time="2023-05-01 10:00:00")["output"] == "success"
    assert call(w, "QueryReminder", token=token, content="call mom", time="2023-05-01 10:00:00")["output"]["username"] \
        == "newbie"
    code = call(w, "ForgotPassword", status="Forgot Password", username="JohnDoe", email="johndoe@example.com")
    assert code["output"] == 970420
    assert call(w, "ForgotPassword", status="Verification Code", verification_code="970420",
                new_password="np")["output"] == "success"
    fresh = World(dbs, seed="a")
    assert call(fresh, "CheckToken", token=token)["exception"] == "The token is invalid."
    assert call(fresh, "GetUserToken", username="JohnDoe", password="pass123")["exception"] is None
    # the same seed draws the same token
    assert call(fresh, "RegisterUser", username="newbie", password="pw", email="n@x.org")["output"]["token"] == token


def test_scenes_normalise_the_callers_list_as_api_bank_does(dbs):
    w = World(dbs)
    devices = [{"name": " Oven ", "description": " kitchen oven "}, {"name": "Light", "description": "lamp"}]
    r = call(w, "AddScene", name=" Dinner ", devices=devices)
    assert r["output"] == "success"
    assert r["input"]["devices"] == [{"name": "light", "description": "lamp"},
                                     {"name": "oven", "description": "kitchen oven"}]
    assert call(w, "AddScene", name="dinner", devices=[])["exception"] == "Scene name already exists."


def test_arguments_are_checked_as_tool_manager_does():
    d = catalog()["BookHotel"]
    with pytest.raises(CallRefused) as e:
        convert_arguments(d, {"hotel": "x"})
    assert e.value.kind == "INVALID_INPUT_PARAMETER"
    with pytest.raises(CallRefused) as e:
        convert_arguments(d, {"hotel_name": "x"})
    assert e.value.kind == "MISS_INPUT_ARGUMENT"
    with pytest.raises(CallRefused):
        convert_arguments(d, {"hotel_name": "x", "check_in_time": "a", "check_out_time": "b", "room_count": "two",
                              "adult_count": 1, "child_count": 0})
    ok = convert_arguments(d, {"hotel_name": "x", "check_in_time": "a", "check_out_time": "b", "room_count": "2",
                               "adult_count": 1, "child_count": 0})
    assert ok["room_count"] == 2
    assert convert_arguments(catalog()["TimedSwitch"], {"name": "l", "time": "t", "on": "False"})["on"] is False


def test_tool_searcher_offline():
    search = level12_searcher({"book meeting": "BookHotel"})
    assert search("book meeting")["name"] == "BookHotel"  # a recorded search answers as recorded
    for name in catalog():  # any API is found by the words of its name
        if name != "ToolSearcher":
            found = search(split_by_uppercase(name).lower())
            assert (found[-1] if isinstance(found, list) else found)["name"] == name
    pair = search("add agenda")  # token APIs come with GetUserToken, which keeps its search text
    assert [d["name"] for d in pair] == ["GetUserToken", "AddAgenda"]
    assert pair[0]["desc_for_search"] == "get user tokenGet the user token by username and password."
    assert "desc_for_search" not in pair[1]
    with pytest.raises(Exception, match="'NoneType' object has no attribute 'pop'"):
        search("zzz qqq")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "planprobe", *args], capture_output=True, text=True)


def test_command_line_end_to_end(tmp_path):
    data = shared_path("data", "api-bank")
    suite = tmp_path / "runs.jsonl"
    assert cli("import", "api-bank", str(data), "--level", "3", "--kind", "run", "-o", str(suite)).returncode == 0
    for agent in ("oracle", "faulty:drop"):
        r = cli("run", str(suite), "--agent", agent, "--out", str(tmp_path / agent.replace(":", "-")))
        assert r.returncode == 0, r.stderr
    good = json.loads(cli("show", str(tmp_path / "oracle"), "--json").stdout)["api_bank"]["pmc"]
    assert good["completeness"] == good["correctness"] == 1.0 and good["tool_repeats"] == 0
    assert good["runs_passed"] == good["runs_complete"] == good["runs"]
    bad = json.loads(cli("show", str(tmp_path / "faulty-drop"), "--json").stdout)["api_bank"]["pmc"]
    assert bad["completeness"] < 1.0 and bad["unique_correct"] == bad["required"] - bad["runs"]
    text = cli("show", str(tmp_path / "faulty-drop")).stdout
    assert "PMC (level 3" in text and "completeness" in text
    assert bad["runs_passed"] == bad["runs_complete"] == 0
    assert f"PMC runs passed 0/{bad['runs']} (every call correct, every recorded call made); complete 0/" in (
        " ".join(text.split()))
    out = tmp_path / "r.html"
    assert cli("report", str(tmp_path / "oracle"), "-o", str(out)).returncode == 0
    html = out.read_text()
    assert "oracle: API-Bank's figures" in html and "PMC (level 3, " in html
