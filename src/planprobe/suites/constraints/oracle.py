"""The constraint family's oracle: Trace → Verdict (seed §4.3, §6.2, §6.3).

Error classes, primary first (``schema.ErrorClass`` order):

* Timeout — the episode hit the time or iteration limit (judged alone).
* Act Error — a call to an unknown tool, or arguments that are malformed or do
  not fit the tool's schema (such a call executes nothing).
* Action Lost — an action never executed in the judged attempt.
* Repeated Action — an action executed more than once.
* Parameter Error (extended) — a task started before the previous one ended, or
  ran past 24:00.
* Order Error — an order or time-window constraint is violated by the executed
  plan, or the order it executed cannot be completed into a valid plan by any
  placement of the actions it left out.

Order and windows are judged on each action's first execution: by position in
the basic mode, by start and end time in the extended mode. Evidence quotes the
requirement's own words; ``Verdict.unsat_core`` is a minimal set of the case's
constraints that, with what the agent executed, admits no valid plan.

Cases in the paper's style (``spec.style == "paper"``) are judged with the seed's
classes only (Tables 3 and 6): a repeated action is an Order Error (the seed's
check gives each action one execution position; running it twice breaks that);
an invalid call to a task's tool that the agent repairs by a valid call later in
the same attempt is not an error (the seed's log only records executed tools);
a start time outside 0-23 is a Parameter Error (the seed's tools take any integer).
"""

from __future__ import annotations

from ...schema import Case, ErrorClass, OracleKind, Trace, Verdict, sort_errors
from ...tool_args import parse_arguments, validate_arguments
from ..registry import restart_tool_of
from ..unfinished import unfinished_verdict
from .prepared import PreparedCase, prepare
from .solver import missing_fit, order_cycle_core
from .vocabulary import format_hour
from .z3model import extension_core

CHECKER = "constraints/1"
_ev = dict  # evidence is built as plain dicts and validated once, inside the Verdict
_NO_ARGS = {"type": "object", "properties": {}, "additionalProperties": False}
_ORDER = ErrorClass.ORDER_ERROR.value

E = ErrorClass


def check(case: Case, trace: Trace) -> Verdict:
    prepared = prepare(case)
    unfinished = unfinished_verdict(case, trace, CHECKER)
    if unfinished is not None:
        return unfinished
    restart = restart_tool_of(case)
    attempts = trace.attempts(restart)
    calls = attempts[-1]
    extended = prepared.extended
    tool_index = prepared.tool_index
    n = prepared.n
    first_pos = [-1] * n  # index into `runs` of each action's first execution
    counts = [0] * n
    runs: list[tuple[int, int, int, int]] = []  # (action, start, end, step)
    problems: list[dict] = []  # Evidence fields; validated once, in the Verdict
    params = prepared.tool_params
    paper = prepared.paper
    repaired = _repaired_calls(prepared, calls) if paper else set()
    for call in calls:
        i = tool_index.get(call.name)
        if i is not None and not extended and (call.arguments == "{}" or call.arguments == ""):
            if counts[i] == 0:  # fast path: a valid basic call
                first_pos[i] = len(runs)
            counts[i] += 1
            runs.append((i, len(runs), len(runs) + 1, call.index))
            continue
        if i is None and (restart is None or call.name != restart.name):
            problems.append(_unknown_tool(prepared, call))
            continue
        raw = call.arguments
        args = parse_arguments(raw)
        if args is None:
            if call.index in repaired:
                continue
            problems.append(_ev(
                error=E.ACT_ERROR.value, kind="malformed_arguments", step=call.index,
                symbolic=f"step {call.index}: {call.name}({raw[:60]}) is not a JSON object",
                text=f'Step {call.index}: the arguments sent to "{call.name}" are not a JSON object: {raw[:120]}',
            ))
            continue
        # a call of no action got this far only as the restart tool's
        schema = params.get(call.name, _NO_ARGS) if i is not None or restart is None else restart.parameters
        why = validate_arguments(schema, args)
        if why:
            if call.index in repaired:
                continue
            problems.append(_ev(
                error=E.ACT_ERROR.value, kind="invalid_arguments", step=call.index,
                symbolic=f"step {call.index}: {call.name}: {why}",
                text=f'Step {call.index}: invalid arguments for "{call.name}": {why}.',
            ))
            continue
        if i is None:  # unreachable: a valid restart call ends its attempt, so none lies in the judged one
            continue
        if counts[i] == 0:
            first_pos[i] = len(runs)
        counts[i] += 1
        if extended:
            start = int(args["start_time"])
            runs.append((i, start, start + prepared.durations[i], call.index))
        else:  # a basic call with empty arguments written another way, e.g. "{ }"
            runs.append((i, len(runs), len(runs) + 1, call.index))

    for i in range(n):
        if counts[i] == 0:
            problems.append(_ev(
                error=E.ACTION_LOST.value, kind="lost_action", symbolic=f"executed({prepared.ids[i]})",
                text=f'"{prepared.names[i]}" was never executed' + (" in the last attempt." if len(attempts) > 1 else "."),
            ))
        elif counts[i] > 1:
            steps = [r[3] for r in runs if r[0] == i]
            problems.append(_ev(
                error=(E.ORDER_ERROR if paper else E.REPEATED_ACTION).value, kind="repeated_action",
                symbolic=f"count({prepared.ids[i]}) == 1",
                text=f'"{prepared.names[i]}" was executed {counts[i]} times (steps {", ".join(map(str, steps))}), '
                     "but each task can only be executed once.",
            ))
    if extended:
        problems.extend(_parameter_errors(prepared, runs))

    violated = _violations(prepared, runs, first_pos)
    problems.extend(violated)
    core: list[str] = [violated[0]["constraint_ids"][0]] if violated else []
    if not violated and 0 in counts and runs:
        core = _unextendable_core(prepared, runs, first_pos)
        if core:
            problems.append(_ev(
                error=E.ORDER_ERROR.value, kind="unextendable", constraint_ids=core,
                symbolic=" & ".join(prepared.symbolic(c) for c in core) + " is unsatisfiable with the executed order",
                text="What was executed cannot be completed into a valid plan: "
                     + "; ".join(f"{prepared.meaning(c)} ({prepared.quote(c)})" for c in core) + ".",
            ))
    if not problems:
        return Verdict(case_id=case.id, trial=trace.trial, passed=True, checker=CHECKER)
    return Verdict(
        case_id=case.id, trial=trace.trial, passed=False,
        errors=sort_errors({p["error"] for p in problems}), evidence=problems, unsat_core=core,
        oracle=OracleKind.FORMAL, checker=CHECKER,
    )


def _unknown_tool(prepared: PreparedCase, call) -> dict:
    return _ev(
        error=E.ACT_ERROR.value, kind="unknown_tool", step=call.index,
        symbolic=f"step {call.index}: {call.name} not in tools",
        text=f'Step {call.index}: called "{call.name}", which is not one of the tools.',
    )


def _repaired_calls(prepared: PreparedCase, calls) -> set[int]:
    """Indices of invalid calls to a task's tool followed by a valid call of the same
    tool later in the attempt (paper style: the seed's log never saw them)."""
    valid_after: set[str] = set()
    repaired: set[int] = set()
    for call in reversed(calls):
        if call.name not in prepared.tool_index:
            continue
        args = parse_arguments(call.arguments)
        ok = args is not None and not validate_arguments(prepared.tool_params.get(call.name, _NO_ARGS), args)
        if ok:
            valid_after.add(call.name)
        elif call.name in valid_after:
            repaired.add(call.index)
    return repaired


def _parameter_errors(prepared: PreparedCase, runs) -> list[dict]:
    out = []
    prev = None
    for i, start, end, step in runs:
        if not 0 <= start <= prepared.horizon - 1:  # paper style: the tools take any integer
            out.append(_ev(
                error=E.PARAMETER_ERROR.value, kind="start_out_of_range", step=step,
                symbolic=f"0 <= {prepared.ids[i]}_start = {start} <= {prepared.horizon - 1}",
                text=f'Step {step}: "{prepared.names[i]}" was started at {start}, outside the range [0, 23].',
            ))
        if prev is not None and start < prev[2]:
            out.append(_ev(
                error=E.PARAMETER_ERROR.value, kind="overlap", step=step,
                symbolic=f"{prepared.ids[i]}_start = {start} < {prepared.ids[prev[0]]}_end = {prev[2]}",
                text=f'Step {step}: "{prepared.names[i]}" started at {format_hour(start)}, before "{prepared.names[prev[0]]}" '
                     f"(started {format_hour(prev[1])}) had ended at {format_hour(prev[2])}.",
            ))
        if end > prepared.horizon:
            out.append(_ev(
                error=E.PARAMETER_ERROR.value, kind="past_day", step=step,
                symbolic=f"{prepared.ids[i]}_end = {end} > {prepared.horizon}",
                text=f'Step {step}: "{prepared.names[i]}" started at {format_hour(start)} and took '
                     f"{end - start} hours, ending at {format_hour(end)}, past 24:00.",
            ))
        prev = (i, start, end)
    return out


def _violations(prepared: PreparedCase, runs, first_pos) -> list[dict]:
    out = []
    if not prepared.extended:  # by position of the first run; the hot path of a basic suite
        for cid, a, b in prepared.orders:
            pa, pb = first_pos[a], first_pos[b]
            if pb >= 0 and pa > pb:
                out.append(_violation(
                    prepared, cid, f'"{prepared.names[b]}" ran at step {runs[pb][3]}, before "{prepared.names[a]}" at step {runs[pa][3]}'
                ))
        return out
    for cid, a, b in prepared.orders:
        pa, pb = first_pos[a], first_pos[b]
        if pa < 0 or pb < 0:
            continue
        ra, rb = runs[pa], runs[pb]
        if ra[2] > rb[1]:
            out.append(_violation(prepared, cid, f'"{prepared.names[a]}" ran {format_hour(ra[1])}-{format_hour(ra[2])} and '
                                           f'"{prepared.names[b]}" started at {format_hour(rb[1])}'))
    for cid, kind, a, hour in prepared.windows:
        pa = first_pos[a]
        if pa < 0:
            continue
        _, start, end, _ = runs[pa]
        if kind == "start_ge" and start < hour:
            out.append(_violation(prepared, cid, f'"{prepared.names[a]}" started at {format_hour(start)}'))
        elif kind == "end_le" and end > hour:
            out.append(_violation(prepared, cid, f'"{prepared.names[a]}" ended at {format_hour(end)}'))
    return out


def _violation(prepared: PreparedCase, cid: str, what: str) -> dict:
    symbolic, meaning, quote = prepared.words(cid)
    return _ev(
        error=_ORDER, kind="violated_constraint", constraint_ids=[cid],
        symbolic=f"{cid}: {symbolic}", text=f"{what}, but {meaning}: the requirement says {quote}.",
    )


def _unextendable_core(prepared: PreparedCase, runs, first_pos) -> list[str]:
    if not prepared.extended:
        executed = [runs[p][0] for p in sorted(p for p in first_pos if p >= 0)]
        return order_cycle_core(prepared.n, prepared.orders, executed) or []
    fixed = {i: runs[p][1] for i, p in enumerate(first_pos) if p >= 0}
    busy = [(r[1], r[2]) for r in runs]
    release, deadline = prepared.windows_arrays()
    if missing_fit(prepared.durations, release, deadline, [(a, b) for _, a, b in prepared.orders], fixed, busy, prepared.horizon):
        return []  # the common case, decided without Z3; Z3 only explains a real failure
    constraints = [(cid, ("order", a, b)) for cid, a, b in prepared.orders]
    constraints += [(cid, (kind, a, hour)) for cid, kind, a, hour in prepared.windows]
    return extension_core(prepared.durations, constraints, fixed, busy, prepared.horizon) or []
