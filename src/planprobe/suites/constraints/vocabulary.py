"""The terminal words of the task DSL (seed PDoctor, Fig. 4).

Each terminal category has at least seven interchangeable English alternatives.
Verb phrases come as (singular, plural) pairs so that "Cutting hair comes before"
and "Cutting hair and styling hair come before" are both grammatical.

The meaning of a sentence never depends on which alternative is chosen; that is
what lets error dissection swap terminals without changing the constraints, and
what the independent reader (``reader.py``) relies on to recover them.
"""

from __future__ import annotations

# VP<  "A comes before B": the subject happens before the object.
VP_BEFORE: tuple[tuple[str, str], ...] = (
    ("comes before", "come before"),
    ("precedes", "precede"),
    ("goes before", "go before"),
    ("is done ahead of", "are done ahead of"),
    ("is carried out earlier than", "are carried out earlier than"),
    ("happens prior to", "happen prior to"),
    ("is executed before", "are executed before"),
    ("takes place in advance of", "take place in advance of"),
)

# VP>  "A comes after B": the subject happens after the object.
VP_AFTER: tuple[tuple[str, str], ...] = (
    ("comes after", "come after"),
    ("follows", "follow"),
    ("goes after", "go after"),
    ("is done later than", "are done later than"),
    ("is carried out after", "are carried out after"),
    ("happens subsequent to", "happen subsequent to"),
    ("is executed after", "are executed after"),
    ("takes place following", "take place following"),
)

# VP∅  a verb phrase with no order of its own: "A happens".
VP_NONE: tuple[tuple[str, str], ...] = (
    ("happens", "happen"),
    ("occurs", "occur"),
    ("is executed", "are executed"),
    ("is carried out", "are carried out"),
    ("takes place", "take place"),
    ("is performed", "are performed"),
    ("is done", "are done"),
    ("should be done", "should be done"),
    ("must be completed", "must be completed"),
)

# A subordinate clause ("… before B happens", "Once B is done, …") takes no modal verb:
# "before B should be done" is not English. These are the VP∅ alternatives it may use.
VP_NONE_SUBORDINATE: tuple[tuple[str, str], ...] = tuple(v for v in VP_NONE if not v[0].startswith(("should", "must")))

# P<, P>  prepositions relating two actions: "A happens before B".
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
    "following",
    "subsequent to",
    "only after",
    "at some point after",
    "sometime after",
)

# Prepositions relating an action to a time point (extended mode).
# "before 15:00" bounds the end of the task, "after 10:00" its start (seed Fig. 7).
PT_BEFORE: tuple[str, ...] = (
    "before",
    "prior to",
    "earlier than",
    "no later than",
    "by",
    "ahead of",
    "in advance of",
)
PT_AFTER: tuple[str, ...] = (
    "after",
    "later than",
    "following",
    "no earlier than",
    "subsequent to",
    "at or after",
    "only after",
)

# SC<, SC>  sequential conjunctions between two clauses: "A happens before B happens".
SC_BEFORE: tuple[str, ...] = (
    "before",
    "by the time",
    "earlier than",
    "sooner than",
    "at some point before",
    "sometime before",
    "prior to the moment",
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

# j  conjunctions joining sub-sentences of one sentence.
CONJUNCTIONS: tuple[str, ...] = (
    "; ",
    ", and ",
    ", but ",
    ", yet ",
    ", while ",
    ", whereas ",
    "; moreover, ",
    "; in addition, ",
    "; furthermore, ",
    "; also, ",
)

RELATIVE = "which"

TERMINALS: dict[str, tuple] = {
    "VP<": VP_BEFORE,
    "VP>": VP_AFTER,
    "VP0": VP_NONE,
    "VP0-sub": VP_NONE_SUBORDINATE,
    "P<": P_BEFORE,
    "P>": P_AFTER,
    "PT<": PT_BEFORE,
    "PT>": PT_AFTER,
    "SC<": SC_BEFORE,
    "SC>": SC_AFTER,
    "j": CONJUNCTIONS,
}


def format_hour(hour: int) -> str:
    return f"{hour:02d}:00"
