"""The independent reader's own table of English phrases (``reader.py``): verbs with their number
and aspect, relations with what they may take, the joiners of clauses, the relative-clause markers,
the garden paths it counts, and the trie (``_Phrases``) both readers (``reader``, ``reader_fast``)
match them with. It knows nothing of the generator's word lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Generic, TypeVar

Atom = tuple
Atoms = frozenset
# module constants are Final: the mypyc build then reads them natively, not from the module's dict
SG: Final = 1
PL: Final = 2
EVENT: Final = "event"
START: Final = "start"
END: Final = "end"


@dataclass(frozen=True)
class Verb:
    number: int  # SG, PL or both
    aspects: tuple[str, ...]  # the points of the task the verb may be about
    relations: tuple[str, ...] = ()  # transitive verbs that order their subject and object: "<", ">", ">>"
    reverse: bool = False  # passive "is preceded by": the subject is the later task


def _verb_table() -> list[tuple[str, Verb]]:
    """Every verb phrase the reader knows, with number and aspect."""
    out: list[tuple[str, Verb]] = []
    active = {  # (3rd person singular, plural): aspect
        ("happens", "happen"): (EVENT,), ("occurs", "occur"): (EVENT,), ("takes place", "take place"): (EVENT,),
        ("comes", "come"): (EVENT,), ("goes", "go"): (EVENT,), ("runs", "run"): (EVENT,),
        ("starts", "start"): (START,), ("begins", "begin"): (START,), ("commences", "commence"): (START,),
        ("kicks off", "kick off"): (START,), ("gets started", "get started"): (START,),
        ("ends", "end"): (END,), ("finishes", "finish"): (END,), ("concludes", "conclude"): (END,),
        ("wraps up", "wrap up"): (END,), ("gets done", "get done"): (EVENT, END),
    }
    participles = {
        "executed": (EVENT,), "carried out": (EVENT,), "performed": (EVENT,), "conducted": (EVENT,),
        "handled": (EVENT,), "run": (EVENT,), "scheduled": (EVENT, START), "done": (EVENT, END),
        "started": (START,), "begun": (START,), "commenced": (START,), "initiated": (START,),
        "completed": (END,), "finished": (END,), "concluded": (END,), "wrapped up": (END,),
    }
    transitive = {("precedes", "precede"): ("<",), ("follows", "follow"): (">", ">>"),
                  ("succeeds", "succeed"): (">",), ("antecedes", "antecede"): ("<",)}
    passive_transitive = {"preceded by": (">",), "followed by": ("<", "<<"), "succeeded by": ("<",)}
    modals_any = ("must", "should", "will", "can", "may", "shall", "ought to", "would")
    modals = [(m, SG | PL) for m in modals_any] + [("has to", SG), ("have to", PL), ("needs to", SG),
                                                     ("need to", PL)]
    for (sg, pl), aspects in active.items():
        out += [(sg, Verb(SG, aspects)), (pl, Verb(PL, aspects))]
        base = pl
        out += [(f"{m} {base}", Verb(num, aspects)) for m, num in modals]
    for part, aspects in participles.items():
        out += [(f"is {part}", Verb(SG, aspects)), (f"are {part}", Verb(PL, aspects)),
                (f"gets {part}", Verb(SG, aspects)), (f"get {part}", Verb(PL, aspects))]
        out += [(f"{m} be {part}", Verb(num, aspects)) for m, num in modals]
    for (sg, pl), rels in transitive.items():
        out += [(sg, Verb(SG, (EVENT,), rels)), (pl, Verb(PL, (EVENT,), rels))]
        out += [(f"{m} {pl}", Verb(num, (EVENT,), rels)) for m, num in modals]
    for part, rels in passive_transitive.items():
        out += [(f"is {part}", Verb(SG, (EVENT,), rels)), (f"are {part}", Verb(PL, (EVENT,), rels))]
        out += [(f"{m} be {part}", Verb(num, (EVENT,), rels)) for m, num in modals]
    return out


@dataclass(frozen=True)
class Relation:
    meanings: tuple[str, ...]  # "<", "<=", ">", ">=", "=", ">>" (immediately after), "while"
    prep: bool  # takes a noun phrase or a time: "before B", "by 15:00"
    sc: bool  # takes a clause: "before B happens", "once B is done"


def _relation_table() -> list[tuple[str, Relation]]:
    both, prep, sc = (True, True), (True, False), (False, True)
    table = {
        "before": ("<", both), "after": (">", both), "earlier than": ("<", both), "later than": (">", both),
        "sooner than": ("<", both), "prior to": ("<", prep), "ahead of": ("<", prep),
        "in advance of": ("<", prep), "previous to": ("<", prep), "subsequent to": (">", prep),
        "only after": (">", both), "only before": ("<", both), "at some point after": (">", both),
        "at some point before": ("<", both), "sometime after": (">", both), "sometime before": ("<", both),
        "at a later time than": (">", prep), "at an earlier time than": ("<", prep),
        "prior to the moment": ("<", sc), "subsequent to the moment": (">", sc),
        "before the moment": ("<", sc), "after the moment": (">", sc), "ahead of the moment": ("<", sc),
        "by": ("<=", prep), "by the time": ("<=", sc), "no later than": ("<=", both),
        "not later than": ("<=", both), "at or before": ("<=", prep), "before or at": ("<=", prep),
        "at the latest by": ("<=", prep), "at the latest at": ("<=", prep), "until": ("<=", both),
        "at or after": (">=", prep), "after or at": (">=", prep), "no earlier than": (">=", both),
        "not earlier than": (">=", both), "no sooner than": (">=", both), "not sooner than": (">=", both),
        "at the earliest at": (">=", prep), "from": (">=", prep), "starting at": (">=", prep),
        "once": (">=", sc), "at": ("=", prep), "when": ("=", sc), "as soon as": (">=,>>", sc),
        "following": (">,>>", prep), "right after": (">>", both), "immediately after": (">>", both),
        "while": ("while", sc), "during": ("while", prep),
    }
    return [(text, Relation(tuple(m.split(",")), kinds[0], kinds[1])) for text, (m, kinds) in table.items()]


# Phrases that join two clauses of one sentence. Most add nothing; "while" may also say
# that the two clauses happen at the same time, a reading no case stores.
_JOINERS: Final[dict[str, tuple[Atoms, ...]]] = {
    j: (frozenset(),) for j in (
        ",", ";", "and", ", and", ", but", ", yet", ", whereas", ", and also", ", also ,", "; and",
        "; moreover ,", "; in addition ,", "; furthermore ,", "; also ,", "; besides ,", "; likewise ,",
        "; additionally ,", "; what is more ,", ", moreover ,", ", in addition ,", ", furthermore ,",
    )
}
_JOINERS[", while"] = (frozenset(), frozenset({("while",)}))
_JOINERS["; meanwhile ,"] = (frozenset({("while",)}),)
_JOINERS[", and then"] = (frozenset(), frozenset({("then",)}))
_JOINERS["; then ,"] = (frozenset({("then",)}),)

# Garden paths: parses a careful reader takes first and must back out of. Each one found in a
# sentence that has a reading adds a reading of its own, made of one atom that no case stores
# (("garden_path", kind)), so the sentence counts as read two ways.
GARDEN_PATHS: Final = {
    "list": "a fronted phrase's object could run on over the comma that ends it, as a list",
    "bound": "a clause opening with a relation after a comma-joined clause reads as a second bound on it",
}


def _comma_joint(joiner: tuple[str, ...]) -> bool:
    """A joiner with a word and no semicolon (", and", "and", ", but"): the clause before it may
    still be going on, so a relation after it may be read as part of that clause."""
    return ";" not in joiner and joiner != (",",)


def garden_reading(kind: str) -> Atoms:
    """The reading a garden path of ``kind`` adds to its sentence."""
    return frozenset({("garden_path", kind)})


# Relative-clause markers: which antecedents each may take ("which": the last task or the group).
_MARKERS: Final = {"which": "any", "both of which": 2, "all of which": "group", "each of which": "group",
            "all three of which": 3, "all four of which": 4}


@lru_cache(maxsize=16384)
def _phrase_words(text: str) -> tuple[str, ...]:
    """A phrase as the tokens it must match (task names recur across cases: cached)."""
    return tuple(text.lower().replace(",", " , ").split())


V = TypeVar("V")


class _Phrases(Generic[V]):
    """A trie of phrases: match(tokens, i) -> [(end, value)] for every phrase starting at i.
    Generic in the value so that readers compiled with mypyc know what they get back."""

    def __init__(self, entries: Iterable[tuple[str, V]]):
        self.root: dict[str, tuple[dict, list[V]]] = {}
        for text, value in entries:
            node = self.root
            words = _phrase_words(text)
            for k, word in enumerate(words):
                child = node.get(word)
                if child is None:
                    child = node[word] = ({}, [])
                if k == len(words) - 1:
                    child[1].append(value)
                node = child[0]

    def match(self, toks: tuple[str, ...], i: int) -> list[tuple[int, V]]:
        out: list[tuple[int, V]] = []
        node = self.root
        n = len(toks)
        while i < n:
            child = node.get(toks[i])
            if child is None:
                break
            i += 1
            for value in child[1]:
                out.append((i, value))
            node = child[0]
        return out


_VERBS: Final = _Phrases(_verb_table())
_RELS: Final = _Phrases(_relation_table())
_JOIN: Final = _Phrases(_JOINERS.items())
_MARK: Final = _Phrases(_MARKERS.items())
