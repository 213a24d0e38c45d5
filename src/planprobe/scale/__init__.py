"""Running one suite on many processes or a Ray cluster, into one resumable store.

The work still pending in a run (runner/store.py) is cut into shards. Each shard
runs in a worker — a local process (``processes``) or a Ray task (``ray_backend``) —
which writes every result to its own shard store first and then streams it back.
The coordinator is the only writer of the run's store and merges what comes back
idempotently (``merge``): a result is keyed by case, trial and the run's settings,
so a shard that ran twice (a retried task, a resumed run) is stored once.
"""

from .coordinator import (
    ScaleOptions,
    install_local_limits,
    local_limits,
    run_scaled,
    runs_elsewhere,
    scaled_runner,
)
from .work import WorkerRecipe

__all__ = ["ScaleOptions", "WorkerRecipe", "install_local_limits", "local_limits", "run_scaled", "runs_elsewhere", "scaled_runner"]
