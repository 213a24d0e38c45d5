"""Resuming a run directory: the settings stored with it must match the command's.

A resumed run whose results were made under other settings (``--max-iterations 1``
then 50) would report a mixture as one measurement. So a resume is refused with one
line naming the first setting that differs and the option that sets it. Settings a
run stored before they were checked (older run directories) are not compared.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..environment import Limits
from ..errors import PlanprobeError

# the command-line option that sets each resumable setting, for the refusal message
_OPTION = {"agent": "--agent", "model": "--model", "seed": "--seed", "model_params": "--temperature/--max-tokens",
           "max_iterations": "--max-iterations", "timeout_s": "--timeout"}


def _num(value: object) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def check_same_settings(out: Path, meta: dict[str, str], identity: dict[str, object], limits: Limits) -> None:
    """Resuming must not mix results made under different settings: refuse, naming the first that differs."""
    loaded: object = {}
    try:
        loaded = json.loads(meta.get("limits") or "{}")
    except ValueError:
        pass
    stored_limits: dict[str, object] = loaded if isinstance(loaded, dict) else {}
    want_limits = {"max_iterations": limits.max_iterations, "timeout_s": limits.timeout_s}
    checks = [(k, meta.get(k), v if isinstance(v, str) else str(v)) for k, v in identity.items()]
    checks += [(k, None if stored_limits.get(k) is None else _num(stored_limits[k]), _num(v))
               for k, v in want_limits.items()]
    for key, stored, want in checks:
        if stored is not None and stored != want:
            raise PlanprobeError(
                f"{out} holds a run with {key}={stored}, not {want}; resume it with the same options "
                f"({_OPTION.get(key, key)}) or use a new --out directory"
            )
