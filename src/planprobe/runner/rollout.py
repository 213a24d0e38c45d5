"""Re-rollout: run an episode again from a step of an earlier one, with guidance.

What a debugger that "re-executes from the critical step with feedback" needs
(AgentDebug, Alg. 1 stage 3: ``ReRollout(τ, t*, φ)``), and what a planner that
retries a sub-task needs. Given a case, a trace of it and a step count ``t``:

1. a fresh environment of the case's family is made and the trace's tool calls of
   steps 1..t are replayed into it, in order, each checked to give the result the
   trace recorded, and the same error class (so the environment is in the state the original agent saw; a
   result that differs means the trace is not of this case, or the family's tools
   are not deterministic, and the re-rollout is refused);
2. the messages of those steps (and of step 0: the system and task messages) are
   copied into the new trace, and the sub-episodes begun in them;
3. ``guidance``, if given, is appended as a user message of ``role`` (the role whose
   conversation receives it);
4. the agent's ``resume(case, env, prefix)`` continues from that conversation under
   the same limits (the replayed steps count against the iteration limit) and the
   new trace records ``origin``: the original's case, trial, agent and SHA-256, the
   steps replayed, the guidance and where it was inserted, the attempt number.

AgentDebug's critical step t* is 1-based and is itself re-executed, so its
re-rollout keeps ``t = t* - 1`` steps. Usage counts only the new attempt's model
calls (the prefix's were paid by the original); timestamps of replayed calls are
those of the replay.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..agents.base import Agent
from ..agents.prefix import Prefix, can_resume
from ..environment import Limits
from ..errors import PlanprobeError
from ..schema import (
    DEFAULT_ROLE,
    Case,
    Message,
    Origin,
    SubEpisode,
    Trace,
    Usage,
    Verdict,
)
from ..suites.registry import get_family
from .engine import drive
from .findings import judge
from .steps import step_count, with_steps
from .store import RunStore


def trace_sha256(trace: Trace) -> str:
    """The fingerprint a re-rollout links to: SHA-256 of the trace's JSON as this planprobe writes it."""
    return hashlib.sha256(trace.model_dump_json().encode()).hexdigest()


def _prefix_episodes(original: Trace, steps: int) -> list[SubEpisode]:
    """Sub-episodes begun within the kept steps, cut to those steps (usage not carried over)."""
    out = []
    for e in original.episodes:
        if e.step > steps:
            continue
        messages = [m for m in e.messages if (m.step or 0) <= steps]
        later = len(messages) < len(e.messages) or any(
            c.episode == e.id and (c.step or 0) > steps for c in original.tool_calls)
        out.append(e.model_copy(update={"messages": [m.model_copy() for m in messages], "usage": Usage(),
                                        "final_answer": None if later else e.final_answer}))
    return out


async def rerollout(case: Case, original: Trace, steps: int, agent: Agent, limits: Limits = Limits(), *,
                    guidance: str | None = None, role: str = DEFAULT_ROLE, attempt: int = 1,
                    run: str | None = None, model: str | None = None,
                    models: dict[str, str] | None = None) -> Trace:
    """The original's first ``steps`` steps replayed, ``guidance`` inserted, ``agent`` continuing.
    Agent failures are recorded in the trace (as in a fresh episode); a prefix that cannot be
    replayed, or an agent that cannot resume, raises PlanprobeError naming the case and step."""
    where = f"case {case.id!r} trial {original.trial}"
    if original.case_id != case.id:
        raise PlanprobeError(f"the trace is of case {original.case_id!r}, not {case.id!r}")
    if not can_resume(agent):
        raise PlanprobeError(f"agent {agent.name!r} cannot continue from a prefix (it has no resume(case, env, "
                             "prefix); a python: agent must take a 'prefix' parameter)")
    known = step_count(original)
    if not 0 <= steps <= known:
        raise PlanprobeError(f"{where}: cannot keep {steps} steps; the trace has {known} (choose 0-{known})")
    if steps > limits.max_iterations:
        raise PlanprobeError(f"{where}: {steps} steps to replay exceed the iteration limit {limits.max_iterations}")
    full = with_steps(original)
    env = get_family(case.family).environment(case, limits, original.trial, agent.name)
    env.trace.episodes = _prefix_episodes(full, steps)
    calls = [c for c in full.tool_calls if (c.step or 0) <= steps]
    for step in range(1, steps + 1):
        env.step()
        for c in (c for c in calls if c.step == step):
            result = env._call(c.name, c.arguments, c.call_id, c.agent or DEFAULT_ROLE, c.episode)
            if result != c.result or env.trace.tool_calls[-1].error != c.error:
                raise PlanprobeError(
                    f"{where}: replaying call {c.index} ({c.name}) at step {step} gave {result[:120]!r}, the trace "
                    f"recorded {c.result[:120]!r}; the trace is not of this case or its tools are not deterministic"
                )
    kept = [m.model_copy() for m in full.messages if (m.step or 0) <= steps]
    env.trace.messages.extend(kept)
    guidance_at = None
    if guidance is not None:
        guidance_at = len(env.trace.messages)
        env._log(Message(role="user", content=guidance), role, None)
    prefix = Prefix(steps=steps, messages=list(env.trace.messages), tool_calls=list(env.trace.tool_calls),
                    episodes=list(env.trace.episodes), guidance=guidance)
    env.trace.origin = Origin(case_id=original.case_id, trial=original.trial, agent=original.agent,
                              trace_sha256=trace_sha256(original), steps=steps, replayed_calls=len(calls),
                              replayed_messages=len(kept), guidance=guidance, guidance_message=guidance_at,
                              attempt=attempt, run=run)
    view = env if role == env.role else env.as_role(role)
    return await drive(env, lambda: agent.resume(case, view, prefix), model, models)  # type: ignore[attr-defined]


def rerollout_in_run(run_dir: Path, case_id: str, trial: int, steps: int, agent: Agent, *,
                     guidance: str | None = None, role: str = DEFAULT_ROLE, limits: Limits | None = None,
                     model: str | None = None, models: dict[str, str] | None = None,
                     store_it: bool = True, attempt: int | None = None) -> tuple[Trace, Verdict]:
    """Re-roll out a stored result and store the new attempt beside it (``RunStore.add_rerollout``),
    judged by the case's oracle; its attempt number is one more than the case's earlier ones.
    The run's own limits apply unless ``limits`` is given. Takes the run directory's lock.
    ``store_it=False`` only reads the run (no lock; ``attempt`` numbers the result): a worker
    process computes it and the one process holding the lock stores it (planprobe.scale)."""
    import asyncio

    from ..analysis.rerun import stored_limits

    store = RunStore(run_dir, write=store_it)
    try:
        case = store.case(case_id)
        original = store.trace(case_id, trial)
        attempt = attempt or 1 + len(store.rerollouts(case_id, trial))
        if limits is None:
            iterations, timeout = stored_limits(store.meta())
            limits = Limits(max_iterations=iterations or Limits.max_iterations, timeout_s=timeout or Limits.timeout_s)
        trace = asyncio.run(rerollout(case, original, steps, agent, limits,
                                      guidance=guidance, role=role, attempt=attempt, run=str(run_dir), model=model,
                                      models=models))
        verdict = judge(case, trace)
        if store_it:
            store.add_rerollout(trace, verdict)
        return trace, verdict
    finally:
        store.close()

