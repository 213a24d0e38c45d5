"""``planprobe study`` refuses to resume a directory made under other settings — other model
settings (``--max-tokens``), or study settings that changed since (another planprobe's sizes) —
in one line (exit 2) with nothing changed, as ``run`` refuses a resume with other settings; the
embedded model's options that ``run`` has (``--threads``, ``--ctx``, ``--cache-path``) reach the model;
an option read only with another (``--apb-code`` without ``--apb-data``) is refused, not ignored."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from study_helpers import study, study_json

from planprobe.errors import PlanprobeError


def _files(directory: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in directory.rglob("*") if p.is_file() and p.suffix != ".lock"}


def _one_line(code: int, err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), (code, err)
    return lines[0]


def test_other_model_settings_are_refused_and_nothing_changes(tmp_path, capsys, monkeypatch):
    out = tmp_path / "s"
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--model", "solver", "--out", str(out), "--size", "tiny",
                         "-q", "--max-steps", "1")
    assert code == 130, err
    assert "max_tokens=512" in study_json(out)["identity"]["params"]
    before = _files(out)
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--model", "solver", "--out", str(out), "--size", "tiny",
                         "-q", "--max-tokens", "100")
    line = _one_line(code, err)
    assert "--max-tokens" in line and "max_tokens=100" in line and "nothing was changed" in line
    assert _files(out) == before
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--model", "solver", "--out", str(out), "--size", "tiny",
                         "-q")
    assert code == 0, err  # the same settings resume


def test_a_study_whose_settings_changed_since_is_refused(tmp_path, capsys, monkeypatch):
    from planprobe.studies import pdoctor

    out = tmp_path / "s"
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(out), "--size", "tiny",
                         "-q", "--max-steps", "1")
    assert code == 130, err
    before = _files(out)
    monkeypatch.setitem(pdoctor.SIZES, "tiny", replace(pdoctor.SIZES["tiny"], cap=3))  # another planprobe's size
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(out), "--size", "tiny",
                         "-q")
    line = _one_line(code, err)
    assert "cases per n" in line and "min(2, 1·C(n,2))" in line and "min(3, 1·C(n,2))" in line
    assert _files(out) == before


def test_the_embedded_models_options_reach_the_model(tmp_path, capsys, monkeypatch):
    seen = {}

    def prepare(agent, model, options, params, seed):
        seen["options"] = options
        raise PlanprobeError("stop here")  # the options are all this test needs: no model is loaded

    monkeypatch.setattr("planprobe.agents.prepare.prepare_agent", prepare)
    code, _, err = study(capsys, monkeypatch, "planbench", "--model", "local", "--out", str(tmp_path / "s"),
                         "--size", "tiny", "--threads", "1", "--ctx", "2048", "--cache-path", str(tmp_path / "c.sqlite"))
    assert "stop here" in _one_line(code, err)
    options = seen["options"]
    assert (options.threads, options.n_ctx, options.cache_path) == (1, 2048, tmp_path / "c.sqlite")


@pytest.mark.parametrize("option", ["--threads", "--ctx"])
def test_a_bad_embedded_model_option_is_one_line(tmp_path, capsys, monkeypatch, option):
    code, _, err = study(capsys, monkeypatch, "planbench", "--model", "local", "--out", str(tmp_path / "s"),
                         "--size", "tiny", option, "0")
    assert option in _one_line(code, err)
    assert not (tmp_path / "s").exists()


def test_apb_code_without_apb_data_is_one_line_not_ignored(tmp_path, capsys, monkeypatch):
    code, _, err = study(capsys, monkeypatch, "apb", "--agent", "oracle", "--out", str(tmp_path / "s"), "--size",
                         "tiny", "--apb-code", str(tmp_path))
    line = _one_line(code, err)
    assert "--apb-code" in line and "--apb-data" in line
    assert not (tmp_path / "s").exists()
