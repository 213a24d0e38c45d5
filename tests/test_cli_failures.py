"""Every failure a user can meet is one line and a non-zero exit; files are written
atomically; user text is printed as is (issue #12 items 10-13). Each test injects
its fault."""

import asyncio
import json
import os
import shutil
import subprocess
import threading

import pytest

from helpers import cases, planprobe_cmd, subprocess_env
from planprobe.atomic import write_lines_atomic
from planprobe.errors import PlanprobeError
from planprobe.suites.io import write_suite


def pp(*args, cwd=None, env=None):
    return subprocess.run(planprobe_cmd() + [str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          env=env or subprocess_env(), timeout=300)


def one_line_error(r, *fragments, code=2):
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    for f in fragments:
        assert f in r.stderr, (f, r.stderr)


@pytest.fixture
def suite_line():
    return json.loads(cases(1, seed=7)[0].model_dump_json())


# -- item 10: validate on load --------------------------------------------------


def test_a_malformed_skeleton_is_refused_when_the_suite_is_loaded(tmp_path, suite_line):
    broken = dict(suite_line)
    broken["spec"] = dict(broken["spec"], skeleton=[{"parts": [{"c": 1}], "j": []}])
    swapped = json.loads(json.dumps(suite_line))
    part = swapped["spec"]["skeleton"][0]["parts"][0]
    part["b"] = 1 - part["b"]  # the sentence now says the opposite of the constraints
    for name, case, message in (("broken", broken, "field 'spec.skeleton.0': malformed sentence"),
                                ("swapped", swapped, "field 'spec.skeleton': states")):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(case) + "\n")
        r = pp("run", tmp_path / f"{name}.jsonl", "--out", tmp_path / name)
        one_line_error(r, f"{name}.jsonl:1: case", message)
        assert not (tmp_path / name).exists()


@pytest.mark.parametrize("value, message", [
    ('"1"', "expected a whole number"), ("true", "expected a whole number"), ("1.0", "expected a whole number"),
    ("0", "not a format version"), ("null", "expected a whole number"),
])
def test_schema_version_of_the_wrong_type_is_refused(tmp_path, suite_line, value, message):
    line = json.dumps(suite_line).replace('"schema_version":1', '"schema_version":' + value, 1)
    line = line.replace('"schema_version": 1', '"schema_version": ' + value, 1)
    (tmp_path / "s.jsonl").write_text(line + "\n")
    one_line_error(pp("run", tmp_path / "s.jsonl", "--out", tmp_path / "r"), "s.jsonl:1", "schema_version", message)


def test_nan_and_infinity_in_a_suite_are_refused(tmp_path, suite_line):
    case = dict(suite_line, meta=dict(suite_line["meta"], difficulty={"actions": "NAN"}))
    (tmp_path / "s.jsonl").write_text(json.dumps(case).replace('"NAN"', "NaN") + "\n")
    one_line_error(pp("run", tmp_path / "s.jsonl", "--out", tmp_path / "r"), "s.jsonl:1", "NaN is not a JSON number")


@pytest.mark.parametrize("args, message", [
    (["--timeout", "nan"], "--timeout nan: expected a finite number"),
    (["--timeout", "-1"], "--timeout -1: must be above 0"),
    (["--timeout", "inf"], "--timeout inf: expected a finite number"),
    (["--max-tokens", "-5"], "--max-tokens -5: must be at least 1"),
    (["--price-in", "-0.5"], "--price-in -0.5: must be at least 0"),
    (["--price-out", "nan"], "--price-out nan"),
    (["--retries", "-2"], "--retries -2: must be at least 0"),
    (["--retry-budget", "-1"], "--retry-budget -1"),
    (["--request-timeout", "nan"], "--request-timeout nan"),
    (["--temperature", "nan"], "--temperature nan"),
    (["--concurrency", "0"], "--concurrency 0: must be at least 1"),
    (["--trials", "-1"], "--trials -1"),
    (["--threads", "-1"], "--threads -1"),
])
def test_out_of_range_run_options_are_refused(tmp_path, args, message):
    write_suite(cases(1), tmp_path / "s.jsonl")
    r = pp("run", tmp_path / "s.jsonl", "--out", tmp_path / "r", *args)
    one_line_error(r, message)
    assert not (tmp_path / "r").exists()


def test_out_of_range_generate_and_analysis_options_are_refused(tmp_path):
    one_line_error(pp("generate", "constraints", "--n", "5", "--workers", "-1", "-o", tmp_path / "s.jsonl"),
                   "--workers -1")
    assert not (tmp_path / "s.jsonl").exists()
    one_line_error(pp("demo", "--n", "-3", "--model", "none", "--out", tmp_path / "d"), "--n -3")
    one_line_error(pp("anatomy", tmp_path, "--top", "0"), "--top 0")
    one_line_error(pp("sweep", "--out", tmp_path / "sw", "--timeout", "nan"), "--timeout nan")
    assert not (tmp_path / "sw").exists()


# -- item 11: one line for every failure path ---------------------------------------


def test_file_system_failures_are_one_line(tmp_path):
    (tmp_path / "adir").mkdir()
    one_line_error(pp("generate", "constraints", "--n", "2", "-o", tmp_path / "adir"), "adir: it is a directory")
    one_line_error(pp("generate", "constraints", "--n", "2", "-o", "/proc/planprobe-test/s.jsonl"), "cannot write")
    write_suite(cases(2), tmp_path / "s.jsonl")
    (tmp_path / "file").write_text("x")
    one_line_error(pp("run", tmp_path / "s.jsonl", "--out", tmp_path / "file"), "is a file, not a run directory")
    one_line_error(pp("report", tmp_path / "adir", "-o", tmp_path / "r.html"), "not a planprobe run directory")
    one_line_error(pp("run", tmp_path / "adir", "--out", tmp_path / "r"), "is a directory, not a suite file")


def _tmpfs_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"],
                          capture_output=True).returncode == 0


@pytest.mark.skipif(not _tmpfs_works(), reason="needs unshare with user and mount namespaces")
def test_a_full_disk_is_one_line_and_leaves_no_temporary_file(tmp_path):
    write_suite(cases(40, seed=1), tmp_path / "s.jsonl")
    disk = tmp_path / "disk"
    disk.mkdir()
    cmd = " ".join(planprobe_cmd())
    script = (f"mount -t tmpfs -o size=96k none {disk} && "
              f"{cmd} generate constraints --n 400 -q -o {disk}/big.jsonl; echo rc=$?; "
              f"{cmd} run {tmp_path}/s.jsonl --agent random -q --out {disk}/run; echo rc=$?; "
              f"ls -A {disk}")
    r = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=subprocess_env(),
                       timeout=300)
    assert r.stdout.count("rc=2") == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 2, r.stderr
    assert "No space left on device" in r.stderr or "disk is full" in r.stderr, r.stderr
    assert "big.jsonl" not in r.stdout and ".tmp" not in r.stdout  # no half file, no temporary file


def test_database_and_parser_failures_are_one_line(tmp_path):
    (tmp_path / "rc").mkdir()
    (tmp_path / "rc" / "run.sqlite").write_bytes(os.urandom(4096))
    one_line_error(pp("show", tmp_path / "rc"), "not a readable run database")
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n")
    one_line_error(pp("run", tmp_path / "deep.jsonl", "--out", tmp_path / "r"), "deep.jsonl:1", "nested too deeply")
    (tmp_path / "latin.jsonl").write_bytes(b'{"id": "\xe9"}\n')
    one_line_error(pp("run", tmp_path / "latin.jsonl", "--out", tmp_path / "r"), "latin.jsonl:1: not UTF-8")


def test_a_file_that_is_not_a_model_is_one_line(tmp_path):
    write_suite(cases(1), tmp_path / "s.jsonl")
    (tmp_path / "fake.gguf").write_text("not a model")
    r = pp("run", tmp_path / "s.jsonl", "--model", "local", "--model-path", tmp_path / "fake.gguf",
           "--out", tmp_path / "r")
    one_line_error(r, "not a model llama.cpp can load", "fake.gguf")


def test_user_text_is_never_read_as_markup_or_emoji(tmp_path):
    r = pp("generate", "constraints", "--n", "3", "-o", "runs:x:v2 [red]b[/red].jsonl", cwd=tmp_path)
    assert r.returncode == 0 and "wrote 3 cases to runs:x:v2 [red]b[/red].jsonl" in r.stderr, r.stderr
    run = tmp_path / "[red]run:x:"
    r = pp("run", "runs:x:v2 [red]b[/red].jsonl", "--agent", "random", "--out", run, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = pp("anatomy", run)
    assert r.returncode == 0 and "[red]run:x:" in r.stdout and "❌" not in r.stdout, r.stdout
    r = pp("show", tmp_path / "[bold]missing")
    one_line_error(r, "run directory not found", "[bold]missing")
    r = pp("report", run, tmp_path / "[/red]", "-o", tmp_path / "r.html")
    one_line_error(r, "[/red]")


# -- item 12: atomic writes ------------------------------------------------------------


def test_atomic_writes_replace_a_planted_symlink_and_leave_nothing_on_failure(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "suite.jsonl"
    target.symlink_to(victim)
    assert write_lines_atomic(target, ["a", "b"]) == 2
    assert victim.read_text() == "precious" and not target.is_symlink() and target.read_text() == "a\nb\n"

    def failing():
        yield "c"
        raise PlanprobeError("bad case")

    with pytest.raises(PlanprobeError):
        write_lines_atomic(target, failing())
    assert target.read_text() == "a\nb\n"  # the old version stays whole
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["suite.jsonl"]  # no temporary file left
    # Ctrl-C half-way: the same
    def interrupted():
        yield "c"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_lines_atomic(target, interrupted())
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["suite.jsonl"]


def test_atomic_files_have_ordinary_permissions_and_pipes_are_written_into(tmp_path):
    write_lines_atomic(tmp_path / "s.jsonl", ["x"])
    assert (tmp_path / "s.jsonl").stat().st_mode & 0o777 == 0o666 & ~_umask()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    def read() -> None:
        with open(fifo) as f:
            got.append(f.read())

    reader = threading.Thread(target=read)
    reader.start()
    write_lines_atomic(fifo, ["one", "two"])
    reader.join(timeout=60)
    assert got == ["one\ntwo\n"] and fifo.is_fifo()


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


# -- item 13: small correctness items ----------------------------------------------------


def test_demo_with_another_n_refuses_before_overwriting_the_suite(tmp_path):
    out = tmp_path / "demo"
    r = pp("demo", "--out", out, "--n", "3", "--model", "none")
    assert r.returncode == 0, r.stderr
    suite = out / "suites" / "constraints-basic.jsonl"
    before = suite.read_bytes()
    r = pp("demo", "--out", out, "--n", "4", "--model", "none")
    one_line_error(r, "holds a demo of other cases")
    assert suite.read_bytes() == before
    r = pp("demo", "--out", out, "--n", "3", "--model", "none")  # the same demo again resumes
    assert r.returncode == 0, r.stderr


class Stuck:
    """Never finishes: ends at the time limit whatever the machine's speed."""

    name = "stuck"

    async def __call__(self, case, env):
        await asyncio.Event().wait()


class Looping:
    """Steps forever: ends at the iteration limit."""

    name = "looping"

    async def __call__(self, case, env):
        while True:
            env.step()
            await asyncio.sleep(0)


def test_show_and_report_say_which_limit_a_timeout_hit(tmp_path):
    from planprobe.environment import Limits
    from planprobe.runner.engine import RunConfig, open_run, run_pending

    suite = cases(4, seed=8)
    out = tmp_path / "run"

    class Mixed:
        name = "mixed"

        async def __call__(self, case, env):
            agent = Stuck() if case.id == suite[0].id else Looping()
            return await agent(case, env)

    config = RunConfig(agent="mixed", concurrency=4, limits=Limits(max_iterations=3, timeout_s=0.2))
    store = open_run(out, suite, config)
    asyncio.run(run_pending(store, Mixed(), config))
    store.close()
    data = json.loads(pp("show", out, "--json").stdout)
    assert data["errors"] == {"timeout": 4} and data["timeouts"] == {"iteration_limit": 3, "time_limit": 1}
    r = pp("show", out)
    assert "timeout 4 (iteration limit 3, time limit 1)" in r.stdout, r.stdout
    assert pp("report", out, "-o", tmp_path / "r.html").returncode == 0
    html = (tmp_path / "r.html").read_text()
    assert "timeout (iteration limit)" in html and "timeout (time limit)" in html
