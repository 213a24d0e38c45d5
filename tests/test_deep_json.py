"""Issue #26 item 8: every reader of model output, fed a reply nested a thousand levels deep,
classifies it as unreadable (as it does any bad JSON) instead of raising RecursionError.

``json`` raises RecursionError at a depth that depends on the caller's stack; the shared
reader (``lenient_json.loads`` / ``raw_decode``) refuses anything deeper than ``MAX_DEPTH``
the same way on every stack, and every reader decodes through it."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from planprobe import lenient_json as L

DEEP = '{"subtasks": ' + "[" * 1000 + "]" * 1000 + "}"  # the manager reply
DEEP_LIST = "[" * 1000 + "]" * 1000


def _raises(exc_type, fn):
    with pytest.raises(exc_type):
        fn()
    return True


def _lenient() -> bool:
    return L.load_lenient(DEEP) == (None, [])


def _find_json() -> bool:
    value, why = L.find_json(DEEP, lambda v: isinstance(v, dict) and "subtasks" in v)
    return value is None and why is not None and "nested too deeply" in why


def _pmc_plan() -> bool:
    from planprobe.agents.pmc_plan import PlanDefect, parse_plan

    with pytest.raises(PlanDefect) as info:
        parse_plan(DEEP, ["a"])
    return info.value.kind == "bad_json"


def _pmc_rewrite() -> bool:
    from planprobe.agents.pmc_plan import PlanDefect, SubTask, parse_rewrite

    with pytest.raises(PlanDefect) as info:
        parse_rewrite(DEEP, SubTask(id="s1", description="d", executor="react", tools=("a",)))
    return info.value.kind == "bad_json"


def _tool_arguments() -> bool:
    from planprobe.tool_args import parse_arguments

    return parse_arguments('{"x": ' + DEEP_LIST + "}") is None


def _environment_call() -> bool:  # what the tools and ReAct agents send on: a malformed call, recorded
    from helpers import cases
    from planprobe.environment import Limits
    from planprobe.suites.registry import get_family

    case = cases(1, seed=1)[0]
    env = get_family(case.family).environment(case, Limits(), 0, "test")
    result = env.call(case.tools[0].name, '{"x": ' + DEEP_LIST + "}")
    return result.startswith("Error") and env.trace.tool_calls[0].error == "malformed_arguments"


def _react() -> bool:
    from planprobe.agents.react import parse_react
    from planprobe.tool_args import parse_arguments

    step = parse_react(f"Thought: go\nAction: a\nAction Input: {DEEP}")
    return step.action == "a" and parse_arguments(step.action_input) is None


def _protocol_plan() -> bool:
    from planprobe.suites.protocols.parse import parse_plan

    deep = parse_plan(DEEP, ("plan",)).problem
    args = parse_plan(json.dumps({"plan": [{"tool": "a", "arguments": DEEP}]}), ("plan",))
    return bool(deep) and "nested too deeply" in deep and args.calls[0].arguments == DEEP


def _travelplanner_answer() -> bool:
    from planprobe.suites.travelplanner.literal import LiteralError, read_literal
    from planprobe.suites.travelplanner.plan import read_answer

    plan, why = read_answer(DEEP_LIST)
    return plan is None and bool(why) and _raises(LiteralError, lambda: read_literal(DEEP_LIST))


def _judge() -> bool:
    from planprobe.llm_judge.parse import parse_judgement

    parsed = parse_judgement(DEEP)
    errors = parse_judgement(json.dumps({"grade": 3, "errors": DEEP_LIST, "is_correct": False}))
    return parsed.grade is None and errors is not None


def _apb_judge() -> bool:
    from unittest import mock

    from planprobe.llm_judge import apb
    from planprobe.models.base import ChatResult
    from planprobe.schema import Message

    class Deep:
        name = "deep"

        async def chat(self, messages, tools, params):
            return ChatResult(message=Message(role="assistant", content=DEEP))

    with mock.patch.object(apb, "judge_messages", lambda record, prompts: []):  # the prompt does not matter
        out = asyncio.run(apb.judge_record(Deep(), {}, None))  # type: ignore[arg-type]
    return out.judgement is None and "not JSON" in out.problem


def _detector() -> bool:
    from planprobe.debug.detectors import ModelDetector, Pick

    async def ask(prompt):
        return DEEP, 1

    return asyncio.run(ModelDetector("direct", ask)._ask(Pick(), "p")) is None


def _modular() -> bool:
    from planprobe.agents.modular_format import parse_action

    name, _args = parse_action('{"tool": "a", "parameters": ' + DEEP_LIST + "}")
    return name is None or isinstance(name, str)


def _chat_reply() -> bool:
    from planprobe.models.reply import parse_chat_reply

    with pytest.raises(Exception) as info:
        parse_chat_reply('{"choices": ' + DEEP_LIST + "}", "server")
    return "malformed reply" in str(info.value) and not isinstance(info.value, RecursionError)


def _local_model() -> bool:
    from planprobe.models.local import _parse_reply

    return _parse_reply(DEEP, 0).content == DEEP


def _langchain() -> bool:
    pytest.importorskip("langchain_core")
    from planprobe.integrations.langchain_bridge import ai_message
    from planprobe.models.base import tool_call
    from planprobe.schema import Message, Usage

    reply = Message(role="assistant", content="", tool_calls=[tool_call("c1", "a", DEEP)])
    return len(ai_message(reply, Usage()).invalid_tool_calls) == 1


def _pddl_reply() -> bool:
    import random

    from planprobe.pddl.generators import blocksworld_problem
    from planprobe.pddl.reply_parser import parse_plan, parse_state
    from planprobe.pddl.translation import translator

    tr = translator(blocksworld_problem(3, random.Random(0)))
    text = "(" * 1000 + "pick-up a" + ")" * 1000
    parse_plan(text, tr)
    parse_state(text, tr)
    return True


READERS = {
    "lenient_json.loads": lambda: _raises(L.NestedTooDeep, lambda: L.loads(DEEP)),
    "lenient_json.raw_decode": lambda: _raises(L.NestedTooDeep, lambda: L.raw_decode(DEEP, 0)),
    "lenient_json.load_lenient": _lenient,
    "lenient_json.find_json": _find_json,
    "lenient_json.first_object": lambda: L.first_object(DEEP) is None,
    "pmc.manager_plan": _pmc_plan,
    "pmc.supervisor_rewrite": _pmc_rewrite,
    "tool_args.parse_arguments": _tool_arguments,
    "environment.call": _environment_call,
    "react.parse_react": _react,
    "protocols.parse_plan": _protocol_plan,
    "travelplanner.read_answer": _travelplanner_answer,
    "llm_judge.parse_judgement": _judge,
    "llm_judge.apb.judge_record": _apb_judge,
    "debug.detectors.ModelDetector": _detector,
    "modular_format.parse_action": _modular,
    "models.reply.parse_chat_reply": _chat_reply,
    "models.local._parse_reply": _local_model,
    "langchain_bridge.ai_message": _langchain,
    "pddl.reply_parser": _pddl_reply,
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_deeply_nested_reply_is_classified_not_a_recursion_error(reader):
    assert READERS[reader]()


@pytest.mark.parametrize("reader", ["lenient_json.loads", "pmc.manager_plan", "tool_args.parse_arguments"])
def test_the_verdict_does_not_depend_on_how_deep_the_callers_stack_is(reader):
    """Just over the limit is refused even at the top of the stack, where ``json`` would decode it,
    and just under it is read even deep in the stack, where ``json`` alone would fail."""
    over = '{"subtasks": ' + "[" * L.MAX_DEPTH + "]" * L.MAX_DEPTH + "}"
    assert _raises(L.NestedTooDeep, lambda: L.loads(over))
    under = "[" * L.MAX_DEPTH + "]" * L.MAX_DEPTH

    def nested(k: int):
        return nested(k - 1) if k else L.loads(under)

    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    room = 150  # frames left free when the reader runs: more than MAX_DEPTH needs, fewer than json's 1000
    assert nested(sys.getrecursionlimit() - depth - room) is not None
    assert READERS[reader]()


def test_a_deep_value_hidden_behind_brackets_in_strings_is_still_caught():
    text = '{"a": "' + "]" * 2000 + '", "b": ' + DEEP_LIST + "}"
    assert _raises(L.NestedTooDeep, lambda: L.loads(text))
    shallow = '{"a": "' + "[" * 2000 + '", "b": [[1]]}'
    assert L.loads(shallow)["b"] == [[1]]  # brackets inside strings are not nesting
