"""--workers N: cases sharded over local processes, one store written by the coordinator."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

from helpers import cases, planprobe_cmd, subprocess_env
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

AGENTS = Path(__file__).with_name("scale_agents.py")


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "s.jsonl"
    write_suite(cases(n=24, seed=3, actions=(3, 4)), path)
    return path


def run(suite_path, out, *extra, **env):
    return subprocess.run([*planprobe_cmd(), "run", str(suite_path), "--out", str(out), "-q", *extra],
                          check=False, capture_output=True, text=True, env=subprocess_env(**env), timeout=600)


def stored(out) -> list[tuple[str, int, bool, str | None]]:
    with RunStore(out) as store:
        return [(r.case_id, r.trial, r.passed, r.primary_error) for r in store.rows()]


def ran(log: Path) -> Counter:
    return Counter(line.split()[0] for line in log.read_text().splitlines()) if log.exists() else Counter()


def test_workers_store_what_one_process_stores_each_result_once(suite, tmp_path):
    one = run(suite, tmp_path / "one", "--agent", "random", "--trials", "2")
    two = run(suite, tmp_path / "two", "--agent", "random", "--trials", "2", "--workers", "3")
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert stored(tmp_path / "two") == stored(tmp_path / "one")
    assert len(stored(tmp_path / "two")) == 48
    assert not (tmp_path / "two" / "shards").exists()  # merged and removed
    again = run(suite, tmp_path / "two", "--agent", "random", "--trials", "2", "--workers", "3")
    assert again.returncode == 0 and stored(tmp_path / "two") == stored(tmp_path / "one")


def test_a_worker_killed_mid_run_is_replaced_and_nothing_is_lost_or_stored_twice(suite, tmp_path):
    log, marker = tmp_path / "calls.log", tmp_path / "killed"
    ids = [c.id for c in cases(n=24, seed=3, actions=(3, 4))]
    r = run(suite, tmp_path / "r", "--agent", f"python:{AGENTS}:oracle_killing", "--workers", "2",
            "--concurrency", "2", PLANPROBE_TEST_CALL_LOG=str(log), PLANPROBE_TEST_KILL_MARKER=str(marker),
            PLANPROBE_TEST_KILL_CASE=ids[9])
    assert r.returncode == 0, r.stderr
    assert marker.exists()
    warnings = [line for line in r.stderr.splitlines() if "died" in line]
    assert len(warnings) == 1 and "signal 9" in warnings[0], r.stderr
    rows = stored(tmp_path / "r")
    assert sorted(cid for cid, *_ in rows) == sorted(ids) and all(p for _, _, p, _ in rows)
    counts = ran(log)
    assert set(counts) == set(ids)  # the killed case too: it ran again in the replacement worker
    # only the cases in flight in the killed worker ran again (its per-worker concurrency: 1)
    assert sum(n - 1 for n in counts.values()) <= 1


def test_a_full_disk_on_one_shard_stops_with_one_line_and_resume_completes(suite, tmp_path):
    log = tmp_path / "calls.log"
    agent = f"python:{AGENTS}:oracle_logged"
    r = run(suite, tmp_path / "r", "--agent", agent, "--workers", "2", PLANPROBE_TEST_FULL_SHARD="1:2",
            PLANPROBE_TEST_CALL_LOG=str(log))
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "No space left on device" in lines[0] and "shard 1" in lines[0], r.stderr
    partial = stored(tmp_path / "r")
    assert 0 < len(partial) < 24
    first = ran(log)
    r2 = run(suite, tmp_path / "r", "--agent", agent, "--workers", "2", PLANPROBE_TEST_CALL_LOG=str(log))
    assert r2.returncode == 0, r2.stderr
    rows = stored(tmp_path / "r")
    assert len(rows) == 24 and len({(c, t) for c, t, *_ in rows}) == 24 and all(p for _, _, p, _ in rows)
    assert set(partial) <= set(rows)
    # the resume ran only what was not stored: no case stored before ran again
    second = ran(log) - first
    assert not set(second) & {cid for cid, *_ in partial}


def test_shard_stores_left_by_a_killed_run_are_merged_not_rerun(suite, tmp_path):
    import asyncio

    from planprobe.environment import Limits
    from planprobe.runner.engine import RunConfig, open_run
    from planprobe.scale.shard import ShardRunner
    from planprobe.scale.work import WorkerRecipe, plan_shards
    from planprobe.suites.io import iter_suite

    log = tmp_path / "calls.log"
    agent = f"python:{AGENTS}:oracle_logged"
    out = tmp_path / "r"
    config = RunConfig(agent=agent, limits=Limits(max_iterations=50, timeout_s=180.0))
    store = open_run(out, iter_suite(suite), config, suite_name=str(suite))
    shards = list(plan_shards(store, config, workers=2))
    store.close()
    # a worker finished the first shard into its shard store, then the coordinator was killed
    runner = ShardRunner(WorkerRecipe(agent), config, out / "shards")
    import os
    os.environ["PLANPROBE_TEST_CALL_LOG"] = str(log)
    try:
        got: list[str] = []
        asyncio.run(runner.run(shards[0], lambda t, v: got.append(t)))
    finally:
        del os.environ["PLANPROBE_TEST_CALL_LOG"]
    first = ran(log)
    assert len(got) == len(shards[0].items) == sum(first.values())
    r = run(suite, out, "--agent", agent, "--workers", "2", PLANPROBE_TEST_CALL_LOG=str(log))
    assert r.returncode == 0, r.stderr
    assert len(stored(out)) == 24
    assert max(ran(log).values()) == 1  # nothing of the first shard ran twice


@pytest.mark.parametrize("args, message", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--backend", "spark"], "--backend must be one of processes, ray"),
    (["--address", "127.0.0.1:1"], "--address is for --backend ray"),
    (["--rpm", "0"], "--rpm must be above 0"),
])
def test_bad_scaling_options_are_one_line(suite, tmp_path, args, message):
    r = run(suite, tmp_path / "r", "--agent", "random", *args)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"error: {message}"] or message in r.stderr.strip(), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def _rerollouts(run):
    import sqlite3

    with sqlite3.connect(run / "run.sqlite") as db:
        return db.execute("SELECT case_id, trial, attempt, steps, passed, primary_error FROM rerollouts "
                          "ORDER BY case_id, trial, attempt").fetchall()


def test_label_and_debug_with_workers_write_what_one_process_writes(tmp_path):
    import json
    import shutil

    repair_agent = Path(__file__).resolve().parents[1] / "debug" / "repair_agent.py"
    pp = planprobe_cmd()
    env = subprocess_env()
    assert subprocess.run([*pp, "generate", "constraints", "--actions", "3-4", "--n", "6", "--seed", "3", "-o",
                           str(tmp_path / "s.jsonl")], check=False, env=env).returncode == 0
    r = run(tmp_path / "s.jsonl", tmp_path / "a", "--agent", f"python:{repair_agent}:agent", "--workers", "2")
    assert r.returncode == 0, r.stderr
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    outs = {}
    for name, workers in (("a", "1"), ("b", "2")):
        for cmd in (["label", "-o", str(tmp_path / f"{name}.labels")], ["debug", "--detector", "oracle",
                                                                          "--max-rounds", "2", "--json"],
                    ["debug", "--detector", "random", "--max-rounds", "2", "--json"]):
            r = subprocess.run([*pp, cmd[0], str(tmp_path / name), *cmd[1:], "-q", "--workers", workers],
                               check=False, capture_output=True, text=True, env=env, timeout=600)
            assert r.returncode == 0, r.stderr
            if "--json" in cmd:
                summary = json.loads(r.stdout)
                summary.pop("output")
                outs[(name, cmd[2])] = summary
    assert (tmp_path / "a.labels").read_bytes() == (tmp_path / "b.labels").read_bytes()
    for det in ("oracle", "random"):
        assert outs[("a", det)] == outs[("b", det)]
        assert (tmp_path / "a" / f"debug-{det}.jsonl").read_bytes() == (tmp_path / "b" / f"debug-{det}.jsonl").read_bytes()
    attempts = _rerollouts(tmp_path / "b")
    assert attempts == _rerollouts(tmp_path / "a") and attempts
    assert max(a for _, _, a, *_ in attempts) >= 2  # the second debug numbered its attempts after the first's


def test_sweep_and_dissect_with_workers_write_what_one_process_writes(tmp_path):
    import json

    pp, env = planprobe_cmd(), subprocess_env()
    for name, workers in (("a", "1"), ("b", "2")):
        r = subprocess.run([*pp, "sweep", "--out", str(tmp_path / name), "--agent", "random", "--k", "2", "--cap", "10",
                            "--stop", "4", "--threshold", "0", "--json", "-q", "--workers", workers],
                           check=False, capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr
        r = subprocess.run([*pp, "dissect", str(tmp_path / name), "--sample", "6", "--json", "-q", "--workers",
                            workers], check=False, capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["sample"] == 6
    for n in (2, 3, 4):
        assert stored(tmp_path / "a" / "runs" / f"n{n}") == stored(tmp_path / "b" / "runs" / f"n{n}")
    rows = {name: b"".join(p.read_bytes() for p in sorted((tmp_path / name / "runs").glob("*/dissect.jsonl")))
            for name in ("a", "b")}
    assert rows["a"] == rows["b"] and rows["a"].count(b"\n") == 6
