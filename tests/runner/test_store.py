"""The run store under faults: one writer per directory, read-only readers, settings
that must match on resume, all-or-nothing creation, and a work list streamed from
the store (issue #12 items 7, 8 and 19)."""

import asyncio
import json
import os
import shutil
import signal
import subprocess

import pytest

from helpers import cases, planprobe_cmd, planprobe_here, subprocess_env
from planprobe.agents import make_agent
from planprobe.analysis.summary import summarize
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.runner import store as store_module
from planprobe.runner.engine import RunConfig, open_run, run_episode, run_pending
from planprobe.runner.store import RunStore, suite_digest
from planprobe.suites.io import write_suite
from planprobe.suites.registry import get_family


def pp(*args, cwd=None):
    # SIGINT back to its default in the child: a test run started in the background (nohup, '&' in a
    # script) ignores SIGINT and passes that on, and Python then never turns Ctrl-C into KeyboardInterrupt
    return subprocess.run(planprobe_cmd() + [str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          env=subprocess_env(), timeout=300,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def one_line_error(r, *fragments):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    for f in fragments:
        assert f in r.stderr, (f, r.stderr)


def _finish(out, suite, config):
    store = open_run(out, suite, config)
    try:
        return asyncio.run(run_pending(store, make_agent(config.agent), config))
    finally:
        store.close()


# -- item 7: one writer per run directory -------------------------------------


def test_a_second_writer_is_refused_while_the_first_holds_the_directory(tmp_path):
    suite = cases(6, seed=1)
    write_suite(suite, tmp_path / "s.jsonl")
    config = RunConfig(agent="oracle")
    holder = open_run(tmp_path / "run", suite, config)  # this process holds the lock, as a running 'run' does
    try:
        with pytest.raises(PlanprobeError, match="in use by another planprobe run"):
            open_run(tmp_path / "run", suite, config)
        r = pp("run", tmp_path / "s.jsonl", "--out", tmp_path / "run", "-q")
        one_line_error(r, "is in use by another planprobe run", f"(process {os.getpid()})")
        # readers are not writers: they work beside the running writer
        r = pp("show", tmp_path / "run", "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["pending"] == 6, r.stderr
    finally:
        holder.close()
    r = pp("run", tmp_path / "s.jsonl", "--out", tmp_path / "run", "-q")  # the lock went with the holder
    assert r.returncode == 0, r.stderr
    rows = RunStore(tmp_path / "run").rows()
    assert len(rows) == 6 and len({r.case_id for r in rows}) == 6


def test_readers_open_read_only_and_change_nothing(tmp_path):
    suite = cases(5, seed=2)
    _finish(tmp_path / "run", suite, RunConfig(agent="random"))
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()}
    assert "run.sqlite-wal" not in before  # a closed writer leaves one self-contained file
    store = RunStore(tmp_path / "run")
    with pytest.raises(PlanprobeError, match="read-only"):
        store.set_meta({"x": "y"})
    store.close()
    for args in (["show", tmp_path / "run"], ["anatomy", tmp_path / "run"], ["trials", tmp_path / "run"],
                 ["compare", tmp_path / "run", tmp_path / "run"],
                 ["report", tmp_path / "run", "-o", tmp_path / "r.html"]):
        r = planprobe_here(*args)  # in process: a reader's output and the files are what is checked
        assert r.returncode == 0, (args, r.stderr)
    assert {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()} == before


def _read_only_mount_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _read_only_mount_works(), reason="needs unshare with user and mount namespaces")
def test_reading_commands_work_on_read_only_media(tmp_path):
    suite = cases(5, seed=2)
    run = tmp_path / "media" / "run"
    _finish(run, suite, RunConfig(agent="random"))
    media = tmp_path / "media"
    cmd = " ".join(planprobe_cmd())
    script = (f"mount --bind {media} {media} && mount -o remount,bind,ro {media} && "
              f"{cmd} show {run} --json && {cmd} report {run} -o {tmp_path}/r.html && "
              f"{cmd} run /nonexistent.jsonl --out {run}/x; "
              f"{cmd} run {tmp_path}/s.jsonl --out {run}")
    write_suite(suite, tmp_path / "s.jsonl")
    r = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=subprocess_env(),
                       timeout=300)
    assert '"cases": 5' in r.stdout, r.stderr
    assert (tmp_path / "r.html").exists()
    assert "Traceback" not in r.stderr
    # writing there is refused with one line
    assert "cannot write to run directory" in r.stderr or "Read-only file system" in r.stderr, r.stderr


def test_open_run_stores_cases_and_settings_in_one_transaction(tmp_path):
    suite = cases(20, seed=3)

    def broken():
        yield from suite[:12]
        raise PlanprobeError("suite.jsonl:13: not valid JSON")

    with pytest.raises(PlanprobeError, match="not valid JSON"):
        open_run(tmp_path / "run", broken(), RunConfig(agent="oracle"))
    assert not (tmp_path / "run").exists()  # nothing half-made is left behind
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")

    def interrupted():
        yield from suite[:5]
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        open_run(tmp_path / "kept", interrupted(), RunConfig(agent="oracle"))
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == ["notes.txt", "run.lock"]
    store = open_run(tmp_path / "kept", suite, RunConfig(agent="oracle"))  # a clean start afterwards
    assert store.case_count() == 20 and store.meta()["agent"] == "oracle"
    store.close()


def test_a_suite_that_changes_between_check_and_store_is_refused(tmp_path):
    suite = cases(4, seed=3)
    with pytest.raises(PlanprobeError, match="changed while it was being read"):
        open_run(tmp_path / "run", suite[:3], RunConfig(agent="oracle"), digest=suite_digest(suite))
    assert not (tmp_path / "run").exists()


# -- item 8: resume never mixes settings ----------------------------------------


def test_resume_refuses_other_limits_naming_the_setting(tmp_path):
    suite = tmp_path / "s.jsonl"
    write_suite(cases(4, seed=4), suite)
    out = tmp_path / "run"
    r = planprobe_here("run", suite, "--agent", "faulty:stall", "--max-iterations", "1", "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    r = planprobe_here("run", suite, "--agent", "faulty:stall", "--max-iterations", "50", "--out", out, "-q")
    one_line_error(r, "max_iterations=1, not 50", "--max-iterations")
    r = planprobe_here("run", suite, "--agent", "faulty:stall", "--max-iterations", "1", "--timeout", "30", "--out", out, "-q")
    one_line_error(r, "timeout_s=180, not 30", "--timeout")
    r = planprobe_here("run", suite, "--agent", "faulty:stall", "--max-iterations", "1", "--out", out, "-q", "--trials", "2")
    assert r.returncode == 0, r.stderr  # more trials under the same settings is a resume, not a mix
    assert summarize(RunStore(out)).overall.cases == 8


def test_runs_written_before_limits_were_checked_still_resume(tmp_path):
    suite = cases(3, seed=4)
    _finish(tmp_path / "run", suite, RunConfig(agent="oracle"))
    store = RunStore(tmp_path / "run", write=True)
    store.db.execute("DELETE FROM meta WHERE key = 'limits'")
    store.db.commit()
    store.close()
    assert _finish(tmp_path / "run", suite, RunConfig(agent="oracle", limits=Limits(max_iterations=9))) == 0


# -- item 19: the work list streams from the store --------------------------------


def test_pending_work_streams_in_pages_and_resumes_exactly_once(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "PAGE", 4)  # many pages for a small suite
    suite = cases(23, seed=5)
    config = RunConfig(agent="oracle", trials=2, concurrency=3)
    store = open_run(tmp_path / "run", suite, config)
    # a killed run: some trials of some cases are already stored
    agent = make_agent("oracle")
    for case in suite[::3]:
        trace = asyncio.run(run_episode(case, agent, Limits()))
        store.add_result(trace, get_family(case.family).check(case, trace))
    assert store.pending_count(2) == 46 - 8
    pending = list(store.pending(2))
    assert len(pending) == 38 and len({(c.id, t) for c, t in pending}) == 38
    assert [c.id for c, _ in pending] == sorted((c.id for c, _ in pending), key=[s.id for s in suite].index)
    assert asyncio.run(run_pending(store, agent, config)) == 38
    keys = [(r.case_id, r.trial) for r in store.rows()]
    assert len(keys) == 46 == len(set(keys))
    assert asyncio.run(run_pending(store, agent, config)) == 0
    store.close()


INTERRUPTING_AGENT = """
import os, signal
from planprobe.agents import make_agent

_oracle = make_agent("oracle")
_seen = []


async def agent(case, env):
    _seen.append(case.id)
    if len(_seen) == 5:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of the run, at a known point
    return await _oracle(case, env)
"""


def test_ctrl_c_keeps_finished_results_says_so_in_one_line_and_resumes_exactly_once(tmp_path):
    write_suite(cases(30, seed=6), tmp_path / "s.jsonl")
    (tmp_path / "agent.py").write_text(INTERRUPTING_AGENT)
    args = ("run", tmp_path / "s.jsonl", "--agent", f"python:{tmp_path / 'agent.py'}:agent", "--out", tmp_path / "r",
            "-q", "--concurrency", "1")
    r = pp(*args)
    assert r.returncode == 130 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "results are saved in" in r.stderr, r.stderr
    kept = len(RunStore(tmp_path / "r").rows())
    assert 4 <= kept < 30
    r = pp(*args)  # the agent interrupts again after 5 more cases; the third run finishes
    r = pp(*args)
    r = pp(*args)
    r = pp(*args)
    r = pp(*args)
    rows = RunStore(tmp_path / "r").rows()
    assert len(rows) == 30 == len({x.case_id for x in rows}) and all(x.passed for x in rows)


def test_sigterm_stops_a_run_as_ctrl_c_does_and_exits_143(tmp_path):
    """``kill`` (a CI time limit, a service manager) used to end a run silently with 143; now the
    finished results are kept, one line says so, and the same command resumes."""
    write_suite(cases(12, seed=7), tmp_path / "s.jsonl")
    (tmp_path / "agent.py").write_text(INTERRUPTING_AGENT.replace("signal.SIGINT", "signal.SIGTERM"))
    args = ("run", tmp_path / "s.jsonl", "--agent", f"python:{tmp_path / 'agent.py'}:agent", "--out", tmp_path / "r",
            "-q", "--concurrency", "1")
    r = pp(*args)
    assert r.returncode == 143 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("terminated (SIGTERM): ") and "results are saved in" in lines[0]
    kept = len(RunStore(tmp_path / "r").rows())
    assert 4 <= kept < 12
    for _ in range(3):
        r = pp(*args)
    rows = RunStore(tmp_path / "r").rows()
    assert len(rows) == 12 == len({x.case_id for x in rows}) and all(x.passed for x in rows)
