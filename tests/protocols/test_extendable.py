"""The constraint family's ``extendable`` hook: exact on hand-built cases, and the same
answer as brute force (basic mode) and Z3 with the prefix fixed (extended mode) on
generated cases."""

import itertools
import json
import random

import z3
from protocol_cases import C, S, W, basic_case, extended_case

from helpers import cases
from planprobe.suites.base import PlannedCall
from planprobe.suites.constraints.prepared import prepare
from planprobe.suites.registry import get_family

FAMILY = get_family("constraints")


def calls(*pairs):
    return [PlannedCall(name, json.dumps(args)) for name, args in pairs]


def test_basic_prefixes_by_hand():
    case = basic_case()
    assert FAMILY.extendable(case, []) == (True, "the calls can be completed into a valid plan")
    assert FAMILY.extendable(case, calls((W, {})))[0]  # free action first: fine
    assert FAMILY.extendable(case, calls((S, {}), (C, {}), (W, {})))[0]  # a whole valid plan
    ok, why = FAMILY.extendable(case, calls((W, {}), (C, {})))
    assert not ok and '"sanitizing tools" must come before "cutting hair"' in why
    ev = FAMILY.prefix_evidence(case, calls((C, {})))
    assert [(e.error, e.kind, e.constraint_ids, e.step) for e in ev] == [("order_error", "violated_constraint", ["c1"], 0)]
    assert '"Sanitizing tools comes before cutting hair"' in ev[0].text
    assert [e.error for e in FAMILY.prefix_evidence(case, calls((S, {}), (S, {})))] == ["repeated_action"]
    assert [e.kind for e in FAMILY.prefix_evidence(case, calls(("nope", {})))] == ["unknown_tool"]
    assert [e.kind for e in FAMILY.prefix_evidence(case, [PlannedCall(S, "{oops")])] == ["malformed_arguments"]


def test_extended_prefixes_by_hand():
    case = extended_case()  # S 2h, C 1h, W 3h; S before C; W ends by 06:00
    assert FAMILY.extendable(case, calls((W, {"start_time": 0}), (S, {"start_time": 3})))[0]
    # overlap with the previous task
    ev = FAMILY.prefix_evidence(case, calls((S, {"start_time": 0}), (W, {"start_time": 1})))
    assert [(e.error, e.kind) for e in ev] == [("parameter_error", "overlap")]
    # S then C take 0-3; W (3h) would end at 06:00 at the earliest: still fine
    assert FAMILY.extendable(case, calls((S, {"start_time": 0}), (C, {"start_time": 2})))[0]
    # starting C an hour later leaves W no way to end by 06:00: the deadline is cited
    ev = FAMILY.prefix_evidence(case, calls((S, {"start_time": 0}), (C, {"start_time": 3})))
    assert [(e.error, e.kind) for e in ev] == [("order_error", "unextendable")]
    assert ev[0].constraint_ids == [c["id"] for c in case.spec["constraints"] if c["kind"] == "end_le"]
    assert '"washing hair" must end by 06:00' in ev[0].text
    # late in the day: no constraint is to blame, only 24:00
    ev = FAMILY.prefix_evidence(case, calls((W, {"start_time": 0}), (S, {"start_time": 22})))
    assert [(e.error, e.kind) for e in ev] == [("parameter_error", "no_time_left")]
    # the restart tool discards what came before, as in the environment
    assert FAMILY.extendable(case, calls((C, {"start_time": 0}), ("request_restart", {}), (W, {"start_time": 0})))[0]


def _brute_basic(cc, order):
    rest = [a for a in range(cc.n) if a not in order]
    for perm in itertools.permutations(rest):
        full = list(order) + list(perm)
        pos = {a: i for i, a in enumerate(full)}
        if all(pos[a] < pos[b] for _, a, b in cc.orders):
            return True
    return False


def _z3_extended(cc, runs):
    """Z3 over the whole day: the runs fixed in sequence, the rest after the last one."""
    s = z3.Solver()
    start = [z3.Int(f"s{i}") for i in range(cc.n)]
    end = [start[i] + cc.durations[i] for i in range(cc.n)]
    for i in range(cc.n):
        s.add(start[i] >= 0, end[i] <= cc.horizon)
    t0 = 0
    for i, st in runs:
        s.add(start[i] == st, st >= t0)
        t0 = st + cc.durations[i]
    done = {i for i, _ in runs}
    missing = [i for i in range(cc.n) if i not in done]
    for i in missing:
        s.add(start[i] >= t0)
    for x, y in itertools.combinations(missing, 2):
        s.add(z3.Or(end[x] <= start[y], end[y] <= start[x]))
    for _, a, b in cc.orders:
        s.add(end[a] <= start[b])
    for _, kind, a, hour in cc.windows:
        s.add(start[a] >= hour if kind == "start_ge" else end[a] <= hour)
    return s.check() == z3.sat


def test_basic_agrees_with_brute_force():
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for case in cases(120, seed=41, actions=(3, 6)):
        cc = prepare(case)
        plan = FAMILY.reference_plan(case)
        for _ in range(4):
            j = rng.randrange(len(plan))
            order = [cc.tool_index[c.name] for c in plan[:j]]
            order += rng.sample([a for a in range(cc.n) if a not in order], rng.randint(1, min(2, cc.n - j)))
            got, _ = FAMILY.extendable(case, [PlannedCall(cc.tools[a], "{}") for a in order])
            assert got == _brute_basic(cc, order), (case.id, order)
            seen[got] += 1
    assert min(seen.values()) > 50  # both answers well represented


def test_extended_agrees_with_z3():
    rng = random.Random(6)
    seen = {True: 0, False: 0}
    for case in cases(100, seed=43, extended=True, actions=(3, 5)):
        cc = prepare(case)
        plan = FAMILY.reference_plan(case)
        for _ in range(4):
            j = rng.randrange(len(plan))
            runs = [(cc.tool_index[c.name], json.loads(c.arguments)["start_time"]) for c in plan[:j]]
            t = runs[-1][1] + cc.durations[runs[-1][0]] if runs else 0
            nxt = rng.choice([a for a in range(cc.n) if a not in {r[0] for r in runs}])
            start = max(0, min(23, t + rng.randint(0, 4)))
            runs.append((nxt, start))
            if start + cc.durations[nxt] > cc.horizon:
                continue  # past the day: a Parameter Error either way
            got, _ = FAMILY.extendable(case, [PlannedCall(cc.tools[a], json.dumps({"start_time": s})) for a, s in runs])
            assert got == _z3_extended(cc, runs), (case.id, runs)
            seen[got] += 1
    assert min(seen.values()) > 40
