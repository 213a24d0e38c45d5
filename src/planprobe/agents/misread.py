"""``misread:<word>`` reference agents: a careful reader with one lexical flaw.

The agent reads a constraint case's requirement with the independent reader
(``suites/constraints/reader.py``) and plans exactly what it read — except that it takes
one word for its opposite ("after" for "before"). It sees only what any agent is shown:
the task text and the tools (an action's name is its tool's name read as words). A
case whose requirement never says the word is solved; one that does is planned on a
misreading. It exists to prove that error dissection names a word as the cause of a
purely lexical flaw (issue #26, item 17): ``tests/analysis/test_dissect_phrasing.py``.

Planning: the order atoms read, added one at a time and skipping any that would close a
cycle (a misreading can contradict the rest), carried out in a topological order. In the
extended mode each task starts when the previous one ended (the tool says how long it
took) or at the earliest start read for it; deadlines are not planned for, so an
extended case can fail without the word — use it on basic suites.
"""

from __future__ import annotations

import json
import re

from ..environment import Environment
from ..errors import PlanprobeError
from ..schema import Case
from .cues import Visible
from .reference import FINAL_ANSWER

OPPOSITES = {"after": "before", "before": "after", "later": "earlier", "earlier": "later"}
_TOOK = re.compile(r"\b(?:took|takes) (\d+) hours?\b")


def misread_words() -> list[str]:
    return sorted(OPPOSITES)


def misread_text(text: str, word: str) -> str:
    """The text with every whole ``word`` replaced by its opposite, keeping a capital."""
    opposite = OPPOSITES[word]

    def swap(m: re.Match) -> str:
        return opposite.capitalize() if m.group(0)[0].isupper() else opposite

    return re.sub(rf"\b{word}\b", swap, text, flags=re.IGNORECASE)


def read_atoms(requirement: str, names: list[str]) -> set[tuple]:
    """What a careful reader takes the requirement to say: each sentence's only reading,
    or what all its readings share; a sentence it cannot parse says nothing."""
    from ..suites.constraints.reader import reader_for
    from ..suites.constraints.reading import split_sentences

    reader = reader_for(tuple(sorted(names)))
    atoms: set[tuple] = set()
    for sentence in split_sentences(requirement):
        readings = reader.sentence_readings(sentence)
        if readings:
            atoms |= frozenset.intersection(*readings)
    return atoms


def plan_order(n: int, pairs: list[tuple[int, int]]) -> list[int]:
    """A topological order of the pairs taken in turn, each one that closes a cycle skipped."""
    from ..suites.constraints.solver import OrderClosure

    closure = OrderClosure.empty(n)
    for pair in pairs:
        closure = closure.extended([pair]) or closure
    return closure.linear_extension()


class MisreadAgent:
    def __init__(self, word: str, seed: int = 0):
        if word not in OPPOSITES:
            raise PlanprobeError(f"unknown word {word!r} in --agent misread:{word}: choose one of "
                                 f"{', '.join(misread_words())}")
        self.word = word
        self.seed = seed
        self.name = f"misread:{word}"

    async def __call__(self, case: Case, env: Environment) -> str | None:
        if case.family != "constraints":
            raise PlanprobeError(f"--agent {self.name} reads constraint requirements only, not {case.family!r} cases")
        from ..suites.constraints.reading import requirement_of

        visible = Visible.of(case)
        tools = list(visible.action_tools)
        names = [t.name.replace("_", " ") for t in tools]
        index = {name: i for i, name in enumerate(names)}
        text = misread_text(requirement_of(case.task), self.word)
        env.trace.meta["misread"] = self.word
        env.trace.meta["misread_applied"] = text != requirement_of(case.task)
        atoms = sorted(read_atoms(text, names), key=repr)
        pairs = [(index[a], index[b]) for kind, a, b in atoms if kind == "order" and a in index and b in index]
        release = [0] * len(names)
        for kind, a, hour in atoms:
            if kind == "start_ge" and a in index:
                release[index[a]] = max(release[index[a]], int(hour))
        timed = any("start_time" in (t.parameters.get("properties") or {}) for t in tools)
        now = 0
        for a in plan_order(len(names), pairs):
            env.step()
            if not timed:
                env.call(tools[a].name, "{}")
                continue
            start = max(now, release[a])
            result = env.call(tools[a].name, json.dumps({"start_time": start}))
            m = _TOOK.search(result)
            now = start + (int(m.group(1)) if m else 1)
        env.finish(FINAL_ANSWER)
        return FINAL_ANSWER
