"""What the robustness transforms (``suites/robust``) need that only this family knows:
plausible distractor tools, a provably contradictory variant of a case, and the
cheapest valid plan when tools have costs.

Distractors are other activities of the case's own job in the lexicon, so their
names and descriptions are as close to the real tools as the lexicon allows.
A contradiction is one more sentence from the task grammar, at a random position, that
reverses an implied order or swaps a stated time bound's kind at the same hour;
unsatisfiability is then proven by the same solver the synthesis uses. Its solvable
controls (``restate``) get one more sentence too, drawn the same way but restating the
constraint instead of reversing it, so no count, position or template tells them apart. The
cheapest plan is an exact DP over the sets of actions done so far.
"""

from __future__ import annotations

import json
import random

from ...errors import PlanprobeError
from ...schema import Case, ToolSpec
from .generator import _action_tool, _task_list, build_case, text_reads_as_spec
from .grammar import Sentence
from .lexicon import default_lexicon, tool_name
from .mutations import _context, _Cover
from .prepared import prepare
from .solver import HORIZON, predecessors, schedule
from .spec import ConstraintSpec, parse_spec
from .synthesis import MAX_STATEMENTS
from .vocabulary import format_hour


def distractor_tools(case: Case, k: int, rng: random.Random) -> list[ToolSpec]:
    """k tools for activities of the same job that the task does not ask for, in the case's
    style (a planprobe-style description among the paper's tools would tell them apart)."""
    prepared = prepare(case)
    style = parse_spec(case).style
    used = set(prepared.tools) | {t.name for t in case.tools}
    lexicon = default_lexicon()
    try:
        pool = list(lexicon.job(case.meta.topic or "").activities)
    except PlanprobeError:
        pool = []
    rng.shuffle(pool)
    picked: list[ToolSpec] = []

    def take(activities) -> None:
        for activity in activities:
            if len(picked) == k:
                return
            if tool_name(activity) not in used:
                used.add(tool_name(activity))
                picked.append(_action_tool(activity, prepared.extended, style))

    take(pool)  # the same job first: the closest names there are
    if len(picked) < k:  # then other jobs' activities, as few drawn as needed
        others = [a for j in lexicon.jobs for a in j.activities if j.name != case.meta.topic]
        take(rng.sample(others, min(len(others), k + len(used))))
    return picked


def task_statement(case: Case) -> str | None:
    """The task list planprobe's style has in its template, for variants of paper-style cases:
    the paper's text does not name the tasks (each tool is one), so once a variant adds tools
    the paper never had (distractors, decoys, twins) only this sentence says which are tasks.
    Added to every variant of such a case, so its presence tells nothing about the variant."""
    if parse_spec(case).style != "paper":
        return None
    return f"The tasks are: {_task_list(prepare(case).names)}."


_TRIES = 50  # sentences drawn before giving up (each must read back as exactly its constraints)


def _anchors(case: Case) -> list[tuple]:
    """Atoms (in action indices) a variant may restate or reverse: every order the
    constraints imply and every stated time bound, each stated fewer than the
    maximum number of times. Contradictions and their controls draw from this same list."""
    prepared = prepare(case)
    spec = parse_spec(case)
    index = prepared.index_of
    stated: dict[tuple, int] = {}
    for c in spec.constraints:
        second = index[c.b] if c.kind == "order" and c.b is not None else c.hour
        stated[(c.kind, index[c.a], second)] = len(c.clauses)
    after = prepared.closure().after
    implied = [("order", a, b) for a in range(prepared.n) for b in range(prepared.n) if (after[a] >> b) & 1]
    windows = [atom for atom in stated if atom[0] != "order"]
    every = sorted(implied) + sorted(windows)
    return [atom for atom in every if stated.get(atom, 0) < MAX_STATEMENTS] or every


def _flipped(atom: tuple) -> tuple:
    """The atom no plan can meet together with the original: the order reversed, or the
    time bound's kind swapped at the same hour (a task must end by the hour it may start at
    the earliest, or start at the hour it must have ended by; tasks last an hour or more)."""
    kind, a, x = atom
    if kind == "order":
        return ("order", x, a)
    return ("start_ge" if kind == "end_le" else "end_le", a, x)


def _with_sentence(case: Case, atom: tuple, rng: random.Random) -> Case:
    """The case with one more sentence, drawn from the grammar, stating ``atom`` alone, at a
    random position among the sentences; the text is read back to prove it says exactly that."""
    prepared, opts, durations, sentences = _context(case)
    for _ in range(_TRIES):
        part = _Cover({atom}, prepared.n, rng).part_for(atom)
        at = rng.randrange(len(sentences) + 1)
        new = [*sentences[:at], Sentence((part,), ()), *sentences[at:]]
        built = build_case(0, opts, case.meta.topic, prepared.names, durations, new)
        if text_reads_as_spec(built):
            changed = case.model_copy(update={"task": built.task, "spec": built.spec})
            changed.forget_derived()
            return changed
    raise PlanprobeError(f"case {case.id}: no added sentence read back as its constraint")  # pragma: no cover


def contradict(case: Case, rng: random.Random) -> tuple[Case, str]:
    """The case with one more sentence from the task grammar, at a random position, that no
    plan can meet together with the others; and a proof note.

    It reverses an order the constraints imply, or swaps the kind of a stated time bound
    at the same hour (see ``_flipped``); unsatisfiability is proven by the solver."""
    anchor = rng.choice(_anchors(case))
    atom = _flipped(anchor)
    changed = _with_sentence(case, atom, rng)
    if is_satisfiable(parse_spec(changed)):  # pragma: no cover - would be a bug above
        raise PlanprobeError(f"case {case.id}: the contradiction added is satisfiable")
    names = prepare(case).names
    if anchor[0] == "order":
        proof = f"{names[anchor[1]]!r} must come before {names[anchor[2]]!r} and the text also requires the reverse"
    else:
        proof = (f"{names[anchor[1]]!r} {'may start no earlier' if anchor[0] == 'start_ge' else 'must end no later'} "
                 f"than {format_hour(anchor[2])} and the text also requires it to "
                 f"{'end' if anchor[0] == 'start_ge' else 'start'} {'by' if anchor[0] == 'start_ge' else 'at or after'}"
                 " that hour")
    return changed, proof


def restate(case: Case, rng: random.Random) -> Case:
    """The solvable control of ``contradict``: one more sentence from the same grammar at a
    random position, restating an implied order or a stated time bound (drawn from the same
    list), so controls carry as many extra constraints as contradictions do."""
    changed = _with_sentence(case, rng.choice(_anchors(case)), rng)
    if not is_satisfiable(parse_spec(changed)):  # pragma: no cover - a restatement cannot conflict
        raise PlanprobeError(f"case {case.id}: the restatement made the case unsatisfiable")
    return changed


def is_satisfiable(spec: ConstraintSpec) -> bool:
    """Exactly, with the synthesis solver: an order cycle, or no schedule in the day."""
    from .prepared import PreparedCase

    prepared = PreparedCase(spec)
    try:
        closure = prepared.closure()
    except ValueError:
        return False
    if not prepared.extended:
        return True
    release, deadline = prepared.windows_arrays()
    return schedule(predecessors(closure.after), release, deadline, prepared.durations) is not None


def min_cost_plan(case: Case, costs: dict[str, int],
                  composites: list[tuple[str, str, str, int]]) -> tuple[int, list[str]]:
    """The cheapest valid plan (basic mode): total cost and the tool names called.

    ``composites`` are (tool, first action tool, second action tool, cost): one call
    that does two actions back to back. DP over the set S of actions done: from S,
    do one ready action, or a composite whose first action is ready and whose
    second is ready once the first is done."""
    prepared = prepare(case)
    if prepared.extended:
        total, calls = min_cost_calls(case, costs, composites)
        return total, [name for name, _ in calls]
    preds = predecessors(prepared.closure().after)
    n, full = prepared.n, (1 << prepared.n) - 1
    index = prepared.tool_index
    combos = [(name, index[a], index[b], c) for name, a, b, c in composites]
    best: list[int | None] = [None] * (full + 1)
    choice: list[tuple[str, int] | None] = [None] * (full + 1)
    best[0] = 0
    for s in range(full + 1):  # every transition adds actions, so increasing s is a topological order
        base = best[s]
        if base is None:
            continue
        for i in range(n):
            if not (s >> i) & 1 and not preds[i] & ~s:
                t, c = s | 1 << i, base + costs[prepared.tools[i]]
                held = best[t]
                if held is None or c < held:
                    best[t], choice[t] = c, (prepared.tools[i], s)
        for name, a, b, c in combos:
            if (s >> a) & 1 or (s >> b) & 1 or preds[a] & ~s or preds[b] & ~(s | 1 << a):
                continue
            t, total = s | 1 << a | 1 << b, base + c
            held = best[t]
            if held is None or total < held:
                best[t], choice[t] = total, (name, s)
    plan, s = [], full
    while s:
        step = choice[s]
        assert step is not None  # every action set on the way back from the full one was reached
        name, s = step
        plan.append(name)
    cost = best[full]
    assert cost is not None  # the full set is reachable: the solver found a valid order
    return cost, plan[::-1]


def follow_on_args(case: Case, first: str, args: dict) -> dict:
    """The arguments a composite gives its second action: in the extended mode it starts
    the hour the first ends (back to back); in the basic mode the same (none)."""
    prepared = prepare(case)
    if not prepared.extended or "start_time" not in args:
        return args
    try:
        start = int(args["start_time"])
    except (TypeError, ValueError):
        return args
    return {**args, "start_time": start + prepared.durations[prepared.tool_index[first]]}


def min_cost_calls(case: Case, costs: dict[str, int],
                   composites: list[tuple[str, str, str, int]]) -> tuple[int, list[tuple[str, str]]]:
    """The cheapest valid plan as (tool, arguments JSON) calls, in either mode.

    Extended mode: DP over (actions done, hour the machine is free). Starting an action
    as early as its window and the machine allow is never worse (waiting only shrinks
    what remains feasible), so each step starts at that hour; a composite starts its
    first action at the earliest hour from which the second, starting the moment the
    first ends, also meets its release. Every start is in [0, 23], every end by 24:00."""
    prepared = prepare(case)
    if not prepared.extended:
        total, names = min_cost_plan(case, costs, composites)
        return total, [(name, "{}") for name in names]
    preds = predecessors(prepared.closure().after)
    release, deadline = prepared.windows_arrays()
    d = prepared.durations
    n, full = prepared.n, (1 << prepared.n) - 1
    index = prepared.tool_index
    combos = [(name, index[a], index[b], c) for name, a, b, c in composites]

    def fits(i: int, start: int) -> bool:
        return start >= release[i] and start <= HORIZON - 1 and start + d[i] <= min(deadline[i], HORIZON)

    # state (mask, free hour) -> (cost, previous state, tool, start)
    best: dict[tuple[int, int], tuple[int, tuple[int, int] | None, str, int]] = {(0, 0): (0, None, "", 0)}
    for s in range(full + 1):
        for free in range(HORIZON + 1):
            here = best.get((s, free))
            if here is None:
                continue
            base = here[0]
            moves = []
            for i in range(n):
                if not (s >> i) & 1 and not preds[i] & ~s:
                    start = max(free, release[i])
                    if fits(i, start):
                        moves.append((s | 1 << i, start + d[i], base + costs[prepared.tools[i]], prepared.tools[i], start))
            for name, a, b, c in combos:
                if (s >> a) & 1 or (s >> b) & 1 or preds[a] & ~s or preds[b] & ~(s | 1 << a):
                    continue
                start = max(free, release[a], release[b] - d[a])
                if fits(a, start) and fits(b, start + d[a]):
                    moves.append((s | 1 << a | 1 << b, start + d[a] + d[b], base + c, name, start))
            for t_mask, t_free, cost, name, start in moves:
                old = best.get((t_mask, t_free))
                if old is None or cost < old[0]:
                    best[(t_mask, t_free)] = (cost, (s, free), name, start)
    finals = [(v[0], free) for (m, free), v in best.items() if m == full]
    if not finals:
        raise PlanprobeError(f"case {case.id}: no valid schedule (the base case is unsolvable)")
    cost, free = min(finals)
    calls: list[tuple[str, str]] = []
    state: tuple[int, int] | None = (full, free)
    while state is not None and state != (0, 0):
        _, prev, name, start = best[state]
        calls.append((name, json.dumps({"start_time": start})))
        state = prev
    return cost, calls[::-1]
