"""Surface cues of a case: numbers an agent can read off the visible case without planning.

Robustness variants must not be told apart from their controls by anything but
planning (issue #11). Each cue here maps what an agent sees — the task text and
the tools, never the hidden spec — to a number; the ``shortcut:<cue>`` agents
act on it and ``tests/robust/test_shortcuts.py`` proves that no threshold on any
cue separates unsolvable variants from their solvable controls better than
chance. Add a cue here whenever a new tell is suspected.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from ..schema import Case, ToolSpec

REFUSE_TOOL = "refuse"
RESTART_TOOLS = ("request_restart",)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[A-Za-z]+")
_HOUR = re.compile(r"\b(\d{1,2}):00\b")
_VERSION_SUFFIX = re.compile(r"(_v\d+|_new|_alt|_backup|_old|_legacy|_2|_copy|_fallback|_beta)$")
_TELL_WORDS = ("version", "replace", "replacement", "instead", "alternative", "separate service", "backup",
               "fallback", "legacy", "deprecated", "mirror", "same job", "equivalent", "also does", "v2")
_NO_ARGS = ("takes no arguments", "no arguments", "without arguments")
REQUIREMENT_MARKER = "Here is the requirement:"
TASK_LIST = re.compile(r"The tasks are: (.*?)\.\n")


@dataclass(frozen=True)
class Visible:
    """What an agent is shown: the task text and the tools (no spec, no meta)."""

    task: str
    tools: tuple[ToolSpec, ...]

    @classmethod
    def of(cls, case: Case) -> Visible:
        return cls(task=case.task, tools=tuple(case.tools))

    @cached_property
    def action_tools(self) -> list[ToolSpec]:
        """The tools but ``refuse`` and the restart tool (present in every case of a suite alike)."""
        return [t for t in self.tools if t.name != REFUSE_TOOL and t.name not in RESTART_TOOLS]

    @cached_property
    def requirement(self) -> str:
        _head, marker, rest = self.task.partition(REQUIREMENT_MARKER)
        return rest if marker else self.task

    @cached_property
    def sentences(self) -> list[str]:
        return [s for s in _SENTENCE.split(self.requirement.strip()) if s]

    @cached_property
    def listed(self) -> list[str]:
        """Task names the text enumerates ("The tasks are: …"), if it does."""
        m = TASK_LIST.search(self.task)
        if not m:
            return []
        text = m.group(1)
        head, _, last = text.rpartition(" and ")
        return [x.strip() for x in head.split(", ") if x.strip()] + [last.strip()] if head else [text.strip()]

    @cached_property
    def text_lower(self) -> str:
        return self.task.lower()

    def mentioned(self, tool: ToolSpec) -> bool:
        """Whether the tool's name, read as words, occurs in the task text."""
        return tool.name.replace("_", " ").lower() in self.text_lower

    def mentions(self, tool: ToolSpec) -> int:
        return self.text_lower.count(tool.name.replace("_", " ").lower())


def _required(tool: ToolSpec) -> list[str]:
    return [p for p in tool.parameters.get("required", []) if p != "start_time"]


def _param_words(name: str) -> list[str]:
    return [w for w in name.lower().split("_") if w]


# -- the cues -------------------------------------------------------------------------------------

def also_sentences(v: Visible) -> float:
    """Sentences opening with "Also," (the old contradiction's template)."""
    return float(sum(s.startswith("Also") for s in v.sentences))


def sentence_count(v: Visible) -> float:
    return float(len(v.sentences))


def requirement_words(v: Visible) -> float:
    return float(len(_WORD.findall(v.requirement)))


def task_chars(v: Visible) -> float:
    return float(len(v.task))


def last_sentence_words(v: Visible) -> float:
    return float(len(_WORD.findall(v.sentences[-1]))) if v.sentences else 0.0


def shortest_sentence_words(v: Visible) -> float:
    return float(min((len(_WORD.findall(s)) for s in v.sentences), default=0))


def max_mentions(v: Visible) -> float:
    """How often the most mentioned task name occurs (a restated or reversed pair raises it)."""
    return float(max((v.mentions(t) for t in v.action_tools), default=0))


def pair_repeats(v: Visible) -> float:
    """Pairs of tools whose names occur together in two or more sentences."""
    counts: Counter[tuple[str, str]] = Counter()
    names = [t.name.replace("_", " ").lower() for t in v.action_tools]
    for s in v.sentences:
        low = s.lower()
        present = sorted(n for n in names if n in low)
        counts.update((a, b) for i, a in enumerate(present) for b in present[i + 1:])
    return float(sum(c >= 2 for c in counts.values()))


def repeated_hours(v: Visible) -> float:
    """Hours named more than once (a deadline at a release hour repeats it)."""
    return float(sum(c >= 2 for c in Counter(_HOUR.findall(v.requirement)).values()))


def earliest_hour(v: Visible) -> float:
    hours = [int(h) for h in _HOUR.findall(v.requirement)]
    return float(min(hours)) if hours else -1.0


def tool_count(v: Visible) -> float:
    return float(len(v.action_tools))


def tools_minus_listed(v: Visible) -> float:
    """Tools minus the tasks the text enumerates (or minus the task names it mentions)."""
    listed = v.listed or [t.name for t in v.action_tools if v.mentioned(t)]
    return float(len(v.action_tools) - len(listed))


def listed_without_tool(v: Visible) -> float:
    """Enumerated task names with no tool of that name."""
    names = {t.name.replace("_", " ").lower() for t in v.action_tools}
    return float(sum(x.lower() not in names for x in v.listed))


def tools_not_mentioned(v: Visible) -> float:
    """Tools whose name does not occur in the text."""
    return float(sum(not v.mentioned(t) for t in v.action_tools))


def version_suffix(v: Visible) -> float:
    """Tool names that look like a version or a fallback of another (``_v2``, ``_backup``…)."""
    return float(sum(bool(_VERSION_SUFFIX.search(t.name)) for t in v.action_tools))


def shared_prefix(v: Visible) -> float:
    """Tool names that extend another tool's name (``X`` and ``X_v2``, ``bulk_X``)."""
    names = [t.name for t in v.action_tools]
    return float(sum(any(a != b and a in b for b in names) for a in names))


def tell_words(v: Visible) -> float:
    """Descriptions with words that announce a replacement or a duplicate."""
    return float(sum(any(w in t.description.lower() for w in _TELL_WORDS) for t in v.action_tools))


def description_chars_spread(v: Visible) -> float:
    """The longest description's length over the median's: an odd tool out stands out."""
    lengths = sorted(len(t.description) for t in v.action_tools)
    return lengths[-1] / max(1, lengths[len(lengths) // 2]) if lengths else 0.0


def required_params(v: Visible) -> float:
    """Required parameters other than start_time, over all tools."""
    return float(sum(len(_required(t)) for t in v.action_tools))


def schema_text_gap(v: Visible) -> float:
    """Tools whose description says they take no arguments but whose schema requires some, or
    whose required parameters the description never names."""
    gaps = 0
    for t in v.action_tools:
        req = _required(t)
        desc = t.description.lower()
        if req and any(p in desc for p in _NO_ARGS) or any(" ".join(_param_words(p)) not in desc and p not in desc for p in req):
            gaps += 1
    return float(gaps)


def params_not_in_task(v: Visible) -> float:
    """Required parameters whose name (as words) the task text never mentions."""
    return float(sum(" ".join(_param_words(p)) not in v.text_lower
                     for t in v.action_tools for p in _required(t)))


def values_in_task(v: Visible) -> float:
    """Tokens in the task that look like identifiers (a value given for a parameter)."""
    return float(len(re.findall(r"\b[A-Z]{1,4}-?\d{3,}\b|\b\d{4,}\b", v.task)))


def goal_lines(v: Visible) -> float:
    """Lines of the task (PDDL tasks list one goal fact or object per line)."""
    return float(v.task.count("\n"))


def max_word_repeat(v: Visible) -> float:
    """How often the most frequent content word occurs (a contradictory goal names an object twice)."""
    words = [w.lower() for w in _WORD.findall(v.requirement) if len(w) > 3]
    return float(max(Counter(words).values(), default=0))


Cue = Callable[[Visible], float]

CUES: dict[str, Cue] = {
    "also": also_sentences,
    "sentences": sentence_count,
    "words": requirement_words,
    "chars": task_chars,
    "last-sentence": last_sentence_words,
    "shortest-sentence": shortest_sentence_words,
    "max-mentions": max_mentions,
    "pair-repeats": pair_repeats,
    "repeated-hours": repeated_hours,
    "earliest-hour": earliest_hour,
    "tool-count": tool_count,
    "tools-minus-listed": tools_minus_listed,
    "listed-without-tool": listed_without_tool,
    "tools-not-mentioned": tools_not_mentioned,
    "version-suffix": version_suffix,
    "shared-prefix": shared_prefix,
    "tell-words": tell_words,
    "description-spread": description_chars_spread,
    "required-params": required_params,
    "schema-gap": schema_text_gap,
    "params-not-in-task": params_not_in_task,
    "values-in-task": values_in_task,
    "lines": goal_lines,
    "word-repeat": max_word_repeat,
}
