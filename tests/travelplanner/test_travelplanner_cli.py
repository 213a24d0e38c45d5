"""TravelPlanner end to end: the official-data path (a database directory in the
official layout and an HF-style split, both written from the training data),
import -> run with the reference agents (both modes) -> show -> submission ->
score, the two-stage tools, and bad input (one line naming file/line/field,
nothing written)."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

from helpers import planprobe_here, shared_path
from planprobe.importers.travelplanner_splits import load_split
from planprobe.schema import Case
from planprobe.suites.travelplanner.cases import TOOLS
from planprobe.suites.travelplanner.evaluate import Evaluator
from planprobe.suites.travelplanner.sandbox import TABLES, load_database
from planprobe.suites.travelplanner.tools import run_tool
from planprobe.suites.travelplanner.training import load_training, training_sandbox


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The command line in this process (helpers.planprobe_here): output, files and exit codes are checked."""
    return planprobe_here(*args, cwd=cwd)


@pytest.fixture(scope="module")
def train_dir() -> Path:
    return shared_path("data", "travelplanner")


@pytest.fixture(scope="module")
def official(tmp_path_factory, train_dir):
    """A database directory and an HF-style train.csv built from the training data."""
    root = tmp_path_factory.mktemp("tp_official")
    queries = load_training(train_dir)
    box = training_sandbox(queries, str(train_dir))
    db = root / "database"
    for table, (rel, columns, _) in TABLES.items():
        path = db / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = box.distances if table == "distances" else getattr(box, table)
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            header = list(reversed(columns))  # read by name, not by position
            w.writerow([""] + header + (["cost"] if table == "distances" else []))
            for k, r in enumerate(rows):
                values = ([getattr(r, c) for c in header] if table == "distances" else [r[c] for c in header])
                w.writerow([k] + ["" if v is None else v for v in values] + ([""] if table == "distances" else []))
            if table == "accommodations":  # a row with a missing cell is dropped, as pandas' dropna() drops it
                r = dict(rows[0], NAME="Planprobe Dropped Row", house_rules="")
                w.writerow([len(rows)] + [r[c] for c in header])
    (db / "background").mkdir()
    (db / "background" / "citySet_with_states.txt").write_text(
        "\n".join(f"{c}\t{s or 'Nowhere'}" for c, s in box.cities.items()), encoding="utf-8")
    split = root / "train.csv"
    with split.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        names = ["org", "dest", "days", "visiting_city_number", "date", "people_number", "local_constraint", "budget",
                 "query", "level", "reference_information", "annotated_plan"]
        w.writerow(names)
        for t in queries:
            d = t.fields.to_json()
            header = {"org": d["org"], "dest": d["dest"], "days": d["days"]}
            w.writerow([d["org"], d["dest"], d["days"], d["visiting_city_number"], repr(d["date"]),
                        d["people_number"], repr(d["local_constraint"]), d["budget"], d["query"], d["level"],
                        repr(t.reference), repr([header] + [x for x in t.plan if x])])
    return root, queries, box


def test_database_directory_reads_like_the_rebuilt_sandbox(official):
    root, queries, box = official
    db = load_database(root / "database")
    assert len(db.flights) == len(box.flights) and len(db.restaurants) == len(box.restaurants)
    assert len(db.accommodations) == len(box.accommodations)  # the row with an empty cell was dropped
    assert not db.rows("accommodations", "Planprobe Dropped Row", box.accommodations[0]["city"])
    split = load_split(root / "train.csv")
    assert [o.fields for o in split] == [t.fields for t in queries]
    for o, t in zip(split, queries):
        assert o.plan == [d for d in t.plan if d]
        for strict in (False, True):
            a = Evaluator(o.fields, db, strict).evaluate(o.plan)
            b = Evaluator(t.fields, box, strict).evaluate(t.plan)
            assert a.to_json() == b.to_json()


def test_official_import_run_show_submission_score(official, tmp_path):
    root, _, _ = official
    r = cli("import", "travelplanner", str(root / "train.csv"), "--database", str(root / "database"),
            "--mode", "sole-planning", "--mode", "two-stage", "-o", "suite.jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    cases = [Case.model_validate_json(x) for x in (tmp_path / "suite.jsonl").read_text().splitlines()]
    assert len(cases) == 90 and {c.spec["mode"] for c in cases} == {"sole-planning", "two-stage"}
    sole = [c for c in cases if c.spec["mode"] == "sole-planning"]
    assert "Given information:" in sole[0].task and not sole[0].tools and cases[-1].tools == TOOLS
    (tmp_path / "sole.jsonl").write_text("".join(c.model_dump_json() + "\n" for c in sole))
    r = cli("run", "sole.jsonl", "--agent", "oracle", "--out", "runs/o", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shown = json.loads(cli("show", "runs/o", "--json", cwd=tmp_path).stdout)
    assert shown["travelplanner"]["official"]["figures"]["final_pass_rate"] == 1.0
    assert shown["travelplanner"]["strict"]["counts"]["final_plans"] == 44
    r = cli("travelplanner", "submission", "runs/o", "-o", "sub.jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = cli("travelplanner", "score", "sub.jsonl", "--queries", str(root / "train.csv"), "--database",
            str(root / "database"), "--json", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    scored = json.loads(r.stdout)
    assert scored["official"]["figures"] == shown["travelplanner"]["official"]["figures"]
    assert scored["strict"]["figures"] == shown["travelplanner"]["strict"]["figures"]
    assert len(scored["plans"]) == 45 and scored["plans"][0]["official"]["hard"]["valid_cost"][0] is True


def test_training_runs_with_every_reference_agent(train_dir, tmp_path):
    r = cli("import", "travelplanner", "--train-dir", str(train_dir), "--mode", "two-stage", "-o", "two.jsonl",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    figures = {}
    for agent in ("oracle", "random", "faulty:repeat_restaurant"):
        out = f"runs/{agent.replace(':', '_')}"
        r = cli("run", "two.jsonl", "--agent", agent, "--out", out, "-q", cwd=tmp_path)
        assert r.returncode in (0, 1), r.stderr
        figures[agent] = json.loads(cli("show", out, "--json", cwd=tmp_path).stdout)["travelplanner"]
    assert figures["oracle"]["official"]["figures"]["final_pass_rate"] == 1.0
    assert figures["random"]["official"]["figures"]["delivery_rate"] == 1.0
    assert figures["random"]["official"]["figures"]["final_pass_rate"] < 0.2
    faulty = figures["faulty:repeat_restaurant"]["official"]
    assert faulty["constraints"]["Diverse Restaurants"]["failed"] >= 40
    report = cli("report", "runs/oracle", "-o", "r.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "TravelPlanner (official)" in (tmp_path / "r.html").read_text()


def test_two_stage_tools_search_the_sandbox(train_dir):
    queries = load_training(train_dir)
    box = training_sandbox(queries, str(train_dir))
    q = queries[0]
    text, err = run_tool(box, "FlightSearch", {"departure_city": q.fields.org, "destination_city": q.fields.dest,
                                              "date": q.fields.date[0]})
    assert err is None and "F3573659" in text.splitlines()[1]
    assert "There is no flight" in run_tool(box, "FlightSearch", {"departure_city": "Nowhere", "destination_city":
                                                                  "Rockford", "date": "2022-03-16"})[0]
    assert "Coco Bambu" in run_tool(box, "RestaurantSearch", {"city": "Rockford"})[0]
    assert "no valid information" in run_tool(box, "GoogleDistanceMatrix", {"origin": "St. Petersburg",
                                                                            "destination": "Rockford",
                                                                            "mode": "taxi"})[0]
    assert "Houston" in run_tool(box, "CitySearch", {"state": "Texas"})[0]


def test_bad_input_is_one_line_and_writes_nothing(official, tmp_path):
    root, _, _ = official
    broken = tmp_path / "db"
    subprocess.run(["cp", "-r", str(root / "database"), str(broken)], check=True)
    (broken / "restaurants" / "clean_restaurant_2022.csv").unlink()
    r = cli("import", "travelplanner", str(root / "train.csv"), "--database", str(broken), "-o", "s.jsonl",
            cwd=tmp_path)
    assert r.returncode == 2 and "missing table 'restaurants'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "s.jsonl").exists()

    rows = (root / "train.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    bad = tmp_path / "bad.csv"
    with bad.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        reader = list(csv.reader(rows))
        w.writerow(reader[0])
        w.writerow(reader[1])
        w.writerow([""] + reader[2][1:])  # the second query has no 'org'
    r = cli("import", "travelplanner", str(bad), "--database", str(root / "database"), "-o", "s.jsonl", cwd=tmp_path)
    assert r.returncode == 2 and f"{bad}:3: field 'org' is missing" in r.stderr, r.stderr
    assert not (tmp_path / "s.jsonl").exists()

    plans = [{"idx": k, "query": "", "plan": None} for k in range(1, 46)]
    plans[4]["plan"] = [{"days": 1, "current_city": "from A to B", "transportation": "flight number F1"}]
    sub = tmp_path / "sub.jsonl"
    sub.write_text("".join(json.dumps(p) + "\n" for p in plans))
    r = cli("travelplanner", "score", str(sub), "--queries", str(root / "train.csv"), "--database",
            str(root / "database"), cwd=tmp_path)
    assert r.returncode == 2 and f"{sub}:5: field 'plan[0].transportation'" in r.stderr, r.stderr


class ScriptedModel:
    """Searches flights once, then answers with a fixed plan (function calling or ReAct text)."""

    name = "scripted"

    def __init__(self, args: dict, answer: str, react: bool):
        self.args, self.answer, self.react, self.turn = args, answer, react, 0

    async def chat(self, messages, tools, params):
        from planprobe.models.base import ChatResult, tool_call
        from planprobe.schema import Message

        self.turn += 1
        if self.turn == 1:
            if self.react:
                text = f"Thought: flights first\nAction: FlightSearch\nAction Input: {json.dumps(self.args)}"
                return ChatResult(Message(role="assistant", content=text))
            return ChatResult(Message(role="assistant", tool_calls=[tool_call("c1", "FlightSearch",
                                                                              json.dumps(self.args))]))
        text = f"Thought: done\nFinal Answer: {self.answer}" if self.react else self.answer
        return ChatResult(Message(role="assistant", content=text))

    async def aclose(self):
        pass


@pytest.mark.parametrize("react", [False, True], ids=["tools", "react"])
def test_model_agents_search_then_plan(train_dir, react):
    import asyncio

    from planprobe.agents.react import ReactAgent
    from planprobe.agents.tools_agent import ToolsAgent
    from planprobe.environment import Limits
    from planprobe.importers.travelplanner import build_cases
    from planprobe.suites.registry import get_family

    case = build_cases(modes=["two-stage"], strict=False, train_dir=train_dir)[0]
    family = get_family(case.family)
    fields = case.spec["fields"]
    model = ScriptedModel({"departure_city": fields["org"], "destination_city": fields["dest"],
                           "date": fields["date"][0]}, family.reference_answer(case), react)
    agent = ReactAgent(model) if react else ToolsAgent(model)
    env = family.environment(case, Limits(max_iterations=5), 0, "scripted")
    asyncio.run(agent(case, env))
    assert env.trace.tool_calls[0].error is None and "F3573659" in env.trace.tool_calls[0].result
    verdict = family.check(case, env.trace)
    assert verdict.passed, verdict.evidence
    assert verdict.labels["travelplanner"]["official"]["hard"]["valid_cost"][0] is True


def test_import_is_deterministic(train_dir, tmp_path):
    for name in ("a.jsonl", "b.jsonl"):
        r = cli("import", "travelplanner", "--train-dir", str(train_dir), "--mode", "two-stage", "-o", name,
                cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_database_table_problems_name_file_line_and_field(official, tmp_path):
    from planprobe.errors import PlanprobeError

    root, _, _ = official
    db = tmp_path / "db"
    subprocess.run(["cp", "-r", str(root / "database"), str(db)], check=True)
    path = db / "restaurants" / "clean_restaurant_2022.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(lines[0].replace("Average Cost", "Avg") + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(PlanprobeError, match=rf"^{path}:1: missing column 'Average Cost'"):
        load_database(db)
    path.write_text("".join(lines), encoding="utf-8")
    flights = db / "flights" / "clean_Flights_2022.csv"
    rows = list(csv.reader(flights.read_text(encoding="utf-8").splitlines()))
    rows[3][rows[0].index("Price")] = "cheap"
    with flights.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    with pytest.raises(PlanprobeError, match=rf"^{flights}:4: field 'Price': 'cheap' is not a number"):
        load_database(db)
