# ruff: noqa: UP045  (typer declares options as call defaults)
"""``planprobe serve``, ``planprobe proxy`` and ``planprobe check``: testing agents that
planprobe does not run (see docs/integrations.md). A thin layer over planprobe.serve."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ..errors import PlanprobeError
from ..option_checks import check, check_limits
from ..runner.suite_run import read_suite_for_run
from .common import (
    EXIT_INFRA,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    _progress,
    err_console,
    exit_on_infra,
    interrupt_reported,
    out_console,
)
from .options import Quiet, RunOut
from .show import show_run

if TYPE_CHECKING:
    from ..integrations.otlp_write import OtlpFile


def _check_upstream(url: str) -> None:
    if not url.startswith(("http://", "https://")):
        raise PlanprobeError(f"--upstream {url!r}: expected an http(s) URL of an OpenAI-compatible API, e.g. "
                             "http://127.0.0.1:8000/v1")


def serve(
    suite: Path = typer.Argument(..., help="Suite file (JSONL) whose cases are served."),
    out: RunOut = ...,  # type: ignore[assignment]
    transport: str = typer.Option("http", help="'http' (streamable HTTP on 127.0.0.1) or 'stdio' (this process's "
                                               "stdin/stdout, for a client that starts the server)."),
    parallel: int = typer.Option(1, help="Cases served at once, each on its own HTTP endpoint (port)."),
    port: int = typer.Option(0, help="First HTTP port (endpoint N listens on port+N-1); 0: free ports."),
    proxy_upstream: Optional[str] = typer.Option(
        None, help="Also run the recording proxy in front of this OpenAI-compatible base URL (…/v1): the agent's "
                   "model calls are recorded into the case being served (messages, tokens, reasoning)."),
    proxy_port: int = typer.Option(0, help="Port of the recording proxy; 0: a free one."),
    trials: int = typer.Option(1, help="Runs per case (for pass@k / pass^k)."),
    max_iterations: int = typer.Option(50, "--max-iterations", help="Per-case iteration limit: tool calls, or model "
                                                                   "calls with --proxy-upstream."),
    timeout: float = typer.Option(180.0, help="Per-case time limit in seconds, from when the case is served."),
    infra_attempts: int = typer.Option(3, help="Attempts per case whose result is infra (a disconnect, an "
                                               "unreachable upstream), counting resumes."),
    otel_out: Optional[Path] = typer.Option(None, "--otel-out", help="Also append each stored result as an "
                                            "OpenTelemetry trace (OTLP/JSON, GenAI conventions) to this file."),
    quiet: Quiet = False,
) -> None:
    """Serve each case's tools over MCP to an external agent; each case is judged and stored as it finishes."""
    from ..environment import Limits
    from ..runner.engine import RunConfig, infra_retries, open_run, pending_total
    from ..schema import Trace, Verdict
    from ..serve.mcp_server import require_mcp
    from ..serve.run import ServeOptions, serve_pending
    from ..serve.stopping import Terminated, until_terminated
    from ..suites.io import iter_suite

    if transport not in ("http", "stdio"):
        raise PlanprobeError(f"--transport {transport!r}: expected 'http' or 'stdio'")
    check("--parallel", parallel, at_least=1, at_most=64)
    check_limits(parallel, max_iterations, timeout, trials)
    check("--port", port, at_least=0, at_most=65535 - parallel + 1)
    check("--proxy-port", proxy_port, at_least=0, at_most=65535)
    check("--infra-attempts", infra_attempts, at_least=1)
    if transport == "stdio" and parallel > 1:
        raise PlanprobeError("--parallel: a stdio server serves one case at a time; use --transport http")
    if proxy_upstream:
        _check_upstream(proxy_upstream)
    require_mcp()
    _count, digest = read_suite_for_run(suite)
    config = RunConfig(agent="mcp", trials=trials, concurrency=parallel, infra_attempts=infra_attempts,
                       limits=Limits(max_iterations=max_iterations, timeout_s=timeout))
    store = open_run(out, iter_suite(suite), config, suite_name=str(suite), digest=digest)
    otlp = _otlp_file(otel_out, "planprobe-serve")
    stdio = transport == "stdio"
    say = err_console if stdio else out_console  # stdout is the MCP channel under stdio

    def announce(line: str) -> None:
        say.print(line, highlight=False, soft_wrap=True)

    options = ServeOptions(transport=transport, parallel=parallel, port=port, proxy_upstream=proxy_upstream,
                           proxy_port=proxy_port)
    total = store.case_count() * trials
    stopped_by = ""  # the signal that stopped the server, if one did
    try:
        with _progress(quiet or stdio) as progress:
            task = progress.add_task("served", total=total, completed=total - pending_total(store, config))

            def on_result(trace: Trace, verdict: Verdict) -> None:
                progress.update(task, advance=1)
                if otlp is not None and not verdict.infra:  # an infra result is served again
                    otlp.write_trace(trace)
                if verdict.infra:
                    err_console.print(f"case {trace.case_id}: infra: {trace.errors[-1].message if trace.errors else '-'}",
                                      highlight=False, soft_wrap=True)

            try:
                asyncio.run(until_terminated(serve_pending(store, config, options, announce, on_result)))
            except Terminated:
                stopped_by = "terminated (SIGTERM)"
            except KeyboardInterrupt:
                stopped_by = "interrupted"
        infra = store.infra_rows()
        retry = len(infra_retries(store, config))
        unserved = store.pending_count(trials)
        saved = total - unserved - retry
    finally:
        store.close()
    if stopped_by:
        err_console.print(f"{stopped_by}: {saved}/{total} results are saved in {out}; any case in flight was not "
                          "stored; re-run the same command to serve the rest", highlight=False, soft_wrap=True)
        interrupt_reported.append(True)
        code = EXIT_TERMINATED if stopped_by.startswith("terminated") else EXIT_INTERRUPTED
        if stdio:  # the SDK reads stdin in a worker thread that no signal wakes: exiting normally would
            # wait for the client to close stdin. The run store is closed, so nothing is lost by not waiting.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        raise typer.Exit(code)
    if stdio:
        err_console.print(f"served: results in {out}; planprobe show {out}", highlight=False)
    else:
        show_run(out, as_json=False, infra_note=False)
    if infra or unserved:
        # an infra result with attempts left is served again: counted once, as infra, not also as unserved
        parts = [f"{len(infra)} result(s) failed for infrastructure reasons and are not counted"] if infra else []
        if unserved:
            parts.append(f"{unserved} result(s) were not served")
        again = retry + unserved
        hint = f"re-run the same command to serve {again} of them" if again else "nothing is left to serve"
        if len(infra) > retry:
            hint += (f"; {len(infra) - retry} infra result(s) had their {infra_attempts} attempts (raise "
                     "--infra-attempts to try again)")
        err_console.print(f"error: {' and '.join(parts)}; {hint}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INFRA)


def _otlp_file(path: Optional[Path], service: str) -> OtlpFile | None:
    if path is None:
        return None
    from ..integrations.otlp_write import OtlpFile

    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    return OtlpFile(str(path), service)


def proxy(
    upstream: str = typer.Option(..., help="OpenAI-compatible base URL to forward to, e.g. http://127.0.0.1:8000/v1."),
    record: Optional[Path] = typer.Option(None, "--record", help="JSONL file: one line per model call (appended)."),
    port: int = typer.Option(0, help="Port on 127.0.0.1; 0: a free one."),
    otel_out: Optional[Path] = typer.Option(None, "--otel-out", help="OTLP/JSON file: one chat span per model call "
                                            "(appended; GenAI conventions), for a tracing tool or `check --format otel`."),
) -> None:
    """Record an agent's model calls (standalone). Point the agent at the printed URL; /case/ID/v1 tags
    calls with a case id. To record into served cases' traces, use `serve --proxy-upstream` instead."""
    from ..serve.mcp_server import listen, require_mcp, shutdown
    from ..serve.proxy import JsonlRecorder, Proxy, Recorder, TeeRecorder
    from ..serve.stopping import Terminated, until_terminated

    _check_upstream(upstream)
    check("--port", port, at_least=0, at_most=65535)
    if record is None and otel_out is None:
        raise PlanprobeError("proxy: give --record FILE (JSONL), --otel-out FILE (OTLP/JSON) or both")
    require_mcp()
    if record is not None:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.touch()
    otlp = _otlp_file(otel_out, "planprobe-proxy")
    calls = None
    if otlp is not None:
        from ..integrations.otlp_write import ProxyCallRecorder, ProxyCalls

        calls = ProxyCalls(otlp)
    tally = {"calls": 0, "failures": 0}

    def recorder(key: str) -> Recorder:
        parts: list[Recorder] = [JsonlRecorder(str(record), key, tally)] if record is not None else []
        if calls is not None:
            parts.append(ProxyCallRecorder(calls, key))
        return TeeRecorder(parts)

    where = " and ".join(str(p) for p in (record, otel_out) if p is not None)

    async def go() -> None:
        proxy = Proxy(upstream, recorder)
        server, task, bound = await listen(proxy.app(), port)
        out_console.print(f"proxy: http://127.0.0.1:{bound}/v1 -> {upstream}; recording to {where}", highlight=False,
                          soft_wrap=True)
        try:
            await task
        finally:
            await shutdown(server, task)
            await proxy.aclose()

    stopped_by = "stopped"
    try:
        asyncio.run(until_terminated(go()))
    except Terminated:
        stopped_by = "stopped by SIGTERM"
    except KeyboardInterrupt:
        stopped_by = "stopped by Ctrl-C"
    # stopping is how a proxy ends: exit 0, after saying what the record file got
    if record is not None:
        err_console.print(f"proxy {stopped_by}: {tally['calls']} model call(s) and {tally['failures']} "
                          f"unreachable-upstream error(s) recorded to {record} in this session", highlight=False,
                          soft_wrap=True)
    else:
        err_console.print(f"proxy {stopped_by}: model calls recorded to {otel_out}", highlight=False, soft_wrap=True)


def check_traces(
    suite: Path = typer.Argument(..., help="Suite file (JSONL) the traces were recorded on."),
    traces: Path = typer.Argument(..., help="JSONL: one trace a line, planprobe's format or OpenAI chat messages "
                                            "with a case_id; or OpenTelemetry spans as OTLP/JSON (docs/otel.md)."),
    out: RunOut = ...,  # type: ignore[assignment]
    fmt: str = typer.Option("auto", "--format", help="auto (OTLP/JSON when the file is, else per line), planprobe, "
                                                     "openai or otel."),
    quiet: Quiet = False,
) -> None:
    """Grade traces recorded elsewhere: every tool call is replayed into its case's environment and judged."""
    from ..environment import Limits
    from ..runner.engine import RunConfig, open_run, pending_total, run_pending
    from ..serve.replay import ReplayAgent, read_traces
    from ..suites.io import load_suite

    cases = load_suite(suite)
    by_id = {c.id: c for c in cases}
    recorded = read_traces(traces, by_id, fmt)
    agent = ReplayAgent(recorded)
    wanted = {r.case_id for r in recorded}
    graded = [c for c in cases if c.id in wanted]
    if len(graded) < len(cases):
        err_console.print(f"note: {len(cases) - len(graded)} case(s) of {suite} have no trace in {traces}: not graded",
                          highlight=False, soft_wrap=True)
    config = RunConfig(agent="check", trials=agent.trials, concurrency=1, limits=Limits())
    store = open_run(out, graded, config, suite_name=str(suite))
    try:
        total = store.case_count() * agent.trials
        with _progress(quiet) as progress:
            task = progress.add_task("checking", total=total, completed=total - pending_total(store, config))
            asyncio.run(run_pending(store, agent, config, lambda _t, _v: progress.update(task, advance=1)))
        infra = store.infra_rows()
    finally:
        store.close()
    show_run(out, as_json=False, infra_note=False)
    exit_on_infra(infra, "they were infrastructure failures where the traces were recorded (a planprobe trace "
                         "whose status is infra_error): record those cases again and check the new traces")


def register(app: typer.Typer) -> None:
    app.command()(serve)
    app.command()(proxy)
    app.command("check")(check_traces)
