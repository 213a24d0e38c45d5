"""``planprobe study --workers N`` as ``run``/``sweep``/``dissect`` take it: the sweep's points and
the dissection's cases on worker processes give the same figures as one process, and a study
started on one worker resumes on two without redoing a case."""

from __future__ import annotations

from study_helpers import results_snapshot, study, study_json


def _figures(directory) -> list:
    return study_json(directory)["figures"]


def test_workers_give_the_same_figures_and_resume_across_worker_counts(tmp_path, capsys, monkeypatch):
    one, two = tmp_path / "one", tmp_path / "two"
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(one), "--size", "tiny", "-q")
    assert code == 0, err
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(two), "--size", "tiny", "-q",
                         "--workers", "2", "--max-steps", "1")
    assert code == 130, err  # stopped after the basic sweep; resumed below
    before = results_snapshot(two)
    code, _, err = study(capsys, monkeypatch, "pdoctor", "--agent", "random", "--out", str(two), "--size", "tiny", "-q",
                         "--workers", "2")
    assert code == 0, err
    after = results_snapshot(two)
    assert all(after[run][: len(rows)] == rows for run, rows in before.items())  # no case run again
    assert _figures(two) == _figures(one) and _figures(one)
    assert study_json(two)["tables"] == study_json(one)["tables"]
