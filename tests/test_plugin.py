"""A third-party plug-in (tests/plugin: family ``lamps``, agent ``alphabetical``, model
kind ``toy``) goes generate → run → show → report through the command line, found
through its entry points alone: nothing in planprobe names it."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import subprocess
from pathlib import Path

from helpers import planprobe_cmd, subprocess_env

PLUGIN = Path(__file__).parent / "plugin"
SRC = Path(__file__).resolve().parents[1] / "src"


def _env(with_plugin: bool = True) -> dict:
    env = subprocess_env()
    paths = [str(SRC), *([str(PLUGIN)] if with_plugin else []), *filter(None, [env.get("PYTHONPATH")])]
    if not with_plugin:
        paths = [p for p in paths if Path(p).resolve() != PLUGIN.resolve()]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _cli(*args: str, with_plugin: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(planprobe_cmd() + list(args), capture_output=True, text=True, env=_env(with_plugin))


def _ok(*args: str) -> subprocess.CompletedProcess:
    r = _cli(*args)
    assert r.returncode == 0, (args, r.stderr)
    return r


def test_plugin_generate_run_show_report(tmp_path):
    suite = tmp_path / "lamps.jsonl"
    _ok("generate", "lamps", "--n", "30", "--seed", "4", "-o", str(suite), "-q")
    again = tmp_path / "again.jsonl"
    _ok("generate", "lamps", "--n", "30", "--seed", "4", "-o", str(again), "-q")
    assert suite.read_bytes() == again.read_bytes()
    cases = [json.loads(line) for line in suite.read_text().splitlines()]
    assert len(cases) == 30 and {c["family"] for c in cases} == {"lamps"}

    # the plug-in agent passes exactly the cases whose required order is alphabetical
    alphabetical = sum(c["spec"]["order"] == sorted(c["spec"]["order"]) for c in cases)
    _ok("run", str(suite), "--agent", "alphabetical", "--out", str(tmp_path / "alpha"), "-q")
    shown = json.loads(_ok("show", str(tmp_path / "alpha"), "--json").stdout)
    assert (shown["cases"], shown["passed"]) == (30, alphabetical)
    assert shown["agent"] == "alphabetical"
    assert set(shown["errors"]) <= {"order_error"} and sum(shown["errors"].values()) == 30 - alphabetical

    _ok("run", str(suite), "--agent", "oracle", "--out", str(tmp_path / "oracle"), "-q")
    assert json.loads(_ok("show", str(tmp_path / "oracle"), "--json").stdout)["passed"] == 30

    # the plug-in model kind through the built-in function-calling agent: it never acts
    _ok("run", str(suite), "--model", "toy", "--agent", "tools", "--no-cache", "--out", str(tmp_path / "toy"), "-q")
    toy = json.loads(_ok("show", str(tmp_path / "toy"), "--json").stdout)
    assert (toy["passed"], toy["model"], toy["errors"]) == (0, "toy", {"action_lost": 30})

    report = tmp_path / "report.html"
    _ok("report", str(tmp_path / "alpha"), str(tmp_path / "oracle"), "-o", str(report))
    html = report.read_text()
    packed = re.search(r'<script type="application/octet-stream" id="report-data">\s*([A-Za-z0-9+/=]+)', html)
    data = gzip.decompress(base64.b64decode(packed.group(1))).decode()
    assert "alphabetical" in html and all(f"lamps-4-{k}" in data for k in range(30))


def test_plugin_suite_takes_transforms_and_protocols(tmp_path):
    suite = tmp_path / "h.jsonl"
    _ok("generate", "lamps", "--n", "8", "-o", str(suite), "--protocol", "holistic", "-q")
    assert {json.loads(line)["family"] for line in suite.read_text().splitlines()} == {"holistic"}
    _ok("run", str(suite), "--agent", "oracle", "--out", str(tmp_path / "r"), "-q")
    assert json.loads(_ok("show", str(tmp_path / "r"), "--json").stdout)["passed"] == 8
    # robustness variants: a plain 'unsolvable' draws only the kinds the family can make (no contradiction)
    variants = tmp_path / "v.jsonl"
    _ok("generate", "lamps", "--n", "12", "-o", str(variants), "--transform", "extraneous:2", "--transform",
        "unsolvable", "-q")
    tags = {t for line in variants.read_text().splitlines() for t in json.loads(line)["meta"]["tags"]}
    assert "x2" in tags and "unsolvable-contradiction" not in tags
    _ok("run", str(variants), "--agent", "oracle", "--out", str(tmp_path / "v"), "-q")
    assert json.loads(_ok("show", str(tmp_path / "v"), "--json").stdout)["passed"] == 12
    r = _cli("generate", "lamps", "--n", "4", "-o", str(tmp_path / "c.jsonl"), "--transform", "cost")
    assert r.returncode == 2 and "does not support --transform cost" in r.stderr and "Traceback" not in r.stderr
    r = _cli("generate", "lamps", "--n", "0", "-o", str(tmp_path / "z.jsonl"))
    assert r.returncode == 2 and "--n" in r.stderr and "Traceback" not in r.stderr


def test_help_lists_the_plugin_and_only_when_installed():
    assert "alphabetical" in _ok("run", "--help").stdout
    assert "lamps" in _ok("generate", "--help").stdout
    r = _cli("run", "--help", with_plugin=False)
    assert r.returncode == 0 and "alphabetical" not in r.stdout
    r = _cli("generate", "lamps", "--n", "2", "-o", "x.jsonl", with_plugin=False)
    assert r.returncode == 2 and "No such command 'lamps'" in r.stderr
