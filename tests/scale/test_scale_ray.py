"""--backend ray on a real local Ray cluster (head plus one worker node on loopback, 2 CPUs).

The cluster is started with ``ray start --block`` subprocesses in a temp dir of this test
and stopped by their process ids (and any Ray process whose command line names that temp
dir), never by a machine-wide ``ray stop``. Nothing here depends on how fast the machine is:
timeouts are generous and no figure is timed."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from helpers import cases, planprobe_cmd, subprocess_env
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite

ray = pytest.importorskip("ray")
AGENTS = Path(__file__).with_name("scale_agents.py")
# Ray 2.5x+ clusters require a token; this cluster and every client of it share a fresh one
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16), "RAY_USAGE_STATS_ENABLED": "0"}
SRC = Path(__file__).resolve().parents[2] / "src"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_bin() -> str:
    found = Path(sys.executable).with_name("ray")
    return str(found) if found.exists() else (shutil.which("ray") or "ray")


@pytest.fixture(scope="module")
def cluster():
    temp = Path(tempfile.mkdtemp(prefix="pp-ray-", dir="/tmp"))  # short: Ray's socket paths have a length limit
    port = _free_port()
    # RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S=0: on SIGTERM a node stops at once instead of draining for up to
    # 30 s (Ray's default, for Kubernetes pods): this cluster serves nothing once its tests are done
    env = subprocess_env(PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
                         RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0", **AUTH)
    common = ["--block", "--num-cpus", "1", "--disable-usage-stats"]
    procs = [subprocess.Popen([_ray_bin(), "start", "--head", "--port", str(port), "--node-ip-address", "127.0.0.1",
                               "--include-dashboard=false", "--temp-dir", str(temp), *common],
                              env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:  # the GCS answers
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or procs[0].poll() is not None:
                    pytest.fail("the Ray head did not start")
                time.sleep(1)
        procs.append(subprocess.Popen([_ray_bin(), "start", "--address", address, "--node-ip-address", "127.0.0.1",
                                       *common], env=env, start_new_session=True,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        probe = ("import ray,time,sys\nray.init(address=sys.argv[1], logging_level='ERROR')\n"
                 "t=time.time()\nwhile ray.cluster_resources().get('CPU',0)<2 and time.time()-t<240: time.sleep(1)\n"
                 "print(ray.cluster_resources().get('CPU',0))")
        out = subprocess.run([sys.executable, "-c", probe, address], check=False, capture_output=True, text=True, env=env,
                             timeout=400)
        assert out.stdout.strip().endswith("2.0"), out.stderr[-2000:]
        yield address
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        _kill_left_over(temp)
        shutil.rmtree(temp, ignore_errors=True)


def _kill_left_over(temp: Path) -> None:
    """Any Ray process of this cluster still alive: its command line names our temp dir."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(temp).encode() in cmd:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "s.jsonl"
    write_suite(cases(n=20, seed=5, actions=(3, 4)), path)
    return path


def run(suite_path, out, *extra, **env):
    return subprocess.run([*planprobe_cmd(), "run", str(suite_path), "--out", str(out), "-q", *extra],
                          check=False, capture_output=True, text=True, env=subprocess_env(**AUTH, **env), timeout=900)


def stored(out):
    with RunStore(out) as store:
        return [(r.case_id, r.trial, r.passed, r.primary_error) for r in store.rows()]


def test_ray_stores_what_one_process_stores(cluster, suite, tmp_path):
    one = run(suite, tmp_path / "one", "--agent", "random", "--trials", "2")
    r = run(suite, tmp_path / "ray", "--agent", "random", "--trials", "2", "--backend", "ray", "--address", cluster,
            "--workers", "2")
    assert one.returncode == 0 and r.returncode == 0, r.stderr[-3000:]
    assert stored(tmp_path / "ray") == stored(tmp_path / "one")
    assert r.stderr.strip() == ""


def test_address_auto_joins_the_running_cluster_instead_of_starting_one(cluster, suite, tmp_path):
    """``--address auto``: the cluster this test started (``ray start --head`` on loopback) is the
    one Ray finds — through RAY_ADDRESS here, so no other cluster on a shared machine is picked
    up — and the run stores what one process stores, its shard stores in the run directory."""
    one = run(suite, tmp_path / "one", "--agent", "random", "--trials", "2")
    r = run(suite, tmp_path / "auto", "--agent", "random", "--trials", "2", "--backend", "ray", "--address", "auto",
            "--workers", "2", RAY_ADDRESS=cluster)
    assert one.returncode == 0 and r.returncode == 0, r.stderr[-3000:]
    assert stored(tmp_path / "auto") == stored(tmp_path / "one")
    assert r.stderr.strip() == ""


def test_a_ray_worker_killed_mid_run_is_retried_and_every_case_is_stored_exactly_once(cluster, suite, tmp_path):
    log, marker = tmp_path / "calls.log", tmp_path / "killed"
    ids = [c.id for c in cases(n=20, seed=5, actions=(3, 4))]
    r = run(suite, tmp_path / "r", "--agent", f"python:{AGENTS}:oracle_killing", "--backend", "ray",
            "--address", cluster, "--workers", "2", "--concurrency", "2",
            PLANPROBE_TEST_CALL_LOG=str(log), PLANPROBE_TEST_KILL_MARKER=str(marker),
            PLANPROBE_TEST_KILL_CASE=ids[7])
    assert r.returncode == 0, r.stderr[-3000:]
    assert marker.exists()  # a worker really died
    killed_pid = int(marker.read_text())
    rows = stored(tmp_path / "r")
    assert [cid for cid, *_ in rows] == ids and all(p for _, _, p, _ in rows)  # every case once, in suite order
    runs = Counter(line.split()[0] for line in log.read_text().splitlines())
    assert set(runs) == set(ids)
    pids = {int(line.split()[1]) for line in log.read_text().splitlines()}
    assert killed_pid in pids or runs[ids[7]] == 1
    # the retried shard re-read its shard store: only what was in flight in the dead worker ran again
    assert sum(n - 1 for n in runs.values()) <= 1


def test_an_unreachable_ray_address_is_one_line_and_nothing_is_made(suite, tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = run(suite, tmp_path / "r", "--agent", "random", "--backend", "ray", "--address", f"127.0.0.1:{port}")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"cannot reach the Ray cluster at 127.0.0.1:{port}" in lines[0]
    assert not (tmp_path / "r").exists()


def test_rate_limits_on_ray_are_one_actor_that_every_task_asks(cluster):
    script = """
import sys, ray
from planprobe.models.ratelimit import RateLimits
from planprobe.scale.ray_backend import RayLimiter, _LimiterState
ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)
# a frozen clock: however long tasks take to start on a loaded machine, nothing refills meanwhile
limiter = RayLimiter(ray.remote(num_cpus=0)(_LimiterState).remote(RateLimits(rpm=60), lambda: 1000.0))

@ray.remote(num_cpus=1)
def ask(limiter, pause):
    if pause:
        limiter.pause("http://e/v1", 30)  # fire and forget, as the model backend does
        return ray.get(limiter.handle.reserve.remote("http://other/v1"))  # same caller: runs after the pause
    return ray.get(limiter.handle.reserve.remote("http://e/v1"))

print(ray.get(ask.remote(limiter, False)), ray.get(ask.remote(limiter, False)))
ray.get(ask.remote(limiter, True))
print(ray.get(limiter.handle.reserve.remote("http://e/v1")))
"""
    r = subprocess.run([sys.executable, "-c", script, cluster], check=False, capture_output=True, text=True,
                       env=subprocess_env(**AUTH), timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    first, second = (float(x) for x in r.stdout.split()[:2])
    assert first == 0.0 and second > 0  # one request a second: the second task waits, whichever node it ran on
    assert float(r.stdout.split()[2]) > 25  # a Retry-After from one task pauses every task of the run


# -- label, debug and dissect on Ray: the same output as one process and as worker processes --------------------

def cli(*args, **env):
    return subprocess.run([*planprobe_cmd(), *map(str, args)], check=False, capture_output=True, text=True,
                          env=subprocess_env(**AUTH, **env), timeout=900)


def _rerollouts(run):
    import sqlite3

    with sqlite3.connect(run / "run.sqlite") as db:
        return db.execute("SELECT case_id, trial, attempt, steps, passed, primary_error FROM rerollouts "
                          "ORDER BY case_id, trial, attempt").fetchall()


WAYS = {"one": ["--workers", "1"], "processes": ["--workers", "2"], "ray": ["--workers", "2", "--backend", "ray"]}


def test_label_and_debug_on_ray_write_what_one_process_and_worker_processes_write(cluster, tmp_path):
    import json

    repair_agent = Path(__file__).resolve().parents[1] / "debug" / "repair_agent.py"
    assert cli("generate", "constraints", "--actions", "3-4", "--n", "6", "--seed", "3", "-o",
               tmp_path / "s.jsonl").returncode == 0
    r = run(tmp_path / "s.jsonl", tmp_path / "one", "--agent", f"python:{repair_agent}:agent")
    assert r.returncode == 0, r.stderr
    for name in ("processes", "ray"):
        shutil.copytree(tmp_path / "one", tmp_path / name)
    outs = {}
    for name, how in WAYS.items():
        extra = [*how, "--address", cluster] if name == "ray" else how
        r = cli("label", tmp_path / name, "-o", tmp_path / f"{name}.labels", "-q", *extra)
        assert r.returncode == 0, r.stderr[-3000:]
        r = cli("debug", tmp_path / name, "--detector", "oracle", "--max-rounds", "2", "--json", "-q", *extra)
        assert r.returncode == 0, r.stderr[-3000:]
        outs[name] = json.loads(r.stdout)
        outs[name].pop("output")
    labels = {name: (tmp_path / f"{name}.labels").read_bytes() for name in WAYS}
    assert labels["ray"] == labels["one"] == labels["processes"] and labels["one"].count(b"\n") >= 3
    assert outs["ray"] == outs["one"] == outs["processes"]
    debug = {name: (tmp_path / name / "debug-oracle.jsonl").read_bytes() for name in WAYS}
    assert debug["ray"] == debug["one"] == debug["processes"]
    assert _rerollouts(tmp_path / "ray") == _rerollouts(tmp_path / "one") != []  # stored once, by the command


def test_dissect_on_ray_writes_what_one_process_writes_even_when_a_ray_worker_dies(cluster, tmp_path):
    r = cli("sweep", "--out", tmp_path / "one", "--agent", "random", "--k", "2", "--cap", "10", "--stop", "4",
            "--threshold", "0", "--json", "-q")
    assert r.returncode == 0, r.stderr
    for name in ("processes", "ray", "killed"):
        shutil.copytree(tmp_path / "one", tmp_path / name)
    agent = f"python:{AGENTS}:oracle_killing_once"
    marker = tmp_path / "killed.marker"
    marker.write_text("already")  # the reference runs never kill: the agent is the oracle
    rows = {}
    for name, how in (*WAYS.items(), ("killed", WAYS["ray"])):
        if name == "killed":
            marker.unlink()
        extra = [*how, "--address", cluster] if name in ("ray", "killed") else how
        r = cli("dissect", tmp_path / name, "--sample", "6", "--k", "1", "--json", "-q", "--agent", agent, *extra,
                PLANPROBE_TEST_KILL_MARKER=str(marker))
        assert r.returncode == 0, (name, r.stderr[-3000:])
        rows[name] = b"".join(p.read_bytes() for p in sorted((tmp_path / name / "runs").glob("*/dissect.jsonl")))
    assert marker.exists() and marker.read_text() != "already"  # a Ray worker really died mid-dissection
    assert rows["one"].count(b"\n") == 6
    assert rows["ray"] == rows["one"] == rows["processes"] == rows["killed"]  # each case written once, in order


def test_bad_backend_options_on_label_debug_and_dissect_are_one_line(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for cmd in (["label", tmp_path / "missing"], ["debug", tmp_path / "missing", "--detector", "oracle"],
                ["dissect", tmp_path / "missing"]):
        r = cli(*cmd, "--backend", "ray", "--address", f"127.0.0.1:{port}")
        assert r.returncode == 2, (cmd, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and f"cannot reach the Ray cluster at 127.0.0.1:{port}" in lines[0], (cmd, lines)
        r = cli(*cmd, "--address", "127.0.0.1:1")
        assert r.returncode == 2 and "--address is for --backend ray" in r.stderr, (cmd, r.stderr)
