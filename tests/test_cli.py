"""The command line, as users (and other checks) call it."""

import json
import subprocess

from helpers import planprobe_cmd, subprocess_env


def pp(*args, cwd=None):
    return subprocess.run(planprobe_cmd() + list(args), capture_output=True, text=True, cwd=cwd,
                          env=subprocess_env(), timeout=300)


def test_generate_run_show_round_trip(tmp_path):
    suite = tmp_path / "suite.jsonl"
    r = pp("generate", "constraints", "--actions", "3-5", "--n", "100", "--seed", "1", "-o", str(suite))
    assert r.returncode == 0, r.stderr
    again = tmp_path / "again.jsonl"
    pp("generate", "constraints", "--actions", "3-5", "--n", "100", "--seed", "1", "-o", str(again))
    assert suite.read_bytes() == again.read_bytes()
    r = pp("run", str(suite), "--agent", "faulty:drop", "--out", str(tmp_path / "run"), "-q")
    assert r.returncode == 0, r.stderr
    r = pp("show", str(tmp_path / "run"), "--json")
    data = json.loads(r.stdout)
    assert data["cases"] == 100 and data["passed"] == 0 and data["errors"] == {"action_lost": 100}


def test_extended_generation_and_oracle_run(tmp_path):
    suite = tmp_path / "ext.jsonl"
    assert pp("generate", "constraints", "--actions", "2-4", "--n", "30", "--extended", "-o", str(suite)).returncode == 0
    r = pp("run", str(suite), "--agent", "oracle", "--out", str(tmp_path / "run"), "-q")
    assert r.returncode == 0
    data = json.loads(pp("show", str(tmp_path / "run"), "--json").stdout)
    assert data["cases"] == data["passed"] == 30 and data["errors"] == {}


def _bad(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"id": "x"\n')
    (tmp_path / "badcase.jsonl").write_text('{"id": "x", "family": "constraints", "task": "t", "spec": {}}\n')
    (tmp_path / "nofamily.jsonl").write_text('{"id": "x", "family": "chess", "task": "t"}\n')
    (tmp_path / "empty.jsonl").write_text("\n")
    return [
        (["generate", "constraints", "--actions", "1", "-o", "x.jsonl"], "at least 2 actions"),
        (["generate", "constraints", "--actions", "3-30", "-o", "x.jsonl"], "more actions than"),
        (["generate", "constraints", "--actions", "three", "-o", "x.jsonl"], "expected a number or a range"),
        (["generate", "constraints", "--max-sentences", "0", "-o", "x.jsonl"], "--max-sentences 0: must be between"),
        (["generate", "constraints", "--max-sentences", "500", "-o", "x.jsonl"], "--max-sentences 500"),
        (["generate", "constraints", "--max-iterations", "0", "-o", "x.jsonl"], "--max-iterations 0: must be"),
        (["generate", "constraints", "--style", "pdoctor", "-o", "x.jsonl"], "--style 'pdoctor': unknown style"),
        (["run", "bad.jsonl", "--out", "r"], "bad.jsonl:1: not valid JSON"),
        (["run", "badcase.jsonl", "--out", "r"], "field 'spec.mode'"),
        (["run", "nofamily.jsonl", "--out", "r"], "unknown case family 'chess'"),
        (["run", "empty.jsonl", "--out", "r"], "has no cases"),
        (["run", "missing.jsonl", "--out", "r"], "suite file not found"),
        (["run", "bad.jsonl", "--agent", "gpt", "--out", "r"], "unknown agent 'gpt'"),
        (["run", "bad.jsonl", "--agent", "faulty:oops", "--out", "r"], "unknown fault 'oops'"),
        (["run", "bad.jsonl", "--concurrency", "0", "--out", "r"], "must be at least 1"),
        (["show", "nowhere"], "run directory not found"),
    ]


def test_bad_input_gets_one_clear_line_and_a_non_zero_exit(tmp_path):
    for args, message in _bad(tmp_path):
        r = pp(*args, cwd=tmp_path)
        assert r.returncode != 0, args
        assert "Traceback" not in r.stderr, args
        assert message in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)


def test_missing_required_option_is_a_usage_error_not_a_traceback(tmp_path):
    r = pp("run", "x.jsonl")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--out" in r.stderr


def test_grammar_reports_expansion_counts():
    r = pp("grammar")
    assert r.returncode == 0 and "basic" in r.stdout and "130" in r.stdout


def test_demo_runs_end_to_end_offline(tmp_path):
    # the reference-agent part of the demo; the embedded model's part is tested in tests/models
    r = pp("demo", "--out", str(tmp_path / "demo"), "--n", "10", "--model", "none")
    assert r.returncode == 0, r.stderr
    assert "oracle" in r.stdout and "100.0%" in r.stdout and "faulty:swap" in r.stdout


def test_help_explains_commands():
    r = pp("--help")
    assert r.returncode == 0 and all(c in r.stdout for c in ("generate", "run", "show", "demo"))
    r = pp("run", "--help")
    assert "resume" in r.stdout


def test_run_help_says_base_url_applies_to_litellm_too():
    import re

    r = pp("run", "--help")
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.stdout).split())  # the option table, unwrapped
    base_url = text[text.index("--base-url <str>"):text.index("--api-key-env <str>")]
    assert "openai:<model>" in base_url and "litellm:" in base_url, base_url
