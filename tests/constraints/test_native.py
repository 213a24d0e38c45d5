"""The optional mypyc build (scripts/compile): same bytes as the pure modules, and never run stale."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from planprobe.suites.constraints import native
from planprobe.suites.constraints.generator import ConstraintSuiteOptions
from planprobe.suites.constraints.synthesis import SynthesisOptions

SRC = Path(native.__file__).resolve().parents[3]
compiled_only = pytest.mark.skipif(not native.is_compiled(), reason="the compiled modules are not in use (scripts/compile)")


def _run(args: list[str], pure: bool) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), native.PURE_ENV: "1" if pure else ""}
    return subprocess.run([sys.executable, "-m", "planprobe", *args], env=env, capture_output=True, text=True)


@compiled_only
@pytest.mark.parametrize("extra", [[], ["--extended"], ["--style", "paper"], ["--extended", "--actions", "2-9"],
                                   ["--max-sentences", "3", "--allow-unconstrained", "--actions", "5-8"],
                                   ["--workers", "2", "--extended"]],
                         ids=["basic", "extended", "paper", "extended-2-9", "seed-N", "2-workers"])
def test_compiled_generation_is_byte_identical_to_the_pure_modules(tmp_path, extra):
    outputs = []
    for pure in (True, False):
        out = tmp_path / f"{pure}.jsonl"
        done = _run(["generate", "constraints", "--n", "400", "--seed", "7", "-q", "--workers", "1", *extra,
                     "-o", str(out)], pure)  # a later --workers wins
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"\n") == 400


@compiled_only
def test_version_says_which_build_is_in_use_and_the_switch_forces_the_pure_one():
    assert "compiled (mypyc" in _run(["--version"], pure=False).stdout
    assert "pure Python (PLANPROBE_PURE is set)" in _run(["--version"], pure=True).stdout
    probe = ("import planprobe.suites.constraints.generator as g, planprobe.suites.constraints.native as n; "
             "print(g.__file__.endswith('.py'), len(n.in_use()))")
    for pure, expected in ((True, "True 0"), (False, f"False {len(native.COMPILED)}")):
        env = {**os.environ, "PYTHONPATH": str(SRC), native.PURE_ENV: "1" if pure else ""}
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
        assert done.stdout.split("\n")[0] == expected, done.stderr


@pytest.fixture
def fake_build(tmp_path, monkeypatch):
    """A package directory holding two 'compiled' modules (empty files) and their stamp."""
    monkeypatch.setattr(native, "HERE", tmp_path)
    monkeypatch.setattr(native, "COMPILED", ("a", "b"))
    suffix = native.importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(f"X = {name!r}\n")
        (tmp_path / f"{name}{suffix}").write_bytes(b"")
    stamp = {"mypyc": "0", "sources": {name: native.source_digest(name) for name in ("a", "b")}}
    (tmp_path / native.STAMP).write_text(json.dumps(stamp))
    return tmp_path, suffix


def test_a_build_matching_its_sources_is_used(fake_build):
    assert native._stale() is None


def test_a_changed_source_makes_the_build_stale(fake_build):
    here, _ = fake_build
    (here / "b.py").write_text("X = 'changed'\n")
    assert native._stale() == "b.py changed since compiling: run scripts/compile"


def test_a_missing_module_or_stamp_makes_the_build_stale(fake_build):
    here, suffix = fake_build
    (here / f"a{suffix}").unlink()
    assert native._stale() == "a is not compiled"
    (here / native.STAMP).write_text("{not json")
    assert "missing or unreadable" in (native._stale() or "")


def test_the_pure_finder_loads_the_source_of_listed_modules_only():
    finder = native._PureFinder()
    spec = finder.find_spec(f"{native.PACKAGE}.synthesis")
    assert spec is not None and spec.origin is not None and spec.origin.endswith("synthesis.py")
    assert finder.find_spec(f"{native.PACKAGE}.oracle") is None  # not compiled: the normal import
    assert finder.find_spec("synthesis") is None


def test_the_options_reach_worker_processes_whole():
    """Pickled through __init__ (a frozen class compiled by mypyc cannot be restored field by field)."""
    synthesis = SynthesisOptions(max_sentences=4, max_iterations=7, max_parts=2, p_multi=0.1, p_relative=0.25,
                                 p_time=0.5, group_sizes=(0.5, 0.9))
    opts = ConstraintSuiteOptions(actions=(2, 7), n=5, seed=3, extended=True, max_duration=2, topic="Barber",
                                  style="paper", allow_unconstrained=True, check_text=False, synthesis=synthesis)
    for obj in (synthesis, opts):
        for f in fields(obj):  # every field set to something other than its default
            assert f.default is MISSING or getattr(obj, f.name) != f.default, f.name
        back = pickle.loads(pickle.dumps(obj))
        assert back == obj and type(back) is type(obj)
