"""The side-by-side script's MCP way (benchmarks/integrations_side_by_side.py) against its
scripted model: an external MCP client driving `planprobe serve` gives the verdicts, tool calls
and model-call counts of `--agent tools` case by case, the iteration limit included (counted
by the served case from the model calls its proxy sees, as the run engine counts them)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from serve_helpers import suite_cases

from http_faults import ScriptedServer
from planprobe.environment import Limits
from planprobe.runner.store import RunStore

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "integrations_side_by_side.py"


@pytest.fixture(scope="module")
def sbs():
    spec = importlib.util.spec_from_file_location("integrations_side_by_side", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses resolve their annotations through it
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def tool_calls(out: Path) -> dict[str, list[tuple[str, str | None]]]:
    store = RunStore(out)
    try:
        return {t.case_id: [(c.name, c.error) for c in t.tool_calls] for t, _ in store.results()}
    finally:
        store.close()


def test_the_mcp_way_gives_the_verdicts_of_the_tools_way(sbs, tmp_path):
    cases = suite_cases(2)
    with ScriptedServer(sbs.MixedScript(cases)) as server:
        verdicts = sbs.run_ways(cases, tmp_path, sbs.Setup(url=server.url), ways=("tools", "mcp"))
    tools, mcp = verdicts["tools"], verdicts["mcp"]
    assert set(tools) == {c.id for c in cases}
    # one reference plan (passes), one shuffled (fails): the comparison can fail
    assert sorted(p for p, _, _ in tools.values()) == [False, True]
    assert mcp == tools
    assert tool_calls(tmp_path / "mcp") == tool_calls(tmp_path / "tools")
    assert all(calls >= 3 for _, _, calls in mcp.values())  # every model call went through the proxy
    table = sbs.table(verdicts)
    assert table[2].startswith("| tools | 2 | 1 |") and table[3].startswith("| mcp | 2 | 1 |")
    assert table[3].endswith("| 2/2 |")


def test_the_iteration_limit_ends_both_ways_alike(sbs, tmp_path):
    cases = suite_cases(1)  # 3 actions: the script needs 4 model calls, 2 are allowed
    with ScriptedServer(sbs.MixedScript(cases)) as server:
        setup = sbs.Setup(url=server.url, limits=Limits(max_iterations=2, timeout_s=10 ** 6))
        verdicts = sbs.run_ways(cases, tmp_path, setup, ways=("tools", "mcp"))
    ((passed, _errors, calls),) = verdicts["mcp"].values()
    assert not passed and calls == 2
    assert verdicts["mcp"] == verdicts["tools"]
    assert [len(v) for v in tool_calls(tmp_path / "mcp").values()] == [2]


def test_an_unknown_way_is_one_line(sbs, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["integrations_side_by_side.py", "--ways", "tools,crewai"])
    with pytest.raises(SystemExit) as exit_info:
        sbs.main()
    assert exit_info.value.code == 2
    assert "--ways: unknown way 'crewai'" in capsys.readouterr().err
