"""The CLI's side of scaling out (--workers, --backend, --address, --rpm, --tpm): option
checks and the call into planprobe.scale; the work itself is in the library."""

from __future__ import annotations

from typing import Any

WORKERS_HELP = "Worker processes (or Ray tasks) to shard the cases across; --concurrency is split among them."
BACKEND_HELP = "Where workers run: 'processes' (this machine) or 'ray' (a Ray cluster; needs the ray extra)."
ADDRESS_HELP = "ray: HOST:PORT of a running Ray head (default: start a local cluster without the dashboard)."
RPM_HELP = "Requests per minute per endpoint, shared by every worker (a server's Retry-After pauses them all)."
TPM_HELP = "Tokens per minute per endpoint, shared by every worker."


def scale_options(workers: int, backend: str, address: str | None, rpm: float | None, tpm: float | None) -> Any:
    """ScaleOptions for the command line, checked; None when the run stays in this process."""
    from .models.ratelimit import RateLimits
    from .scale import ScaleOptions

    options = ScaleOptions(workers=workers, backend=backend, address=address, rate=RateLimits(rpm, tpm))
    options.check()
    if backend == "ray":  # before the suite is read or the run directory made
        from .scale.ray_backend import _import_ray, check_address

        _import_ray()
        if address:
            check_address(address)
    if workers == 1 and backend == "processes":
        return None if not options.rate else options
    return options


def scaled(options: Any) -> bool:
    """Whether the run goes through the coordinator (workers or Ray) rather than in process."""
    return options is not None and (options.workers > 1 or options.backend == "ray")


def install_local_limits(options: Any) -> None:
    """Rate limits for a run that stays in this process."""
    if options is not None and options.rate:
        from .models.ratelimit import LocalLimiter, install

        install(LocalLimiter(options.rate))


def scaled_runner(options: Any, agent_name: str, model_spec: str | None, model_options: Any, params: Any,
                  config: Any) -> Any:
    """``runner(store, on_result)`` for library loops that run one store after another (the
    sweep): the store's pending cases on the workers; None when the run stays in this process."""
    if not scaled(options):
        return None
    from .scale import WorkerRecipe, run_scaled

    recipe = WorkerRecipe(agent_name, model_spec, model_options if model_spec else None, params)
    return lambda store, on_result: run_scaled(store, recipe, config, options, on_result)


def dissect_recipe(workers: int, agent_name: str, model_spec: str | None, model_options: Any, params: Any) -> Any:
    """The agent recipe for commands that run episodes on worker processes (dissect)."""
    from .option_checks import check

    check("--workers", workers, at_least=1)
    if workers == 1:
        return None
    from .scale import WorkerRecipe

    return WorkerRecipe(agent_name, model_spec, model_options if model_spec else None, params)
