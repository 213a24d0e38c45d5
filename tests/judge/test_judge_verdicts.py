"""The judge's verdicts: median of samples, majority error codes, agreement, the
unparseable and infra paths, and judging a stored run resumably with calibration."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from judge_fakes import ScriptedJudge, judgement, matches_reference

from helpers import cases, run_agent
from planprobe.agents.reference import FaultyAgent, OracleAgent
from planprobe.errors import PlanprobeError
from planprobe.llm_judge.judge import (
    JUDGE_TOOL,
    JudgeConfig,
    judge_trace,
    judge_trace_detailed,
)
from planprobe.llm_judge.report import calibration, summarize_rows
from planprobe.llm_judge.run import LOG_NAME, judge_run, read_log
from planprobe.runner.store import RunStore
from planprobe.schema import OracleKind, Trace, TraceStatus
from planprobe.suites.registry import get_family


def _case_and_trace(agent=None):
    case = cases(1, seed=3)[0]
    return case, run_agent(agent or OracleAgent(), case)


def _judge(replies, samples=3, **config):
    case, trace = _case_and_trace()
    model = ScriptedJudge(lambda prompt, i: replies[i])
    return model, asyncio.run(judge_trace_detailed(model, case, trace, JudgeConfig(samples=samples, **config)))


def test_the_verdict_is_the_median_sample_and_marked_judged():
    model, j = _judge([judgement(1.0), judgement(0.6, ("E4",)), judgement(1.0)])
    v = j.verdict
    assert v.oracle == OracleKind.JUDGED and v.checker.startswith("judge:fake-judge")
    assert v.score == 1.0 and v.passed  # 2 of 3 samples found no error
    assert v.errors == []  # E4 was flagged by one sample only: not the majority
    assert (j.pass_votes, j.usable, j.agreement) == (2, 3, pytest.approx(2 / 3))
    agreement = next(e for e in v.evidence if e.kind == "judge_agreement")
    assert "pass votes 2/3" in agreement.symbolic
    assert len(model.calls) == 3


def test_samples_are_distinct_draws():
    model, _ = _judge([judgement(1.0)] * 3)
    params = [p for _, _, p in model.calls]
    assert [p.sample for p in params] == [0, 1, 2] and len({p.seed for p in params}) == 3
    assert all(p.temperature == 0.7 for p in params)  # several samples: not temperature 0
    model, _ = _judge([judgement(1.0)], samples=1)
    assert model.calls[0][2].temperature == 0.0  # one sample: APB's setting


def test_majority_error_codes_become_the_verdict_errors():
    _, j = _judge([judgement(0.2, ("E3", "E5")), judgement(0.4, ("E3",)), judgement(1.0)])
    v = j.verdict
    assert not v.passed and v.score == 0.4
    assert v.errors == ["E3_CONSTRAINT_VIOLATION"]
    ev = [e for e in v.evidence if e.kind == "judge_error"]
    assert ev[0].error == "E3_CONSTRAINT_VIOLATION" and "2/3" in ev[0].symbolic


def test_the_threshold_is_configurable():
    _, j = _judge([judgement(0.8, ("E5",))] * 3, threshold=0.8)
    assert j.verdict.passed and j.verdict.errors == ["E5_TOOL_USE_ERROR"]


def test_unparseable_samples_are_left_out_and_all_unparseable_fails():
    _, j = _judge(["no idea", judgement(0.6, ("E4",)), "```json\n{"])
    assert j.usable == 1 and j.verdict.score == 0.6
    assert any(e.kind == "judge_unparseable" and "2/3" in e.symbolic for e in j.verdict.evidence)
    _, j = _judge(["no idea"] * 3)
    assert not j.verdict.passed and j.verdict.errors == ["judge_unparseable"] and j.verdict.score is None


def test_infra_traces_are_not_sent_to_the_judge():
    case, trace = _case_and_trace()
    trace.status = TraceStatus.INFRA_ERROR
    model = ScriptedJudge(lambda p, i: judgement(1.0))
    v = asyncio.run(judge_trace(model, case, trace))
    assert v.errors == ["infra"] and not model.calls


def test_tool_format_asks_for_a_submit_judgement_call():
    case, trace = _case_and_trace()
    model = ScriptedJudge(lambda p, i: json.dumps({"reasoning": "fine", **{f"E{k}_X": False for k in range(1, 7)},
                                                   "grade": 1.0, "is_correct": True}), as_tool=True)
    v = asyncio.run(judge_trace(model, case, trace, samples=1, reply_format="tool"))
    assert v.passed and v.score == 1.0
    _, tools, params = model.calls[0]
    assert tools == [JUDGE_TOOL] and params.tool_choice == "required"


@pytest.mark.parametrize("bad", [{"samples": 0}, {"threshold": 1.5}, {"reply_format": "xml"},
                                 {"temperature": -1.0}, {"max_tokens": 2}])
def test_bad_configuration_is_a_user_error(bad):
    with pytest.raises(PlanprobeError):
        JudgeConfig(**bad).check()


# ---------------------------------------------------------------------------
# A stored run: judge, resume, calibrate
# ---------------------------------------------------------------------------


def _mixed_run(tmp_path, n=12):
    """A run of formal cases: the oracle agent on even cases, a faulty agent on odd ones."""
    suite = cases(n, seed=5)
    store = RunStore(tmp_path / "run", create=True)
    store.add_cases(suite)
    for k, case in enumerate(suite):
        agent = OracleAgent() if k % 2 == 0 else FaultyAgent("swap", seed=k)
        trace = run_agent(agent, case)
        store.add_result(trace, get_family(case.family).check(case, trace))
    store.close()
    return tmp_path / "run"


def test_judging_a_run_is_resumable_and_calibrated(tmp_path):
    run = _mixed_run(tmp_path)
    model = ScriptedJudge(lambda prompt, i: judgement(1.0) if matches_reference(prompt) else judgement(0.2, ("E3",)))
    config = JudgeConfig(samples=1)
    with pytest.raises(PlanprobeError, match="--calibrate"):
        judge_run(run, model, config)  # only formal cases: nothing to judge without --calibrate
    rows = judge_run(run, model, config, calibrate=True)
    assert len(rows) == 12 and len(model.calls) == 12
    assert len((run / LOG_NAME).read_text().splitlines()) == 12
    rows_again = judge_run(run, model, config, calibrate=True)
    assert len(model.calls) == 12 and rows_again == rows  # resumed: nothing judged twice
    cal = calibration(rows)
    oracle_passes = sum(r["formal"]["passed"] for r in rows)
    assert 0 < oracle_passes < 12
    assert cal["agreement"] == 1.0 and cal["cohen_kappa"] == pytest.approx(1.0)
    assert cal["confusion"]["judge_pass_oracle_fail"] == 0 and cal["confusion"]["judge_fail_oracle_pass"] == 0
    s = summarize_rows(rows)
    assert s["judged"] == 12 and s["errors"]["E3_CONSTRAINT_VIOLATION"] == 12 - oracle_passes


def test_a_lenient_judge_has_no_agreement_beyond_chance(tmp_path):
    run = _mixed_run(tmp_path)
    rows = judge_run(run, ScriptedJudge(lambda p, i: judgement(1.0)), JudgeConfig(samples=1), calibrate=True)
    cal = calibration(rows)
    assert cal["judge_pass_rate"] == 1.0 and cal["cohen_kappa"] == pytest.approx(0.0)


def test_another_judge_identity_judges_afresh_and_a_torn_line_is_redone(tmp_path):
    run = _mixed_run(tmp_path, n=4)
    first = ScriptedJudge(lambda p, i: judgement(1.0))
    judge_run(run, first, JudgeConfig(samples=1), calibrate=True)
    second = ScriptedJudge(lambda p, i: judgement(1.0), name="other-judge")
    judge_run(run, second, JudgeConfig(samples=1), calibrate=True)
    assert len(second.calls) == 4
    with open(run / LOG_NAME, "a") as f:
        f.write('{"case_id": "x", "tri')  # killed mid-write
    assert len(read_log(run)) == 4  # both identities cover the same 4 (case, trial) keys
    rng_rows = judge_run(run, first, JudgeConfig(samples=1), calibrate=True)
    assert len(rng_rows) == 4 and len(first.calls) == 4


def test_sample_agreement_summary(tmp_path):
    run = _mixed_run(tmp_path, n=6)
    rng = random.Random(0)
    votes = {}

    def reply(prompt, i):
        key = prompt[:2000]
        votes.setdefault(key, [rng.random() < 0.5 for _ in range(3)])
        return judgement(1.0) if votes[key][i] else judgement(0.4, ("E2",))

    rows = judge_run(run, ScriptedJudge(reply), JudgeConfig(samples=3), calibrate=True)
    ag = summarize_rows(rows)["sample_agreement"]
    assert ag["traces_with_2plus_samples"] == 6
    assert 2 / 3 <= ag["mean"] <= 1.0 and ag["fleiss_kappa"] is not None


def test_judged_verdicts_leave_the_run_store_unchanged(tmp_path):
    run = _mixed_run(tmp_path, n=2)

    def stored():
        store = RunStore(run)
        try:
            return [v.model_dump_json() for _, v in store.results()]
        finally:
            store.close()

    before = stored()
    judge_run(run, ScriptedJudge(lambda p, i: judgement(1.0)), JudgeConfig(samples=1), calibrate=True)
    assert stored() == before and all('"formal"' in v for v in before)


def test_a_trace_that_did_not_finish_says_so_to_the_judge():
    case, trace = _case_and_trace()
    trace = Trace.model_validate({**trace.model_dump(), "status": "timeout"})
    seen = []
    asyncio.run(judge_trace(ScriptedJudge(lambda p, i: seen.append(p) or judgement(0.4, ("E2",))), case, trace,
                            samples=1))
    assert "did not finish normally: timeout" in seen[0]
