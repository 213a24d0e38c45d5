"""The PDDL reader's memo of texts it has read holds no case (issue #27): it is keyed by exactly what
a reading reads of a call (system prompt, task text, tool schemas) and valued by that reading, so an
answer from the memo is the answer a reader with no memo gives. (It stays because the speed target
needs it: without it the median PDDL call took 15 ms, docs/BENCHMARKS.md "PDDL agent tasks".)"""

from __future__ import annotations

import re

from solver_helpers import drive, pddl_cases, view_of

from planprobe.solver.pddl_reader import PDDLReader, memo_key
from planprobe.suites.robust import robustify


class Fresh:
    """A reader that forgets everything before each call: what a memo hit must equal."""

    name = "pddl"

    def claims(self, view):
        return PDDLReader().claims(view)

    def decide(self, view):
        return PDDLReader().decide(view)


def test_the_memo_key_is_all_a_reading_reads():
    case = pddl_cases("logistics", n=1)[0]
    view = view_of(case)
    assert memo_key(view) == (view.system, view.task, repr(view.tools))


def test_a_memo_hit_answers_as_a_fresh_reading():
    warm = PDDLReader()
    for variant in ("blocksworld", "logistics-mystery", "blocksworld-pddl-changes"):
        for case in pddl_cases(variant, n=2):
            first = drive(warm, case)
            again = drive(warm, case)  # every call of the second episode is a memo hit
            fresh = drive(Fresh(), case)
            assert first.decisions == again.decisions == fresh.decisions
            assert first.verdict.passed and len(warm._memo) >= 1


def test_a_system_prompt_that_gives_a_missing_argument_is_not_answered_from_the_memo():
    # the same task text and tools, the argument a tool needs given only by the system prompt: the
    # reading differs, so the memo must not answer for it (it was keyed by the task and tools alone)
    case = next(v for c in pddl_cases("blocksworld", n=6)
                if (v := robustify(c, [("unsolvable", "missing-info")], 1)).spec.get("unsolvable"))
    needs = re.search(r"It requires (\w+)", " ".join(t.description for t in case.tools))
    assert needs is not None
    given = case.model_copy(update={"system": f"The {needs.group(1).replace('_', ' ')} to use is ZX-42."})
    reader = PDDLReader()
    told, untold = reader.decide(view_of(given)), reader.decide(view_of(case))
    assert untold.refuse and told.calls, (told, untold)
    assert reader.decide(view_of(given)) == told and reader.decide(view_of(case)) == untold
