"""LM-cut (Helmert & Domshlak 2009) for unit-cost STRIPS, written for speed in Python.

The heuristic repeats: compute h_max with the current action costs, remembering
for each action its *supporter* (a precondition of maximal h_max); mark the
*goal zone* (facts joined to the goal by zero-cost supporter edges); take a cut
of actions that enter the zone (a disjunctive action landmark). With unit costs
each cut adds 1 to the estimate and its actions become free.

What makes it fast enough in Python (the structure follows Fast Downward's
``lm_cut_landmarks.cc``; the code is our own):

* h_max is computed once per state with a bucket queue (with unit costs, 0 or 1), then
  updated *incrementally* after each cut: only the effects of the cut actions
  got cheaper, so only their consequences are re-explored;
* ties are broken as Fast Downward breaks them (the most recently reached fact
  of a cost level first; conditions in the domain's order), and while the goal
  zone is marked a free action whose supporter ties with another precondition is
  re-pointed to the first tied precondition already in the zone or without a
  free achiever — the "goal zone" and "border" detection of Fast Downward's
  issue 1228 (default since Fast Downward 26). Ties matter: on Elevators' first
  task the initial estimate is 10 without them and 12 with them (Fast Downward: 13);
* **the cut is found backwards** — every costly achiever of a zone fact whose
  supporter lies outside the zone — instead of by Fast Downward's forward walk
  from the state, which visits most of the justification graph in every round
  (two thirds of the time per state in Python). This cut contains Fast
  Downward's, so it is still a landmark: in any relaxed plan, the first action
  that adds a zone fact has all its preconditions (its supporter included)
  outside the zone and, being costly, is in the cut. It is occasionally larger,
  so the estimate is occasionally lower (Depot p03: 15.5 instead of 16.1 on
  average over a random walk's states) for half the time per state.
* each fact keeps the actions it supports, so an update looks only at actions
  whose supporter got cheaper, not at every action the fact is a condition of;
* marks (goal zone) are round numbers, so nothing is cleared between rounds.

The value is admissible (every cut is a landmark of the delete relaxation and
costs are partitioned between cuts); the planner's A* is therefore optimal.

**Action costs** (``costs=``, non-negative integers; the cost variant of PDDL cases,
``cost_planner.py``): the same code, with unit cost meaning every action costs 1.
h_max's bucket queue runs over cost values (Dijkstra), each cut adds the cheapest
remaining cost among its actions, and that amount is taken off every action of the
cut (an action stays costly while it has cost left, so it can be in later cuts;
with unit costs each cut adds 1 and its actions become free). That is LM-cut as
Helmert & Domshlak define it for costs; the cost partition keeps it admissible.
Landmark inheritance (``run``'s ``free_actions``/``inherited``) is for unit costs only.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bits import bits
from .budget import Budget

__all__ = ["INF", "LMCut"]

INF = float("inf")



class LMCut:
    """``LMCut(pres, adds, goal, n_facts)(state) -> int | INF``.

    ``pres``/``adds`` are the actions' positive preconditions and add effects as
    lists of fact ids below ``n_facts``, ``goal`` the goal facts (delete effects and
    negative conditions play no part in the delete relaxation); a state is a bit
    mask of true facts. The order inside each list breaks ties, as the order of a
    translated task's conditions does in Fast Downward: give them in the domain's
    order."""

    def __init__(self, pres: Sequence[Sequence[int]], adds: Sequence[Sequence[int]], goal: Sequence[int],
                 n_facts: int, budget: Budget | None = None, costs: Sequence[int] | None = None):
        self.budget = budget
        art_pre, goal_fact = n_facts, n_facts + 1
        goal_mask = 0
        for f in goal:
            goal_mask |= 1 << f
        self.art_pre, self.goal_fact, self.goal_mask = art_pre, goal_fact, goal_mask
        pre = [list(dict.fromkeys(p)) or [art_pre] for p in pres]
        eff = [list(dict.fromkeys(e)) for e in adds]
        pre.append(list(dict.fromkeys(goal)) or [art_pre])  # the artificial goal action, cost 0
        eff.append([goal_fact])
        n_ops = len(pre)
        self.pre, self.eff, self.n_ops = pre, eff, n_ops
        if costs is not None:
            if len(costs) != n_ops - 1 or any(c < 0 for c in costs):
                raise ValueError("costs: one non-negative cost per action")
            self.base_cost = [int(c) for c in costs] + [0]
        else:
            self.base_cost = [1] * (n_ops - 1) + [0]
        self.unit = costs is None
        self.zero_cost = [o for o in range(n_ops - 1) if not self.base_cost[o]]  # free from the start
        self.top_cost = max(self.base_cost)  # no cut costs more
        self.n_pre = [len(p) for p in pre]
        pre_of: list[list[int]] = [[] for _ in range(n_facts + 2)]
        eff_of: list[list[int]] = [[] for _ in range(n_facts + 2)]
        for o in range(n_ops):
            for f in pre[o]:
                pre_of[f].append(o)
            for f in eff[o]:
                eff_of[f].append(o)
        self.pre_of, self.eff_of = pre_of, eff_of
        self.n_slots = n_facts + 2
        self.evaluations = 0

    @classmethod
    def from_masks(cls, pre_masks: Sequence[int], add_masks: Sequence[int], goal_mask: int, n_facts: int,
                   budget: Budget | None = None) -> LMCut:
        """Conditions as bit masks (ties then follow the fact ids)."""
        return cls([bits(m) for m in pre_masks], [bits(m) for m in add_masks], bits(goal_mask), n_facts, budget)

    def __call__(self, state: int) -> float:
        return self.run(state)

    def landmarks(self, state: int) -> tuple[float, list[list[int]]]:
        """The estimate and the cuts it counted (lists of action indexes)."""
        cuts: list[list[int]] = []
        return self.run(state, record=cuts), cuts

    def run(self, state: int, free_actions: Sequence[int] = (), inherited: int = 0,
            record: list[list[int]] | None = None) -> float:
        """The estimate of ``state``, starting from ``inherited`` landmarks already
        counted whose actions (``free_actions``) cost nothing any more; each new cut
        is appended to ``record`` when given. One walk serves unit and given costs:
        with unit costs every cut takes 1 and leaves its actions free."""
        goal = self.goal_mask
        if state & goal == goal:
            return 0
        if not self.unit and (free_actions or inherited):
            raise ValueError("landmark inheritance is for unit costs only")
        self.evaluations += 1
        cost = list(self.base_cost)
        for o in free_actions:
            cost[o] = 0
        hc, supp, supported, work = self._hmax(state, cost)
        goal_fact, budget = self.goal_fact, self.budget
        if hc[goal_fact] == INF:
            if budget is not None:
                budget.tick(work)
            return INF
        h_max = hc[goal_fact]  # the estimate never ends below h_max (see the return)
        total = self._cuts(hc, supp, supported, cost, free_actions, inherited, record, work)
        # A backward cut may hold two actions of one path, so in principle h_max could
        # fall by more than a cut's cost in a round; h_max itself is admissible under
        # the remaining costs, so the larger of the two stays admissible and LM-cut
        # keeps dominating h_max.
        return max(total, inherited + h_max)

    def _hmax(self, state: int, cost: list[int]) -> tuple[list[float], list[int], list[list[int]], int]:
        """h_max of every fact under ``cost``, each action's supporter, the actions
        each fact supports, and the work done. A bucket queue over cost values
        (Dijkstra; with unit costs, level by level); within a value the most recently
        reached fact comes first, as in Fast Downward's bucket queue."""
        pre_of, eff, n_slots, budget = self.pre_of, self.eff, self.n_slots, self.budget
        hc: list[float] = [INF] * n_slots
        unsat = list(self.n_pre)
        supp = [-1] * self.n_ops  # the supporter: a precondition of maximal h_max
        supported: list[list[int]] = [[] for _ in range(n_slots)]  # fact -> actions it supports (some stale)
        start = bits(state)
        start.append(self.art_pre)
        for f in start:
            hc[f] = 0
        buckets: dict[float, list[int]] = {0: start}
        work = 0
        while buckets:  # a fact is expanded once, at its final value
            v = min(buckets)
            stack = buckets.pop(v)
            while stack:  # zero-cost actions push onto this value's stack
                f = stack.pop()
                if hc[f] != v:
                    continue
                ops = pre_of[f]
                work += len(ops)
                for o in ops:
                    unsat[o] -= 1
                    if not unsat[o]:
                        supp[o] = f
                        supported[f].append(o)
                        t = v + cost[o]
                        for e in eff[o]:
                            if t < hc[e]:
                                hc[e] = t
                                if t == v:
                                    stack.append(e)
                                elif t in buckets:
                                    buckets[t].append(e)
                                else:
                                    buckets[t] = [e]
            if work > 65536 and budget is not None:
                budget.tick(work)
                work = 0
        return hc, supp, supported, work

    def _cuts(self, hc: list[float], supp: list[int], supported: list[list[int]], cost: list[int],
              free_actions: Sequence[int], inherited: int, record: list[list[int]] | None, work: int) -> float:
        """Cut landmarks until the goal's h_max is 0; returns ``inherited`` plus the
        cost of every cut. ``hc``, ``supp``, ``supported`` and ``cost`` are updated."""
        pre, eff, eff_of = self.pre, self.eff, self.eff_of
        goal_fact, n_slots, budget = self.goal_fact, self.n_slots, self.budget
        zone = [0] * n_slots   # == round: in the goal zone
        free = [0] * n_slots   # number of free (zero-cost) achievers of each fact
        free[goal_fact] = 1
        for o in self.zero_cost:
            for e in eff[o]:
                free[e] += 1
        for o in free_actions:
            for e in eff[o]:
                free[e] += 1
        total: float = inherited
        rnd = 0
        while hc[goal_fact] != 0:
            rnd += 1
            # goal zone, depth first from the goal along zero-cost supporter edges,
            # re-pointing tied supporters to the zone or its border (see the module doc)
            zone[goal_fact] = rnd
            members = [goal_fact]
            walk = [iter(eff_of[goal_fact])]
            while walk:
                op = next(walk[-1], None)
                if op is None:
                    walk.pop()
                    continue
                if cost[op]:
                    continue
                g = supp[op]
                if g < 0:
                    continue
                g_cost = hc[g]
                for q in pre[op]:
                    if hc[q] == g_cost and (zone[q] == rnd or not free[q]):
                        if q != g:
                            supp[op] = g = q
                            supported[q].append(op)
                        break
                if zone[g] != rnd:
                    zone[g] = rnd
                    members.append(g)
                    walk.append(iter(eff_of[g]))
            # the cut: costly achievers of zone facts whose supporter is outside the zone
            cut: list[int] = []
            m = self.top_cost  # becomes the cheapest cost in the cut (1 with unit costs)
            for z in members:
                for o in eff_of[z]:
                    c = cost[o]
                    if c > 0:
                        g = supp[o]
                        if g >= 0 and zone[g] != rnd:
                            cost[o] = -c  # taken (negative until m is known)
                            cut.append(o)
                            if c < m:  # noqa: PLR1730  (min() costs a call per action: 4% of LM-cut's time)
                                m = c
            total += m
            work += len(cut)
            if record is not None:
                record.append(cut)
            # the cut's costs fall by m; h_max decreases only downstream of their effects
            buckets: dict[float, list[int]] = {}  # finite h_max values as hc holds them
            for o in cut:
                c = cost[o] = -cost[o] - m
                v = hc[supp[o]] + c
                for e in eff[o]:
                    if not c:
                        free[e] += 1
                    if v < hc[e]:
                        hc[e] = v
                        buckets.setdefault(v, []).append(e)
            while buckets:
                v = min(buckets)
                queue = buckets.pop(v)
                while queue:  # zero-cost actions push onto this value's stack
                    f = queue.pop()
                    if hc[f] != v:
                        continue
                    ops = supported[f]
                    work += len(ops)
                    for o in ops:
                        if supp[o] != f:
                            continue  # a stale entry: o's supporter has changed
                        # f got cheaper and supported o: the most expensive precondition
                        # (the first one in order) becomes the supporter
                        best, best_v = f, v
                        for p in pre[o]:
                            if hc[p] > best_v:
                                best, best_v = p, hc[p]
                        if best != f:
                            supp[o] = best
                            supported[best].append(o)
                        target = best_v + cost[o]
                        for e in eff[o]:
                            if target < hc[e]:
                                hc[e] = target
                                if target == v:
                                    queue.append(e)
                                else:
                                    buckets.setdefault(target, []).append(e)
            if work > 4096 and budget is not None:
                budget.tick(work)
                work = 0
        if budget is not None:
            budget.tick(work)
        return total
