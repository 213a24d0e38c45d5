import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from helpers import cases, planprobe_cmd, subprocess_env
from planprobe import run_suite
from planprobe.analysis.dissect import CAUSES, sample_failures
from planprobe.analysis.rerun import MODEL_PATH_META, choose_rerun, embedded_stem
from planprobe.errors import PlanprobeError
from planprobe.runner.store import RunStore
from planprobe.suites.constraints.mutations import case_connectives


def _dissect_raw(path, *args):
    return subprocess.run(planprobe_cmd() + ["dissect", str(path), *args], capture_output=True, text=True,
                          timeout=600, env=subprocess_env())


def _dissect(path, *args):
    r = _dissect_raw(path, "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _rows(run):
    return [json.loads(line) for line in (Path(run) / "dissect.jsonl").read_text().splitlines()]


def test_a_failure_that_survives_every_mutation_is_a_constraint_cause(tmp_path):
    run_suite(cases(6, seed=5), "faulty:swap", tmp_path / "swap")
    data = _dissect(tmp_path / "swap", "--k", "2")
    assert data["cases"] == 6 and data["causes"]["Constraint"] == 6
    # a deterministic agent: re-runs of the unchanged case never pass, so the baseline is all Constraint
    assert data["baseline"]["causes"]["Constraint"] == 6
    rows = _rows(tmp_path / "swap")
    kinds = [a["case_id"].split("~")[-1].rstrip("0123456789") if "~" in a["case_id"] else "same"
             for a in rows[0]["attempts"]]
    case = next(c for c in cases(6, seed=5) if c.id == rows[0]["case_id"])
    words = case_connectives(case)  # the Phrasing stage: one minimal pair per connective word
    assert kinds == (["same"] * 3 + [f"phrasing-{w}" for w in words] + ["terminal"] * 2 + ["topic"] * 2
                     + ["structure"] * 2)
    control = rows[0]["baseline_attempts"]
    assert len(control) == len(words) + 6 and {a["case_id"] for a in control} == {rows[0]["case_id"]}
    trials = [a["trial"] for a in rows[0]["attempts"][:3] + control]
    assert len(set(trials)) == len(trials)  # every re-run is a fresh sample


def test_an_agent_that_passes_on_a_rerun_is_probability_and_results_resume(tmp_path):
    run_suite(cases(6, seed=5), "faulty:drop", tmp_path / "drop")
    data = _dissect(tmp_path / "drop", "--agent", "oracle")
    assert data["causes"]["Probability"] == 6 and data["baseline"]["causes"]["Probability"] == 6
    before = (tmp_path / "drop" / "dissect.jsonl").read_text()
    again = _dissect(tmp_path / "drop", "--agent", "oracle")
    assert again == data and (tmp_path / "drop" / "dissect.jsonl").read_text() == before


def test_the_sample_is_uniform_seeded_and_reported_with_its_chance_baseline(tmp_path):
    run_suite(cases(30, seed=6), "random", tmp_path / "random")
    store = RunStore(tmp_path / "random")
    failed = sorted(r.case_id for r in store.rows() if not r.passed)
    store.close()
    data = _dissect(tmp_path / "random", "--sample", "8", "--k", "2")
    assert data["failures_within_limit"] == len(failed) and data["cases"] == 8 and data["sample"] == 8
    chosen = [r["case_id"] for r in _rows(tmp_path / "random")]
    assert chosen != failed[:8] and set(chosen) <= set(failed)
    assert chosen == [c.id for _, c in sample_failures([(None, c) for c in _sorted_failed_cases(tmp_path)], 8, 0)]
    base = data["baseline"]
    assert set(base["causes"]) == set(CAUSES) and sum(base["causes"].values()) == 8
    assert base["causes"]["Probability"] == data["causes"]["Probability"]  # the shared stage
    for row in _rows(tmp_path / "random"):  # the baseline re-runs the unchanged case where Alg. 2 mutates it
        if row["cause"] != "Probability":
            assert len(row["baseline_attempts"]) <= 3 * 2 + len(case_connectives(_case(tmp_path, row["case_id"])))
            assert {a["case_id"] for a in row["baseline_attempts"]} == {row["case_id"]}
    r = _dissect_raw(tmp_path / "random", "--sample", "8", "--k", "2")
    assert "chance baseline" in r.stdout and "re-run of the unchanged case" in r.stdout


def _case(tmp_path, case_id):
    store = RunStore(tmp_path / "random")
    try:
        return next(c for c in store.cases() if c.id == case_id)
    finally:
        store.close()


def _sorted_failed_cases(tmp_path):
    store = RunStore(tmp_path / "random")
    failed = {r.case_id for r in store.rows() if not r.passed}
    out = sorted((c for c in store.cases() if c.id in failed), key=lambda c: c.id)
    store.close()
    return out


def test_sampling_is_uniform():
    population = list(range(20))
    counts = Counter(x for seed in range(2000) for x in sample_failures(population, 5, seed))
    assert set(counts) == set(population)
    assert all(400 < c < 600 for c in counts.values())  # 500 expected, sd about 19
    assert sample_failures(population, 5, 1) == sample_failures(population, 5, 1)
    assert sample_failures(population, 50, 1) != population and sorted(sample_failures(population, 50, 1)) == population


def test_a_sweep_is_dissected_within_its_limit(tmp_path):
    r = subprocess.run(planprobe_cmd() + ["sweep", "--out", str(tmp_path / "sw"), "--agent", "faulty:swap", "--k", "1",
                                          "--stop", "4", "--threshold", "0.5", "-q"],
                       capture_output=True, text=True, timeout=300, env=subprocess_env())
    assert r.returncode == 0, r.stderr
    sweep = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    limit = sweep["planning_limit"]
    assert limit is not None
    data = _dissect(tmp_path / "sw", "--k", "1", "--sample", "100")
    assert f"n ≤ {limit}, the planning limit" in data["scope"]
    dissected = {json.loads(line)["case_id"] for d in (tmp_path / "sw" / "runs").iterdir()
                 if (d / "dissect.jsonl").exists() for line in (d / "dissect.jsonl").read_text().splitlines()}
    assert len(dissected) == data["cases"] == data["failures_within_limit"]
    assert all(int(cid.split("-")[2]) % 1000 <= limit for cid in dissected)  # suite seed = seed*1000 + n
    narrower = _dissect(tmp_path / "sw", "--k", "1", "--max-actions", "2")
    assert narrower["failures_within_limit"] <= data["failures_within_limit"]


FLAKY_AGENT = '''
from planprobe.agents import make_agent
from planprobe.errors import InfrastructureError

SEEN = set()
ORACLE = make_agent("oracle", 0)

async def flaky(case, env):
    key = (case.id, env.trace.trial)
    if env.trace.trial >= 1000 and key not in SEEN:  # every re-run fails once on the service first
        SEEN.add(key)
        raise InfrastructureError("HTTP 503 from the test service")
    if env.trace.trial < 1000:
        return None  # the original run: does nothing, so it fails (Action Lost)
    return await ORACLE(case, env)
'''

DOWN_AGENT = '''
from planprobe.errors import InfrastructureError

async def down(case, env):
    if env.trace.trial >= 1000:
        raise InfrastructureError("connection refused (test)")
    return None
'''


def test_infrastructure_failures_in_reruns_are_retried_and_never_counted(tmp_path):
    (tmp_path / "flaky.py").write_text(FLAKY_AGENT)
    agent = f"python:{tmp_path / 'flaky.py'}:flaky"
    run_suite(cases(3, seed=2), agent, tmp_path / "run")
    data = _dissect(tmp_path / "run", "--agent", agent)
    assert data["causes"]["Probability"] == 3  # the retried re-run passed; the 503 counted for nothing
    assert all(len(r["attempts"]) == 1 for r in _rows(tmp_path / "run"))

    (tmp_path / "down.py").write_text(DOWN_AGENT)
    agent = f"python:{tmp_path / 'down.py'}:down"
    run_suite(cases(3, seed=2), agent, tmp_path / "down")
    r = _dissect_raw(tmp_path / "down", "--agent", agent)
    assert r.returncode == 3 and "the model service failed 3 times" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "down" / "dissect.jsonl").exists()  # nothing recorded: a re-run will retry it


MARKER_AGENT = '''
import pathlib
pathlib.Path(__file__).with_name("imported").write_text("yes")

async def nothing(case, env):
    return None
'''


def test_a_stored_python_agent_is_never_imported_without_consent(tmp_path):
    (tmp_path / "mine.py").write_text(MARKER_AGENT)
    agent = f"python:{tmp_path / 'mine.py'}:nothing"
    run_suite(cases(2, seed=1), agent, tmp_path / "run")
    (tmp_path / "imported").unlink()
    r = _dissect_raw(tmp_path / "run")
    assert r.returncode != 0 and f"pass --agent {agent}" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "imported").exists()
    assert _dissect(tmp_path / "run", "--agent", agent, "--k", "1")["cases"] == 2
    assert (tmp_path / "imported").exists()


def test_a_stored_model_file_is_honoured_or_the_command_refuses(tmp_path):
    run_suite(cases(2, seed=1), "random", tmp_path / "run")
    store = RunStore(tmp_path / "run", write=True)
    store.set_meta({"agent": "tools", "model": "local:my-finetune"})
    store.close()
    r = _dissect_raw(tmp_path / "run")
    assert r.returncode != 0 and "--model-path" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    store = RunStore(tmp_path / "run", write=True)
    store.set_meta({MODEL_PATH_META: str(tmp_path / "gone.gguf")})
    store.close()
    r = _dissect_raw(tmp_path / "run")
    assert r.returncode != 0 and "no longer exists" in r.stderr
    (tmp_path / "gone.gguf").write_bytes(b"GGUF")
    meta = {"agent": "tools", "model": "local:gone", MODEL_PATH_META: str(tmp_path / "gone.gguf")}
    assert choose_rerun(meta, "x", None, None, None).model_path == tmp_path / "gone.gguf"
    assert choose_rerun(meta, "x", None, None, Path("/other.gguf")).model_path == Path("/other.gguf")
    embedded = {"agent": "tools", "model": f"local:{embedded_stem()}"}
    assert choose_rerun(embedded, "x", None, None, None) == choose_rerun(embedded, "x", None, "local", None)
    with pytest.raises(PlanprobeError, match="--model"):
        choose_rerun({"agent": "tools", "model": "openai:gpt-4o"}, "x", None, None, None)


def test_a_local_run_records_its_model_file(tmp_path):
    from planprobe.models.local import default_model_path

    try:
        gguf = default_model_path()
    except PlanprobeError:
        pytest.skip("the embedded model is not installed")
    suite = tmp_path / "one.jsonl"
    subprocess.run(planprobe_cmd() + ["generate", "constraints", "-o", str(suite), "--n", "1", "--actions", "2", "-q"],
                   check=True, capture_output=True, timeout=300)
    r = subprocess.run(planprobe_cmd() + ["run", str(suite), "--model", "local", "--model-path", str(gguf),
                                          "--out", str(tmp_path / "run"), "--max-iterations", "1", "--no-cache",
                                          "-q", "--threads", "1"],
                       capture_output=True, text=True, timeout=600, env=subprocess_env())
    assert r.returncode == 0, r.stderr
    store = RunStore(tmp_path / "run")
    assert store.meta()[MODEL_PATH_META] == str(gguf.resolve())
    store.close()
