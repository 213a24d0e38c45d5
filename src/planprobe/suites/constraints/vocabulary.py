"""The terminal words of the task DSL (seed PDoctor, Fig. 4 and Fig. 6), chosen so that
each phrase has exactly the meaning the oracle gives it.

Every slot of the grammar has its own list, and a word is only in a list whose
meaning it carries in plain English:

* Between two tasks, verbs describe the **whole task** ("happens", "is carried
  out"): "A happens before B" — A has ended by the time B starts.
* With a time, the verb names the point the bound is about. Upper bounds use
  **completion** verbs with inclusive prepositions ("must be completed by 15:00",
  "ends no later than 15:00": the end is at 15:00 or earlier); lower bounds use
  **start** verbs or whole-task verbs with inclusive prepositions ("begins no
  earlier than 10:00", "happens at or after 10:00": the start is at 10:00 or
  later). "Completed after 17:00" (an end bound) and "happens before 15:00"
  (the end, or only the start?) are never said.
* Words whose meaning is disputable are left out: "follows" (immediately?),
  "is done" (performed, or finished?), "by the time", and conjunctions such as
  "while" (at the same time?) or "yet"/"whereas" (a contrast that is not there).

Verb phrases come as (singular, plural) pairs so verbs agree with their subject.
The meaning of a sentence never depends on which alternative of a slot is chosen;
that is what lets error dissection swap words without changing the constraints.
The independent reader (``reader.py``) has its own, larger table and checks all
of this on every generated text.
"""

from __future__ import annotations

# VP<  "A comes before B": A ends by the time B starts.
VP_BEFORE: tuple[tuple[str, str], ...] = (
    ("comes before", "come before"),
    ("precedes", "precede"),
    ("goes before", "go before"),
    ("is carried out ahead of", "are carried out ahead of"),
    ("is carried out earlier than", "are carried out earlier than"),
    ("happens prior to", "happen prior to"),
    ("is executed before", "are executed before"),
    ("takes place in advance of", "take place in advance of"),
)

# VP>  "A comes after B": A starts once B has ended.
VP_AFTER: tuple[tuple[str, str], ...] = (
    ("comes after", "come after"),
    ("goes after", "go after"),
    ("is carried out later than", "are carried out later than"),
    ("is carried out after", "are carried out after"),
    ("happens subsequent to", "happen subsequent to"),
    ("is executed after", "are executed after"),
    ("takes place after", "take place after"),
    ("occurs later than", "occur later than"),
)

# VP∅  a verb phrase about the whole task, with no order of its own: "A happens".
VP_NONE: tuple[tuple[str, str], ...] = (
    ("happens", "happen"),
    ("occurs", "occur"),
    ("is executed", "are executed"),
    ("is carried out", "are carried out"),
    ("takes place", "take place"),
    ("is performed", "are performed"),
    ("is conducted", "are conducted"),
    ("must happen", "must happen"),
    ("should take place", "should take place"),
    ("must be carried out", "must be carried out"),
    ("should be performed", "should be performed"),
)

# A subordinate clause ("… before B happens", "Once B occurs, …") takes no modal verb:
# "before B must happen" is not English. These are the VP∅ alternatives it may use.
VP_NONE_SUBORDINATE: tuple[tuple[str, str], ...] = tuple(
    v for v in VP_NONE if not v[0].startswith(("should", "must"))
)

# Verbs for a task's end, used only with an upper bound on the time ("… by 15:00").
VP_END: tuple[tuple[str, str], ...] = (
    ("ends", "end"),
    ("finishes", "finish"),
    ("is completed", "are completed"),
    ("is finished", "are finished"),
    ("must be completed", "must be completed"),
    ("must be finished", "must be finished"),
    ("should be completed", "should be completed"),
    ("has to be finished", "have to be finished"),
)

# Verbs for a task's start, used only with a lower bound on the time ("… at or after 10:00");
# a lower bound may also take a whole-task verb ("happens no earlier than 10:00").
VP_START: tuple[tuple[str, str], ...] = (
    ("starts", "start"),
    ("begins", "begin"),
    ("is started", "are started"),
    ("must start", "must start"),
    ("should begin", "should begin"),
    ("has to start", "have to start"),
)
VP_FROM: tuple[tuple[str, str], ...] = VP_START + VP_NONE

# P<, P>  prepositions relating two tasks: "A happens before B".
P_BEFORE: tuple[str, ...] = (
    "before",
    "ahead of",
    "earlier than",
    "prior to",
    "in advance of",
    "sooner than",
    "previous to",
)
P_AFTER: tuple[str, ...] = (
    "after",
    "later than",
    "subsequent to",
    "only after",
    "at some point after",
    "sometime after",
    "at a later time than",
)

# Prepositions relating a task to a time point (extended mode). Inclusive only: a task
# ending at 15:00 meets "by 15:00"; one starting at 10:00 meets "no earlier than 10:00".
PT_BEFORE: tuple[str, ...] = (
    "by",
    "no later than",
    "not later than",
    "at or before",
    "at the latest by",
    "at the latest at",
    "before or at",
)
PT_AFTER: tuple[str, ...] = (
    "at or after",
    "no earlier than",
    "not earlier than",
    "no sooner than",
    "not sooner than",
    "at the earliest at",
    "after or at",
)

# SC<, SC>  sequential conjunctions between two clauses: "A happens before B happens".
SC_BEFORE: tuple[str, ...] = (
    "before",
    "earlier than",
    "sooner than",
    "at some point before",
    "sometime before",
    "prior to the moment",
    "before the moment",
)
SC_AFTER: tuple[str, ...] = (
    "after",
    "once",
    "only after",
    "later than",
    "at some point after",
    "sometime after",
    "subsequent to the moment",
)

# j  conjunctions joining sub-sentences of one sentence: additive only.
CONJUNCTIONS: tuple[str, ...] = (
    "; ",
    ", and ",
    "; moreover, ",
    "; in addition, ",
    "; furthermore, ",
    "; also, ",
    "; besides, ",
)

# The conjunctions that keep a comma between the sub-sentences, not a semicolon: after one, a
# sub-sentence that opens with a fronted phrase ("…, and later than B is performed, C happens")
# first reads as a second bound on the previous clause's subject, so it follows a semicolon instead.
COMMA_CONJUNCTIONS: frozenset[int] = frozenset(i for i, c in enumerate(CONJUNCTIONS) if not c.startswith(";"))
SEMICOLON_CONJUNCTIONS: tuple[int, ...] = tuple(i for i in range(len(CONJUNCTIONS)) if i not in COMMA_CONJUNCTIONS)

# A relative clause names its antecedent's size, so it cannot be read as being about
# the last task of a group alone: "A, which …", "A and B, both of which …".
RELATIVE_MARKERS = {1: "which", 2: "both of which", 3: "all three of which"}

TERMINALS: dict[str, tuple] = {
    "VP<": VP_BEFORE,
    "VP>": VP_AFTER,
    "VP0": VP_NONE,
    "VP0-sub": VP_NONE_SUBORDINATE,
    "VP-end": VP_END,
    "VP-from": VP_FROM,
    "P<": P_BEFORE,
    "P>": P_AFTER,
    "PT<": PT_BEFORE,
    "PT>": PT_AFTER,
    "SC<": SC_BEFORE,
    "SC>": SC_AFTER,
    "j": CONJUNCTIONS,
}


def order_verbs(before: bool) -> tuple[tuple[str, str], ...]:
    return VP_BEFORE if before else VP_AFTER


def preps(before: bool, time: bool) -> tuple[str, ...]:
    """The prepositions of a relation to a task (``time`` False) or to a time point."""
    if time:
        return PT_BEFORE if before else PT_AFTER
    return P_BEFORE if before else P_AFTER


def time_verbs(before: bool) -> tuple[tuple[str, str], ...]:
    """The verbs a time bound may take: completion verbs for "by h", start or
    whole-task verbs for "no earlier than h"."""
    return VP_END if before else VP_FROM


def format_hour(hour: int) -> str:
    return f"{hour:02d}:00"
