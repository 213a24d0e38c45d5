"""Level-3 run cases cannot be passed by probing (issue #26, item 23).

Served from the recorded calls, a wrong call used to get "No result was recorded …",
so an agent that tried candidate calls until one returned a result made every
recorded call and passed. Now a run passes only when every call it made was correct,
and a call that matches no recording is answered like the right one would be, so the
answer does not tell the agent which call was right.

The probing agents here are model doubles that answer from the messages they get
only: the requirement's text, the tools offered, the tool results.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from typing import Any

from helpers import shared_path
from planprobe.agents.tools_agent import ToolsAgent
from planprobe.environment import Limits
from planprobe.importers.apibank import RUN_INSTRUCTION
from planprobe.models.base import ChatResult, tool_call
from planprobe.runner.engine import run_episode
from planprobe.schema import Case, Message, Usage
from planprobe.suites.apibank.environment import NOT_RECORDED, Level3Server
from planprobe.suites.apibank.spec import (
    FAMILY,
    L3_TOOLSEARCHER,
    SPEC_VERSION,
    level3_tool,
)
from planprobe.suites.registry import get_family

LIKE_COUNT = {"name": "LikeCount", "description": "Get the number of likes of a post.",
              "input_parameters": {"post_id": {"type": "int", "description": "The ID of the post."}},
              "output_parameters": {"like_count": {"type": "int", "description": "The number of likes."}}}


def _probe_case() -> Case:
    """A level-3 run case as the import builds them: search, then LikeCount on post 4."""
    searched = {"api_name": "ToolSearcher", "input": {"keywords": "like count"}, "output": LIKE_COUNT,
                "exception": None}
    counted = {"api_name": "LikeCount", "input": {"post_id": 4}, "output": {"like_count": 110}, "exception": None}
    recorded = [{"api_name": "ToolSearcher", "result": searched}, {"api_name": "LikeCount", "result": counted}]
    spec = {"version": SPEC_VERSION, "level": 3, "kind": "run", "search": {"like count": "LikeCount"},
            "apis": {"LikeCount": LIKE_COUNT}, "sample": 0, "recorded_calls": recorded,
            "gold": {"calls": recorded, "text": "Your post has 110 likes."}, "pass_rouge": 0.5}
    requirement = "Tell me the like count; my post has the ID 3, 4 or 5."
    return Case(id="api-bank/l3/probe/run", family=FAMILY, task=f"{RUN_INSTRUCTION}\n\nUser: {requirement}",
                tools=[level3_tool(L3_TOOLSEARCHER)], spec=spec)


class ProbingModel:
    """Searches with the requirement's words, then calls the first API found with each
    number of the requirement in turn: until one answers without an exception
    (``until_success``), or all of them."""

    name = "probing-double"

    def __init__(self, until_success: bool = True):
        self.until_success = until_success

    async def chat(self, messages: list[Message], tools: Any, params: Any) -> ChatResult:
        user = next(m.content or "" for m in messages if m.role == "user")
        requirement = user.rsplit("User:", 1)[-1]
        results = [json.loads(m.content or "{}") for m in messages if m.role == "tool"]
        n = len(results)
        if n == 0:
            words = " ".join(re.findall(r"[a-z]+", requirement.split(";")[0].lower())[-2:])  # "like count"
            return self._call(n, "ToolSearcher", {"keywords": words})
        api = next((t for t in tools or [] if t.name != "ToolSearcher"), None)
        tried = results[1:]
        succeeded = any(r.get("exception") is None for r in tried)
        candidates = [int(x) for x in re.findall(r"\d+", requirement)]
        if api is not None and len(tried) < len(candidates) and not (self.until_success and succeeded):
            param = next(iter(api.parameters.get("properties", {})))
            return self._call(n, api.name, {param: candidates[len(tried)]})
        return ChatResult(message=Message(role="assistant", content="Your post has 110 likes."),
                          usage=Usage(model_calls=1))

    @staticmethod
    def _call(n: int, name: str, args: dict[str, Any]) -> ChatResult:
        msg = Message(role="assistant", content="", tool_calls=[tool_call(f"c{n}", name, json.dumps(args))])
        return ChatResult(message=msg, usage=Usage(model_calls=1))

    async def aclose(self) -> None:
        pass


def _run(case: Case, model: ProbingModel):
    trace = asyncio.run(run_episode(case, ToolsAgent(model), Limits()))
    return trace, get_family(case.family).check(case, trace)


def test_probing_until_a_call_answers_no_longer_passes():
    case = _probe_case()
    trace, verdict = _run(case, ProbingModel(until_success=True))
    # the wrong first try (post 3) gets an answer like the right call's: the double stops there
    calls = [(c.name, json.loads(c.arguments)) for c in trace.tool_calls]
    assert calls == [("ToolSearcher", {"keywords": "like count"}), ("LikeCount", {"post_id": 3})]
    assert json.loads(trace.tool_calls[1].result)["output"] == {"like_count": 110}
    labels = verdict.labels["api_bank"]
    assert not verdict.passed and labels["incorrect"] == 1 and not labels["complete"]


def test_trying_every_candidate_is_complete_but_does_not_pass():
    trace, verdict = _run(_probe_case(), ProbingModel(until_success=False))
    assert [json.loads(c.arguments) for c in trace.tool_calls[1:]] == [{"post_id": 3}, {"post_id": 4},
                                                                         {"post_id": 5}]
    labels = verdict.labels["api_bank"]
    assert labels["complete"] and labels["unique_correct"] == labels["required"] == 2
    assert labels["incorrect"] == 2 and not verdict.passed
    assert {e.kind for e in verdict.evidence} == {"incorrect_call"}


def test_the_right_calls_alone_pass():
    case = _probe_case()
    family = get_family(case.family)
    env = family.environment(case, Limits(), 0, "scripted")
    env.call("ToolSearcher", json.dumps({"keywords": "like count"}))
    env.call("LikeCount", json.dumps({"post_id": 4}))
    env.finish("Your post has 110 likes.")
    verdict = family.check(case, env.trace)
    assert verdict.passed and verdict.labels["api_bank"]["incorrect"] == 0


def test_an_unrecorded_api_answers_as_another_requirement_recorded_it():
    spec = {**_probe_case().spec, "stand_ins": {"Geocoding": {"output": {"latitude": 1.0}, "exception": None}}}
    served = Level3Server(spec).serve("Geocoding", {"address": "nowhere"})
    assert served == {"api_name": "Geocoding", "input": {"address": "nowhere"}, "output": {"latitude": 1.0},
                      "exception": None}
    assert Level3Server(spec).call("Geocoding", {"address": "nowhere"})["exception"] == NOT_RECORDED


def _wrong(args: dict[str, Any]) -> dict[str, Any] | None:
    """The call with its first argument changed (None when it has none)."""
    if not args:
        return None
    key = next(iter(args))
    return {**args, key: "wrong value" if args[key] != "wrong value" else "another value"}


def test_on_api_banks_runs_a_wrong_call_is_answered_as_the_right_one():
    """For every recorded call of every run (after the calls before it), a wrong call of the
    same API is served the same output and exception as the right call."""
    root = shared_path("data", "api-bank")
    from planprobe.importers.apibank import import_cases

    runs = import_cases(root, 3, ("run",))
    compared = 0
    for case in runs:
        recorded = case.spec["recorded_calls"]
        for k, rec in enumerate(recorded):
            right = rec["result"]["input"]
            wrong = _wrong(right) if rec["api_name"] != "ToolSearcher" else None
            if wrong is None:
                continue
            judge = Level3Server(case.spec)
            if judge.call(rec["api_name"], copy.deepcopy(wrong))["exception"] != NOT_RECORDED:
                continue  # the rule accepts the changed call (or the API refuses it, as API-Bank's does)
            served = []
            for args in (right, wrong):
                server = Level3Server(case.spec)
                for earlier in recorded[:k]:
                    server.serve(earlier["api_name"], copy.deepcopy(earlier["result"]["input"]))
                served.append(server.serve(rec["api_name"], copy.deepcopy(args)))
            right_answer, wrong_answer = ((s["output"], s["exception"]) for s in served)
            assert right_answer == wrong_answer, (case.id, k)
            compared += 1
    assert compared > 100


def test_one_wrong_try_before_the_recorded_calls_fails_on_api_banks_runs():
    """On the real data: the recorded calls alone pass; the same calls after one wrong try
    are complete (every recorded call made) but do not pass."""
    from planprobe.importers.apibank import import_cases

    runs = import_cases(shared_path("data", "api-bank"), 3, ("run",))
    family = get_family(FAMILY)
    for case in runs:
        first = next(r for r in case.spec["recorded_calls"] if r["api_name"] != "ToolSearcher")
        for wrong_first in (False, True):
            env = family.environment(case, Limits(), 0, "scripted")
            if wrong_first:
                env.call(first["api_name"], json.dumps(_wrong(first["result"]["input"])))
            for rec in case.spec["recorded_calls"]:
                env.call(rec["api_name"], json.dumps(rec["result"]["input"]))
            env.finish("done")
            verdict = family.check(case, env.trace)
            assert verdict.labels["api_bank"]["complete"], case.id
            assert verdict.passed is not wrong_first, case.id
