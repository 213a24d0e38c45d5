"""``planprobe study apb`` end to end at the tests' size: APB's splits and regimes on planprobe's
generated cases (the solver and the oracle at the ceiling, ``random`` lower), APB's data set run
and judged by APB's judge (a scripted judge model here), the judge-κ row, resume, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from study_helpers import measures, results_snapshot, study, study_json, table

import planprobe as pp
from planprobe.models import unregister_model
from planprobe.models.base import ChatResult
from planprobe.schema import Message, Usage

SPLITS = ["holistic_planning", "holistic_tool_extraneous", "holistic_unsolvable", "step_wise_planning (k=1)",
          "step_wise_planning (k=2)", "step_wise_planning (k=3)", "step_wise_tool_extraneous",
          "step_wise_tool_broken", "cost-aware planning"]
STANDIN_APB_CODE = Path(__file__).resolve().parents[1] / "judge" / "apb_code"  # tests/judge's stand-in prompts


def _splits(data: dict, source: str = "yours") -> dict[str, dict]:
    t = table(data, "apb.splits")
    return {r["label"]: measures(r) for r in t["rows"] if r["source"] == source}


def test_the_solver_reaches_the_ceiling_on_every_split_and_regime(tmp_path, capsys, monkeypatch):
    code, out, err = study(capsys, monkeypatch, "apb", "--model", "solver", "--out", str(tmp_path / "s"), "--size",
                           "tiny", "-q")
    assert code == 0, err
    data = study_json(tmp_path / "s")
    assert [t["id"] for t in data["tables"]] == ["apb.splits", "apb.judge_kappa", "apb.data"]
    rows = _splits(data)
    assert list(rows) == SPLITS
    assert table(data, "apb.splits")["columns"] == ["regime", "planprobe's cases", "yours: tools / solver"]
    assert all(m["yours: tools / solver"]["value"] == 1.0 and m["yours: tools / solver"]["n"] == 3
               for m in rows.values())
    refusal = _splits(data, "planprobe")  # the unsolvable split's calibration: refusals and solvable controls
    assert list(refusal) == ["planprobe: holistic_unsolvable, unsolvable cases (refuse)",
                             "planprobe: holistic_unsolvable, solvable controls (plan)"]
    assert sum(m["yours: tools / solver"]["n"] for m in refusal.values()) == 3
    assert all(m["yours: tools / solver"]["value"] == 1.0 for m in refusal.values())
    kappa = table(data, "apb.judge_kappa")["rows"][0]
    assert kappa["source"] == "planprobe" and "no --judge-model" in kappa["cells"]["Cohen's κ"]["missing"]
    apb_rows = table(data, "apb.data")["rows"]
    assert [r["label"] for r in apb_rows] == ["holistic_planning", "holistic_tool_extraneous", "holistic_unsolvable",
                                              "step_wise_planning", "step_wise_tool_extraneous",
                                              "step_wise_tool_broken"]
    assert "git clone https://github.com/Mikivishy/AgentPlanningBenchmark" in apb_rows[0]["cells"]["records"]["missing"]
    assert "states none of their numbers" in out  # APB ships no published figures, and says so


def test_the_random_agent_is_below_the_oracle_and_a_rerun_resumes(tmp_path, capsys, monkeypatch):
    runs = {}
    for agent in ("oracle", "random"):
        code, _, err = study(capsys, monkeypatch, "apb", "--agent", agent, "--out", str(tmp_path / agent), "--size",
                             "tiny", "-q")
        assert code == 0, err
        runs[agent] = {k: v[f"yours: {agent} / no model"] for k, v in _splits(study_json(tmp_path / agent)).items()}
    assert all(m["value"] == 1.0 for m in runs["oracle"].values())
    low = runs["random"]
    assert low["holistic_unsolvable"]["hits"] == 0 and low["cost-aware planning"]["hits"] == 0
    assert sum(m["hits"] for m in low.values()) < sum(m["hits"] for m in runs["oracle"].values())
    before = results_snapshot(tmp_path / "random")
    assert len(before) == len(SPLITS)
    code, _, err = study(capsys, monkeypatch, "apb", "--agent", "random", "--out", str(tmp_path / "random"), "--size",
                         "tiny")
    assert code == 0 and "resuming the study" in err
    assert results_snapshot(tmp_path / "random") == before


class _AlwaysCorrect:
    """A judge model that accepts every answer (APB's reply fields; the rubric reads them too)."""

    name = "study-judge"

    async def chat(self, messages, tools, params) -> ChatResult:
        text = json.dumps({"is_correct": True, "grade": 1.0, "error_list": [0] * 6, "reasoning": "fine"})
        return ChatResult(message=Message(role="assistant", content=text), usage=Usage(model_calls=1))

    async def aclose(self) -> None:
        pass


@pytest.fixture
def judge_model():
    pp.register_model("studyjudge", lambda name, options: _AlwaysCorrect(), takes_name=False, serial=True)
    yield "studyjudge"
    unregister_model("studyjudge")


def _apb_file(tmp_path: Path) -> Path:
    """Two holistic records and one step-wise record in APB's format (as the tests' fixture writes them)."""
    import sys

    sys.path.insert(0, str(STANDIN_APB_CODE.parent))
    try:
        from apb_fixture import records
    finally:
        sys.path.remove(str(STANDIN_APB_CODE.parent))
    chosen = [r for r in records() if r["split"] == "holistic_planning"][:2]
    chosen += [r for r in records() if r["split"] == "step_wise_planning"][:1]
    path = tmp_path / "data" / "apb.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    return path


def test_apbs_data_is_run_and_judged_and_the_judge_is_measured_against_the_oracle(tmp_path, capsys, monkeypatch,
                                                                                   judge_model):
    monkeypatch.delenv("PLANPROBE_APB_CODE", raising=False)
    code, _, err = study(capsys, monkeypatch, "apb", "--agent", "random", "--out", str(tmp_path / "s"), "--size",
                         "tiny", "-q", "--no-cache", "--apb-data", str(_apb_file(tmp_path)), "--apb-code",
                         str(STANDIN_APB_CODE), "--judge-model", judge_model)
    assert code == 0, err
    data = study_json(tmp_path / "s")
    apb = {r["label"]: r["cells"] for r in table(data, "apb.data")["rows"]}
    col = "yours: random / no model"
    assert apb["holistic_planning"]["records"] == "2" and apb["step_wise_planning"]["records"] == "1"
    assert apb["holistic_planning"][col]["measure"]["n"] == 2  # the judge's verdicts, counted as APB counts
    assert "no record" in apb["holistic_unsolvable"][col]["missing"]
    kappa = table(data, "apb.judge_kappa")["rows"][0]["cells"]
    traces = int(kappa["traces"])
    assert traces == 3 * len(SPLITS)  # every generated trace, judged and exact
    exact = sum(m[col]["hits"] for m in _splits(data).values())
    assert kappa["agreement"]["measure"]["hits"] == exact  # a judge that passes everything agrees on the passes
    assert kappa["Cohen's κ"] == "0.000"


def _one_line(code: int, err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), err
    return lines[0]


def test_bad_apb_data_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PLANPROBE_APB_CODE", raising=False)
    out = tmp_path / "x"
    line = _one_line(*study(capsys, monkeypatch, "apb", "--agent", "oracle", "--out", str(out), "--apb-data",
                            str(tmp_path / "nope.jsonl"))[::2])
    assert "not a file" in line and "Mikivishy/AgentPlanningBenchmark" in line
    (tmp_path / "a.jsonl").write_text("{}\n")
    line = _one_line(*study(capsys, monkeypatch, "apb", "--agent", "oracle", "--out", str(out), "--apb-data",
                            str(tmp_path / "a.jsonl"))[::2])
    assert "git clone" in line
    line = _one_line(*study(capsys, monkeypatch, "apb", "--agent", "oracle", "--out", str(out), "--judge-model",
                            "nosuchjudge")[::2])
    assert "unknown model 'nosuchjudge'" in line
    assert not out.exists()
