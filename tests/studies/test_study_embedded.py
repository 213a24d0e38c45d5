"""A study end to end on the embedded model (issue #28: "--quick with the embedded model is run in
the tests for one study"): APB's ``--quick`` (2 generated cases per regime, nine regimes, one reply
each) with short replies (``--max-tokens 64``), so the whole chain runs —
the GGUF loaded in-process, every regime's run, the exact verdicts, the paper's table with the
model's column and intervals, study.json, and a re-run that reads everything back.

Marked slow: 78 s on the 2-core machine with nothing else running at the tests' size (27 real replies;
--quick makes 18: the model-call cache is pointed at the test's directory, so nothing is replayed), and
85-106 s a reply under load (docs/studies.md, "--quick on the embedded model") — too much for the default run's
15 minutes (821 s without it). The other studies run end to end in the default tests with the
reference agents and the solver. Skipped unless run with ``-m slow``.
SmolLM2-135M cannot plan: the test checks the chain and the table's form, not the figures."""

from __future__ import annotations

import pytest
from study_helpers import measures, results_snapshot, study, study_json, table

from llama_server import require_local_model
from planprobe.studies.apb import REGIMES, SIZES


@pytest.mark.slow
def test_apb_study_runs_end_to_end_on_the_embedded_model(request, tmp_path, capsys, monkeypatch):
    if "slow" not in (request.config.option.markexpr or ""):  # minutes: never in the default run
        pytest.skip("the embedded-model study takes minutes (78 s on a quiet 2-core machine): run with -m slow")
    require_local_model()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no replayed replies: the model answers
    out = tmp_path / "apb-local"
    args = ("apb", "--model", "local", "--quick", "--max-tokens", "64", "-q", "--out", str(out))
    code, text, err = study(capsys, monkeypatch, *args)
    assert code == 0, err
    data = study_json(out)
    assert data["status"] == "complete" and not data["comparable_with_paper"]
    assert data["identity"]["model"] == "local" and data["identity"]["agent"] == "tools"
    splits = table(data, "apb.splits")
    # the column names the model as loaded ("yours: tools / local:SmolLM2-135M-Instruct.Q4_1")
    (col,) = [c for c in splits["columns"] if c.startswith("yours: tools / local")]
    rows = {r["label"]: r for r in splits["rows"]}
    assert len(REGIMES) <= len(rows)
    for r in splits["rows"][:len(REGIMES)]:  # every regime measured on the model: n cases, a rate with its interval
        m = measures(r)[col]
        assert m["n"] == SIZES["quick"].n and 0 <= m["hits"] <= m["n"]
        assert m["ci95"][0] <= m["value"] <= m["ci95"][1]
    assert splits["title"] in text
    before = results_snapshot(out)
    code, again, err = study(capsys, monkeypatch, *args)  # complete: read back, nothing run again
    assert code == 0, err
    assert results_snapshot(out) == before and splits["title"] in again
