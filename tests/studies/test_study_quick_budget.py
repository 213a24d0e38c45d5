"""``--quick`` stays quick: the model calls a quick study makes with a model that never plans and
never stops on its own — the embedded SmolLM2-135M's worst case: every tool call a wrong one until
the iteration cap, every text reply as long as --max-tokens allows — stay within a budget per study.

A call of the embedded model costs about 0.5 s (a tool call, the conversation's prefix cached) to
13 s (a 512-token text reply after a ~800-token prompt) of one core (docs/studies.md, "--quick on
the embedded model"), so the budgets below keep each study near 5 minutes there. The count does not
depend on the machine: the test times nothing.
"""

from __future__ import annotations

import json

import pytest
from study_helpers import study, study_json

import planprobe as pp
from helpers import shared_path
from planprobe.models import unregister_model
from planprobe.models.base import ChatResult, tool_call
from planprobe.schema import Message, Usage

# the most calls a quick study may make with a model that never plans: its worst case at the quick sizes
# chosen in issue #28 (docs/studies.md); the sizes before made 2,400 (pdoctor), 210 (planbench), 90 (apb),
# 1,416 (pmc) and 282 (agentdebug). A change that makes --quick bigger
# fails here: measure it on the embedded model (benchmarks/study_quick.py) before raising a budget.
BUDGET = {"pdoctor": 450, "planbench": 42, "apb": 18, "pmc": 72, "agentdebug": 129}


class _Floor:
    """Never plans, never gives up: calls the first tool offered (with arguments its schema accepts)
    until the case's cap; asked for text, replies as much text as the reply cap allows."""

    name = "floor"
    calls = 0

    async def chat(self, messages, tools, params) -> ChatResult:
        type(self).calls += 1
        if tools and params.tool_choice != "none":
            tool = tools[0]
            args = {k: _value(v) for k, v in tool.parameters.get("properties", {}).items()
                    if k in tool.parameters.get("required", [])}
            msg = Message(role="assistant", content="",
                          tool_calls=[tool_call(f"c{len(messages)}", tool.name, json.dumps(args))])
            return ChatResult(message=msg, usage=Usage(model_calls=1, completion_tokens=16))
        words = " ".join(["and then"] * (params.max_tokens // 2))
        return ChatResult(message=Message(role="assistant", content=words),
                          usage=Usage(model_calls=1, completion_tokens=params.max_tokens), finish_reason="length")

    async def aclose(self) -> None:
        pass


def _value(spec: dict):
    if "enum" in spec:
        return spec["enum"][0]
    return {"integer": spec.get("minimum", 0), "number": 0, "boolean": False}.get(spec.get("type"), "x")


@pytest.fixture
def floor_model():
    _Floor.calls = 0
    pp.register_model("floor", lambda name, options: _Floor(), takes_name=False, serial=True)
    yield _Floor
    unregister_model("floor")


@pytest.mark.parametrize("name", list(BUDGET))
def test_a_quick_study_stays_within_its_call_budget(name, tmp_path, capsys, monkeypatch, floor_model):
    data = (["--travelplanner", str(shared_path("data", "travelplanner")), "--api-bank",
             str(shared_path("data", "api-bank"))] if name == "pmc" else [])
    code, _, err = study(capsys, monkeypatch, name, "--model", "floor", "--quick", "--out", str(tmp_path / name),
                         "-q", "--no-cache", *data)
    assert code == 0, err
    assert study_json(tmp_path / name)["status"] == "complete"
    assert 0 < floor_model.calls <= BUDGET[name], floor_model.calls
