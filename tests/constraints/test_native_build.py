"""scripts/setup builds the compiled constraint modules by default and falls back to pure Python in
one line; the compiled test run still runs the pure-only tests, in a pure subprocess (issue #30)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planprobe.suites.constraints import native

ROOT = Path(__file__).resolve().parents[2]


def _setup_plan(tmp_path: Path, *args: str) -> list[str]:
    """scripts/setup's plan, from a copy in an empty tree (PYTHON=false: nothing can be installed)."""
    (tmp_path / "scripts").mkdir(exist_ok=True)
    shutil.copy(ROOT / "scripts" / "setup", tmp_path / "scripts" / "setup")
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "setup"), *args, "--plan"], capture_output=True,
                          text=True, env={**os.environ, "PYTHON": "false", "PLANPROBE_WHEEL_CACHE": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_setup_compiles_by_default_and_pure_opts_out(tmp_path):
    assert _setup_plan(tmp_path) == ["extras: local,compile", "constraint modules: compiled (scripts/compile --or-pure)"]
    assert _setup_plan(tmp_path, "test") == ["extras: local,test,compile",
                                             "constraint modules: compiled (scripts/compile --or-pure)"]
    assert _setup_plan(tmp_path, "test", "--pure") == ["extras: local,test", "constraint modules: pure Python (--pure)"]
    assert not (tmp_path / ".venv").exists()


def test_without_a_compiler_setup_says_so_in_one_line_and_keeps_the_build_in_use(tmp_path):
    before = sorted((f.name, f.stat().st_mtime_ns) for f in native.HERE.iterdir())
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc"), "PLANPROBE_COMPILE_LOG": str(tmp_path / "log"),
           "PLANPROBE_NATIVE_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "mypyc_build.py"), "--or-pure"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "no C compiler" in lines[0] and "pure Python" in lines[0], done.stderr
    assert sorted((f.name, f.stat().st_mtime_ns) for f in native.HERE.iterdir()) == before  # nothing removed


@pytest.fixture
def build_script(tmp_path, monkeypatch):
    """scripts/mypyc_build.py as a module, over a fake package of two 'compiled' modules."""
    spec = importlib.util.spec_from_file_location("mypyc_build_under_test", ROOT / "scripts" / "mypyc_build.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    here = tmp_path / "pkg"
    here.mkdir()
    monkeypatch.setattr(native, "HERE", here)
    monkeypatch.setattr(native, "COMPILED", ("a", "b"))
    monkeypatch.setenv("PLANPROBE_NATIVE_CACHE", str(tmp_path / "cache"))
    suffix = native.importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("a", "b"):
        (here / f"{name}.py").write_text(f"X = {name!r}\n")
        (here / f"{name}{suffix}").write_bytes(name.encode() * 3)
    (here / f"_native__mypyc{suffix}").write_bytes(b"group")
    (here / native.STAMP).write_text("{}")
    return mod, here


def test_a_build_is_cached_by_its_sources_and_copied_back(build_script):
    mod, here = build_script
    key = mod.cache_key("1.0")
    files = {f.name: f.read_bytes() for f in here.iterdir() if f.suffix != ".py"}
    mod._to_cache(key)
    mod.clean()
    assert sorted(f.name for f in here.iterdir()) == ["a.py", "b.py"]
    assert mod._from_cache(key)
    assert {f.name: f.read_bytes() for f in here.iterdir() if f.suffix != ".py"} == files
    assert not mod._from_cache(mod.cache_key("1.1"))  # another mypyc: not this build
    (here / "b.py").write_text("X = 'changed'\n")
    assert mod.cache_key("1.0") != key  # another source: another key


def test_the_build_set_up_is_the_build_in_use():
    """A compiled build in the tree (scripts/setup made one) is what this test run exercises: a stale
    one would silently test the pure modules instead."""
    if not any(native.compiled_files(module) for module in native.COMPILED):
        pytest.skip("nothing compiled (scripts/setup --pure, or no C compiler)")
    if os.environ.get(native.PURE_ENV, "") not in ("", "0"):
        pytest.skip(f"{native.PURE_ENV} is set")
    assert native.is_compiled(), native.status()


@pytest.mark.skipif(not native.is_compiled(), reason="pure build: the pure_only tests ran in this process")
def test_the_pure_only_tests_pass_with_the_pure_modules():
    files = sorted(str(p) for p in (ROOT / "tests").rglob("test_*.py") if "pytest.mark.pure_only" in p.read_text())
    assert files
    env = {**os.environ, native.PURE_ENV: "1", "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "pure_only", *files],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]
