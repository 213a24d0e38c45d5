import json
import subprocess

from planprobe.analysis.sweep import cases_for
from planprobe.runner.store import RunStore

from helpers import planprobe_cmd


def test_case_counts_follow_the_seed():
    assert [cases_for(n, 20, 300) for n in (2, 3, 4, 5, 6, 7)] == [20, 60, 120, 200, 300, 300]


def _sweep(tmp_path, *args):
    r = subprocess.run(planprobe_cmd() + ["sweep", "--out", str(tmp_path / "sw"), "--json", "-q", *args],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_oracle_never_falls_below_and_random_stops_early(tmp_path):
    data = _sweep(tmp_path, "--agent", "oracle", "--k", "2", "--stop", "5")
    assert [p["actions"] for p in data["points"]] == [2, 3, 4, 5]
    assert data["planning_limit"] == 5 and data["first_below"] is None
    assert all(p["success_rate"] == 1.0 and p["cases"] == cases_for(p["actions"], 2, 300) for p in data["points"])
    rnd = _sweep(tmp_path / "r", "--agent", "random", "--k", "10", "--stop", "12", "--threshold", "0.3")
    assert rnd["first_below"] is not None and rnd["first_below"] <= 6
    assert rnd["points"][-1]["success_rate"] < 0.3


def test_a_sweep_resumes_without_rerunning(tmp_path):
    first = _sweep(tmp_path, "--agent", "random", "--k", "3", "--stop", "4", "--extended")
    runs = tmp_path / "sw" / "runs"
    before = {d.name: len(RunStore(d).rows()) for d in runs.iterdir()}
    again = _sweep(tmp_path, "--agent", "random", "--k", "3", "--stop", "4", "--extended")
    assert again == first
    assert {d.name: len(RunStore(d).rows()) for d in runs.iterdir()} == before
