"""The options several commands share, declared once: the model group (which model,
where, how it is called), the limits group (per-case limits, concurrency, trials)
and the output group (``--json``, ``--quiet``).

A command takes an option by annotating a parameter with one of these aliases, e.g.
``base_url: BaseUrl = None``; the flag names, help text and type then cannot drift
between ``run``, ``sweep``, ``dissect``, ``detect`` and ``debug``. The ``Rerun*``
variants are the same options for commands that re-run a recorded run (``dissect``):
unset, they default to what the run recorded. Building the library objects from the
values (``ModelOptions``, ``ChatParams``) happens here too, after checking them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import PlanprobeError
from ..option_checks import check, check_sampling


def agent_help() -> str:
    from ..agents.registry import agent_choices

    return agent_choices(" | ", described=True)


def model_help() -> str:
    from ..models.registry import model_choices

    return model_choices(" | ", described=True)


# --- the model group ---------------------------------------------------------------------------------------------

AgentName = Annotated[str | None, typer.Option(
    "--agent", help=f"{agent_help()}. Default: tools with --model, else oracle.")]
ModelSpec = Annotated[str | None, typer.Option(
    "--model", help=f"{model_help()}; for an agent with roles one per role: ROLE=MODEL,ROLE=MODEL (a bare MODEL "
                    "is the default for the others).")]
BaseUrl = Annotated[str | None, typer.Option(
    "--base-url", help="Endpoint for openai:<model>, e.g. http://127.0.0.1:8000/v1; also for "
                       "litellm:<provider>/<model> (passed to LiteLLM as api_base).")]
ApiKeyEnv = Annotated[str, typer.Option(
    "--api-key-env", help="Environment variable holding the API key (read at run time, never stored).")]
Temperature = Annotated[float, typer.Option("--temperature", help="Sampling temperature (the seed's setting: 0).")]
MaxTokens = Annotated[int, typer.Option("--max-tokens", help="Max tokens per model reply.")]
RequestTimeout = Annotated[float, typer.Option(
    "--request-timeout", help="Seconds for one model request's whole reply before it is abandoned and retried "
                              "(below --timeout).")]
Retries = Annotated[int, typer.Option(
    "--retries", help="Attempts per model call on 429/5xx/timeouts/dropped connections.")]
RetryBudget = Annotated[float, typer.Option("--retry-budget", help="Max seconds spent retrying one model call.")]
PriceIn = Annotated[float | None, typer.Option(
    "--price-in", help="USD per million prompt tokens (enables cost).")]
PriceOut = Annotated[float | None, typer.Option(
    "--price-out", help="USD per million completion tokens (enables cost).")]
ToolResultsAs = Annotated[str, typer.Option(
    "--tool-results-as", help="Send tool results as 'tool' messages, or as 'user' for servers whose chat format "
                              "drops tool content.")]
Cache = Annotated[bool, typer.Option(
    "--cache/--no-cache", help="Record/replay model calls (re-runs cost no calls); --no-cache turns it off.")]
CachePath = Annotated[Path | None, typer.Option(
    "--cache-path", help="Cache file (default ~/.cache/planprobe/model-calls.sqlite).")]
ModelPath = Annotated[Path | None, typer.Option(
    "--model-path", help="local: a GGUF file instead of the embedded SmolLM2-135M.")]
Threads = Annotated[int | None, typer.Option("--threads", help="local: CPU threads (default: all cores).")]
Ctx = Annotated[int, typer.Option("--ctx", help="local: context size in tokens.")]

# re-running a recorded run: unset means "as the run recorded"
RerunAgent = Annotated[str | None, typer.Option(
    "--agent", help="The agent to re-run (default: the run's; a python: agent must be given here, it is never "
                    "imported from a run directory).")]
RerunModel = Annotated[str | None, typer.Option(
    "--model", help="The run's model: local or openai:<model> (default: the run's when it was local).")]
RerunModelPath = Annotated[Path | None, typer.Option(
    "--model-path", help="local: the GGUF file (default: the one the run recorded).")]
RerunTemperature = Annotated[float | None, typer.Option(
    "--temperature", help="Sampling temperature (default: the run's).")]
RerunMaxTokens = Annotated[int | None, typer.Option(
    "--max-tokens", help="Max tokens per model reply (default: the run's).")]

# --- the limits group --------------------------------------------------------------------------------------------

Concurrency = Annotated[int, typer.Option(
    "--concurrency", help="Cases run at the same time (1 with the embedded model, which serves one call at a time).")]
Trials = Annotated[int, typer.Option("--trials", help="Runs per case (for pass@k / pass^k).")]
MaxIterations = Annotated[int, typer.Option(
    "--max-iterations", "--iteration-limit", help="Per-case iteration limit (seed default 50).")]
IterationLimit = Annotated[int, typer.Option(  # sweep: its --max-iterations is the synthesis K of Alg. 1
    "--iteration-limit", help="Per-case iteration limit (the agent's steps; 'run --max-iterations').")]
Timeout = Annotated[float, typer.Option("--timeout", help="Per-case time limit in seconds (seed default 180).")]
RerunMaxIterations = Annotated[int | None, typer.Option(
    "--max-iterations", "--iteration-limit", help="Per-case iteration limit (default: the run's).")]
RerunTimeout = Annotated[float | None, typer.Option(
    "--timeout", help="Per-case time limit in seconds (default: the run's).")]

# --- the scaling group (planprobe.scale) ---------------------------------------------------------------------------

SCALING = "Scaling out"
Workers = Annotated[int, typer.Option(
    "--workers", help="Worker processes (or Ray tasks) to shard the cases across; --concurrency is split among them.",
    rich_help_panel=SCALING)]
Backend = Annotated[str, typer.Option(
    "--backend", help="Where workers run: 'processes' (this machine) or 'ray' (a Ray cluster; needs the ray extra).",
    rich_help_panel=SCALING)]
Address = Annotated[str | None, typer.Option(
    "--address", help="ray: HOST:PORT of a running Ray head, or 'auto' for the one running on this machine "
                      "(default: start a local cluster without the dashboard, once per command).",
    rich_help_panel=SCALING)]
Rpm = Annotated[float | None, typer.Option(
    "--rpm", help="Requests per minute per endpoint, shared by every worker (a server's Retry-After pauses them all).",
    rich_help_panel=SCALING)]
Tpm = Annotated[float | None, typer.Option(
    "--tpm", help="Tokens per minute per endpoint, shared by every worker.", rich_help_panel=SCALING)]
ProcessWorkers = Annotated[int, typer.Option(  # label, debug, dissect: each case on a worker process, stored here
    "--workers", help="Processes (Ray actors with --backend ray) to work on the cases, each with its own agent "
                      "(the output is the same for any number and either backend).", rich_help_panel=SCALING)]

# --- the output group --------------------------------------------------------------------------------------------

AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
Quiet = Annotated[bool, typer.Option("-q", "--quiet", help="No progress output.")]
RunOut = Annotated[Path, typer.Option("--out", help="Run directory; re-run with the same one to resume.")]


# --- the values, as library objects --------------------------------------------------------------------------------

def model_options(*, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY", tool_results_as: str = "tool",
                  cache: bool = True, **more: Any) -> Any:
    """``ModelOptions`` from the model group's values (``more``: the other ModelOptions fields)."""
    from ..models import ModelOptions

    if tool_results_as not in ("tool", "user"):
        raise PlanprobeError("--tool-results-as must be 'tool' or 'user'")
    return ModelOptions(base_url=base_url, api_key_env=api_key_env, tool_result_role=tool_results_as, cache=cache,
                        **more)


def chat_params(temperature: float | None, max_tokens: int | None, seed: int) -> Any:
    """``ChatParams`` after checking the sampling options (one line naming a bad one)."""
    from ..models.base import ChatParams

    check_sampling(temperature, max_tokens)
    return ChatParams(temperature=temperature if temperature is not None else 0.0, seed=seed,
                      max_tokens=max_tokens if max_tokens is not None else 512)


def check_retry_options(request_timeout: float, retries: int, retry_budget: float) -> None:
    check("--request-timeout", request_timeout, above=0)
    check("--retries", retries, at_least=0)
    check("--retry-budget", retry_budget, at_least=0)


def scale_options(workers: int, backend: str, address: str | None, rpm: float | None = None,
                  tpm: float | None = None) -> Any:
    """``ScaleOptions`` from the scaling group, checked (Ray is imported and the address
    checked before the suite is read or the run directory made); None when the run stays
    in this process without rate limits."""
    from ..models.ratelimit import RateLimits
    from ..scale import ScaleOptions

    options = ScaleOptions(workers=workers, backend=backend, address=address, rate=RateLimits(rpm, tpm))
    options.check()
    if backend == "ray":
        from ..scale.ray_backend import _import_ray, check_address

        _import_ray()
        if address:
            check_address(address)
    if workers == 1 and backend == "processes":
        return None if not options.rate else options
    return options


def worker_recipe(workers: int, agent_name: str, model_spec: str | None, model_options: Any, params: Any,
                  backend: str = "processes") -> Any:
    """The agent recipe for commands that run episodes on worker processes or Ray (dissect);
    None for one worker process (everything stays in this process)."""
    check("--workers", workers, at_least=1)
    if workers == 1 and backend == "processes":
        return None
    from ..scale import WorkerRecipe

    return WorkerRecipe(agent_name, model_spec, model_options if model_spec else None, params)
