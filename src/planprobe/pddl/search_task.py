"""The state space the planners search: relevant actions only, states cut down to
relevant atoms, and an index that finds the applicable actions of a state.

Relevance (as in Fast Downward's translator, backwards from the goal): an atom
is *needed true* if it is a positive goal or a positive precondition of a
relevant action, *needed false* if it is a negative goal or a negative
precondition of a relevant action; an action is relevant if it adds a
needed-true atom or deletes a needed-false one. Dropping every other action
keeps every optimal plan: such an action can only add atoms nobody needs and
delete atoms nobody needs false, so removing it from a plan leaves a valid,
shorter plan. Atoms that are neither needed true nor needed false cannot
change what a relevant action or the goal sees, so states keep only the
relevant bits — states that differ in irrelevant atoms are one state.

Applicable actions: each action is filed under one of its positive
preconditions (the one shared with the fewest other actions), so a state looks
only at the actions filed under its true atoms. Results come in the grounding's
order, so the search breaks ties exactly as a scan over all actions would.
"""

from __future__ import annotations

from .bits import bits
from .budget import Budget
from .grounding import GroundAction, GroundProblem
from .model import Atom

__all__ = ["SearchTask"]



class SearchTask:
    """``actions`` (relevant, in grounding order), their masks restricted to the
    relevant atoms, ``init``/``goal_pos``/``goal_neg`` and ``applicable(state)``."""

    def __init__(self, gp: GroundProblem, actions: tuple[GroundAction, ...], budget: Budget | None = None,
                 prune: bool = True):
        self.gp = gp
        if prune:
            actions, mask = _relevant(gp, actions, budget)
        else:
            mask = (1 << len(gp.atoms)) - 1
        self.mask = mask
        self.actions = actions
        self.pre_pos = [a.pre_pos & mask for a in actions]
        self.pre_neg = [a.pre_neg & mask for a in actions]
        self.add = [a.add & mask for a in actions]
        self.keep = [a.keep | ~mask for a in actions]  # irrelevant bits are 0 in every state anyway
        self.init = gp.init & mask
        self.goal_pos, self.goal_neg = gp.goal_pos, gp.goal_neg  # goal atoms are relevant by definition
        self._build_index(budget)

    def ordered_conditions(self) -> tuple[list[list[int]], list[list[int]], list[int]]:
        """Each action's positive preconditions and add effects, and the positive goals,
        as atom ids in the order the domain and problem list them (for heuristics whose
        tie-breaking follows that order, like Fast Downward's). Atoms true in every
        reachable state (true initially, never added or deleted) are left out, as
        Fast Downward's translator leaves static facts out."""
        gp = self.gp
        changed = 0
        for a in self.actions:
            changed |= a.add | a.delete
        constant = self.init & ~changed
        pres, adds = [], []
        for a in self.actions:
            pres.append([bit.bit_length() - 1 for lit, bit in zip(a.schema.precondition, a.bits)
                         if bit and lit.positive and not bit & constant])
            binding = {p.name: arg for p, arg in zip(a.schema.parameters, a.args)}
            adds.append([gp.atom_id(Atom(e.predicate, tuple(binding.get(x, x) for x in e.args)))
                         for e in a.schema.add_effects])
        goal = [bit.bit_length() - 1 for lit, bit in gp.goal_conditions if bit and lit.positive]
        return pres, adds, goal

    def _build_index(self, budget: Budget | None) -> None:
        uses: dict[int, int] = {}
        pre_bits = []
        for n, pre in enumerate(self.pre_pos):
            ids = bits(pre)
            pre_bits.append(ids)
            for b in ids:
                uses[b] = uses.get(b, 0) + 1
            if budget is not None and n & 1023 == 1023:
                budget.tick(1024)
        filed: dict[int, list[int]] = {}
        always: list[int] = []
        for n, ids in enumerate(pre_bits):
            if not ids:
                always.append(n)
            else:
                key = min(ids, key=lambda b: (uses[b], b))
                filed.setdefault(key, []).append(n)
        self._filed, self._always = filed, always
        self._keys = 0
        for b in filed:
            self._keys |= 1 << b

    def applicable(self, state: int) -> list[int]:
        """Indexes (into ``actions``) of the actions applicable in ``state``, ascending."""
        pre_pos, pre_neg, filed = self.pre_pos, self.pre_neg, self._filed
        out = [n for n in self._always if not state & pre_neg[n]]
        keys = state & self._keys
        while keys:
            low = keys & -keys
            keys ^= low
            for n in filed[low.bit_length() - 1]:
                pre = pre_pos[n]
                if state & pre == pre and not state & pre_neg[n]:
                    out.append(n)
        out.sort()
        return out

    def goal_reached(self, state: int) -> bool:
        return state & self.goal_pos == self.goal_pos and not state & self.goal_neg


def _relevant(gp: GroundProblem, actions: tuple[GroundAction, ...],
              budget: Budget | None) -> tuple[tuple[GroundAction, ...], int]:
    need_true, need_false = gp.goal_pos, gp.goal_neg
    relevant = [False] * len(actions)
    changed = True
    while changed:
        changed = False
        for n, a in enumerate(actions):
            if not relevant[n] and (a.add & need_true or a.delete & need_false):
                relevant[n] = True
                if a.pre_pos & ~need_true or a.pre_neg & ~need_false:
                    need_true |= a.pre_pos
                    need_false |= a.pre_neg
                    changed = True
        if budget is not None:
            budget.tick(len(actions))
    kept = tuple(a for a, r in zip(actions, relevant) if r)
    return kept, need_true | need_false
