"""The contract every registered family keeps, checked on each of them — the built-ins,
the test plug-in (``tests/plugin``, found through its entry points) and any family
added later: the same seed gives byte-identical cases; a case survives the JSONL round
trip and still validates; the oracle agent passes every case; each fault, where it is
injected, is reported as exactly its class (and the valid plan passes where it is not).

A family that declares itself solvable from its text (``SolvableFromText``) is also held to
100% under ``--agent tools --model solver``: its sample and the sample's unsolvable variants pass,
the unsolvable ones are refused exactly, and the solver finds nothing under-specified.

A new family gets its sample cases from its ``generate(n, seed)`` (``GeneratesSuites``)
or from ``SAMPLES`` below; a family with neither fails here, by design.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_agent
from planprobe.agents import make_agent
from planprobe.environment import Limits
from planprobe.errors import PlanprobeError
from planprobe.schema import Case, OracleKind, Trace
from planprobe.suites.base import (
    AnswersInText,
    ClassifiesFaults,
    GeneratesSuites,
    JudgesPrefixes,
    SampleUnavailable,
    SolvableFromText,
    WrapsCases,
    solver_variants,
)
from planprobe.suites.io import load_suite, write_suite
from planprobe.suites.planbench.spec import TASKS as PLANBENCH_TASKS
from planprobe.suites.registry import families, get_family

N = 6  # cases per kind of sample: enough for every fault to find room, small enough to run in seconds
STALL_LIMITS = Limits(max_iterations=30, timeout_s=60)  # the stalling agent ends on the iteration limit


def _constraints(seed: int) -> list[Case]:
    from planprobe.suites.constraints.generator import (
        ConstraintSuiteOptions,
        generate_cases,
    )

    return [*generate_cases(ConstraintSuiteOptions(actions=(3, 4), n=N, seed=seed)),
            *generate_cases(ConstraintSuiteOptions(actions=(2, 3), n=N, seed=seed, extended=True))]


def _pddl(seed: int) -> list[Case]:
    from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases

    return [*generate_cases(PDDLSuiteOptions(domain="blocksworld", n=N // 2, seed=seed, blocks=(3, 4))),
            *generate_cases(PDDLSuiteOptions(domain="logistics", n=N // 2, seed=seed, cities=(2, 2),
                                             packages=(1, 2), locations=(1, 2), airplanes=(1, 1)))]


def _generated_bases(seed: int) -> list[Case]:
    """Cases of every other family that makes its own and can be wrapped (the plug-in's):
    the wrappers must work on any of them."""
    out: list[Case] = []
    for family in families().values():
        if isinstance(family, GeneratesSuites) and not isinstance(family, (WrapsCases, AnswersInText)):
            out += family.generate(N, seed)
    return out


def _executable(seed: int) -> list[Case]:
    return _constraints(seed) + _pddl(seed) + _generated_bases(seed)


def _holistic(seed: int) -> list[Case]:
    from planprobe.suites.protocols import wrap_holistic

    return [wrap_holistic(c) for c in _executable(seed) + _robust(seed)]  # robustness variants can be wrapped too


def _stepwise(seed: int) -> list[Case]:
    from planprobe.suites.protocols import stepwise_rng, wrap_stepwise

    judges = [c for c in _executable(seed) if isinstance(get_family(c.family), JudgesPrefixes)]
    return [wrap_stepwise(c, k, stepwise_rng(seed, c)) for c in judges for k in (1, 2)]


def _robust(seed: int) -> list[Case]:
    from planprobe.suites.robust import robustify

    return [robustify(c, [("extraneous", "2"), ("unsolvable", None)], seed) for c in _executable(seed)]


def _judged(seed: int) -> list[Case]:
    from planprobe.importers.apb import iter_apb

    return list(iter_apb(Path(__file__).parent / "data" / "apb_sample.jsonl"))


def _planbench(seed: int) -> list[Case]:
    from planprobe.suites.planbench import TASKS, PlanBenchOptions, generate_cases

    return [c for task in TASKS for c in generate_cases(PlanBenchOptions(
        task=task, domain="blocksworld", n=2, seed=seed, blocks=(3, 4), verify="explanation"))]


def _travelplanner(seed: int) -> list[Case]:
    from helpers import shared_path
    from planprobe.importers.travelplanner import build_cases

    both = build_cases(modes=["sole-planning", "two-stage"], strict=False,
                       train_dir=shared_path("data", "travelplanner"))  # skips when the shared data is absent
    return both  # every training query in both modes: each mutation needs a query with room for it


def _apibank_all() -> list[Case]:
    from helpers import shared_path
    from planprobe.importers.apibank import import_cases

    root = shared_path("data", "api-bank")  # skips when the shared data is absent
    # the recorded call must pass API-Bank's own rule on the initial databases, else the
    # oracle (which makes the recorded call) fails by API-Bank's own scoring
    return [c for level in (1, 2, 3) for c in import_cases(root, level)
            if c.spec.get("gold_consistent", True)]


def _apibank(seed: int) -> list[Case]:
    return [c for c in _apibank_all() if c.family == "apibank"][:40]


def _apibank_response(seed: int) -> list[Case]:
    return [c for c in _apibank_all() if c.family == "apibank-response"][:20]


SAMPLES = {"constraints": _constraints, "pddl": _pddl, "holistic": _holistic, "stepwise": _stepwise,
           "robust": _robust, "judged": _judged, "planbench": _planbench, "travelplanner": _travelplanner,
           "apibank": _apibank, "apibank-response": _apibank_response}
FIXED = {"judged", "travelplanner", "apibank", "apibank-response"}  # read from fixed data: the seed changes nothing
# faults no sample can carry (with why); every other fault must be injected at least once
NO_ROOM: dict[tuple[str, str], str] = {
    ("itinerary", "wrong_city_meal"): "the witnesses are cheapest plans: they eat on a travel day only to cover a "
                                      "cuisine, so the samples rarely have a travel-day dinner to move",
}
# faults this test finds not reported as exactly their class: known, reported, to be fixed in the
# family (each xfails while it is inexact and fails once it is exact, so the list only shrinks)
KNOWN_INEXACT: dict[tuple[str, str], str] = {
    ("travelplanner", fault): "TravelPlanner (official, lenient evaluator): the injected answer is not judged as "
                              "exactly the fault's class (passes, or gets other classes too)"
    for fault in ("conflicting_transport", "lowercase_mode", "name_prefix", "open_route", "stay_city_meal",
                  "transport_rule", "unterminated_repeat")
}
KNOWN_INEXACT[("itinerary", "open_route")] = ("TravelPlanner's open_route mutation sends the last day to a new city, "
                                              "which also changes the number of visited cities (is_not_absent)")

NAMES = sorted(families())
_cache: dict[tuple[str, int], list[Case]] = {}


def samples(name: str, seed: int = 1) -> list[Case]:
    key = (name, seed)
    if key not in _cache:
        family = get_family(name)
        if isinstance(family, GeneratesSuites):
            _cache[key] = list(family.generate(N, seed))
        elif name in SAMPLES:
            _cache[key] = SAMPLES[name](seed)
        else:
            pytest.fail(f"family {name!r} has no sample cases: give it generate(n, seed) or add it to SAMPLES")
        assert _cache[key], f"family {name!r}: no sample cases"
        assert {c.family for c in _cache[key]} == {name}
    return _cache[key]


def _jsonl(cases: list[Case]) -> list[str]:
    return [c.model_dump_json() for c in cases]


def test_the_plugin_and_every_builtin_are_registered():
    assert {"constraints", "holistic", "stepwise", "robust", "judged", "pddl", "planbench", "lamps"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_bytes(name):
    first = _jsonl(samples(name))
    _cache.pop((name, 1))
    assert _jsonl(samples(name)) == first
    if name not in FIXED:
        assert _jsonl(samples(name, seed=2)) != first


@pytest.mark.parametrize("name", NAMES)
def test_jsonl_round_trip(name, tmp_path):
    cases = samples(name)
    path = tmp_path / "suite.jsonl"
    write_suite(cases, path)
    again = load_suite(path)  # validates every case through its family
    assert _jsonl(again) == _jsonl(cases)
    oracle = make_agent("oracle")
    for before, after in zip(cases[:4], again[:4]):
        trace = run_agent(oracle, before)
        family = get_family(name)
        restored = Trace.model_validate_json(trace.model_dump_json())
        assert family.check(after, restored).model_dump_json() == family.check(before, trace).model_dump_json()


@pytest.mark.parametrize("name", NAMES)
def test_oracle_passes_every_case(name):
    cases = samples(name)
    if all(c.oracle == OracleKind.JUDGED for c in cases):
        pytest.skip(f"{name}: verdicts come from an LLM judge; there is no exact oracle to pass")
    oracle = make_agent("oracle")
    failed = [(c.id, v.errors) for c in cases if not (v := get_family(name).check(c, run_agent(oracle, c))).passed]
    assert not failed, failed[:3]


def _fault_cases() -> list[tuple[str, str]]:
    return [(name, fault) for name in NAMES for fault in sorted(get_family(name).faults)]


@pytest.mark.parametrize("name,fault", _fault_cases(), ids=lambda v: str(v))
def test_each_fault_is_reported_as_exactly_its_class(name, fault):
    family = get_family(name)
    agent = make_agent(f"faulty:{fault}", seed=3)
    injected, wrong = 0, []
    for case in samples(name):
        expected = family.fault_class(case, fault) if isinstance(family, ClassifiesFaults) else family.faults[fault]
        trace = run_agent(agent, case, STALL_LIMITS)
        assert trace.meta["expected_error"] == expected
        verdict = family.check(case, trace)
        if trace.meta["fault_injected"]:
            injected += 1
            if verdict.errors != [expected]:
                wrong.append((case.id, expected, verdict.errors))
        elif not verdict.passed:
            wrong.append((case.id, "no fault injected: must pass", verdict.errors))
    if (name, fault) in KNOWN_INEXACT:
        if wrong:
            pytest.xfail(f"{KNOWN_INEXACT[name, fault]}: {wrong[:2]}")
        pytest.fail(f"{name} {fault!r} is exact now: remove it from KNOWN_INEXACT")
    assert not wrong, wrong[:3]
    if (name, fault) not in NO_ROOM:
        assert injected > 0, f"{name}: no sample case had room for {fault!r}"


# -- solvable from text: the solver model passes every case (issue #27) ------------------------------

SOLVER_N = 2  # cases per style and variant the family claims: the check runs on every test run
SOLVABLE = [name for name in NAMES if isinstance(get_family(name), SolvableFromText)]


def solver_cases(family: SolvableFromText, seed: int = 1) -> tuple[list[Case], list[str]]:
    """The family's sample and each variant its claim covers (``solver_variants``) of every sample
    case; and a line for each variant the family cannot make (a claim it cannot keep)."""
    from planprobe.suites.robust import robustify
    from planprobe.suites.robust.transforms import parse_transforms

    name = getattr(family, "name", "?")
    try:
        sample = family.solver_sample(SOLVER_N, seed)
    except SampleUnavailable as exc:
        pytest.skip(f"{name}: {exc}")
    cases, problems = list(sample), [] if sample else [f"{name}: solver_sample gave no case"]
    problems += [f"{c.id}: its family is {c.family!r}, not {name!r}" for c in sample if c.family != name]
    for variant in solver_variants(family):
        for case in sample:
            try:
                made = robustify(case, parse_transforms(list(variant)), seed)
            except PlanprobeError as exc:
                problems.append(f"{case.id}: variant {'+'.join(variant)}: {exc}")
                continue
            if made.id in {c.id for c in cases}:  # the controls of two unsolvable kinds: both "+solvable"
                made = made.model_copy(update={"id": f"{made.id}[{'+'.join(variant)}]"})
            cases.append(made)
    return cases, problems


def solver_contract(family: SolvableFromText, out: Path, seed: int = 1) -> list[str]:
    """What breaks the claim ``SolvableFromText``, one line each (empty: the claim holds): the
    family's sample and the variants of its cases that the claim covers, run under ``--agent tools
    --model solver``, must all pass, exactly the unsolvable ones be refused (refusal precision and
    recall 1.0), none be under-specified."""
    from planprobe.solver.backend import SolverModel
    from solver.solver_helpers import run_cases

    cases, problems = solver_cases(family, seed)
    unsolvable = {c.id for c in cases if c.spec.get("unsolvable")}
    verdicts, findings = run_cases(cases, "tools", SolverModel(), out)
    problems += [f"{case_id}: under-specified: {'; '.join(missing)}" for case_id, _, missing in findings]
    problems += [f"{cid}: failed {v.errors}" for cid, v in verdicts.items() if not v.passed]
    refused = {cid for cid, v in verdicts.items() if v.labels.get("refused")}
    problems += [f"{cid}: refused, though solvable" for cid in sorted(refused - unsolvable)]
    problems += [f"{cid}: unsolvable, not refused" for cid in sorted(unsolvable - refused)]
    return problems


def test_the_families_the_solver_reads_claim_it():
    # the built-ins, and the test plug-in (its reader found through the entry-point group planprobe.solver_readers)
    assert {"constraints", "pddl", "itinerary", "planbench", "travelplanner", "lamps"} <= set(SOLVABLE)


def test_each_claim_covers_the_variants_its_family_names():
    def kinds(name: str) -> set[str]:
        cases, problems = solver_cases(get_family(name))
        assert not problems, problems[:3]
        return {t.partition(":")[0] for c in cases for t in c.meta.transforms}

    # every robustness variant where the agent calls tools
    assert kinds("constraints") == kinds("pddl") == {"unsolvable", "extraneous", "broken", "cost"}
    assert kinds("itinerary") == {"extraneous"}  # its plan is the answer text: nothing to remove, break or price
    # none on a text task; t1's own contradictory goals are in the sample, half of them to refuse
    planbench, _ = solver_cases(get_family("planbench"))
    assert {c.spec["task"] for c in planbench} == set(PLANBENCH_TASKS)
    # Mystery Blocksworld only with its corrected description (the verbatim one contradicts itself)
    mystery = [c for c in planbench if c.meta.generator["domain"] == "mystery_blocksworld"]
    assert {c.spec["task"] for c in mystery} == set(PLANBENCH_TASKS)
    assert all(c.spec.get("corrected_text") for c in mystery)
    assert any(c.spec.get("unsolvable") for c in planbench)


@pytest.mark.parametrize("name", SOLVABLE)
def test_a_family_solvable_from_text_passes_under_the_solver(name, tmp_path):
    family = get_family(name)
    assert isinstance(family, SolvableFromText)
    first = _jsonl(family.solver_sample(SOLVER_N, 1))
    assert first == _jsonl(family.solver_sample(SOLVER_N, 1)) and len(set(first)) == len(first)
    problems = solver_contract(family, tmp_path / "run")
    assert not problems, problems[:5]


def test_travelplanner_claims_solvable_from_text_from_its_training_queries(monkeypatch):
    """TravelPlanner declares the claim (the mix-in first among its bases): its training queries in
    both modes are the sample, located by one environment variable; the contract test skips it,
    saying why, where the data is not there."""
    from helpers import shared_path
    from planprobe.suites.travelplanner.solver_claim import TRAIN_ENV

    family = get_family("travelplanner")
    assert "travelplanner" in SOLVABLE and isinstance(family, SolvableFromText)
    assert solver_variants(family) == ()  # see TravelPlannerFamily: sole-planning cases have no tool to vary
    monkeypatch.setenv(TRAIN_ENV, str(absent := Path("/nonexistent/travelplanner")))
    with pytest.raises(SampleUnavailable, match=str(absent)):
        family.solver_sample(SOLVER_N, 1)
    with pytest.raises(pytest.skip.Exception, match="travelplanner: TravelPlanner's training data"):
        solver_cases(family)
    data = shared_path("data", "travelplanner")
    if not (data / "train_queries_and_plans.jsonl").is_file():
        pytest.skip(f"TravelPlanner's training data is not at {data}")
    monkeypatch.setenv(TRAIN_ENV, str(data))
    sample = family.solver_sample(SOLVER_N, 1)
    assert sorted(c.spec["mode"] for c in sample) == ["sole-planning"] * SOLVER_N + ["two-stage"] * SOLVER_N
    assert _jsonl(sample) == _jsonl(family.solver_sample(SOLVER_N, 1)) != _jsonl(family.solver_sample(SOLVER_N, 2))
    assert len({c.id for c in sample}) == len(sample)
    for case in sample:
        family.validate(case)


def test_the_solver_contract_catches_a_family_whose_text_leaves_the_goal_out(tmp_path):
    """A plug-in family claims it but its task text omits the goal: the check must report it."""
    import re

    from planprobe.suites.pddl_agent.family import PDDLAgentFamily
    from planprobe.suites.registry import register_family, unregister_family

    pddl = PDDLAgentFamily()

    def as_pddl(case: Case) -> Case:
        return case.model_copy(update={"family": pddl.name})

    class GoalLess:
        """A plug-in family made of PDDL agent cases whose task text lost its goal."""
        name = "goalless-pddl"
        faults = pddl.faults

        def validate(self, case: Case) -> None:
            pddl.validate(as_pddl(case))

        def environment(self, case: Case, limits: Limits, trial: int = 0, agent: str = ""):
            return pddl.environment(as_pddl(case), limits, trial, agent)

        def check(self, case: Case, trace: Trace):
            return pddl.check(as_pddl(case), trace)

        def reference_plan(self, case: Case):
            return pddl.reference_plan(as_pddl(case))

        def random_plan(self, case: Case, rng):
            return pddl.random_plan(as_pddl(case), rng)

        def faulty_plan(self, case: Case, fault: str, rng):
            return pddl.faulty_plan(as_pddl(case), fault, rng)

        def solver_sample(self, n: int, seed: int) -> list[Case]:
            return [c.model_copy(update={"family": self.name, "id": f"goalless-{c.id}",
                                         "task": re.sub(r"My goal is to have that:[^\n]*\n", "", c.task)})
                    for c in pddl.solver_sample(n, seed)[:n]]

    family = GoalLess()
    assert all("My goal is" not in c.task for c in family.solver_sample(SOLVER_N, 1))
    register_family(family)
    try:
        problems = solver_contract(family, tmp_path / "run")
    finally:
        unregister_family(family.name)
    assert any("under-specified" in p for p in problems), problems
    assert all(p.startswith("goalless-") for p in problems), problems
