"""The embedded model in-process: grammar-constrained tool calls are always valid."""

from __future__ import annotations

import asyncio
import subprocess

import pytest

from helpers import planprobe_cmd, subprocess_env
from llama_server import require_local_model
from planprobe import ConstraintSuiteOptions, generate_cases
from planprobe.models.base import ChatParams
from planprobe.models.local import render_chatml, tool_grammar
from planprobe.schema import Message
from planprobe.tool_args import parse_arguments, validate_arguments


@pytest.fixture(scope="module")
def local_model():
    require_local_model()
    from planprobe.models.local import LocalModel

    model = LocalModel(n_ctx=2048)
    yield model
    asyncio.run(model.aclose())


def test_threads_bound_both_generation_and_prompt_reading():
    """--threads 1 must mean one core: llama.cpp's prompt reading has its own thread count,
    which defaults to every core."""
    require_local_model()
    from planprobe.models.local import LocalModel

    model = LocalModel(threads=1, n_ctx=512)
    try:
        assert model.llm.context_params.n_threads == 1
        assert model.llm.context_params.n_threads_batch == 1
    finally:
        asyncio.run(model.aclose())


def test_grammars_compile_for_every_tool_shape(local_model):
    from llama_cpp import LlamaGrammar

    for extended in (False, True):
        case = next(generate_cases(ConstraintSuiteOptions(n=1, extended=extended)))
        for allow_answer in (True, False):
            LlamaGrammar.from_string(tool_grammar(case.tools, allow_answer), verbose=False)


def test_every_call_names_a_real_tool_with_schema_valid_arguments(local_model):
    case = next(generate_cases(ConstraintSuiteOptions(n=1, extended=True, actions=(3, 3), seed=2)))
    schemas = {t.name: t.parameters for t in case.tools}
    messages = [Message(role="user", content=case.task)]
    calls = 0
    for turn in range(4):
        result = asyncio.run(local_model.chat(messages, case.tools, ChatParams(tool_choice="required", seed=turn,
                                                                               temperature=0.7, max_tokens=64)))
        assert result.usage.prompt_tokens > 0 and result.message.tool_calls
        fn = result.message.tool_calls[0]["function"]
        args = parse_arguments(fn["arguments"])
        assert fn["name"] in schemas and args is not None
        assert validate_arguments(schemas[fn["name"]], args) is None
        calls += 1
        messages += [result.message, Message(role="tool", tool_call_id=result.message.tool_calls[0]["id"],
                                              content="done")]
    assert calls == 4
    # tool results are rendered where the model sees them
    assert "Result of" in render_chatml(messages, case.tools)


def test_demo_runs_the_embedded_model_end_to_end(tmp_path):
    """One case: both model agents, the reference agents and the model cache are exercised as with more
    (the model's replies are what this test costs; the reference-agent part runs 10 cases in tests/test_cli.py)."""
    require_local_model()
    r = subprocess.run(planprobe_cmd() + ["demo", "--out", str(tmp_path / "demo"), "--n", "1"], capture_output=True,
                       text=True, timeout=900, env=subprocess_env(XDG_CACHE_HOME=str(tmp_path / "cache")))
    assert r.returncode == 0, r.stderr
    assert "tools · local" in r.stdout and "react · local" in r.stdout and "oracle" in r.stdout
    assert (tmp_path / "cache" / "planprobe" / "model-calls.sqlite").exists()


def test_context_overflow_is_a_limit_for_the_embedded_model_and_for_a_server(local_model, llama_server):
    """The same overlong task ends as context_limit (verdict class timeout) in process (--ctx 2048)
    and behind llama.cpp's server (n_ctx 4096); neither is an agent crash nor infra."""
    from planprobe.agents.tools_agent import ToolsAgent
    from planprobe.environment import Limits
    from planprobe.errors import ContextLimitError
    from planprobe.models import ModelOptions, make_model
    from planprobe.runner.engine import run_episode
    from planprobe.suites.registry import get_family

    case = next(generate_cases(ConstraintSuiteOptions(n=1, actions=(2, 2), seed=1)))
    case = case.model_copy(update={"task": case.task + " Plan carefully." * 2000})  # ~8,000 tokens
    server = make_model("openai:smollm2", ModelOptions(base_url=llama_server, tool_result_role="user", cache=False))

    async def both() -> None:  # one event loop: the server's connections must close on the loop that opened them
        try:
            for model in (local_model, server):
                with pytest.raises(ContextLimitError, match="context window"):
                    await model.chat([Message(role="user", content=case.task)], None, ChatParams(max_tokens=8))
                trace = await run_episode(case, ToolsAgent(model, ChatParams(max_tokens=8)), Limits(timeout_s=10 ** 6))
                verdict = get_family(case.family).check(case, trace)
                assert trace.status.value == "context_limit" and verdict.errors == ["timeout"], (model.name, trace.errors)
        finally:
            await server.aclose()

    asyncio.run(both())


def test_the_local_models_identity_names_its_file(local_model):
    identity = local_model.identity()
    assert identity["backend"] == "local" and identity["model_file"] == str(local_model.path.resolve())


def test_weights_are_not_repacked_for_amx_when_the_build_uses_it(monkeypatch):
    """A native build on an AMX CPU segfaults on its first inference (llama.cpp#20824):
    the loader turns extra buffer types off for the load, and only then."""
    pytest.importorskip("llama_cpp")
    import llama_cpp.llama_cpp as native

    from planprobe.models.local import _without_amx_repacking

    original = native.llama_model_default_params
    monkeypatch.setattr(native, "llama_print_system_info", lambda: b"CPU : AVX2 = 1 | AMX_INT8 = 1 |")
    with _without_amx_repacking():
        assert native.llama_model_default_params().use_extra_bufts is False
    assert native.llama_model_default_params is original
    assert native.llama_model_default_params().use_extra_bufts is True
    monkeypatch.setattr(native, "llama_print_system_info", lambda: b"CPU : AVX2 = 1 | AMX_INT8 = 0 |")
    with _without_amx_repacking():
        assert native.llama_model_default_params().use_extra_bufts is True
