"""Can these calls still begin a valid plan? (the step-wise protocol's question)

The oracle's "unextendable" check asks whether the actions a finished plan *left
out* could have been placed anywhere. A step-wise prediction asks something
stricter: the calls so far are the *beginning* of the plan, so every action not
yet done comes after them.

* basic mode: the calls are a prefix of a valid order iff no action repeats, and
  every order constraint ``a before b`` with ``b`` done has ``a`` done earlier
  (downward closure under the direct constraints implies it under the closure;
  the remaining actions always have a linear extension, the case being
  satisfiable).
* extended mode: the calls must keep their own windows, mutual orders, one task
  at a time and the day; no constraint ``a before b`` may have ``b`` done and ``a``
  not; and the remaining actions must fit after the last one ends — the solver's
  exact single-machine schedule (``solver.schedule``) on the residual problem
  decides it, and Z3 (``z3model.extension_core``) names a minimal set of
  constraints that rules it out.

Evidence is built like the oracle's (same classes, the requirement quoted), so a
step-wise verdict reads like an executed one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...schema import ErrorClass, split_attempts
from ...tool_args import parse_arguments, validate_arguments
from ..base import PlannedCall
from .generator import RESTART_TOOL_SPEC
from .prepared import PreparedCase
from .solver import schedule
from .vocabulary import format_hour
from .z3model import extension_core

E = ErrorClass
_NO_ARGS = {"type": "object", "properties": {}, "additionalProperties": False}


def prefix_problems(prepared: PreparedCase, calls: Sequence[PlannedCall], explain: bool = True) -> list[dict]:
    """Evidence (as dicts) of why ``calls`` cannot begin a valid plan; empty when they can.
    ``explain=False`` answers the same yes/no without naming the constraints that rule out
    the remaining schedule (Z3's core, the dear part; the labeller asks many times).

    A granted restart discards what came before it, as in the environment, so only
    the calls after the last restart are judged; restarts are found as everywhere else
    (``schema.split_attempts``): a malformed restart call grants nothing and is judged."""
    restart = RESTART_TOOL_SPEC if prepared.restart_tool else None
    last_restart = len(calls) - len(split_attempts(calls, restart)[-1]) - 1
    problems: list[dict] = []
    runs: list[tuple[int, int, int, int]] = []  # (action, start, end, step)
    seen: dict[int, int] = {}
    for step, call in enumerate(calls):
        if step <= last_restart:
            continue
        i = prepared.tool_index.get(call.name)
        if i is None and call.name != prepared.restart_tool:  # a bad restart call is judged below: it is offered
            problems.append(dict(
                error=E.ACT_ERROR.value, kind="unknown_tool", step=step,
                symbolic=f"step {step}: {call.name} not in tools",
                text=f'Step {step}: called "{call.name}", which is not one of the tools.'))
            continue
        args = parse_arguments(call.arguments)
        if args is None:
            problems.append(dict(
                error=E.ACT_ERROR.value, kind="malformed_arguments", step=step,
                symbolic=f"step {step}: {call.name}({call.arguments[:60]}) is not a JSON object",
                text=f'Step {step}: the arguments sent to "{call.name}" are not a JSON object: {call.arguments[:120]}'))
            continue
        why = validate_arguments(prepared.tool_params.get(call.name, _NO_ARGS), args)
        if why:
            problems.append(dict(
                error=E.ACT_ERROR.value, kind="invalid_arguments", step=step,
                symbolic=f"step {step}: {call.name}: {why}",
                text=f'Step {step}: invalid arguments for "{call.name}": {why}.'))
            continue
        if i is None:  # unreachable: a valid restart call is granted, so it ends an attempt before this one
            continue
        if i in seen:
            problems.append(dict(
                error=E.REPEATED_ACTION.value, kind="repeated_action", step=step,
                symbolic=f"count({prepared.ids[i]}) == 1",
                text=f'Step {step}: "{prepared.names[i]}" was already executed at step {seen[i]}, '
                     "but each task can only be executed once."))
            continue
        seen[i] = step
        if prepared.extended:
            start = int(args["start_time"])
            runs.append((i, start, start + prepared.durations[i], step))
        else:
            runs.append((i, len(runs), len(runs) + 1, step))
    if problems:
        return problems
    if not prepared.extended:
        return _basic(prepared, runs)
    return _extended(prepared, runs, explain)


def _violation(prepared: PreparedCase, cid: str, what: str, step=None) -> dict:
    symbolic, meaning, quote = prepared.words(cid)
    return dict(error=E.ORDER_ERROR.value, kind="violated_constraint", constraint_ids=[cid], step=step,
                symbolic=f"{cid}: {symbolic}", text=f"{what}, but {meaning}: the requirement says {quote}.")


def _not_yet(prepared: PreparedCase, cid: str, a: int, b: int, step: int) -> dict:
    symbolic, meaning, quote = prepared.words(cid)
    return dict(error=E.ORDER_ERROR.value, kind="violated_constraint", constraint_ids=[cid], step=step,
                symbolic=f"{cid}: {symbolic} with {prepared.ids[a]} not yet executed",
                text=f'Step {step}: "{prepared.names[b]}" is done while "{prepared.names[a]}" has not been done yet, '
                     f"but {meaning}: the requirement says {quote}.")


def _basic(prepared: PreparedCase, runs) -> list[dict]:
    pos = {r[0]: k for k, r in enumerate(runs)}
    out = []
    for cid, a, b in prepared.orders:
        pb = pos.get(b)
        if pb is None:
            continue
        pa = pos.get(a)
        if pa is None:
            out.append(_not_yet(prepared, cid, a, b, runs[pb][3]))
        elif pa > pb:
            out.append(_violation(prepared, cid, f'"{prepared.names[b]}" ran at step {runs[pb][3]}, before "{prepared.names[a]}" '
                                           f"at step {runs[pa][3]}", runs[pb][3]))
    return out


def _extended(prepared: PreparedCase, runs, explain: bool = True) -> list[dict]:
    out = []
    prev = None
    for i, start, end, step in runs:  # one task at a time, within the day (the oracle's Parameter Errors)
        if prev is not None and start < prev[2]:
            out.append(dict(
                error=E.PARAMETER_ERROR.value, kind="overlap", step=step,
                symbolic=f"{prepared.ids[i]}_start = {start} < {prepared.ids[prev[0]]}_end = {prev[2]}",
                text=f'Step {step}: "{prepared.names[i]}" started at {format_hour(start)}, before "{prepared.names[prev[0]]}" '
                     f"had ended at {format_hour(prev[2])}."))
        if end > prepared.horizon:
            out.append(dict(
                error=E.PARAMETER_ERROR.value, kind="past_day", step=step,
                symbolic=f"{prepared.ids[i]}_end = {end} > {prepared.horizon}",
                text=f'Step {step}: "{prepared.names[i]}" started at {format_hour(start)} and takes '
                     f"{end - start} hours, ending at {format_hour(end)}, past 24:00."))
        prev = (i, start, end)
    run_of = {r[0]: r for r in runs}
    for cid, a, b in prepared.orders:
        rb = run_of.get(b)
        if rb is None:
            continue
        ra = run_of.get(a)
        if ra is None:
            out.append(_not_yet(prepared, cid, a, b, rb[3]))
        elif ra[2] > rb[1]:
            out.append(_violation(prepared, cid, f'"{prepared.names[a]}" runs {format_hour(ra[1])}-{format_hour(ra[2])} and '
                                           f'"{prepared.names[b]}" starts at {format_hour(rb[1])}', rb[3]))
    for cid, kind, a, hour in prepared.windows:
        ra = run_of.get(a)
        if ra is None:
            continue
        if kind == "start_ge" and ra[1] < hour:
            out.append(_violation(prepared, cid, f'"{prepared.names[a]}" starts at {format_hour(ra[1])}', ra[3]))
        elif kind == "end_le" and ra[2] > hour:
            out.append(_violation(prepared, cid, f'"{prepared.names[a]}" ends at {format_hour(ra[2])}', ra[3]))
    if out:
        return out
    return _residual(prepared, runs, explain)


def _residual(prepared: PreparedCase, runs, explain: bool = True) -> list[dict]:
    """Whether the actions not yet done fit, in some order, after the last one ends."""
    done = {r[0] for r in runs}
    missing = [a for a in range(prepared.n) if a not in done]
    if not missing:
        return []
    t0 = runs[-1][2] if runs else 0
    local = {a: k for k, a in enumerate(missing)}
    preds = [0] * len(missing)
    for _, a, b in prepared.orders:  # orders into the done part are settled above
        if a in local and b in local:
            preds[local[b]] |= 1 << local[a]
    # the direct orders suffice: a transitive one through a done action would need
    # that action after a missing one, which the checks above have ruled out
    release, deadline = prepared.windows_arrays()
    fits = schedule(preds, [max(release[a], t0) for a in missing], [deadline[a] for a in missing],
                    [prepared.durations[a] for a in missing])
    if fits is not None:
        return []
    names = ", ".join(f'"{prepared.names[a]}"' for a in missing)
    if not explain:
        return [dict(error=E.ORDER_ERROR.value, kind="unextendable", step=runs[-1][3] if runs else None,
                     symbolic="unextendable", text=f"The tasks left ({names}) cannot all be fitted in.")]
    fixed = {r[0]: r[1] for r in runs}
    constraints = [(cid, ("order", a, b)) for cid, a, b in prepared.orders]
    constraints += [(cid, (kind, a, hour)) for cid, kind, a, hour in prepared.windows]
    core = extension_core(prepared.durations, constraints, fixed, [(0, t0)], prepared.horizon) or []
    step = runs[-1][3] if runs else None
    if not core:  # only the end of the day stands in the way
        total = sum(prepared.durations[a] for a in missing)
        return [dict(
            error=E.PARAMETER_ERROR.value, kind="no_time_left", step=step,
            symbolic=f"{t0} + {total} > {prepared.horizon}",
            text=f"The tasks left ({names}, {total} hours in all) cannot all end by 24:00 "
                 f"when the next one starts at {format_hour(t0)} or later.")]
    return [dict(
        error=E.ORDER_ERROR.value, kind="unextendable", constraint_ids=core, step=step,
        symbolic=" & ".join(prepared.symbolic(c) for c in core) + f" is unsatisfiable with the rest after {t0}",
        text=f"The tasks left ({names}) cannot all be fitted after {format_hour(t0)}: "
             + "; ".join(f"{prepared.meaning(c)} ({prepared.quote(c)})" for c in core) + ".")]
