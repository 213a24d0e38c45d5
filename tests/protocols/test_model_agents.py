"""The model agents on a protocol case with a real model (the embedded SmolLM2 behind
llama.cpp's OpenAI-compatible server): whatever the model writes is judged, never
a crash. A 135M model rarely writes a valid plan; the point is the plumbing, so the
case is small and the replies short (the test takes seconds on an idle machine)."""

from helpers import cases
from planprobe import Limits, run_suite
from planprobe.agents.react import ReactAgent
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.models import ModelOptions, make_model
from planprobe.models.base import ChatParams
from planprobe.runner.store import RunStore
from planprobe.suites.protocols import wrap_holistic

LIMITS = Limits(max_iterations=2, timeout_s=10 ** 6)  # out of reach: a loaded machine only takes longer


def test_tools_and_react_agents_plan_without_crashing(llama_server, tmp_path):
    suite = [wrap_holistic(cases(1, seed=4, actions=(2, 2))[0])]
    model = make_model("openai:smollm2", ModelOptions(base_url=llama_server, tool_result_role="user", cache=False,
                                                       request_timeout=100000))
    params = ChatParams(max_tokens=32)
    for agent in (ToolsAgent(model, params), ReactAgent(model, params)):
        out = tmp_path / agent.name
        run_suite(suite, agent, out, limits=LIMITS, concurrency=1)
        store = RunStore(out)
        [(trace, verdict)] = list(store.results())
        store.close()
        seen = (agent.name, trace.status.value, trace.errors, verdict.errors)
        assert trace.status.value in ("completed", "iteration_limit"), seen
        assert trace.usage.model_calls >= 1 and trace.messages[0].content.startswith("You are a planner.")
        assert any("Planning mode: holistic" in (m.content or "") for m in trace.messages if m.role == "user")
        assert verdict.checker.startswith("holistic/1") and verdict.oracle.value == "formal", seen
        assert not verdict.passed or verdict.errors == []
        assert verdict.passed or (verdict.evidence and all(e.text for e in verdict.evidence)), seen
