"""Cross-check: planprobe's validator against unified-planning's on more than 1,000 plans.

Plans: optimal ones, truncated, with a step dropped / swapped / replaced /
inserted, random walks, and real GPT-4 plans from PlanBench, over Blocksworld and
Logistics (the files unified-planning accepts as they are), one obfuscated
Logistics domain and the IPC-style tasks of data/ipc_style (depot, elevators,
freecell, zenotravel with ``either`` types), fed to unified-planning through
planprobe's writer because unified-planning rejects empty ``(:types)`` sections
and ``either`` predicate arguments. Verdicts, failing steps,
unmet preconditions and unmet goals must agree.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from pddl_data import gpt4_rows, instances, problem

from planprobe.pddl import (
    Outcome,
    domain_to_pddl,
    ground,
    load,
    problem_to_pddl,
    solve,
    validate,
)

IPC_STYLE = Path(__file__).resolve().parent / "data" / "ipc_style"
up = pytest.importorskip("unified_planning")

from unified_planning.engines import ValidationResultStatus
from unified_planning.engines.results import FailedValidationReason
from unified_planning.io import PDDLReader
from unified_planning.plans import ActionInstance, SequentialPlan
from unified_planning.shortcuts import PlanValidator

up.shortcuts.get_environment().credits_stream = None

_STEP = re.compile(r"(\d+)-th action instance")
_PRE = re.compile(r"Preconditions \[(.*)\] of")
_ATOM = re.compile(r"[\w\-]+(?:\([^)]*\))?")  # clear(a), handempty, in-city(l0-0, c0)


def _mutations(plan: list[str], gp, rng: random.Random, n: int) -> list[list[str]]:
    actions = [str(a) for a in gp.actions()]
    objects = [o.name for o in gp.problem.all_objects]
    schemas = gp.domain.actions
    out = [plan, plan[:-1], plan[1:]]
    while len(out) < n:
        p = list(plan)
        kind = rng.randrange(7)
        if kind == 0 and p:
            del p[rng.randrange(len(p))]
        elif kind == 1 and len(p) > 1:
            i, j = rng.sample(range(len(p)), 2)
            p[i], p[j] = p[j], p[i]
        elif kind == 2 and p:
            p[rng.randrange(len(p))] = rng.choice(actions)
        elif kind == 3:
            p.insert(rng.randrange(len(p) + 1), rng.choice(actions))
        elif kind == 4:
            p = p[:rng.randrange(len(p) + 1)]
        elif kind == 5:  # a random walk of applicable actions, then maybe anything
            state, p = gp.init, []
            for _ in range(rng.randrange(1, 12)):
                options = [a for a in gp.actions() if a.applicable(state)]
                if not options:
                    break
                a = rng.choice(options)
                p.append(str(a))
                state = a.apply(state)
            if rng.random() < 0.5:
                p.append(rng.choice(actions))
        else:  # any objects (wrong static facts: unified-planning calls these invalid actions)
            schema = rng.choice(schemas)
            p.insert(rng.randrange(len(p) + 1),
                     f"({' '.join([schema.name, *(rng.choice(objects) for _ in schema.parameters)])})")
        out.append(p)
    return out


class _UP:
    """One problem in unified-planning, with name look-ups (it keeps the file's case)."""

    def __init__(self, prob, tmp_path):
        base = instances()
        if prob.domain.name in ("blocksworld-4ops", "logistics-strips"):
            dom_path = base / ("blocksworld" if prob.domain.name == "blocksworld-4ops" else "logistics") / \
                "generated_domain.pddl"
            prob_path = prob.filename
        else:  # through planprobe's writer (drops the empty sections unified-planning rejects)
            dom_path, prob_path = tmp_path / "domain.pddl", tmp_path / "problem.pddl"
            # unified-planning cannot read '(either …)' predicate arguments; the files were type-checked
            # on reading, so 'object' there changes no verdict (action parameters keep their types)
            assert not any(" " in p.type for a in prob.domain.actions for p in a.parameters)
            dom_path.write_text(re.sub(r"\(either [^)]*\)", "object", domain_to_pddl(prob.domain)))
            prob_path.write_text(problem_to_pddl(prob))
        self.problem = PDDLReader().parse_problem(str(dom_path), str(prob_path))
        self.actions = {a.name.lower(): a for a in self.problem.actions}
        self.objects = {o.name.lower(): o for o in self.problem.all_objects}
        self.fluents = {f.name.lower(): f for f in self.problem.fluents}

    def plan(self, steps: list[str]) -> SequentialPlan:
        out = []
        for step in steps:
            name, *args = step.strip("()").split()
            out.append(ActionInstance(self.actions[name], [self.objects[a] for a in args]))
        return SequentialPlan(out)

    def holds(self, state, atom) -> bool:
        expr = self.fluents[atom.predicate](*(self.objects[a] for a in atom.args))
        return state.get_value(expr).bool_constant_value()


def _up_atom(lit) -> str:
    atom = lit.atom
    return f"{atom.predicate}({', '.join(atom.args)})" if atom.args else atom.predicate


def _check(ours, theirs, upp: _UP, where: str) -> None:
    assert (theirs.status == ValidationResultStatus.VALID) == ours.valid, where
    if ours.valid:
        return
    message = " ".join(m.message for m in theirs.log_messages or [])
    if ours.outcome is Outcome.INEXECUTABLE:
        assert theirs.reason == FailedValidationReason.INAPPLICABLE_ACTION, where
        assert int(_STEP.search(message).group(1)) == ours.step, where
        pre = _PRE.search(message)
        if pre:  # absent when unified-planning simplified a false static precondition away
            assert set(_ATOM.findall(pre.group(1).lower())) == {_up_atom(lit) for lit in ours.unmet_preconditions}, \
                where
    else:
        assert ours.outcome is Outcome.GOAL_NOT_REACHED, where
        assert theirs.reason == FailedValidationReason.UNSATISFIED_GOALS, where
        final = theirs.trace[-1]
        unmet = [lit for lit in ours.problem_goal if upp.holds(final, lit.atom) != lit.positive]
        assert unmet == list(ours.unmet_goals), where


def test_validator_agrees_with_unified_planning(tmp_path):
    rng = random.Random(5)
    corpus = []  # (problem, plans)
    for i in range(1, 21):
        prob = problem("blocksworld", i)
        corpus.append((prob, _mutations(list(solve(prob).steps), ground(prob), rng, 32)))
    for i in range(1, 11):
        prob = problem("logistics", i)
        corpus.append((prob, _mutations(list(solve(prob).steps), ground(prob), rng, 36)))
    for i in (1, 2, 3):
        prob = problem("obfuscated_deceptive_logistics", i)
        corpus.append((prob, _mutations(list(solve(prob).steps), ground(prob), rng, 20)))
    for d in sorted(IPC_STYLE.iterdir()):  # depot-, elevators-, freecell-, zenotravel-style tasks
        for path in sorted(d.glob("p*.pddl")):
            prob = load(d / "domain.pddl", path)
            corpus.append((prob, _mutations(list(solve(prob, heuristic="lmcut").steps), ground(prob), rng, 30)))
    gpt4 = {}
    for row in gpt4_rows("blocksworld", "task_1_plan_generation.jsonl.gz")[:40]:
        gpt4.setdefault(row["instance_id"], []).append(row["extracted_llm_plan"])
    corpus += [(problem("blocksworld", i), plans) for i, plans in sorted(gpt4.items())]

    counts = {o: 0 for o in Outcome}
    checked = 0
    with PlanValidator(name="sequential_plan_validator") as validator:
        for prob, plans in corpus:
            upp = _UP(prob, tmp_path)
            for plan in plans:
                ours = validate(prob, plan)
                if ours.outcome is Outcome.UNPARSEABLE_STEP:  # not expressible in unified-planning
                    continue
                theirs = validator.validate(upp.problem, upp.plan(plan))
                _check(_Ours(ours, prob), theirs, upp, f"{prob.filename} {plan}")
                counts[ours.outcome] += 1
                checked += 1
    print(f"{checked} plans checked against unified-planning: " + ", ".join(f"{o.value} {n}" for o, n in counts.items()))
    assert checked >= 1000
    assert counts[Outcome.VALID] >= 50 and counts[Outcome.INEXECUTABLE] >= 300, counts
    assert counts[Outcome.GOAL_NOT_REACHED] >= 100, counts


class _Ours:
    """The verdict plus the problem's goal (for comparing unmet goals)."""

    def __init__(self, result, prob):
        self._r, self.problem_goal = result, prob.goal

    def __getattr__(self, name):
        return getattr(self._r, name)
