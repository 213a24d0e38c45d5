"""``planprobe study``: --list, bad input (one line, exit 2, nothing changed), ``study compare``
with paired tests, and ``planprobe report`` on a study directory."""

from __future__ import annotations

import json

from study_helpers import study, study_json

from helpers import cli_here


def test_list_names_every_study_with_what_it_needs(capsys, monkeypatch):
    code, out, _ = study(capsys, monkeypatch, "--list")
    assert code == 0
    for name in ("pdoctor", "planbench", "apb", "pmc", "agentdebug"):
        assert any(line.startswith(name) for line in out.splitlines()), name
    assert out.count("data: ") == 5


def _one_line_error(code: int, err: str) -> str:
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    return lines[0]


def test_an_unknown_study_is_one_line(tmp_path, capsys, monkeypatch):
    line = _one_line_error(*study(capsys, monkeypatch, "pdoctr", "--out", str(tmp_path / "x"))[::2])
    assert "unknown study 'pdoctr'" in line and all(n in line for n in ("pdoctor", "planbench", "apb", "pmc",
                                                                         "agentdebug"))
    line = _one_line_error(*study(capsys, monkeypatch, "pdoctor")[::2])
    assert "--out" in line
    assert not (tmp_path / "x").exists()


def test_a_directory_of_another_study_or_model_is_refused_and_kept(tmp_path, capsys, monkeypatch):
    out = tmp_path / "s"
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(out), "--size", "tiny",
                         "-q", "--max-steps", "1")
    assert code == 130, err
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.suffix != ".lock"}
    line = _one_line_error(*study(capsys, monkeypatch, "planbench", "--agent", "random", "--out", str(out),
                                  "--size", "tiny")[::2])
    assert "study 'planbench'" in line and "nothing was changed" in line
    line = _one_line_error(*study(capsys, monkeypatch, "pdoctor", "--model", "solver", "--out", str(out),
                                  "--size", "tiny")[::2])
    assert "model 'solver'" in line
    line = _one_line_error(*study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(out))[::2])
    assert "size 'full'" in line
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.suffix != ".lock"} == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    line = _one_line_error(*study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(other),
                                  "--size", "tiny")[::2])
    assert "not a study directory" in line and (other / "notes.txt").read_text() == "mine"


def test_compare_pairs_the_same_cases_and_report_shows_the_study(tmp_path, capsys, monkeypatch):
    for name, agent in (("solver", ("--model", "solver")), ("random", ("--agent", "random"))):
        code, _, err = study(capsys, monkeypatch, "pdoctor", *agent, "--out", str(tmp_path / name), "--size", "tiny",
                             "-q")
        assert code == 0, err
    code, out, err = study(capsys, monkeypatch, "compare", str(tmp_path / "solver"), str(tmp_path / "random"),
                           "--json")
    assert code == 0, err
    data = json.loads(out)
    paired = data["paired"][0]
    runs = study_json(tmp_path / "solver")["runs"]
    assert [r["run"] for r in paired["runs"]] == sorted(runs)  # the same suites: every run is paired
    assert paired["a_only"] > 0 and paired["b_only"] == 0 and 0 < paired["mcnemar_p"] < 1
    # a figure only one of them has (the solver has no failure to class) is shown beside nothing
    errors = [f for f in data["figures"] if f["table"] == "pdoctor.table3"]
    assert errors and all(f["values"][0] is None and f["values"][1] is not None for f in errors)
    code, out, _ = study(capsys, monkeypatch, "compare", str(tmp_path / "solver"), str(tmp_path / "random"))
    assert code == 0 and "exact McNemar p" in out
    page = tmp_path / "study.html"
    code, _, err = cli_here(capsys, monkeypatch, "report", str(tmp_path / "random"), "-o", str(page))
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "Table 3: error types" in html and html.count("<svg") == 2 and "Success rate vs |A|" in html
