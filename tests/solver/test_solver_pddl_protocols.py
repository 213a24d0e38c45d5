"""``--model solver`` on the planning protocols over PDDL agent tasks: holistic plans and step-wise next
steps (one or several), written as the JSON the protocol asks for, under every scaffold; with the
robustness variants underneath (a refusal is the refusal tool as the plan's step) (issue #27)."""

from __future__ import annotations

import pytest
from solver_helpers import pddl_cases, run_cases

from planprobe.solver.backend import SolverModel
from planprobe.suites.protocols.wrap import wrap
from planprobe.suites.robust.transforms import parse_transforms, robustify

SETTINGS = {  # protocol, steps, transform under it
    "holistic": ("holistic", 1, None),
    "stepwise-1": ("stepwise", 1, None),
    "stepwise-3": ("stepwise", 3, None),
    "holistic-unsolvable": ("holistic", 1, "unsolvable"),
    "holistic-cost": ("holistic", 1, "cost"),
    "stepwise-broken": ("stepwise", 2, "broken"),
}


@pytest.mark.parametrize("agent", ["tools", "react", "modular"])
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_the_solver_answers_each_protocol(tmp_path, setting, agent):
    protocol, steps, transform = SETTINGS[setting]
    cases = pddl_cases("blocksworld", n=3, seed=41) + pddl_cases("logistics-mystery", n=3, seed=41)
    if transform:
        cases = [robustify(c, parse_transforms([transform]), seed=2) for c in cases]
    cases = [wrap(c, protocol, steps, seed=3) for c in cases]
    verdicts, findings = run_cases(cases, agent, SolverModel(), tmp_path / "run")
    assert findings == []
    failed = {cid: v.errors for cid, v in verdicts.items() if not v.passed}
    assert len(verdicts) == len(cases) and not failed, failed


def test_answers_do_not_depend_on_which_cases_were_played_before(tmp_path):
    # step-wise cases of one base task share its reading; a plan memoised while answering one must not
    # change another's answer: the same replies whatever the order (same seed, byte-identical runs)
    from planprobe.runner.store import RunStore
    from planprobe.solver.pddl_reader import READER

    bases = pddl_cases("logistics", n=2, seed=43)
    cases = [wrap(c, "stepwise", 1, seed=s).model_copy(update={"id": f"{c.id}-{s}"}) for c in bases for s in range(4)]
    replies = []
    for order, out in ((cases, "forward"), (cases[::-1], "backward")):
        READER.forget()
        run_cases(order, "tools", SolverModel(), tmp_path / out, concurrency=1)
        with RunStore(tmp_path / out) as store:
            replies.append({t.case_id: [m.content for m in t.messages if m.role == "assistant"]
                            for t, _ in store.results()})
    assert replies[0] == replies[1]
