"""The planbench family: PlanBench's eight tasks as text cases.

* the oracle agent passes every case of every task in Blocksworld, Logistics and
  Mystery Blocksworld (and the other obfuscated domains on a smaller sample);
  random replies mostly fail; each fault gets exactly its class;
* prompts have PlanBench's layout: the domain description equals the recorded
  one and every statement block has the shape of the recorded GPT-4 queries;
* a reply gets the same verdict here as from the re-scoring of PlanBench's
  recorded responses (``external/planbench.py``), on the same texts;
* the CLI generates, runs and shows; same seed, same bytes; bad input is one line.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections import Counter

import pytest
from pddl_data import gpt4_rows

from helpers import cli_here, planprobe_cmd, run_agent, subprocess_env
from planprobe.agents import make_agent
from planprobe.errors import PlanprobeError
from planprobe.importers.planbench import rescore_record
from planprobe.importers.planbench_instances import PlanBenchInstances
from planprobe.schema import Case, Trace
from planprobe.suites.planbench import (
    TASKS,
    PlanBenchOptions,
    generate_cases,
    generate_lines,
)
from planprobe.suites.planbench.prepared import prepare
from planprobe.suites.planbench.reference_answers import FAULTS
from planprobe.suites.registry import get_family

FAMILY = get_family("planbench")
DOMAINS = ("blocksworld", "logistics", "mystery_blocksworld")
N = 6


def _opts(task: str, domain: str, n: int = N, seed: int = 4, **kw) -> PlanBenchOptions:
    return PlanBenchOptions(task=task, domain=domain, n=n, seed=seed, blocks=(3, 4), packages=(1, 2), **kw)


_SUITES: dict[tuple, list[Case]] = {}


def suite(task: str, domain: str, **kw) -> list[Case]:
    key = (task, domain, tuple(sorted(kw.items())))
    if key not in _SUITES:
        _SUITES[key] = list(generate_cases(_opts(task, domain, **kw)))
    return _SUITES[key]


def answer(case: Case, text: str) -> Trace:
    return Trace(case_id=case.id, agent="test", final_answer=text)


# -- oracle, random, faults ------------------------------------------------------

@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("task", list(TASKS))
def test_oracle_passes_and_random_mostly_fails(task, domain):
    cases = suite(task, domain, verify="explanation")
    assert len(cases) == N and len({c.id for c in cases}) == N
    oracle, rand = make_agent("oracle"), make_agent("random", seed=1)
    random_passed = 0
    for case in cases:
        FAMILY.validate(case)
        assert case.tools == [] and case.system and case.family == "planbench"
        verdict = FAMILY.check(case, run_agent(oracle, case))
        assert verdict.passed, (case.id, verdict.evidence)
        random_passed += FAMILY.check(case, run_agent(rand, case)).passed
    assert random_passed <= N // 2, f"{random_passed}/{N} random replies passed"


@pytest.mark.parametrize("domain", ["random_blocksworld", "mystery_logistics", "random_logistics"])
def test_other_obfuscated_domains(domain):
    oracle = make_agent("oracle")
    for task in ("t1", "t3", "t6", "t7"):
        for case in list(generate_cases(_opts(task, domain, n=2))):
            assert FAMILY.check(case, run_agent(oracle, case)).passed, case.id


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_is_reported_as_exactly_its_class(fault):
    agent = make_agent(f"faulty:{fault}")
    injected, wrong = Counter(), []
    for domain in DOMAINS:
        for task in TASKS:
            for case in suite(task, domain, verify="explanation"):
                trace = run_agent(agent, case)
                verdict = FAMILY.check(case, trace)
                if trace.meta["fault_injected"]:
                    injected[task] += 1
                    if verdict.errors != [FAULTS[fault]]:
                        wrong.append((case.id, verdict.errors, [e.kind for e in verdict.evidence]))
                else:
                    assert verdict.passed, case.id
    assert not wrong, wrong[:3]
    every = {"garble": TASKS, "refuse": TASKS, "pad": ["t2"], "swap": ["t1", "t2", "t5", "t8_1"],
             "truncate": ["t1", "t2", "t5", "t7", "t8_1"]}[fault]
    for task in every:
        assert injected[task] == len(DOMAINS) * N, (task, injected)


# -- scoring ---------------------------------------------------------------------

def test_plan_failures_name_the_step_and_the_unmet_facts():
    case = suite("t1", "blocksworld")[0]
    cc = prepare(case)
    steps = cc.spec.reference
    swapped = [steps[1], steps[0], *steps[2:]]
    text = "\n".join(cc.tr.plan(swapped)) + "\nthe red block is pretty\n[PLAN END]"
    v = FAMILY.check(case, answer(case, text))
    assert v.errors == ["order_error"] and v.evidence[0].kind == "unmet_precondition" and v.evidence[0].step == 1
    assert "is not possible: it needs" in v.evidence[0].text and "could not be read" in v.evidence[0].text
    assert v.labels["unparsed"] and v.labels["outcome"] == "inexecutable"
    v = FAMILY.check(case, answer(case, "\n".join(cc.tr.plan(steps[:-1]))))
    assert v.errors == ["action_lost"] and "the goal is not reached" in v.evidence[0].text
    v = FAMILY.check(case, answer(case, "(pick-up zz)\n"))
    assert v.errors == ["act_error"] and v.evidence[0].kind in ("no_plan", "unknown_step")
    v = FAMILY.check(case, answer(case, "Sure! Here it is."))
    assert v.errors == ["act_error"] and v.evidence[0].kind == "no_plan"


def test_cost_optimal_scores_length():
    case = suite("t2", "blocksworld")[0]
    cc = prepare(case)
    v = FAMILY.check(case, answer(case, FAMILY.reference_answer(case)))
    assert v.passed and v.score == 1.0 and v.labels["optimal_length"] == cc.spec.optimal_length
    padded = FAMILY.faulty_answer(case, "pad", random.Random(0))
    v = FAMILY.check(case, answer(case, padded))
    assert v.errors == ["suboptimal_cost"] and v.score == pytest.approx(cc.spec.optimal_length /
                                                                         (cc.spec.optimal_length + 2))


def test_verification_levels_as_planbench_scores_them():
    """PlanBench's three levels: binary ⊇ type ⊇ explanation; one case per kind of plan."""
    seen = set()
    for case in generate_cases(_opts("t3", "blocksworld", n=30, verify="explanation")):
        cc = prepare(case)
        truth = cc.truth
        kind = truth.outcome.value
        if kind in seen:
            continue
        seen.add(kind)
        ref = FAMILY.reference_answer(case)
        v = FAMILY.check(case, answer(case, ref))
        assert v.passed and (v.labels["binary"], v.labels["type"], v.labels["explanation"]) == (True, True, True)
        if truth.valid:
            v = FAMILY.check(case, answer(case, "The above plan is invalid. This is the unmet goal condition:\n"
                                                "the red block is clear"))
            assert (v.labels["binary"], v.score) == (False, 0.0) and v.evidence[0].kind == "wrong_verdict"
            continue
        v = FAMILY.check(case, answer(case, "The above plan is valid."))
        assert not v.labels["binary"] and v.evidence[0].kind == "wrong_verdict"
        assert v.errors == (["order_error"] if kind == "inexecutable" else ["action_lost"])
        other = ("The above plan is invalid. This is the unmet goal condition:\n" + cc.tr.atom(cc.problem.init[0])
                 if kind == "inexecutable" else
                 "The above plan is invalid.The following action at step 1 has an unmet precondition:\n"
                 + cc.tr.action(cc.spec.plan[0]) + "\nThe unmet precondition is:\nthe hand is empty")
        v = FAMILY.check(case, answer(case, other))
        assert (v.labels["binary"], v.labels["type"]) == (True, False) and v.evidence[0].kind == "wrong_failure_type"
        assert v.score == pytest.approx(1 / 3)
        wrong_fact = re.sub(r"\n[^\n]*$", "\nthe blue block is on top of the blue block", ref)
        v = FAMILY.check(case, answer(case, wrong_fact))
        assert (v.labels["type"], v.labels["explanation"]) == (True, False), ref
        assert v.evidence[0].kind == "wrong_explanation"
        binary = case.model_copy(update={"spec": {**case.spec, "verify": "binary"}})
        assert FAMILY.check(binary, answer(binary, wrong_fact)).passed
    assert seen == {"valid", "inexecutable", "goal_not_reached"}


def test_execution_reads_states_as_planbench_does():
    case = suite("t7", "blocksworld")[0]
    cc = prepare(case)
    truth = sorted(cc.resulting_state)
    v = FAMILY.check(case, answer(case, cc.tr.atoms(truth[:-1])))
    assert v.errors == ["action_lost"] and v.evidence[0].kind == "missing_fact" and 0 < v.score < 1
    extra = cc.tr.atoms(truth) + ", the hand is currently holding the red block and the red block is on the table"
    v = FAMILY.check(case, answer(case, extra))
    assert "order_error" in v.errors and any(e.kind == "extra_fact" for e in v.evidence)
    # "no longer" negates under planprobe's rules only
    said = cc.tr.atoms(truth) + " and the " + "yellow block is no longer clear"
    v = FAMILY.check(case, answer(case, said))
    assert v.labels["planbench_rules"] is False or v.labels["planprobe_rules"] is True


def test_refusals():
    cases = list(generate_cases(_opts("t1", "blocksworld", n=12, unsolvable=True)))
    kinds = Counter("unsolvable" in c.id for c in cases)
    assert kinds[True] and kinds[False]
    for case in cases:
        spec = prepare(case).spec
        assert spec.refusal_note and "REFUSE:" in case.task
        ref = FAMILY.check(case, answer(case, "REFUSE: the goal cannot be reached."))
        plain = FAMILY.check(case, answer(case, "No plan exists: the goal is contradictory."))
        if spec.unsolvable:
            assert ref.passed and plain.passed and ref.labels["refused"]
            assert "search space is exhausted" in spec.unsolvable
            v = FAMILY.check(case, answer(case, FAMILY.random_answer(case, random.Random(0))))
            assert v.errors == ["missed_refusal"]
        else:
            assert ref.errors == ["wrong_refusal"] and plain.errors == ["wrong_refusal"]
    with pytest.raises(PlanprobeError, match="t1"):
        list(generate_cases(_opts("t3", "blocksworld", unsolvable=True)))


def test_contradictions_are_proven_unsolvable():
    from planprobe.pddl import solve
    from planprobe.pddl.contradiction import contradict_goal
    from planprobe.pddl.errors import UnsolvableError
    from planprobe.pddl.generators import (
        LogisticsSize,
        blocksworld_problem,
        logistics_problem,
    )

    for i in range(6):
        rng = random.Random(i)
        for p in (blocksworld_problem(4, rng), logistics_problem(LogisticsSize(2, 2, 2, 1), rng)):
            solve(p)  # solvable before
            c = contradict_goal(p, rng)
            assert c.added not in {g.atom for g in p.goal}
            with pytest.raises(UnsolvableError):
                solve(c.problem, time_limit=None)


def test_tool_calls_fail_a_text_task():
    from planprobe.schema import ToolCall

    case = suite("t1", "blocksworld")[0]
    trace = answer(case, FAMILY.reference_answer(case))
    trace.tool_calls.append(ToolCall(index=0, name="stack", arguments="{}", error="unknown_tool"))
    v = FAMILY.check(case, trace)
    assert v.errors == ["act_error"] and v.evidence[0].kind == "tool_call"


# -- PlanBench's layout ------------------------------------------------------------

FILES = {"t1": "task_1_plan_generation", "t2": "task_2_plan_optimality", "t3": "task_3_plan_verification",
         "t4": "task_4_plan_reuse", "t5": "task_5_plan_generalization", "t6": "task_6_replanning",
         "t7": "task_7_plan_execution", "t8_1": "task_8_1_goal_shuffling", "t8_2": "task_8_2_full_to_partial",
         "t8_3": "task_8_3_partial_to_full"}
_LINES = [
    (re.compile(r"^\[[A-Z ]+\]$"), None),
    (re.compile(r"^As initial conditions I have that, "), "INIT"),
    (re.compile(r"^My goal is to have that .*minimize"), "GOAL+TIME"),
    (re.compile(r"^My goal is to have that "), "GOAL"),
    (re.compile(r"^The total time to execute the plan is"), "TIME"),
    (re.compile(r"^After executing the action \".*\" at step \d+ in the plan, the following facts unexpectedly "
                r"became true: "), "EVENT+"),
    (re.compile(r"^The following facts became unexpectedly false: "), "EVENT-"),
    (re.compile(r"^The above plan is invalid\. ?This is the unmet goal condition:$"), "UNMET GOAL"),
    (re.compile(r"^The above plan is invalid\. ?The following action at step \d+ has unmet preconditions?:$"),
     "UNMET PRE"),
    (re.compile(r"^The unmet preconditions? (is|are):$"), "UNMET PRE FACTS"),
    (re.compile(r"^(My plan is as follows:|During execution, an unexpected event has occurred\.|"
                r"After re-planning from the new state, the plan is as follows:| I have executed the following "
                r"action sequence:|The above plan is valid\.)$"), None),
]


def skeleton(block: str) -> tuple[str, ...]:
    """A statement block's shape: fixed lines as they are, facts and actions as TEXT (runs collapsed)."""
    out: list[str] = []
    for line in block.rstrip().split("\n"):
        line = line.rstrip(" ")
        token = "TEXT" if line else ""
        for pattern, name in _LINES:
            if pattern.search(line):
                token = name or line
                break
        if not (token == "TEXT" and out and out[-1] == "TEXT"):
            out.append(token)
    return tuple(out)


def split(prompt: str) -> tuple[str, list[str]]:
    head, *blocks = prompt.split("[STATEMENT]\n")
    return head, blocks


@pytest.mark.parametrize("task", list(TASKS))
def test_prompts_have_planbench_layout(task):
    """The intro equals the recorded prompts' intro; each block has the shape of a recorded block."""
    rows = [r for r in gpt4_rows("blocksworld", f"{FILES[task]}.jsonl.gz")[:12] if "GPT4 response" not in r["query"]]
    recorded = [split(r["query"]) for r in rows]
    ours = [split(c.task) for c in suite(task, "blocksworld")]
    assert {h for h, _ in ours} == {h for h, _ in recorded}
    assert {len(b) for _, b in ours} == {len(b) for _, b in recorded}
    assert {c.task[-20:].split("\n", 1)[-1] for c in suite(task, "blocksworld")} == \
        {r["query"][-20:].split("\n", 1)[-1] for r in rows}  # the query's very end
    assert {skeleton(b[-1]) for _, b in ours} == {skeleton(b[-1]) for _, b in recorded}
    example_shapes = {skeleton(x) for _, b in recorded for x in b[:-1]}
    for _, blocks in ours:
        for block in blocks[:-1]:
            assert skeleton(block) in example_shapes, skeleton(block)


def test_mystery_verification_layout():
    rows = gpt4_rows("mystery_blocksworld", "task_3_plan_verification.jsonl.gz")[:12]
    recorded = [split(r["query"]) for r in rows]
    ours = [split(c.task) for c in suite("t3", "mystery_blocksworld")]
    assert {h for h, _ in ours} == {h for h, _ in recorded}
    assert {skeleton(b[-1]) for _, b in ours} == {skeleton(b[-1]) for _, b in recorded}


def test_shots():
    for task, shots in (("t1", 0), ("t1", 3), ("t3", 1), ("t4", 0), ("t4", 2), ("t8_2", 2), ("t6", 2)):
        for case in generate_cases(_opts(task, "blocksworld", n=3, shots=shots)):
            assert case.task.count("[STATEMENT]") == shots + 1
            assert FAMILY.check(case, answer(case, FAMILY.reference_answer(case))).passed
    t3 = [c.task for c in suite("t3", "blocksworld")]
    assert all("plan is valid." in t and "unmet goal" in t and "unmet precondition" in t for t in t3)


# -- agreement with the re-scoring of recorded responses ---------------------------

LAYOUT = {"blocksworld": "blocksworld", "logistics": "logistics", "mystery_blocksworld": "blocksworld/mystery"}


@pytest.mark.parametrize("domain", DOMAINS)
def test_scoring_agrees_with_planbench_rescoring(domain, tmp_path):
    """Write each case's PDDL in PlanBench's layout, then score the same replies both ways.
    The family and the re-scoring with planprobe's reader share scoring.py: same verdicts on
    every reply. With PlanBench's own reader (``planbench-code``) the verdicts also agree on
    every plan and verification reply and on Blocksworld states; outside Blocksworld PlanBench's
    state reader often cannot read a state at all (docs/planbench-conformance.md, Q24-Q27) and
    then calls the reply wrong, which is the only disagreement allowed."""
    folder = tmp_path / LAYOUT[domain]
    for sub in ("generated_basic", "generated"):
        (folder / sub).mkdir(parents=True)
    pb = PlanBenchInstances(tmp_path)
    compared, agreed = 0, []
    iid = 0
    for task in TASKS:
        for case in suite(task, domain, verify="explanation"):
            iid += 1
            spec = prepare(case).spec
            (folder / "generated_domain.pddl").write_text(spec.domain)
            instance = spec.stated or spec.problem  # PlanBench's file states the problem as the prompt does
            for sub in ("generated_basic", "generated"):
                (folder / sub / f"instance-{iid}.pddl").write_text(instance)
            pb._domains.clear()
            replies = [FAMILY.reference_answer(case), FAMILY.random_answer(case, random.Random(iid))]
            replies += [a for f in FAULTS if (a := FAMILY.faulty_answer(case, f, random.Random(iid))) is not None]
            for reply in replies:
                if reply.startswith("REFUSE:"):
                    continue  # a refusal is planprobe's own convention; PlanBench has none
                ours = FAMILY.check(case, answer(case, reply))
                ours_ok = ours.labels["binary"] if task == "t3" else ours.passed
                record = {"instance_id": iid, "query": case.task, "llm_raw_response": reply, "domain": domain,
                          "task": task}
                theirs = rescore_record(record, pb, rules="planprobe")
                compared += 1
                if theirs.planprobe != ours_ok:
                    agreed.append((case.id, reply[:80], theirs.reason))
                exact = rescore_record(record, pb, rules="planbench-code").planprobe
                unreadable = task == "t7" and domain != "blocksworld"
                if exact != ours_ok and not (unreadable and exact is False):
                    agreed.append((case.id, reply[:80], "PlanBench's reader: " + str(exact)))
    assert compared > 100 and not agreed, agreed[:3]


# -- suites, CLI ---------------------------------------------------------------------

def test_same_seed_same_bytes_and_cases_independent():
    opts = _opts("t6", "mystery_blocksworld", n=5, seed=9)
    a, b = list(generate_lines(opts)), list(generate_lines(opts))
    assert a == b
    tail = list(generate_cases(_opts("t6", "mystery_blocksworld", n=2, seed=9), start=3))
    assert [c.model_dump_json() for c in tail] == a[3:]
    other = list(generate_lines(_opts("t6", "mystery_blocksworld", n=5, seed=10)))
    assert other != a


SLIP = "Once Overcome action is performed the following will be true: Harmony, Pain object, Object Craves other object."
FIXED = SLIP.replace("Harmony, Pain object", "Harmony, Province object")


@pytest.mark.parametrize("task", ["t1", "t2", "t3", "t6", "t7"])
def test_corrected_text_changes_only_the_slipped_sentence(task):
    """``--corrected-text``: the verbatim text (PlanBench's, slip included) stays the default; the
    option replaces that one phrase and records itself, and the case is otherwise the same."""
    default, fixed = suite(task, "mystery_blocksworld"), suite(task, "mystery_blocksworld", corrected_text=True)
    for d, f in zip(default, fixed, strict=True):
        assert SLIP in d.task and FIXED not in d.task and "corrected_text" not in d.spec
        assert f.task == d.task.replace(SLIP, FIXED) and f.task != d.task
        assert f.spec == {**d.spec, "corrected_text": True} and f.meta.generator["corrected_text"] is True
        assert "corrected-text" in f.meta.tags and "corrected-text" not in d.meta.tags
        FAMILY.validate(f)
        assert FAMILY.check(f, answer(f, FAMILY.reference_answer(f))).passed


def test_a_corrected_intro_follows_the_tasks_intro_variant():
    """t1/t2 use their own intro variant where a config has one; its correction is
    ``<variant>_corrected``, else the config's ``corrected`` text."""
    from planprobe.suites.planbench.prompts import corrected_variant

    intros = {"default": "d", "plan_generation": "p", "corrected": "dc", "plan_generation_corrected": "pc"}
    assert corrected_variant(intros, "plan_generation") == "plan_generation_corrected"
    assert corrected_variant(intros, "cost") == "corrected"
    assert corrected_variant({"default": "d"}, "default") is None


def test_cli_corrected_text_is_recorded(tmp_path, capsys, monkeypatch):
    out = tmp_path / "m.jsonl"
    code, _, _ = cli_here(capsys, monkeypatch, "generate", "planbench", "--task", "t7", "--domain", "mystery", "--n",
                          "2", "--seed", "4", "--corrected-text", "-q", "-o", str(out))
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert code == 0 and len(lines) == 2
    assert all(x["spec"]["corrected_text"] and FIXED in x["task"] and SLIP not in x["task"] for x in lines)


def test_cli_generate_run_show(tmp_path):
    suite_path = tmp_path / "s.jsonl"
    cmd = [*planprobe_cmd(), "generate", "planbench", "--task", "t2", "--domain", "logistics", "--n", "5",
           "--seed", "1", "--shots", "1", "-o", str(suite_path)]
    subprocess.run(cmd, check=True, capture_output=True, env=subprocess_env(), timeout=120)
    first = suite_path.read_bytes()
    for agent, expected in (("oracle", 1.0), ("random", 0.0)):
        out = tmp_path / agent
        subprocess.run([*planprobe_cmd(), "run", str(suite_path), "--agent", agent, "--out", str(out), "-q"],
                       check=True, capture_output=True, env=subprocess_env(), timeout=120)
        shown = subprocess.run([*planprobe_cmd(), "show", str(out), "--json"], check=True, capture_output=True,
                               text=True, env=subprocess_env(), timeout=120)
        data = json.loads(shown.stdout)
        assert data["cases"] == 5 and data["pass_rate"] == expected, data
    subprocess.run(cmd, check=True, capture_output=True, env=subprocess_env(), timeout=120)
    assert suite_path.read_bytes() == first
    line = json.loads(first.splitlines()[0])
    assert line["family"] == "planbench" and line["spec"]["task"] == "t2" and line["tools"] == []


@pytest.mark.parametrize("args, fragment", [
    (["--task", "t9"], "--task 't9'"),
    (["--domain", "gripper"], "--domain 'gripper'"),
    (["--blocks", "4-2"], "--blocks 4-2"),
    (["--blocks", "x"], "--blocks 'x'"),
    (["--shots", "-1"], "--shots -1"),
    (["--verify", "loose"], "--verify 'loose'"),
    (["--transform", "broken"], "text tasks without tools"),
    (["--transform", "extraneous:2"], "text tasks without tools"),
    (["--transform", "unsolvable:removal"], "text tasks without tools"),
    (["--transform", "cost"], "text tasks without tools"),
    (["--transform", "sideways"], "unknown transform"),
    (["--task", "t3", "--transform", "unsolvable"], "t1"),
    (["--domain", "logistics", "--packages", "0"], "--packages 0"),
    (["--corrected-text"], "nothing to correct"),
    (["--domain", "mystery_logistics", "--corrected-text"], "only mystery_blocksworld"),
])
def test_cli_bad_input_is_one_line(tmp_path, capsys, monkeypatch, args, fragment):
    code, _, err = cli_here(capsys, monkeypatch, "generate", "planbench", *args, "-o", str(tmp_path / "x.jsonl"))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], err
    assert not (tmp_path / "x.jsonl").exists()


def test_hand_written_case_errors_name_the_field():
    case = suite("t3", "blocksworld")[0]
    broken = case.model_copy(update={"spec": {**case.spec, "plan": None}})
    with pytest.raises(PlanprobeError, match="spec.plan"):
        FAMILY.validate(broken)
    bad_pddl = case.model_copy(update={"spec": {**case.spec, "problem": "(define (problem"}})
    with pytest.raises(PlanprobeError, match="spec.problem"):
        FAMILY.validate(bad_pddl)
    bad_step = case.model_copy(update={"spec": {**case.spec, "plan": ["(fly a b)"]}})
    with pytest.raises(PlanprobeError, match="spec.plan"):
        FAMILY.validate(bad_step)
    with pytest.raises(PlanprobeError, match="spec.task"):
        FAMILY.validate(case.model_copy(update={"spec": {**case.spec, "task": "t9"}}))



class _EchoModel:
    """A model that answers a planbench prompt with a fixed text (and records what it saw)."""

    name = "echo"

    def __init__(self, reply: str):
        self.reply, self.seen = reply, []

    async def chat(self, messages, tools, params):
        from planprobe.models.base import ChatResult
        from planprobe.schema import Message

        self.seen.append((list(messages), tools))
        return ChatResult(Message(role="assistant", content=self.reply))

    async def aclose(self):
        pass


def test_the_tools_agent_answers_in_text():
    from planprobe.agents.tools_agent import ToolsAgent

    case = suite("t1", "logistics")[0]
    model = _EchoModel(FAMILY.reference_answer(case))
    trace = run_agent(ToolsAgent(model), case)
    (messages, tools), = model.seen
    assert not tools and messages[0].content == case.system and messages[1].content == case.task
    assert FAMILY.check(case, trace).passed and trace.final_answer == model.reply
