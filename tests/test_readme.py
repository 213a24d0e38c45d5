"""The README's two commands and CI stay what they claim to be."""

import re
from pathlib import Path

import planprobe

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.+?)\n```", text)[:2]


def test_readme_starts_with_the_main_job_and_the_test_command():
    main_job, tests = _commands()
    # both install what they need themselves
    assert "planprobe demo" in main_job and main_job.startswith("scripts/setup")
    assert "pytest" in tests and tests.startswith("scripts/setup test")
    assert (ROOT / "scripts" / "setup").stat().st_mode & 0o111


def test_ci_runs_exactly_the_readme_test_command():
    _, tests = _commands()
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines()


def test_the_public_api_is_exported():
    for name in planprobe.__all__:
        assert hasattr(planprobe, name), name
