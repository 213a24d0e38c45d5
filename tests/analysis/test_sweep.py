import json
import subprocess

from helpers import planprobe_cmd, planprobe_here, subprocess_env
from planprobe.analysis.sweep import SweepPoint, SweepResult, cases_for, suite_seed
from planprobe.runner.store import RunStore
from planprobe.suites.io import load_suite


def test_case_counts_follow_the_seed():
    assert [cases_for(n, 20, 300) for n in (2, 3, 4, 5, 6, 7)] == [20, 60, 120, 200, 300, 300]


def _sweep(tmp_path, *args):
    r = planprobe_here("sweep", "--out", tmp_path / "sw", "--json", "-q", *args)  # in process: output is checked
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _point(n, passed, cases=10, infra=0):
    return SweepPoint(actions=n, cases=cases, passed=passed, infra=infra, ci95=(0.0, 1.0))


def test_the_limit_is_the_first_n_below_and_both_readings_are_reported():
    r = SweepResult(0.2, [_point(2, 9), _point(3, 5), _point(4, 1)])
    assert (r.limit, r.first_below, r.last_at_or_above, r.within_limit()) == (4, 4, 3, 4)
    assert r.describe() == "planning limit: n = 4 (first n below 20%); last n at or above 20%: 3"
    never = SweepResult(0.2, [_point(2, 9), _point(3, 8)])
    assert never.limit is None and never.last_at_or_above == 3 and never.within_limit() == 3
    assert never.describe().startswith("limit not reached up to n = 3")
    low = SweepResult(0.2, [_point(2, 1)])
    assert low.limit == 2 and low.last_at_or_above is None and "no n was at or above 20%" in low.describe()
    assert SweepResult(0.0, [_point(2, 0)]).limit is None
    assert SweepResult(0.2, [_point(2, 9), _point(3, 0, cases=0, infra=5)], infra_at=3).limit is None


def test_oracle_never_falls_below_and_random_stops_early(tmp_path):
    data = _sweep(tmp_path, "--agent", "oracle", "--k", "2", "--stop", "5")
    assert [p["actions"] for p in data["points"]] == [2, 3, 4, 5]
    assert data["planning_limit"] is None and not data["limit_reached"] and data["first_below"] is None
    assert data["last_at_or_above"] == 5 and data["tested_up_to"] == 5
    assert all(p["success_rate"] == 1.0 and p["cases"] == cases_for(p["actions"], 2, 300) for p in data["points"])
    assert json.loads((tmp_path / "sw" / "sweep.json").read_text()) == data
    rnd = _sweep(tmp_path / "r", "--agent", "random", "--k", "10", "--stop", "12", "--threshold", "0.3")
    assert rnd["first_below"] is not None and rnd["first_below"] <= 6 and rnd["planning_limit"] == rnd["first_below"]
    assert rnd["points"][-1]["success_rate"] < 0.3
    assert rnd["last_at_or_above"] in (None, rnd["first_below"] - 1)


def test_the_terminal_says_when_the_limit_was_not_reached(tmp_path):
    r = planprobe_here("sweep", "--out", tmp_path / "sw", "--agent", "oracle", "--k", "1", "--stop", "3", "-q")
    assert r.returncode == 0, r.stderr
    assert "limit not reached up to n = 3" in r.stdout and "planning limit: n =" not in r.stdout


def test_every_n_has_fresh_topics_and_its_own_case_ids(tmp_path):
    _sweep(tmp_path, "--agent", "oracle", "--k", "4", "--stop", "4")
    suites = {n: load_suite(tmp_path / "sw" / "suites" / f"n{n}.jsonl") for n in (2, 3, 4)}
    ids = [c.id for cases in suites.values() for c in cases]
    assert len(ids) == len(set(ids))
    topics = {n: [c.meta.topic for c in cases[:4]] for n, cases in suites.items()}
    assert len({tuple(t) for t in topics.values()}) == 3  # not the same topic sequence for every n
    # the suite for n is exactly what 'generate constraints' makes with that n's seed
    out = tmp_path / "n3.jsonl"
    r = subprocess.run(planprobe_cmd() + ["generate", "constraints", "-o", str(out), "--actions", "3", "--n",
                                          str(cases_for(3, 4, 300)), "--seed", str(suite_seed(0, 3)), "-q"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == (tmp_path / "sw" / "suites" / "n3.jsonl").read_bytes()


def test_a_sweep_resumes_without_rerunning(tmp_path):
    first = _sweep(tmp_path, "--agent", "random", "--k", "3", "--stop", "4", "--extended")
    runs = tmp_path / "sw" / "runs"
    before = {d.name: len(RunStore(d).rows()) for d in runs.iterdir()}
    again = _sweep(tmp_path, "--agent", "random", "--k", "3", "--stop", "4", "--extended")
    assert again == first
    assert {d.name: len(RunStore(d).rows()) for d in runs.iterdir()} == before


INFRA_AGENT = '''
from planprobe.errors import InfrastructureError

async def down(case, env):
    raise InfrastructureError("connection refused (test)")
'''


def test_infrastructure_failures_leave_the_limit_unmeasured(tmp_path):
    (tmp_path / "down.py").write_text(INFRA_AGENT)
    r = subprocess.run(planprobe_cmd() + ["sweep", "--out", str(tmp_path / "sw"), "--agent",
                                          f"python:{tmp_path / 'down.py'}:down", "--k", "1", "--stop", "4"],
                       capture_output=True, text=True, timeout=300, env=subprocess_env())
    assert r.returncode == 3, r.stderr
    assert "stopped at n = 2: infrastructure failures" in r.stdout
    data = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert data["stopped_by_infra_at"] == 2 and data["planning_limit"] is None
    assert [p["actions"] for p in data["points"]] == [2]  # never counted as a success rate of 0


def test_the_sweeps_suites_take_the_generators_options(tmp_path):
    data = _sweep(tmp_path, "--agent", "oracle", "--k", "1", "--stop", "4", "--style", "paper", "--max-sentences", "2",
                  "--max-iterations", "7", "--iteration-limit", "30")
    settings = data["settings"]
    assert (settings["style"], settings["max_sentences"], settings["max_iterations"]) == ("paper", 2, 7)
    for n in (2, 3, 4):
        for case in load_suite(tmp_path / "sw" / "suites" / f"n{n}.jsonl"):
            assert case.spec["style"] == "paper" and case.meta.generator["max_sentences"] == 2
            assert case.meta.generator["max_iterations"] == 7 and case.meta.difficulty["unconstrained"] == 0
    r = subprocess.run(planprobe_cmd() + ["sweep", "--out", str(tmp_path / "bad"), "--style", "pdoctor"],
                       capture_output=True, text=True, timeout=300, env=subprocess_env())
    assert r.returncode == 2 and "--style 'pdoctor'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
