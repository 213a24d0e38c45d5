"""Best-of-N restarts are samples (``debug --detector none``, the agentdebug study's Best-of-N).

A restart is a fresh attempt from step 0 with no feedback. Built with the run's own settings
(temperature 0 by default) every restart would send the first attempt's request again: the
record/replay cache would answer it with the first reply, a deterministic model would repeat it,
and N restarts would measure one attempt. So restart k samples, the way ``run --trials`` keeps
trials apart (each trial its own ``sample`` in the cache key and its own seed):

* its own draw, ``ChatParams.draw = k`` (beside ``sample`` = the trial, which the agents set):
  the cache keeps every attempt apart and a re-run replays each attempt's own reply;
* its own seed, ``restart_seed``: a seeded backend (the embedded model, a server honouring
  ``seed``) draws anew, and so does a seeded reference agent;
* a sampling temperature, ``RESTART_TEMPERATURE`` unless given (``--restart-temperature``).

The AgentDebug repair and Self-Refine keep the run's settings (draw 0): their prompts differ
from round to round already (the feedback grows), so their requests differ without sampling.
The budget stays matched: every method gets the same number of attempts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..models.base import ChatParams

# The AgentDebug paper does not state Best-of-N's temperature (§4.1's temperature 0 is the
# detector's). 0.7: planprobe's own setting for several independent samples (the LLM judge's
# default with more than one sample), the usual one for best-of-N / self-consistency sampling,
# and low enough that small models still keep their reply format.
RESTART_TEMPERATURE = 0.7

# Restart k's seed is seed + k * SEED_STRIDE; the agents add the trial number to it, so no
# (trial, restart) pair shares a seed with another while trials stay below the stride.
SEED_STRIDE = 1_000_003


def restart_seed(seed: int, draw: int) -> int:
    """The seed of restart ``draw`` (0: the run's own seed)."""
    return seed + draw * SEED_STRIDE


def restart_params(params: ChatParams, draw: int, temperature: float) -> ChatParams:
    """The model settings of restart ``draw`` (>= 1): the run's, with its own draw and seed and
    a sampling temperature. ``draw`` 0 is the run's settings unchanged."""
    if draw == 0:
        return params
    return replace(params, temperature=temperature, draw=draw,
                   seed=None if params.seed is None else restart_seed(params.seed, draw))


def agent_maker(spec: str, seed: int, model: Callable[[], Any] | None, params: ChatParams | None,
                temperature: float = RESTART_TEMPERATURE) -> Callable[[int], Any]:
    """``new_agent(draw)`` for ``repair_case``: draw 0 the agent with the run's settings (``params``
    or, when None, the agent's own default), draw k >= 1 Best-of-N restart k. ``model`` makes the
    agent's model (None: an agent without one)."""
    from ..agents import make_agent

    def new_agent(draw: int = 0) -> Any:
        m = model() if model is not None else None
        if draw == 0:
            return make_agent(spec, seed=seed, model=m, params=params)
        base = params if params is not None else ChatParams(seed=seed)  # the built-in agents' default
        return make_agent(spec, seed=restart_seed(seed, draw), model=m, params=restart_params(base, draw, temperature))

    return new_agent
