"""``Verdict.unsat_core`` is stored as ``core``: verdicts written by earlier versions
(the run_v1 fixtures, written before the rename) read into it, and verdicts written now
keep the stored name, so older planprobe versions read them too."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from planprobe.schema import Case, Trace, Verdict
from planprobe.suites.registry import get_family

V1 = Path(__file__).resolve().parent / "data" / "run_v1"


def _stored(name: str) -> list[tuple[str, str]]:
    with sqlite3.connect(V1 / name / "run.sqlite") as db:
        return db.execute("SELECT trace, verdict FROM results ORDER BY case_id, trial").fetchall()


@pytest.mark.parametrize("name", ["react_scripted", "tools_scripted"])
def test_old_verdicts_read_their_core_into_unsat_core_and_write_it_back_as_core(name):
    rows = _stored(name)
    assert rows and all(json.loads(v)["core"] for _, v in rows)  # the fixture has non-empty cores
    for _, raw in rows:
        stored = json.loads(raw)
        verdict = Verdict.model_validate_json(raw)
        assert verdict.unsat_core == stored["core"]
        written = json.loads(verdict.model_dump_json())
        assert written["core"] == stored["core"] and "unsat_core" not in written
        assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict


def test_the_oracle_finds_the_stored_core_again():
    cases = {c["id"]: Case.model_validate(c)
             for c in map(json.loads, (V1 / "suite.jsonl").read_text(encoding="utf-8").splitlines())}
    for trace_json, raw in _stored("react_scripted"):
        trace = Trace.model_validate_json(trace_json)
        case = cases[trace.case_id]
        fresh = get_family(case.family).check(case, trace)
        assert fresh.unsat_core == Verdict.model_validate_json(raw).unsat_core


def test_either_name_builds_a_verdict_and_unknown_fields_are_still_refused():
    assert Verdict(case_id="c", passed=False, unsat_core=["c1"]).unsat_core == ["c1"]
    assert Verdict.model_validate({"case_id": "c", "passed": False, "core": ["c2"]}).unsat_core == ["c2"]
    with pytest.raises(ValueError):
        Verdict.model_validate({"case_id": "c", "passed": False, "cores": ["c2"]})
