"""The solver's PlanBench reader (issue #27): each case is shown to it as a model sees it — the
system prompt and the task text, never ``case.spec`` — and its reply is judged by the family's own
oracle. The reader rebuilds the domain from the description in the prompt; it may not import the
family, its renderer or its reply parser (checked on its source)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from planprobe.environment import Limits
from planprobe.schema import Case, TraceStatus, Verdict
from planprobe.solver.base import ChatView, Decision
from planprobe.solver.planbench_domain import Unreadable, read_domain
from planprobe.solver.planbench_reader import READER
from planprobe.suites.planbench.generator import PlanBenchOptions, generate_case
from planprobe.suites.registry import get_family

FAMILY = get_family("planbench")
SOLVER_DIR = Path(__file__).resolve().parents[2] / "src" / "planprobe" / "solver"
TASKS = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8_1", "t8_2", "t8_3"]
READABLE = ["blocksworld", "random_blocksworld", "logistics", "mystery_logistics", "random_logistics"]


def view_of(case: Case) -> ChatView:
    """What a model is shown: the case's visible fields only."""
    return ChatView(system=case.system or "", task=case.task)


def judge(case: Case) -> tuple[Verdict, Decision]:
    d = READER.decide(view_of(case))
    env = FAMILY.environment(case, Limits(), 0, "solver")
    env.step()
    env.finish(f"REFUSE: {d.refuse}" if d.refuse else (d.answer or d.underspecified or ""))
    env.trace.status = TraceStatus.COMPLETED
    return FAMILY.check(case, env.trace), d


def cases(task: str, domain: str, n: int, seed: int = 1, **opts) -> list[Case]:
    o = PlanBenchOptions(task=task, domain=domain, n=n, seed=seed, **opts)
    return [generate_case(i, o) for i in range(n)]


@pytest.mark.parametrize("domain", READABLE)
@pytest.mark.parametrize("task", TASKS)
def test_every_task_passes_from_its_text(task, domain):
    failed, under = [], []
    for case in cases(task, domain, 6):
        assert READER.claims(view_of(case))
        verdict, d = judge(case)
        under += [(case.id, d.underspecified)] if d.underspecified else []
        failed += [] if verdict.passed else [case.id]
    assert under == [] and failed == []


@pytest.mark.parametrize("shots", [0, 3])
@pytest.mark.parametrize("domain", ["blocksworld", "logistics", "random_blocksworld", "mystery_logistics"])
def test_zero_and_few_shot_prompts_pass(shots, domain):
    for task in ("t1", "t2", "t3", "t7"):
        for case in cases(task, domain, 3, seed=2, shots=shots):
            verdict, d = judge(case)
            assert verdict.passed and d.underspecified is None, (case.id, d)


@pytest.mark.parametrize("domain", READABLE)
def test_contradictory_goals_are_refused_exactly(domain):
    """t1 with --transform unsolvable:contradiction: every unsolvable case refused, no solvable one."""
    refused = {"unsolvable": 0, "solvable": 0}
    for case in cases("t1", domain, 10, seed=3, unsolvable=True):
        verdict, d = judge(case)
        assert verdict.passed and d.underspecified is None, (case.id, d)
        kind = "unsolvable" if case.id.endswith("+unsolvable-contradiction") else "solvable"
        refused[kind] += d.refuse is not None
        assert (d.refuse is not None) == (kind == "unsolvable"), case.id
    assert refused["unsolvable"] > 0


@pytest.mark.parametrize("task", ["t1", "t3", "t7"])
def test_mystery_blocksworld_text_contradicts_itself(task):
    """A finding about the family: the Mystery Blocksworld description (PlanBench's text verbatim)
    says Overcome makes "Pain object" both true and false and never that "Province object" becomes
    true (the PDDL adds it). From the text alone the domain is not determined: every case is
    reported under-specified, naming the sentence."""
    for case in cases(task, "mystery_blocksworld", 3):
        d = READER.decide(view_of(case))
        assert d.underspecified is not None and "overcome" in d.underspecified and "Pain object" in d.underspecified


@pytest.mark.parametrize("task", TASKS)
def test_mystery_blocksworld_with_the_corrected_text_passes_from_its_text(task):
    """The fix of that finding (``--corrected-text``): the same description with "Province object"
    where the slip says "Pain object" determines the domain, and every task passes from its text."""
    for case in cases(task, "mystery_blocksworld", 3, corrected_text=True):
        assert "following will be true: Harmony, Province object, Object Craves other object." in case.task
        verdict, d = judge(case)
        assert d.underspecified is None and verdict.passed, (case.id, d, verdict.errors)


def test_mystery_blocksworld_corrected_contradictory_goals_are_refused_exactly():
    for case in cases("t1", "mystery_blocksworld", 8, seed=3, unsolvable=True, corrected_text=True):
        verdict, d = judge(case)
        assert verdict.passed and d.underspecified is None, (case.id, d)
        assert (d.refuse is not None) == case.id.endswith("+unsolvable-contradiction"), case.id


def _description(domain: str, task: str = "t1") -> str:
    return cases(task, domain, 1)[0].task.partition("[STATEMENT]")[0]


def test_a_restriction_it_does_not_understand_is_named_not_guessed():
    text = _description("blocksworld").replace(
        "I can only put down a block that I am holding.", "I can only put down a block gently.")
    with pytest.raises(Unreadable, match="put down a block gently"):
        read_domain(text)


def test_an_action_whose_restrictions_are_missing_is_underspecified():
    text = _description("blocksworld").replace("I can only put down a block that I am holding.\n", "")
    with pytest.raises(Unreadable, match="put-down"):
        read_domain(text)


def test_unequal_durations_are_beyond_it():
    text = _description("logistics", "t2")
    assert "minute" in text
    with pytest.raises(Unreadable, match="different times"):
        read_domain(text.replace("It takes 1 minute to drive", "It takes 3 minutes to drive", 1)
                    .replace("Every action takes 1 minute.", "Every action takes 1 minute. It takes 3 minutes to "
                             "drive a truck."))


def test_the_rebuilt_schemas_are_the_families_up_to_names():
    """The test (not the reader) compares the schemas read from the text with the PDDL the family
    plans with: same preconditions and effects, action by action."""
    from planprobe.suites.planbench.prepared import prepare

    for domain in ("blocksworld", "random_blocksworld", "mystery_logistics"):
        case = cases("t1", domain, 1)[0]
        read = read_domain(case.task.partition("[STATEMENT]")[0])
        truth = prepare(case).grounded.problem.domain
        sizes = sorted((len(a.parameters), len(a.precondition), len(a.add_effects), len(a.del_effects))
                       for a in truth.actions)
        mine = sorted((len(s.params), len(s.pre), len(s.add), len(s.dele - s.add)) for _, s in read.actions.values())
        assert mine == sizes, domain


def test_the_reader_imports_nothing_of_the_family_its_renderer_or_parser():
    forbidden = ("planprobe.suites", "planprobe.agents", "planprobe.runner", "planprobe.pddl.translation",
                 "planprobe.pddl.reply_parser", "planprobe.pddl.translation_config", "planprobe.pddl.obfuscate",
                 "planprobe.pddl.generators")
    allowed_pddl = ("planprobe.pddl.parser", "planprobe.pddl.model", "planprobe.pddl.grounding",
                    "planprobe.pddl.simulator", "planprobe.pddl.validator", "planprobe.pddl.planner", "planprobe.pddl.satisficing",
                    "planprobe.pddl.errors")
    paths = sorted(SOLVER_DIR.glob("planbench_*.py"))
    assert paths
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = ["planprobe.solver." + (node.module or "") if node.level == 1 else
                           "planprobe." + (node.module or "") if node.level == 2 else node.module or ""]
            else:
                continue
            for t in targets:
                assert not t.startswith(forbidden), (path.name, t)
                if t.startswith("planprobe.pddl"):
                    assert t in allowed_pddl, (path.name, t)
                elif t.startswith("planprobe."):
                    assert t.startswith("planprobe.solver") or t == "planprobe.errors", (path.name, t)
                else:
                    assert t.split(".")[0] in {"__future__", "re", "dataclasses", "typing"}, (path.name, t)


@pytest.mark.parametrize("task", ["t1", "t3", "t6", "t7"])
def test_text_after_the_query_does_not_change_the_answer(task):
    """A scaffold may append its own instructions after the prompt: the question is told by the
    query's markers, not by how the text ends."""
    for case in cases(task, "blocksworld", 3, seed=4):
        plain = READER.decide(view_of(case))
        padded = READER.decide(ChatView(system="", task=case.task + "\n\nAnswer in the format shown above."))
        assert plain == padded and plain.underspecified is None, case.id
