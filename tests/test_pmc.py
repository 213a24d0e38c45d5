"""The PMC agent (issue #15 item 1): the manager's plan checked and repaired, sub-tasks in
waves (independent ones at once), the supervisor only before dependent sub-tasks, the
deliverer's answer, who did what in the trace — against a real HTTP server on loopback."""

from __future__ import annotations

import json
import subprocess
import threading

import pytest

from helpers import cases, planprobe_cmd, planprobe_here, run_agent, subprocess_env
from http_faults import ScriptedServer, chat_reply
from planprobe.agents import make_agent
from planprobe.agents.pmc_plan import PLAN_ERRORS, PlanDefect, levels, parse_plan
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.suites.registry import get_family


def _plan(subtasks, global_constraints=("finish the day",)) -> str:
    return json.dumps({"subtasks": subtasks, "global_constraints": list(global_constraints)})


def _sub(sid, tools, deps=(), executor="function_calling", **extra):
    return {"id": sid, "description": f"do {sid}", "executor": executor, "tools": list(tools),
            "parameters": {}, "depends_on": list(deps), "local_constraints": [f"rule of {sid}"], **extra}


TOOLS = ["a", "b", "c"]

def malformed(a: str, b: str) -> dict[str, str]:
    """One defective manager reply per plan-error class, over tools ``a`` and ``b``."""
    return {
        "bad_json": "Here is the plan: {subtasks: [}",
        "bad_shape": json.dumps({"steps": []}),
        "empty": _plan([]),
        "too_many": _plan([_sub(f"s{i}", [a]) for i in range(21)]),
        "duplicate_id": _plan([_sub("s1", [a]), _sub("s1", [b])]),
        "unknown_executor": _plan([_sub("s1", [a], executor="genius")]),
        "unknown_tool": _plan([_sub("s1", ["fly"])]),
        "unknown_dependency": _plan([_sub("s1", [a], deps=["s9"])]),
        "cycle": _plan([_sub("s1", [a], deps=["s2"]), _sub("s2", [b], deps=["s1"])]),
    }


MALFORMED = malformed("a", "b")


def test_every_plan_error_class_has_a_malformed_example():
    assert set(MALFORMED) == set(PLAN_ERRORS)


@pytest.mark.parametrize("kind", PLAN_ERRORS)
def test_each_malformed_plan_is_refused_with_its_class(kind):
    with pytest.raises(PlanDefect) as info:
        parse_plan(MALFORMED[kind], TOOLS)
    assert info.value.kind == kind


def test_a_plan_in_a_fence_with_prose_is_read_and_ordered_in_waves():
    reply = "Sure.\n```json\n" + _plan([_sub("s3", ["c"], deps=["s1", "s2"]), _sub("s1", ["a"]),
                                         _sub("s2", ["b"])]) + "\n```\nDone."
    plan = parse_plan(reply, TOOLS)
    assert [[s.id for s in w] for w in levels(plan)] == [["s1", "s2"], ["s3"]]
    assert plan.global_constraints == ("finish the day",)
    assert plan.get("s3").local_constraints == ("rule of s3",)


# -- the agent against a scripted OpenAI-compatible server ------------------------------------

def _last_user(body) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def _first_user(body) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class Script:
    """Answers each role by the prompt it was sent; ``plans`` are the manager's replies in turn."""

    def __init__(self, plans, barrier=None):
        self.plans = list(plans)
        self.barrier = barrier
        self.lock = threading.Lock()

    def __call__(self, i, body, headers):
        first = _first_user(body)
        if first.startswith("You are the manager"):
            with self.lock:
                return chat_reply(self.plans.pop(0) if len(self.plans) > 1 else self.plans[0])
        if first.startswith("A sub-task is about to start"):
            return chat_reply(json.dumps({"description": "rewritten: do it after the others"}))
        if first.startswith("You are delivering"):
            return chat_reply("the final answer")
        report = f"report of {first.split('Sub-task: ')[1].splitlines()[0]}"
        if first.startswith("Answer the following request"):  # the ReAct executor
            if not _last_user(body).startswith("Observation:"):
                name = first.split("exactly one of [")[1].split("]")[0].split(",")[0]
                return chat_reply(f"Thought: act\nAction: {name}\nAction Input: {{}}")
            return chat_reply(f"Final Answer: {report}")
        # the function-calling executor: call its first tool once, then report
        if not any(m["role"] == "tool" for m in body["messages"]):
            if self.barrier is not None:
                self.barrier.wait()  # both executors must be waiting at once: they run concurrently
            name = body["tools"][0]["function"]["name"]
            return chat_reply(None, tool_calls=[{"id": f"c{i}", "type": "function",
                                                 "function": {"name": name, "arguments": "{}"}}])
        return chat_reply(report)


def _agent(url, **roles):
    model = make_model("openai:m", ModelOptions(base_url=url, cache=False))
    return make_agent("pmc", 0, model={"*": model, **roles}, params=ChatParams(seed=0))


def _case():
    case = next(c for c in cases(20, seed=3, actions=(3, 3)))
    return case


def test_pmc_runs_a_dependent_graph_and_the_trace_says_who_did_what():
    case = _case()
    names = [t.name for t in case.tools]
    plan = _plan([_sub("s1", [names[0]]), _sub("s2", [names[1]], executor="react"),
                  _sub("s3", [names[2]], deps=["s1", "s2"])])
    with ScriptedServer(Script([plan])) as server:
        trace = run_agent(_agent(server.url), case)
    assert trace.status.value == "completed" and trace.final_answer == "the final answer"
    roles = [e.agent for e in trace.episodes]
    assert roles.count("executor") == 3 and roles.count("supervisor") == 1  # only s3 depends on others
    sup = next(e for e in trace.episodes if e.agent == "supervisor")
    assert sup.task == "s3" and "report of do s1" in sup.messages[0].content  # neighbours' outcomes reach it
    last = trace.episodes[-1]
    assert last.agent == "executor" and "rewritten: do it after the others" in last.task
    assert {m.agent for m in trace.messages} == {"manager", "deliverer"}
    assert all(c.agent == "executor" and c.episode for c in trace.tool_calls)
    assert trace.tool_calls[-1].name == names[2]  # the dependent sub-task acted last
    info = trace.meta["pmc"]
    assert info["waves"] == [["s1", "s2"], ["s3"]] and info["plan"]["subtasks"][2]["depends_on"] == ["s1", "s2"]
    usage = info["usage_by_role"]
    assert usage["manager"]["model_calls"] == 1 and usage["supervisor"]["model_calls"] == 1
    assert usage["deliverer"]["model_calls"] == 1 and usage["executor"]["model_calls"] == 6
    assert sum(u["model_calls"] for u in usage.values()) == trace.usage.model_calls
    react = [e for e in trace.episodes if e.agent == "executor"][1]
    assert react.messages[0].content.startswith("Answer the following request")  # the ReAct executor
    verdict = get_family(case.family).check(case, trace)
    assert verdict is not None


def test_independent_subtasks_run_concurrently():
    case = _case()
    names = [t.name for t in case.tools]
    plan = _plan([_sub("s1", [names[0]]), _sub("s2", [names[1]])])
    barrier = threading.Barrier(2, timeout=60)  # broken (and the test failed) if the executors run one by one
    with ScriptedServer(Script([plan], barrier)) as server:
        trace = run_agent(_agent(server.url), case)
    assert not barrier.broken
    assert trace.final_answer == "the final answer" and len(trace.tool_calls) == 2
    assert not [e for e in trace.episodes if e.agent == "supervisor"]  # no dependencies: no supervisor


@pytest.mark.parametrize("kind", PLAN_ERRORS)
def test_a_malformed_plan_is_repaired_once(kind):
    case = _case()
    good = _plan([_sub("s1", [case.tools[0].name])])
    bad = malformed(case.tools[0].name, case.tools[1].name)[kind]
    with ScriptedServer(Script([bad, good])) as server:
        trace = run_agent(_agent(server.url), case)
        repair = _last_user(server.requests[1])
    assert repair.startswith("Your plan cannot be carried out")
    assert trace.final_answer == "the final answer"
    assert trace.meta["pmc"]["repairs"][0]["kind"] == kind and "plan_error" not in trace.meta["pmc"]


@pytest.mark.parametrize("kind", PLAN_ERRORS)
def test_a_plan_still_malformed_fails_the_case_with_its_class(kind):
    case = _case()
    with ScriptedServer(Script([malformed(case.tools[0].name, case.tools[1].name)[kind]])) as server:
        trace = run_agent(_agent(server.url), case)
    assert trace.meta["pmc"]["plan_error"] == kind and not trace.tool_calls and trace.final_answer is None
    assert [e.kind for e in trace.errors] == ["plan_error"] and f"({kind})" in trace.errors[0].message
    verdict = get_family(case.family).check(case, trace)
    assert not verdict.passed


def test_a_model_per_role_is_used_for_that_role():
    case = _case()
    plan = _plan([_sub("s1", [case.tools[0].name])])
    with ScriptedServer(Script([plan])) as a, ScriptedServer(Script([plan])) as b:
        manager = make_model("openai:boss", ModelOptions(base_url=b.url, cache=False))
        trace = run_agent(_agent(a.url, manager=manager), case)
        assert len(b.requests) == 1 and _first_user(b.requests[0]).startswith("You are the manager")
        assert not any(_first_user(r).startswith("You are the manager") for r in a.requests)
    assert trace.final_answer == "the final answer"


def test_unknown_role_is_one_line_and_nonzero(tmp_path):
    suite = tmp_path / "s.jsonl"
    planprobe_here("generate", "constraints", "--n", "1", "-o", suite).check_returncode()
    out = subprocess.run([*planprobe_cmd(), "run", str(suite), "--agent", "pmc", "--model",
                          "local,planner=local", "--out", str(tmp_path / "r")],
                         env=subprocess_env(), capture_output=True, text=True)
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "'planner'" in lines[0] and "manager" in lines[0]


def test_a_family_without_tools_is_refused_in_one_line(tmp_path):
    suite = tmp_path / "t.jsonl"
    planprobe_here("generate", "planbench", "--task", "t1", "--n", "1", "-o", suite).check_returncode()
    out = planprobe_here("run", suite, "--agent", "pmc", "--model", "openai:x", "--base-url", "http://127.0.0.1:9/v1",
                         "--out", tmp_path / "r")
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "has no tools" in lines[0] and "--agent pmc" in lines[0]


def test_compare_pairs_pmc_with_a_single_agent_and_splits_usage_by_role(tmp_path):
    import planprobe as pp

    suite = cases(3, seed=5, actions=(2, 2))

    class Oracle:  # plans every case: one sub-task per action, in a chain, on a tool-calling executor
        def __call__(self, i, body, headers):
            first = _first_user(body)
            if first.startswith("You are the manager"):
                names = first.split("Tools (give each sub-task only the tools it needs):\n")[1].split("\nA sub-task")[0]
                tools = [line[2:].split(":")[0] for line in names.splitlines()]
                subs = [_sub(f"s{k}", [t], deps=[f"s{k - 1}"] if k else []) for k, t in enumerate(tools)]
                return chat_reply(_plan(subs))
            return Script([""])(i, body, headers)

    with ScriptedServer(Oracle()) as server:
        pp.run_suite(suite, _agent(server.url), tmp_path / "pmc", concurrency=1)
    pp.run_suite(suite, "random", tmp_path / "random")
    out = planprobe_here("compare", tmp_path / "random", tmp_path / "pmc", "--json")
    out.check_returncode()
    data = json.loads(out.stdout)
    assert data["pairs"] == 3
    a, b = data["usage_per_case"]["a"], data["usage_per_case"]["b"]
    assert a["agent"]["model_calls"] == 0 and set(b) == {"manager", "executor", "supervisor", "deliverer", "total"}
    assert b["manager"]["model_calls"] == 1 and b["deliverer"]["model_calls"] == 1
    assert b["total"]["model_calls"] == sum(b[r]["model_calls"] for r in ("manager", "executor", "supervisor",
                                                                           "deliverer"))
    assert b["supervisor"]["model_calls"] >= 1  # the chain's later sub-tasks depend on earlier ones
    shown = planprobe_here("compare", tmp_path / "random", tmp_path / "pmc")
    shown.check_returncode()
    text = shown.stdout
    assert "B per case, manager: 1 model calls" in text


def test_report_draws_the_subtask_graph_with_hostile_text_escaped(tmp_path):
    import planprobe as pp
    from planprobe.report.data import load_run
    from planprobe.report.html import render_report

    case = _case()
    names = [t.name for t in case.tools]
    evil = "</script><img src=x onerror=alert(1)>"
    plan = json.dumps({"subtasks": [dict(_sub("s1", [names[0]]), description=evil),
                                    _sub("s2", [names[1]], deps=["s1"])], "global_constraints": [evil]})
    with ScriptedServer(Script([plan])) as server:
        pp.run_suite([case], _agent(server.url), tmp_path / "pmc", concurrency=1)
    run = load_run(tmp_path / "pmc")
    graph = run.rows[0]["graph"]
    assert [n["id"] for n in graph["nodes"]] == ["s1", "s2"] and len(graph["edges"]) == 1
    x1, _, x2, _ = graph["edges"][0]
    assert x1 < x2  # the dependency's column comes first
    assert graph["nodes"][1]["rewritten"] and run.rows[0]["calls"][0]["by"] == "executor-1"
    html = render_report([run])
    assert evil not in html and "<img" not in html


def test_pmc_with_the_embedded_model_end_to_end(tmp_path):
    """The embedded 135M model in every role (it cannot plan: a plan error or a failed plan is
    expected); the point is that the run, the per-role record and the report work end to end."""
    from llama_server import require_local_model
    from planprobe.runner.store import RunStore

    require_local_model()
    env = subprocess_env()
    suite = tmp_path / "s.jsonl"
    subprocess.run([*planprobe_cmd(), "generate", "constraints", "--n", "1", "--actions", "2", "--seed", "2",
                    "-o", str(suite)], check=True, env=env, capture_output=True)
    r = subprocess.run([*planprobe_cmd(), "run", str(suite), "--agent", "pmc", "--model", "local", "--max-iterations",
                        "6", "--max-tokens", "64", "--timeout", "1200", "--out", str(tmp_path / "r"), "-q"],
                       env=env, capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    store = RunStore(tmp_path / "r")
    try:
        (trace, _verdict), = list(store.results())
    finally:
        store.close()
    assert trace.status.value in ("completed", "iteration_limit"), trace.errors
    assert trace.messages[0].agent == "manager" and trace.messages[0].content.startswith("You are the manager")
    info = trace.meta["pmc"]
    manager = info["usage_by_role"]["manager"]
    # the record/replay cache lives in the user's cache directory: a call made by an earlier run on this
    # machine is answered from it and counted as cached, not as a model call
    assert manager["model_calls"] + manager["cached_calls"] >= 1
    assert (info.get("plan_error") in PLAN_ERRORS) or info["plan"] is not None
    r = subprocess.run([*planprobe_cmd(), "report", str(tmp_path / "r"), "-o", str(tmp_path / "r.html")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# -- in-process model doubles: each answers only from the messages it is sent ----------------

class Double:
    """A model in this process; ``answer(role, text, messages, tools)`` gives the reply for the
    role its prompt names (the manager's, the supervisor's, the deliverer's first line; anything
    else is an executor). Every request is kept, with its messages, for the test to read."""

    name = "double"

    def __init__(self, answer):
        self.answer = answer
        self.requests: list[tuple[str, list]] = []

    async def chat(self, messages, tools, params):
        from planprobe.models.base import ChatResult
        from planprobe.schema import Message

        text = "\n".join(m.content or "" for m in messages)
        role = _role_of(messages)
        self.requests.append((role, list(messages)))
        reply = await self.answer(role, text, messages, tools)
        if isinstance(reply, dict):  # a tool call
            return ChatResult(message=Message(role="assistant", content="", tool_calls=[reply]))
        return ChatResult(message=Message(role="assistant", content=reply))

    async def aclose(self):
        return None


def _role_of(messages) -> str:
    first = next(m.content or "" for m in messages if m.role == "user")
    for role, opening in (("manager", "You are the manager"), ("supervisor", "A sub-task is about to start"),
                          ("deliverer", "You are delivering")):
        if first.startswith(opening):
            return role
    return "executor"


def _pmc(model):
    return make_agent("pmc", 0, model=model, params=ChatParams(seed=0))


def test_a_failing_executor_cancels_and_awaits_its_running_sibling_before_the_episode_ends():
    """Issue #26 item 7: s1's executor fails while s2's is waiting for its model; s2 must be
    cancelled and finished before the episode returns, and no call may complete after it."""
    import asyncio

    from planprobe.environment import Limits
    from planprobe.runner.engine import run_episode

    case = _case()
    names = [t.name for t in case.tools]
    plan = _plan([_sub("s1", [names[0]]), _sub("s2", [names[1]])])
    log: list[str] = []

    async def main():
        s2_waiting = asyncio.Event()
        never = asyncio.Event()  # the slow server: it never answers s2

        async def answer(role, text, messages, tools):
            if role == "manager":
                return plan
            if "do s2" in text:
                s2_waiting.set()
                try:
                    await never.wait()
                except asyncio.CancelledError:
                    log.append("s2 cancelled")
                    raise
                log.append("s2 completed")
                return "late report"
            if "do s1" in text:
                await s2_waiting.wait()  # fail only once the sibling's call is in flight
                log.append("s1 failed")
                raise RuntimeError("the executor's model broke")
            return "the final answer"

        trace = await run_episode(case, _pmc(Double(answer)), Limits())
        log.append("episode returned")
        never.set()  # the server answers now: a call still alive would complete
        for _ in range(20):
            await asyncio.sleep(0)
        return trace

    trace = asyncio.run(main())
    assert trace.status.value == "agent_error" and "the executor's model broke" in trace.errors[0].message
    assert log == ["s1 failed", "s2 cancelled", "episode returned"]


FORMAT_KEYS = ("days", "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation")


def _itinerary_case():
    from planprobe.suites.itinerary.generate import ItineraryOptions, generate_cases

    return next(iter(generate_cases(ItineraryOptions(n=1, seed=7, days=(3,)))))


def test_every_role_gets_the_cases_instructions_and_the_deliverer_can_answer_in_their_format():
    """Issue #26 item 6: on itinerary cases the system prompt is the only place that states the
    answer format. The deliverer double writes TravelPlanner's JSON layout only when the keys of
    that layout are named in its messages (else it answers in prose, as a model that was never
    told the format would); every role must be sent the case's instructions."""
    import asyncio
    import re

    from planprobe.environment import Limits
    from planprobe.runner.engine import run_episode

    case = _itinerary_case()
    assert case.system and not any(k in case.task for k in FORMAT_KEYS if "_" in k)  # the format is only there

    async def answer(role, text, messages, tools):
        if role == "manager":
            listed = text.split("Tools (give each sub-task only the tools it needs):\n")[1].split("\nA sub-task")[0]
            tool_names = [line[2:].split(":")[0] for line in listed.splitlines()]
            return _plan([_sub("s1", tool_names[:2]), _sub("s2", tool_names[2:], deps=["s1"])])
        if role == "supervisor":
            return json.dumps({"description": "do s2 in the city s1 found"})
        if role == "executor":
            return "report: found what the sub-task asked for"
        query = re.search(r"from (\w+) to (\w+), from", text)  # the request, as the deliverer was sent it
        days = int(re.search(r"(\d+)-day", text).group(1))
        named = [k for k in FORMAT_KEYS if re.search(rf"\b{k}\b", text)]
        if len(named) < len(FORMAT_KEYS) or query is None:
            return "Go there, sleep, eat, come back."  # the format was never shown
        home, away = query.groups()
        plan = []
        for d in range(1, days + 1):
            move = f"from {home} to {away}" if d == 1 else f"from {away} to {home}" if d == days else away
            plan.append({k: "-" for k in FORMAT_KEYS} | {"days": d, "current_city": move,
                                                           "transportation": f"Self-driving, {move}"
                                                           if "from" in move else "-"})
        return json.dumps(plan)

    double = Double(answer)
    trace = asyncio.run(run_episode(case, _pmc(double), Limits()))
    assert trace.status.value == "completed", trace.errors
    verdict = get_family(case.family).check(case, trace)
    assert "not_delivered" not in [e.kind for e in verdict.evidence], verdict.evidence  # read as a plan
    seen = {role: ["\n".join(m.content or "" for m in messages) for r, messages in double.requests if r == role]
            for role in ("manager", "executor", "supervisor", "deliverer")}
    assert all(seen.values()) and all(case.system in text for texts in seen.values() for text in texts)
    assert trace.meta["pmc"]["rewritten"]["s2"]["description"] == "do s2 in the city s1 found"


def _run_double(case, answer):
    import asyncio

    from planprobe.environment import Limits
    from planprobe.runner.engine import run_episode

    double = Double(answer)
    return asyncio.run(run_episode(case, _pmc(double), Limits())), double


def test_the_supervisor_rewrites_the_subtask_in_the_managers_json_and_the_deliverer_sees_the_rewrite():
    """Issue #26 item 9 (PMC F.4): the supervisor is given the sub-task in the manager's JSON
    format and answers in it, so its parameters can be filled in too; the executor runs the
    rewrite, and the deliverer reads the sub-task as it was run, not the manager's first draft."""
    case = _case()
    names = [t.name for t in case.tools]
    s2 = dict(_sub("s2", [names[1]], deps=["s1"]), parameters={"where": "to be found"})
    plan = _plan([_sub("s1", [names[0]]), s2])

    async def answer(role, text, messages, tools):
        if role == "manager":
            return plan
        if role == "supervisor":
            sent = json.loads(text.split("manager's JSON format:\n\n")[1].split("\n")[0])  # the sub-task as JSON
            assert sent["id"] == "s2" and sent["parameters"] == {"where": "to be found"}
            found = text.split("- s1: ")[1].split("\n")[0]
            return "```json\n" + json.dumps(dict(sent, description=f"do s2 at {found}",
                                                 parameters={"where": found})) + "\n```"
        if role == "executor":
            return "room 7" if "do s1" in text else "done at room 7"
        return "final"

    trace, double = _run_double(case, answer)
    executors = [e for e in trace.episodes if e.agent == "executor"]
    assert 'Parameters: {"where": "room 7"}' in executors[1].task and "do s2 at room 7" in executors[1].task
    deliverer = next("\n".join(m.content for m in ms) for r, ms in double.requests if r == "deliverer")
    assert "- s2 (do s2 at room 7): done at room 7" in deliverer and "(do s2)" not in deliverer
    assert trace.meta["pmc"]["rewritten"]["s2"]["parameters"] == {"where": "room 7"}


def test_an_unreadable_rewrite_keeps_the_managers_subtask_and_says_why():
    case = _case()
    names = [t.name for t in case.tools]
    plan = _plan([_sub("s1", [names[0]]), _sub("s2", [names[1]], deps=["s1"])])

    async def answer(role, text, messages, tools):
        return {"manager": plan, "supervisor": "I would rather not.", "executor": "ok"}.get(role, "final")

    trace, _ = _run_double(case, answer)
    info = trace.meta["pmc"]
    assert info["rewritten"] == {} and info["rewrite_problems"]["s2"].startswith("bad_json")
    assert [e for e in trace.episodes if e.agent == "executor"][1].task.startswith(
        "Carry out this sub-task of a larger request, using the tools you are given.\n\nSub-task: do s2\n")


def test_executors_are_asked_for_a_full_report_not_a_short_one():
    """PMC F.3: reports reach the supervisor and the deliverer, so they must lose nothing."""
    from planprobe.agents import pmc_prompts as P

    text = P.executor_task("do it", {}, [])
    assert "short" not in text and "full detail" in text and "leave nothing out" in text


def test_a_deeply_nested_manager_reply_is_a_plan_error_after_the_repair_round():
    """Issue #26 item 8: the reply used to raise RecursionError (agent_crash)."""
    deep = '{"subtasks": ' + "[" * 1000 + "]" * 1000 + "}"

    async def answer(role, text, messages, tools):
        return deep if role == "manager" else "unused"

    trace, double = _run_double(_case(), answer)
    assert [r for r, _ in double.requests] == ["manager", "manager"]  # the repair round was used
    assert trace.status.value == "completed" and trace.meta["pmc"]["plan_error"] == "bad_json"
    assert [e.kind for e in trace.errors] == ["plan_error"] and "nested deeper than" in trace.errors[0].message




def test_a_plan_of_twenty_subtasks_is_accepted():
    # each executor has its own iteration budget, so the plan's size bounds the episode's work
    # (21 sub-tasks: "too_many" in MALFORMED above)
    from planprobe.agents.pmc_plan import MAX_SUBTASKS

    assert MAX_SUBTASKS == 20
    assert len(parse_plan(_plan([_sub(f"s{i}", ["a"]) for i in range(20)]), TOOLS).subtasks) == 20
