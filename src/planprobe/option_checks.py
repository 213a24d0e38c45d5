"""Range checks for numeric command-line options.

Click parses ``--timeout nan`` or ``--price-in -3`` happily, and a NaN compares
false with every bound, so a plain ``if timeout <= 0`` lets it through to fail
(or silently misbehave) much later. Every numeric option goes through ``check``
before anything runs, and a bad one is refused with one line naming it.
"""

from __future__ import annotations

import math

from .errors import PlanprobeError

Number = int | float


def _show(value: Number) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def check(option: str, value: Number | None, *, at_least: Number | None = None,
          above: Number | None = None, at_most: Number | None = None) -> None:
    """Refuse ``value`` for ``option`` unless it is finite and inside the bounds (None: not given)."""
    if value is None:
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise PlanprobeError(f"{option} {_show(value)}: expected a finite number")
    if above is not None and not value > above:
        raise PlanprobeError(f"{option} {_show(value)}: must be above {_show(above)}")
    if at_least is not None and not value >= at_least:
        raise PlanprobeError(f"{option} {_show(value)}: must be at least {_show(at_least)}")
    if at_most is not None and not value <= at_most:
        raise PlanprobeError(f"{option} {_show(value)}: must be at most {_show(at_most)}")


def check_limits(concurrency: int, max_iterations: int | None, timeout: float | None, trials: int = 1) -> None:
    """The run limits shared by run, sweep and dissect (dissect's unset ones: the run's)."""
    check("--concurrency", concurrency, at_least=1)
    check("--trials", trials, at_least=1)
    check("--max-iterations", max_iterations, at_least=1)
    check("--timeout", timeout, above=0)


def check_sampling(temperature: float | None, max_tokens: int | None) -> None:
    check("--temperature", temperature, at_least=0)
    check("--max-tokens", max_tokens, at_least=1)
