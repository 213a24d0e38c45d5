"""The static checks are part of the suite: mypy (with the pydantic plugin) on src/ and ruff on src/ and
tests/, both configured in pyproject.toml. A failure shows the tool's own output.

mypy keeps its cache in the repository's .mypy_cache (its default, ignored by git): a cold run checks all of
src/ (half a minute on 2 cores), a warm one only what changed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip(tool, reason=f"{tool} is in the test extra: pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True,
                          check=False)


def test_mypy_is_clean_on_src() -> None:
    proc = _run("mypy", "--config-file", "pyproject.toml", "--cache-dir", str(ROOT / ".mypy_cache"),
                "src/planprobe")
    assert proc.returncode == 0, f"mypy found problems:\n{proc.stdout}{proc.stderr}"
    assert "Success" in proc.stdout, proc.stdout


def test_ruff_is_clean_on_src_and_tests() -> None:
    proc = _run("ruff", "check", "--no-fix", "--output-format", "concise", "src", "tests")
    assert proc.returncode == 0, (f"ruff found problems (those marked [*]: ruff check --fix src tests):\n"
                                  f"{proc.stdout}{proc.stderr}")


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """Both tools, run the way the tests above run them, reject a file with a type error and a bug pattern
    (guards against a configuration that silently checks nothing)."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: int) -> str:\n    return x\n\n\ndef g(a=[]):\n    return a\n")
    mypy = _run("mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache"),
                str(bad))
    assert mypy.returncode == 1 and "return-value" in mypy.stdout, mypy.stdout + mypy.stderr
    ruff = _run("ruff", "check", "--no-fix", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad))
    assert ruff.returncode == 1 and "B006" in ruff.stdout, ruff.stdout + ruff.stderr
