"""reader_fast (what the generator reads its texts back with) equals reader.Reader, the reference.

Same readings of every sentence — not just the same verdict — on generated paragraphs of every
mode and style, on the same paragraphs damaged (words dropped, swapped, repeated, commas moved,
markers and verbs changed, stray characters), and on the ambiguous constructions issue #10 quotes,
which must keep two or more readings under both.
"""

import random

import pytest

from planprobe.suites.constraints import reader as R
from planprobe.suites.constraints import reader_fast as F
from planprobe.suites.constraints import reading
from planprobe.suites.constraints.generator import ConstraintSuiteOptions, generate_case
from planprobe.suites.constraints.synthesis import SynthesisOptions

_SWAPS = ["which", "both of which", "all of which", ",", ";", "and", "before", "after", "is done", "happens",
          "happen", "follows", "once", "by", "at", "until", "while", "the", "07:00", "12:30", "both", "is",
          "are", "must", "be", "completed", "started", "no earlier than", "as soon as", "; then ,", ", while"]
_JUNK = "0123456789:.'-é!?()\"\t ,;ABCxyz٣"


def _same(names, text):
    ref = R.Reader(names)
    fast = F.FastReader(names)
    want = ref.read(text)
    got = fast.read(text)
    assert (got.atoms, got.readings, got.unparsed, got.ambiguous) == \
        (want.atoms, want.readings, want.unparsed, want.ambiguous), text
    return want


# re-wordings that make a sentence ambiguous where they apply (markers, aspect, "follows", "while")
_LOOSEN = [(", both of which", ", which"), (", all of which", ", which"), (", each of which", ", which"),
           ("is performed", "is done"), ("is carried out", "is done"), ("are performed", "are done"),
           ("comes after", "follows"), ("goes after", "follows"), ("; moreover,", ", while"),
           ("; in addition,", ", and then"), ("must be completed", "must happen"), ("is executed", "is done"),
           ("takes place", "happens"), ("is conducted", "is done")]


def _damaged(text: str, rng: random.Random) -> str:
    words = text.replace(",", " ,").replace(";", " ;").split()
    k = rng.randrange(len(words))
    op = rng.randrange(8)
    if op >= 6:
        found = [(a, b) for a, b in _LOOSEN if a in text]
        if found:
            a, b = rng.choice(found)
            return text.replace(a, b)
        op = 3
    if op == 0:
        del words[k]
    elif op == 1:
        j = rng.randrange(len(words))
        words[k], words[j] = words[j], words[k]
    elif op == 2:
        words.insert(k, words[k])
    elif op == 3:
        words[k] = rng.choice(_SWAPS)
    elif op == 4:
        words.insert(k, rng.choice(_SWAPS))
    else:
        j = rng.randrange(len(text) + 1)
        return text[:j] + rng.choice(_JUNK) + text[j + rng.randrange(2):]
    return " ".join(words).replace(" ,", ",").replace(" ;", ";")


_OPTIONS = [
    ConstraintSuiteOptions(seed=1, actions=(2, 9)),
    ConstraintSuiteOptions(seed=2, extended=True, actions=(2, 9)),
    ConstraintSuiteOptions(seed=3, style="paper", actions=(3, 6)),
    ConstraintSuiteOptions(seed=4, style="paper", extended=True, actions=(3, 6)),
    ConstraintSuiteOptions(seed=5, check_text=False, actions=(2, 12), allow_unconstrained=True,
                           synthesis=SynthesisOptions(max_sentences=3, p_relative=0.6, p_multi=0.5)),
    ConstraintSuiteOptions(seed=6, extended=True, check_text=False, actions=(2, 12)),
]


@pytest.mark.parametrize("opts", _OPTIONS, ids=lambda o: f"seed{o.seed}")
def test_same_readings_as_the_reference_on_generated_and_damaged_text(opts):
    rng = random.Random(opts.seed)
    outcomes = {"one": 0, "none": 0, "several": 0}
    for i in range(150):
        case = generate_case(i, opts)
        names = tuple(sorted(a["name"] for a in case.spec["actions"]))
        text = reading.requirement_of(case.task)
        _same(names, text)
        for sentence in reading.split_sentences(text):
            for _ in range(4):
                damaged = _damaged(sentence.rstrip("."), rng)
                readings = _same(names, damaged + ".").readings[0] if damaged.strip() else set()
                outcomes["none" if not readings else "one" if len(readings) == 1 else "several"] += 1
    assert min(outcomes.values()) > 10, outcomes  # every outcome is exercised


def test_the_ambiguous_constructions_keep_several_readings():
    cases = [
        (("organizing case files", "checking legal citations", "filing motions"),
         ("Filing motions comes before organizing case files and checking legal citations, which should be "
         "done no earlier than 05:00.")),
        (("checking freezer temperatures", "calibrating the pipettes", "validating new assays",
          "cleaning the fume hood"),
         ("Earlier than checking freezer temperatures, calibrating the pipettes and validating new assays take "
         "place, cleaning the fume hood is carried out.")),
        (("cutting hair", "washing hair"), "Cutting hair happens before 15:00."),
        (("cutting hair", "washing hair"), "Cutting hair follows washing hair."),
        (("cutting hair", "washing hair"), "Cutting hair is done no earlier than 10:00."),
        (("cutting hair", "washing hair", "sanitizing tools", "booking appointments"),
         "Cutting hair comes before washing hair, while sanitizing tools comes before booking appointments."),
    ]
    from test_faithfulness import (
        GARDEN_PATHS,  # issue #26's garden paths: two parses under both readers
    )

    cases += [(names, text) for _, names, text in GARDEN_PATHS]
    for names, text in cases:
        assert len(_same(names, text).readings[0]) >= 2, text


def test_names_that_share_words_or_contain_grammar_words_read_alike():
    """Names that are prefixes of each other or hold "and", "before", "run": every lexing is tried."""
    names = ("checking", "checking in and out", "running before dawn", "out", "in", "dawn", "running")
    texts = [
        "Checking in and out happens before running before dawn.",
        "Checking happens before running, which happens before dawn.",
        "Both checking and out come before in.",
        "In, out, and checking happen after running before dawn is done.",
        "Before checking in and out is run, running is run.",
    ]
    counts = [len(_same(names, text).readings[0]) for text in texts]
    assert max(counts) >= 2 and 1 in counts, counts


def test_the_tokeniser_equals_the_reference_on_odd_characters():
    texts = ["", "12:00", "123:00", "1:00", "12:0", "a", "9", ":", "by 07:00, a; b", "É", "٠٣:٠٠ a", "a\x1cb",
             "İstanbul", "tab\there", "a,b;c", "x-ray", "a\x85b", "a\u00a0b", "a\u2028b", "a\u3000b", "a\u200bb",
             "a\x1fb", "a\x0bb ,c", " ,; ", "a,,b", "ab;", "Ω", "ß"]
    texts += [chr(c) + "a b" for c in range(0x2100)] + ["a" + chr(c) + "b, c" for c in range(0x3100)]
    for text in texts:
        assert F.tokens(text) == reading._tokens(text), text


def test_the_comparison_can_fail():
    """A reader that drops a reading is noticed (the equality is not vacuous)."""
    names = ("cutting hair", "washing hair")
    text = "Cutting hair happens before 15:00."
    fast = F.FastReader(names).sentence_readings(text)
    assert len(fast) == 2 and set(list(fast)[:1]) != R.Reader(names).sentence_readings(text)


def test_the_ascii_tokeniser_equals_the_reference_on_every_short_string():
    """Every string of up to six characters over letters, digits, ":", ",", ";", space and a stray
    character: words that are times, almost times ("1:000", "a12:00", "12:0a") or junk."""
    import itertools

    alphabet = "a17:0, ;-"
    checked = 0
    for size in range(7):
        for chars in itertools.product(alphabet, repeat=size):
            text = "".join(chars)
            assert F.tokens(text) == reading._tokens(text), text
            checked += 1
    assert checked > 500_000
