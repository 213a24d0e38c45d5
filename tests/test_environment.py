import json
import re

import pytest

from helpers import cases
from planprobe.environment import IterationLimitExceeded, Limits
from planprobe.suites.constraints.prepared import prepare
from planprobe.suites.registry import get_family, restart_tool_of


def test_calls_are_recorded_with_raw_arguments_results_and_times():
    case = cases(1)[0]
    env = get_family("constraints").environment(case, Limits(), 0, "t")
    tool = case.tools[0].name
    result = env.call(tool, "{}", call_id="call_1")
    assert result.endswith("has been done.")
    env.call("no_such_tool", "{}")
    env.call(tool, "{oops")
    calls = env.trace.tool_calls
    assert [c.error for c in calls] == [None, "unknown_tool", "malformed_arguments"]
    assert calls[0].call_id == "call_1" and calls[2].arguments == "{oops" and calls[2].args is None
    assert "Available tools:" in calls[1].result and tool in calls[1].result
    assert all(0 <= c.t_start <= c.t_end for c in calls)


def test_the_iteration_limit_is_enforced_by_step():
    env = get_family("constraints").environment(cases(1)[0], Limits(max_iterations=3), 0, "t")
    for _ in range(3):
        env.step()
    with pytest.raises(IterationLimitExceeded):
        env.step()


def test_durations_are_revealed_only_by_running_the_tool():
    case = cases(1, extended=True)[0]
    cc = prepare(case)
    visible = case.task + json.dumps([t.model_dump() for t in case.tools])
    assert not re.search(r"took \d|\d hours?\b", visible)
    env = get_family("constraints").environment(case, Limits(), 0, "t")
    result = env.call(cc.tools[0], {"start_time": 3})
    d = cc.durations[0]
    assert f"took {d} hour" in result and f"ended at {3 + d:02d}:00" in result


def test_restart_starts_a_new_attempt():
    case = cases(1, extended=True)[0]
    cc = prepare(case)
    env = get_family("constraints").environment(case, Limits(), 0, "t")
    env.call(cc.tools[0], {"start_time": 1})
    assert env.call("request_restart", "{}").startswith("Restart granted")
    env.call(cc.tools[0], {"start_time": 1})
    assert [c.attempt for c in env.trace.tool_calls] == [0, 0, 1] and env.trace.restarts == 1
    trace = env.trace
    assert len(trace.judged_calls(restart_tool_of(case))) == 1
    derived = [k for k, attempt in enumerate(trace.attempts(restart_tool_of(case))) for _ in attempt]
    assert derived == [c.attempt for c in trace.tool_calls]  # the annotations agree with the raw calls
    assert env.call("request_restart", '{"why": 1}').startswith("Error: invalid arguments")  # refused: no restart
    assert env.trace.restarts == 1 and trace.restart_count(restart_tool_of(case)) == 1
