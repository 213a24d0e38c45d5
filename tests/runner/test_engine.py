import asyncio
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from helpers import cases
from planprobe.agents import make_agent
from planprobe.analysis.summary import summarize
from planprobe.environment import Limits
from planprobe.errors import InfrastructureError, PlanprobeError
from planprobe.runner.engine import RunConfig, open_run, run_episode, run_pending
from planprobe.runner.store import RunStore
from planprobe.schema import TraceStatus


def _run(store, suite, agent, config):
    return asyncio.run(run_pending(store, agent, config))


def test_a_run_stores_every_case_once_and_resuming_runs_nothing(tmp_path):
    suite = cases(40, seed=1)
    config = RunConfig(agent="oracle", trials=2, concurrency=4)
    store = open_run(tmp_path / "run", suite, config)
    assert _run(store, suite, make_agent("oracle"), config) == 80
    store.close()
    store = open_run(tmp_path / "run", suite, config)
    assert _run(store, suite, make_agent("oracle"), config) == 0
    summary = summarize(store)
    assert summary.overall.cases == 80 and summary.overall.passed == 80 and summary.pending == 0


def test_more_trials_later_only_adds_the_missing_ones(tmp_path):
    suite = cases(10, seed=1)
    store = open_run(tmp_path / "run", suite, RunConfig(agent="oracle"))
    _run(store, suite, make_agent("oracle"), RunConfig(agent="oracle"))
    store.close()
    config = RunConfig(agent="oracle", trials=3)
    store = open_run(tmp_path / "run", suite, config)
    assert _run(store, suite, make_agent("oracle"), config) == 20
    assert summarize(store).trials == 3


def test_a_run_directory_refuses_a_different_suite_or_agent(tmp_path):
    suite = cases(5, seed=1)
    open_run(tmp_path / "run", suite, RunConfig(agent="oracle")).close()
    with pytest.raises(PlanprobeError, match="different suite"):
        open_run(tmp_path / "run", cases(5, seed=2), RunConfig(agent="oracle"))
    with pytest.raises(PlanprobeError, match="agent=oracle, not random"):
        open_run(tmp_path / "run", suite, RunConfig(agent="random"))


class SlowAgent:
    """Never finishes: whatever the time limit, it is the limit that ends the episode."""

    name = "slow"

    async def __call__(self, case, env):
        await asyncio.Event().wait()


class CrashingAgent:
    name = "crash"

    async def __call__(self, case, env):
        env.step()
        raise ValueError("bug in the agent")


class FlakyService:
    name = "flaky"

    async def __call__(self, case, env):
        raise InfrastructureError("HTTP 503 after 5 retries")


def test_limits_and_failures_become_statuses_not_exceptions():
    case = cases(1)[0]
    trace = asyncio.run(run_episode(case, SlowAgent(), Limits(timeout_s=0.05)))
    assert trace.status == TraceStatus.TIMEOUT and trace.wall_time_s >= 0.05
    trace = asyncio.run(run_episode(case, make_agent("faulty:stall"), Limits(max_iterations=7)))
    assert trace.status == TraceStatus.ITERATION_LIMIT and trace.iterations == 8
    trace = asyncio.run(run_episode(case, CrashingAgent(), Limits()))
    assert trace.status == TraceStatus.AGENT_ERROR and "bug in the agent" in trace.errors[0].message
    trace = asyncio.run(run_episode(case, FlakyService(), Limits()))
    assert trace.status == TraceStatus.INFRA_ERROR


def test_infrastructure_failures_are_kept_out_of_the_pass_rate(tmp_path):
    suite = cases(6)
    config = RunConfig(agent="flaky")
    store = open_run(tmp_path / "run", suite, config)
    _run(store, suite, FlakyService(), config)
    s = summarize(store)
    assert s.infra == 6 and s.overall.cases == 0 and s.overall.errors == {}


KILL_SCRIPT = textwrap.dedent("""
    import asyncio, os, signal, sys
    from planprobe.runner.engine import RunConfig, open_run, run_pending
    from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_cases
    from planprobe.agents import make_agent

    KILL_AT = int(sys.argv[2])  # the process kills itself as this episode starts (0: never)

    class Paced:
        name = "oracle"
        def __init__(self):
            self.inner = make_agent("oracle")
            self.started = 0
        async def __call__(self, case, env):
            self.started += 1
            if self.started == KILL_AT:  # others are in flight: SIGKILL mid-run, no clean-up of any kind
                os.kill(os.getpid(), signal.SIGKILL)
            await asyncio.sleep(0)
            return await self.inner(case, env)

    suite = list(generate_cases(ConstraintSuiteOptions(n=300, seed=9)))
    config = RunConfig(agent="oracle", concurrency=4)
    store = open_run(sys.argv[1], suite, config)
    asyncio.run(run_pending(store, Paced(), config))
""")


def test_a_run_killed_with_sigkill_resumes_and_ends_with_every_case_exactly_once(tmp_path):
    out = tmp_path / "run"
    killed = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(out), "60"])
    assert killed.returncode == -signal.SIGKILL
    with sqlite3.connect(out / "run.sqlite") as con:
        done = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert 40 <= done < 60, "the run was killed mid-way, with cases in flight"
    resumed = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(out), "0"])
    assert resumed.returncode == 0
    store = RunStore(out)
    rows = store.rows()
    assert len(rows) == 300 and len({r.case_id for r in rows}) == 300
    assert all(r.passed for r in rows)


class Outage:
    """The model service fails for the first ``failures`` episodes, then recovers."""

    name = "flaky"

    def __init__(self, failures):
        self.failures = failures
        self.inner = make_agent("oracle")

    async def __call__(self, case, env):
        if self.failures > 0:
            self.failures -= 1
            raise InfrastructureError("HTTP 503 from http://x/v1/chat/completions")
        return await self.inner(case, env)


def test_resume_reruns_infra_results_only_and_never_replaces_another_result(tmp_path):
    suite = cases(5)
    config = RunConfig(agent="flaky", concurrency=1)
    store = open_run(tmp_path / "run", suite, config)
    assert _run(store, suite, Outage(2), config) == 5
    assert [r.infra for r in store.rows()] == [True, True, False, False, False]
    assert _run(store, suite, Outage(0), config) == 2  # only the infra ones
    rows = store.rows()
    assert len(rows) == 5 and not any(r.infra for r in rows) and all(r.passed for r in rows)
    trace, verdict = next(store.results())
    assert trace.meta["attempt"] == 2 and trace.meta["earlier_infra"] == ["HTTP 503 from http://x/v1/chat/completions"]
    with pytest.raises(PlanprobeError, match="UNIQUE constraint"):  # a result that is not infra is final
        store.add_result(trace, verdict)


def test_a_service_that_cannot_serve_stops_the_run_and_records_nothing_in_flight(tmp_path):
    from planprobe.errors import ServiceUnusableError

    class Rejected:
        name = "rejected"

        async def __call__(self, case, env):
            await asyncio.sleep(0)
            raise ServiceUnusableError("HTTP 401 from http://x/v1/chat/completions")

    suite = cases(6)
    config = RunConfig(agent="rejected", concurrency=3)
    store = open_run(tmp_path / "run", suite, config)
    with pytest.raises(ServiceUnusableError, match="HTTP 401"):
        _run(store, suite, Rejected(), config)
    assert store.rows() == []
