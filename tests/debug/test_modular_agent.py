"""The modular agent: AgentDebug's memory/reflection/plan/action rollout, read leniently,
on every family; and the module-level labels read from its words."""

from __future__ import annotations

import asyncio

import pytest

from helpers import cases as constraint_cases
from planprobe.agents import make_agent
from planprobe.agents.modular import ModularAgent
from planprobe.agents.modular_format import parse_action, parse_modular
from planprobe.debug.labels import label_trace
from planprobe.environment import IterationLimitExceeded, Limits
from planprobe.models.base import ChatResult
from planprobe.schema import Message, TraceStatus
from planprobe.suites.pddl_agent import PDDLSuiteOptions, generate_cases
from planprobe.suites.registry import get_family


class Scripted:
    """A model that answers each prompt with the next scripted reply."""

    name = "scripted"

    def __init__(self, replies):
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def chat(self, messages, tools, params):
        self.prompts.append(messages[-1].content)
        reply = self.replies.pop(0) if self.replies else "<answer>done</answer>"
        return ChatResult(message=Message(role="assistant", content=reply))

    async def aclose(self):
        pass


def _run(case, replies, limit=50):
    model = Scripted(replies)
    agent = ModularAgent(model)
    env = get_family(case.family).environment(case, Limits(max_iterations=limit), 0, agent.name)
    try:
        asyncio.run(agent(case, env))
    except IterationLimitExceeded:
        env.trace.status = TraceStatus.ITERATION_LIMIT
    return env.trace, model


def _step(call, memory="Nothing yet.", reflection="The last action worked.", plan=None):
    plan = plan if plan is not None else f"Next I call {call.name}."
    return (f"<memory>{memory}</memory>\n<reflection>{reflection}</reflection>\n<plan>{plan}</plan>\n"
            f"<action>tool: {call.name} parameters: {call.arguments}</action>")


@pytest.mark.parametrize("reply,tool,args", [
    ('<action>tool: book_flight parameters: {"a": 1}</action>', "book_flight", '{"a": 1}'),
    ('<ACTION> tool: [book_flight]\nparameters: {"a": {"b": "}"}}', "book_flight", '{"a": {"b": "}"}}'),
    ("<action>book_flight({\"a\": 1})</action>", "book_flight", '{"a": 1}'),
    ('<action>{"tool": "pay", "parameters": {"x": 2}}</action>', "pay", '{"x": 2}'),
    ("<plan>p</plan>\nAction: tool: pay parameters: {}", "pay", "{}"),
    ("Memory: m\nPlan: p\nAction: [pay]", "pay", "{}"),
    ('<action>tool: pay parameters: {"x": 1</action>', "pay", '{"x": 1'),
])
def test_actions_are_read_leniently(reply, tool, args):
    got = parse_modular(reply)
    assert (got.tool, got.arguments) == (tool, args)


def test_sections_aliases_answer_and_problems():
    got = parse_modular("<memory_recall>m</memory_recall><think>t</think><answer>42</answer>")
    assert got.sections["memory"] == "m" and got.sections["plan"] == "t" and got.answer == "42"
    got = parse_modular("<memory>m<reflection>r</reflection><plan>p<action>tool: x parameters: {}</action>")
    assert got.sections["memory"] == "m" and got.sections["plan"] == "p" and got.tool == "x"
    assert parse_modular("I am not sure.").problem == "no <action> and no <answer> section"
    assert parse_modular("<action></action>").problem is not None
    assert parse_action("__import__('os').system('x')")[0] == "__import__"  # only ever a name, never run


def test_prompts_follow_the_rollout_format():
    case = constraint_cases(1, seed=4)[0]
    ref = get_family(case.family).reference_plan(case)
    trace, model = _run(case, [_step(c) for c in ref] + ["<answer>All done.</answer>"])
    assert get_family(case.family).check(case, trace).passed
    first, second = model.prompts[0], model.prompts[1]
    assert "<plan>" in first and "<memory>" not in first and "<action>" in first
    for tag in ("<memory>", "<reflection>", "<plan>", "<action>", "<answer>"):
        assert tag in second
    assert "You are now at step 2" in second and "Step 1: action: tool: " in second
    roles = [m.role for m in trace.messages]
    assert roles == ["user", "assistant"] * (len(ref) + 1)


def _families():
    out = {"constraints": constraint_cases(3, seed=5), "extended": constraint_cases(3, seed=5, extended=True)}
    out["pddl"] = list(generate_cases(PDDLSuiteOptions(domain="logistics", n=3, seed=1, packages=(1, 1),
                                                       cities=(1, 2), locations=(1, 2))))
    return out


@pytest.mark.parametrize("name", ["constraints", "extended", "pddl"])
def test_passes_every_tool_family_when_the_model_plans_well(name):
    for case in _families()[name]:
        ref = get_family(case.family).reference_plan(case)
        trace, _ = _run(case, [_step(c) for c in ref] + ["<answer>done</answer>"])
        assert get_family(case.family).check(case, trace).passed, case.id


def test_answers_text_families():
    from planprobe.suites.planbench import PlanBenchOptions
    from planprobe.suites.planbench import generate_cases as pb_cases

    case = next(iter(pb_cases(PlanBenchOptions(task="t1", n=1, seed=1, blocks=(3, 3)))))
    family = get_family(case.family)
    answer = family.reference_answer(case)
    trace, model = _run(case, [f"<plan>I know the plan.</plan><answer>{answer}</answer>"])
    assert "<action>" not in model.prompts[0] or "tool:" not in model.prompts[0]
    assert family.check(case, trace).passed


def test_an_unreadable_reply_is_a_format_error_at_its_step():
    case = constraint_cases(2, seed=6)[1]
    ref = get_family(case.family).reference_plan(case)
    replies = [_step(ref[0]), "Let me think about this.", *[_step(c) for c in ref[1:]], "<answer>ok</answer>"]
    trace, _ = _run(case, replies)
    verdict = get_family(case.family).check(case, trace)
    lab = label_trace(case, trace, verdict)
    assert (lab.critical.step, lab.critical.type) == (2, "format_error")
    assert lab.correction == [2]


def test_module_labels_from_the_agents_words():
    """Misalignment, outcome misinterpretation, progress misjudgment and false memory, each
    planted at a known step of an otherwise clean run."""
    case = constraint_cases(3, seed=7, actions=(4, 4))[0]
    ref = get_family(case.family).reference_plan(case)
    other = ref[3].name
    replies = [
        _step(ref[0]),
        _step(ref[1], plan=f"Now I will call {other} because it is next."),  # step 2: misaligned
        _step(PlannedCallLike("no_such_tool", "{}")),  # step 3: rejected (invalid action)
        _step(ref[2], reflection="The last action was successful and moved me forward.",  # step 4
              memory=f"In step 1 I called {other}."),  # false: step 1 called ref[0]
        _step(ref[3], reflection="The task is complete."),  # step 5: said before the last task ran
        "<answer>done</answer>",
    ]
    trace, _ = _run(case, replies)
    verdict = get_family(case.family).check(case, trace)
    lab = label_trace(case, trace, verdict)
    found = {(x.step, x.module, x.type, x.how) for x in lab.labels}
    assert (2, "action", "misalignment", "heuristic") in found
    assert (3, "action", "invalid_action", "exact") in found
    assert (4, "reflection", "outcome_misinterpretation", "heuristic") in found
    assert (4, "memory", "hallucination", "heuristic") in found
    assert (5, "reflection", "progress_misjudge", "heuristic") in found
    assert not any(x.type == "misalignment" and x.step != 2 for x in lab.labels)
    assert lab.critical.step == 3


class PlannedCallLike:
    def __init__(self, name, arguments):
        self.name, self.arguments = name, arguments


def test_make_agent_knows_modular():
    assert make_agent("modular", model=Scripted([])).name == "modular"
    with pytest.raises(Exception, match="needs a model"):
        make_agent("modular")


def test_a_modular_run_can_be_re_rolled_out_from_its_labelled_step():
    """The labeller's critical step is where a re-rollout starts: keep the steps before it,
    add feedback, and the agent (its history rebuilt from the replayed calls) carries on."""
    from planprobe.runner.rollout import rerollout

    case = constraint_cases(2, seed=8)[0]
    family = get_family(case.family)
    ref = family.reference_plan(case)
    bad = [_step(ref[0]), _step(PlannedCallLike("ghost_tool", "{}")), *[_step(c) for c in ref[1:]],
           "<answer>done</answer>"]
    trace, _ = _run(case, bad)
    verdict = family.check(case, trace)
    lab = label_trace(case, trace, verdict)
    assert (lab.critical.step, lab.critical.type) == (2, "invalid_action")
    model = Scripted([_step(c) for c in ref[1:]] + ["<answer>done</answer>"])
    again = asyncio.run(rerollout(case, trace, lab.critical.step - 1, ModularAgent(model),
                                  guidance="ghost_tool does not exist; call only the listed tools."))
    assert family.check(case, again).passed
    first = model.prompts[0]
    assert "ghost_tool does not exist" in first and "Step 1: action: tool: " + ref[0].name in first
    assert "You are now at step 2" in first


def test_the_prompt_shows_the_action_syntax_with_single_braces():
    """ACT_TOOLS is inserted into the prompt as a value (never formatted itself): its example must
    read as the JSON the model should write."""
    case = constraint_cases(1, seed=3)[0]
    agent = ModularAgent(Scripted([]))
    for history in ([], [("tool: x parameters: {}", "Done.")]):
        prompt = agent.render(case, case.tools, history)
        assert '<action>tool: [tool_name] parameters: {"param1": "value1"}</action>' in prompt
        assert "{{" not in prompt and "}}" not in prompt


def test_the_prompt_shows_the_memory_of_the_previous_step():
    """A deviation from AgentDebug's templates (issue #27): each prompt shows what the model wrote inside
    <memory> at its previous step, so what it keeps there outlives the window of recent steps."""
    case = constraint_cases(1, seed=4)[0]
    ref = get_family(case.family).reference_plan(case)
    replies = [_step(c, memory=f"kept note {i}") for i, c in enumerate(ref)]
    replies[1] = replies[1].replace("<memory>kept note 1</memory>", "")  # no memory: the last one is kept
    trace, model = _run(case, replies + ["<answer>All done.</answer>"])
    assert len(ref) >= 3 and "Your memory so far" not in model.prompts[0]
    shown = "Your memory so far (what you last wrote inside <memory> </memory>):\nkept note 0\n"
    assert shown in model.prompts[1] and shown in model.prompts[2]
    for i in range(2, len(ref)):
        assert f"\nkept note {i}\n" in model.prompts[i + 1] and f"kept note {i - 1}" not in model.prompts[i + 1]
    assert [m.role for m in trace.messages] == ["user", "assistant"] * (len(ref) + 1)  # the trace format is kept


def test_the_memory_outlives_the_window():
    case = constraint_cases(1, seed=4)[0]
    ref = get_family(case.family).reference_plan(case)
    model = Scripted([_step(ref[0], memory="step 1 found the key fact")] +
                     [_step(PlannedCallLike("ghost_tool", "{}"), memory="step 1 found the key fact")] * 3)
    agent = ModularAgent(model, history_length=2)
    env = get_family(case.family).environment(case, Limits(max_iterations=10), 0, agent.name)
    asyncio.run(agent(case, env))
    last = model.prompts[-1]  # after 4 steps, with a window of 2
    assert "Step 1: action:" not in last and "Step 3: action:" in last and "step 1 found the key fact" in last


def test_a_re_rollout_shows_the_memory_of_the_kept_steps():
    from planprobe.runner.rollout import rerollout

    case = constraint_cases(2, seed=8)[0]
    ref = get_family(case.family).reference_plan(case)
    trace, _ = _run(case, [_step(c, memory=f"note {i}") for i, c in enumerate(ref)] + ["<answer>done</answer>"])
    model = Scripted([_step(c) for c in ref[2:]] + ["<answer>done</answer>"])
    asyncio.run(rerollout(case, trace, 2, ModularAgent(model), guidance="carry on"))
    assert "\nnote 1\n" in model.prompts[0] and "You are now at step 3" in model.prompts[0]
