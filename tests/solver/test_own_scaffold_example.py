"""docs/models.md "Point your own scaffold at it", run as written: the documented ``python:`` scaffold
passes every case with ``--model solver``; with the short window the docs suggest, the solver reports
the cases as under-specified, and ``planprobe show`` and the HTML report both name them (issue #27)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from helpers import cli_here
from planprobe.runner.findings import underspecified_rows
from planprobe.runner.store import RunStore

DOCS = Path(__file__).resolve().parents[2] / "docs" / "models.md"
LEAD = "**Point your own scaffold at it.**"


def _blocks() -> tuple[str, list[str]]:
    """The example's scaffold (its first python block) and the commands of its first bash block."""
    text = DOCS.read_text()
    section = text[text.index(LEAD):]
    code = re.search(r"```python\n(.+?)```", section, re.DOTALL)
    bash = re.search(r"```bash\n(.+?)```", section, re.DOTALL)
    assert code and bash, "the example's python and bash blocks"
    commands = [line.split("#")[0].strip() for line in bash.group(1).splitlines()]
    return code.group(1), [c for c in commands if c]


def _verdicts(store: RunStore) -> dict[str, bool]:
    """Passed, by case id."""
    return {json.loads(trace)["case_id"]: json.loads(verdict)["passed"] for trace, verdict in store.raw_results()}


def _run(capsys, monkeypatch, commands: list[str]) -> str:
    out = ""
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "planprobe", command
        code, stdout, stderr = cli_here(capsys, monkeypatch, *words[1:])
        assert code == 0, (command, stderr[-2000:])
        out += stdout
    return out


def test_the_documented_scaffold_passes_and_its_short_window_is_reported(tmp_path, capsys, monkeypatch):
    code, commands = _blocks()
    assert "--agent python:my_scaffold.py:agent" in commands[1] and "--model solver" in commands[1]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_scaffold.py").write_text(code)
    shown = _run(capsys, monkeypatch, commands)
    run = tmp_path / "runs" / "mine"
    with RunStore(run) as store:
        verdicts = _verdicts(store)
        assert verdicts and all(verdicts.values())
        assert underspecified_rows(store) == []
    assert "under-specified" not in shown

    assert "WINDOW = None" in code  # the docs' suggestion: a window of 4 drops the task after two calls
    (tmp_path / "my_scaffold.py").write_text(code.replace("WINDOW = None", "WINDOW = 4"))
    windowed = [c.replace("runs/mine", "runs/window") for c in commands]
    shown = _run(capsys, monkeypatch, windowed)
    with RunStore(tmp_path / "runs" / "window") as store:
        rows = underspecified_rows(store)
        failed = [case_id for case_id, passed in _verdicts(store).items() if not passed]
    assert rows and {case_id for case_id, _, _ in rows} <= set(failed)
    assert all(any("no user message" in m for m in missing) for _, _, missing in rows)
    assert "under-specified" in shown and rows[0][0] in shown  # planprobe show names them

    _run(capsys, monkeypatch, ["planprobe report runs/window -o report.html"])
    html = (tmp_path / "report.html").read_text()
    assert f"solver: {len(rows)} results under-specified (the text shown did not determine an answer" in html
    assert f"{rows[0][0]}: {rows[0][2][0]}" in html  # each case, with what was missing


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")  # integrations.md's example, as written
def test_the_documented_langgraph_agent_passes_with_the_solver(tmp_path, capsys, monkeypatch):
    """The LangGraph command of the example, with integrations.md's ``my_agents.py`` as written."""
    pytest.importorskip("langgraph")
    section = DOCS.read_text()[DOCS.read_text().index(LEAD):]
    command = next(line.strip() for line in section.splitlines()
                   if line.startswith("planprobe run") and "--agent langgraph:" in line)
    integrations = (DOCS.parent / "integrations.md").read_text()
    factory = re.search(r"```python\n(# my_agents.py\n.+?)```", integrations, re.DOTALL)
    assert factory, "integrations.md's my_agents.py"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_agents.py").write_text(factory.group(1))
    _, commands = _blocks()
    _run(capsys, monkeypatch, [commands[0], command])
    with RunStore(tmp_path / "runs" / "lg") as store:
        verdicts = _verdicts(store)
        assert verdicts and all(verdicts.values()) and underspecified_rows(store) == []
