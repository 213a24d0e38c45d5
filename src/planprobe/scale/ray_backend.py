"""Shards as Ray tasks (the ``ray`` extra).

Each shard is a Ray generator task: it runs in a Ray worker, writes each result to its
shard store on that node's local disk, and yields it to the coordinator at once (the
results stream back while the shard runs). A task whose worker or node dies is retried
by Ray (``max_retries``); the retry re-reads its shard store when it lands on the same
node, and the coordinator stores each key once either way (merge.py). At most
``--workers`` shard tasks run at once, each with its share of ``--concurrency``, so an
endpoint never sees more than ``--concurrency`` calls from the run; a cluster that
declares a resource ``endpoint:HOST[:PORT]`` (``ray start --resources``) caps it further
across every run on the cluster: each task of a run on that endpoint takes one unit.

Without ``--address`` a local cluster is started without the dashboard (once per process:
a sweep's points share it) and stopped when the process exits; with one, the cluster is checked to be reachable (a TCP connection, 10 s)
before Ray is asked to join it, so a wrong address is one line, not a long hang. ``--address
auto`` joins the cluster already running on this machine (``ray start --head``; or the one
``RAY_ADDRESS`` names), as ``ray.init(address="auto")`` finds it: no cluster start per command.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue as queue_mod
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import PlanprobeError, ServiceUnusableError
from ..models.ratelimit import LocalLimiter, RateLimits
from ..runner.engine import RunConfig
from .shard import ShardRunner
from .work import Shard, WorkerRecipe

TASK_RETRIES = 3
_DONE = object()


AUTO = "auto"  # --address auto: the running cluster Ray finds itself


def check_address(address: str, timeout: float = 10.0) -> None:
    """One line if nothing answers at ``address`` (host:port of a Ray head's GCS); ``auto`` is
    checked by Ray itself (it fails at once when no cluster is running)."""
    if address == AUTO:
        return
    text = address.split("://", 1)[-1]
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise PlanprobeError(f"--address {address!r} is not HOST:PORT of a Ray head (e.g. 10.0.0.5:6379)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise PlanprobeError(f"cannot reach the Ray cluster at {address}: {reason}; is 'ray start --head' running "
                             "there, or leave out --address to start a local cluster") from None


# -- the worker side ---------------------------------------------------------------

_loop: asyncio.AbstractEventLoop | None = None
_runners: dict[tuple[str, str], ShardRunner] = {}
_lock = threading.Lock()


def _worker_loop() -> asyncio.AbstractEventLoop:
    """One event loop per Ray worker process, kept between tasks: the agent's model
    clients are bound to the loop they were made on."""
    global _loop
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, daemon=True, name="planprobe-loop").start()
            _loop = loop
        return _loop


def run_shard_here(shard: Shard, recipe: WorkerRecipe, config: RunConfig, root: str | None,
                   limiter: Any) -> Iterator[tuple[str, str]]:
    """Run a shard in this process, yielding each (trace JSON, verdict JSON) as it is stored."""
    if limiter is not None:
        from ..models.ratelimit import install

        install(limiter)
    base = Path(root) if root else Path(os.environ.get("TMPDIR", "/tmp")) / "planprobe-shards"
    key = (repr(recipe), repr(config))
    runner = _runners.get(key)
    if runner is None or runner.root != base:
        runner = _runners[key] = ShardRunner(recipe, config, base)
    out: queue_mod.Queue[Any] = queue_mod.Queue()

    async def go() -> None:
        try:
            await runner.run(shard, lambda t, v: out.put((t, v)))
            out.put(_DONE)
        except BaseException as exc:  # noqa: BLE001 — handed to the task's thread, which raises it
            out.put(exc)

    asyncio.run_coroutine_threadsafe(go(), _worker_loop())
    while True:
        item = out.get()
        if item is _DONE:
            return
        if isinstance(item, BaseException):
            raise item
        yield item


class RayLimiter:
    """The rate limits held by one actor that every task of the run asks."""

    def __init__(self, handle: Any):
        self.handle = handle

    async def acquire(self, endpoint: str) -> None:
        while (wait := await self.handle.reserve.remote(endpoint)) > 0:
            await asyncio.sleep(min(wait, 5.0))

    def record(self, endpoint: str, tokens: int) -> None:
        self.handle.record.remote(endpoint, tokens)

    def pause(self, endpoint: str, seconds: float) -> None:
        self.handle.pause.remote(endpoint, seconds)


class _LimiterState:
    """The actor's state: one LocalLimiter (``clock`` is injectable for tests)."""

    def __init__(self, limits: RateLimits, clock: Any = None):
        self.limiter = LocalLimiter(limits) if clock is None else LocalLimiter(limits, clock)

    def reserve(self, endpoint: str) -> float:
        return self.limiter._reserve(endpoint)

    def record(self, endpoint: str, tokens: int) -> None:
        self.limiter.record(endpoint, tokens)

    def pause(self, endpoint: str, seconds: float) -> None:
        self.limiter.pause(endpoint, seconds)


# -- the coordinator side -----------------------------------------------------------

_rate_actors: dict[tuple[str, RateLimits], RayLimiter] = {}


def _rate_actor(ray: Any, limits: RateLimits, scope: str) -> RayLimiter:
    """One pacing actor per scope (a run directory, or a sweep's own rate file) and process:
    a sweep's points, run one after another, share it, so a point does not start with a
    fresh bucket that forgot the tokens the previous one spent."""
    key = (scope, limits)
    if key not in _rate_actors:
        _rate_actors[key] = RayLimiter(ray.remote(num_cpus=0)(_LimiterState).remote(limits))
    return _rate_actors[key]

def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise PlanprobeError("--backend ray needs Ray: pip install 'planprobe[ray]'") from None
    return ray


def _is_local(address: str | None) -> bool:
    if not address:
        return True
    host = address.split("://", 1)[-1].rpartition(":")[0].strip("[]")
    return host in ("127.0.0.1", "localhost", "::1")


def endpoint_resource(recipe: WorkerRecipe) -> str | None:
    """The Ray resource that caps calls to the run's endpoint: ``endpoint:HOST[:PORT]``."""
    url = getattr(recipe.model_options, "base_url", None) if recipe.model_spec else None
    if not url:
        return None
    return "endpoint:" + (urlsplit(url).netloc.rpartition("@")[2] or url)


def connect(workers: int, address: str | None) -> tuple[Any, bool]:
    """(the ray module, whether the cluster is on this machine), joined or started once per
    process (a sweep's points share it; ray.init's exit hook shuts a local one down)."""
    ray = _import_ray()
    if address:
        check_address(address)
    local = _is_local(address) or address == AUTO  # auto: refined once Ray has found the cluster
    env = {k: v for k, v in os.environ.items() if k.startswith("PLANPROBE_")}
    if local:
        src = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    init: dict[str, Any] = {"runtime_env": {"env_vars": env}, "logging_level": logging.ERROR,
                            "log_to_driver": False, "configure_logging": True}
    if address:
        init["address"] = address
    else:  # a local cluster of our own: no dashboard, room for every worker even on few cores
        init.update(address="local", include_dashboard=False, num_cpus=max(workers, os.cpu_count() or 1))
    if not ray.is_initialized():
        try:
            ray.init(**init)
        except Exception as exc:  # noqa: BLE001 — Ray raises many kinds here; each becomes one line
            where = f" at {address}" if address else ""
            hint = " (is 'ray start --head' running on this machine?)" if address == AUTO else ""
            raise PlanprobeError(f"cannot start or join the Ray cluster{where}: "
                                 f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}{hint}") from None
    if address == AUTO:  # where Ray found it decides whether the shard stores can sit in the run directory
        local = _is_local(ray.get_runtime_context().gcs_address)
    return ray, local


def run_on_ray(shards: list[Shard], recipe: WorkerRecipe, config: RunConfig, run_dir: Path, options: Any,
               on_result: Callable[[str, str], None], warn: Callable[[str], None]) -> None:
    ray, local = connect(options.workers, options.address)
    _run(ray, shards, recipe, config, run_dir, options, on_result, local)


def _run(ray: Any, shards: list[Shard], recipe: WorkerRecipe, config: RunConfig, run_dir: Path, options: Any,
         on_result: Callable[[str, str], None], local: bool) -> None:
    limiter = _rate_actor(ray, options.rate, str(options.rate_file or run_dir)) if options.rate else None
    task_options: dict[str, Any] = {"max_retries": TASK_RETRIES, "retry_exceptions": False, "num_cpus": 1}
    resource = endpoint_resource(recipe)
    if resource and resource in ray.cluster_resources():
        task_options["resources"] = {resource: 1}
    task = ray.remote(run_shard_here).options(**task_options)
    root = str((run_dir / "shards").resolve()) if local else None  # remote nodes: their own local disk
    todo = list(shards)
    running: dict[Any, Shard] = {}
    while todo or running:
        while todo and len(running) < options.workers:
            shard = todo.pop(0)
            running[task.remote(shard, recipe, config, root, limiter)] = shard
        ready, _ = ray.wait(list(running), num_returns=1)
        for gen in ready:
            shard = running[gen]
            try:
                ref = next(gen)
                on_result(*ray.get(ref))
            except StopIteration:
                del running[gen]
            except ray.exceptions.RayTaskError as exc:
                cause = exc.cause if isinstance(getattr(exc, "cause", None), Exception) else None
                if isinstance(cause, ServiceUnusableError):
                    raise ServiceUnusableError(str(cause)) from None
                if isinstance(cause, PlanprobeError):
                    raise PlanprobeError(str(cause)) from None
                line = str(cause or exc).strip().splitlines()
                raise PlanprobeError(f"shard {shard.index} failed on Ray: {line[-1] if line else type(exc).__name__}"
                                     "; its finished cases are kept — re-run the same command to resume") from None
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                    ray.exceptions.ObjectLostError, ray.exceptions.RaySystemError) as exc:
                raise PlanprobeError(f"shard {shard.index}: its Ray worker died {TASK_RETRIES + 1} times "
                                     f"({type(exc).__name__}); its finished cases are kept — re-run the same "
                                     "command to resume") from None
