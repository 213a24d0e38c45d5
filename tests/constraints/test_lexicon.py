import re

import pytest

from planprobe.errors import PlanprobeError
from planprobe.suites.constraints import vocabulary as V
from planprobe.suites.constraints.lexicon import (
    default_lexicon,
    parse_lexicon,
    tool_name,
)


def _terminal_phrases() -> set[tuple[str, ...]]:
    phrases = set()
    for table in V.TERMINALS.values():
        for entry in table:
            for text in (entry if isinstance(entry, tuple) else (entry,)):
                words = tuple(re.findall(r"[a-z]+", text))
                if words:
                    phrases.add(words)
    for marker in V.RELATIVE_MARKERS.values():
        phrases.add(tuple(marker.split()))
    phrases.add(("and",))
    return phrases


def test_the_embedded_lexicon_has_50_jobs_of_20_activities():
    lex = default_lexicon()
    assert len(lex.jobs) >= 50
    assert len({j.name for j in lex.jobs}) == len(lex.jobs)
    for job in lex.jobs:
        assert len(job.activities) >= 20, job.name
        assert len({tool_name(a) for a in job.activities}) == len(job.activities), job.name


def test_no_activity_contains_a_terminal_phrase():
    # otherwise a sentence could be read two ways, and the reader's check would be moot
    phrases = _terminal_phrases()
    for job in default_lexicon().jobs:
        for act in job.activities:
            words = tuple(act.split())
            for p in phrases:
                for k in range(len(words) - len(p) + 1):
                    assert words[k:k + len(p)] != p, (job.name, act, " ".join(p))


def test_every_terminal_has_at_least_seven_alternatives():
    for name, table in V.TERMINALS.items():
        assert len(table) >= 7, name


def test_activities_are_gerund_phrases_usable_as_subjects():
    for job in default_lexicon().jobs:
        for act in job.activities:
            assert re.fullmatch(r"[a-z]+ing( [a-z]+){1,4}", act), act


def test_lexicon_errors_name_the_line():
    with pytest.raises(PlanprobeError, match=r"my.txt:2: activity 'Bad Thing'"):
        parse_lexicon("## Job\nBad Thing\n", "my.txt")
    with pytest.raises(PlanprobeError, match="before any '## Job' line"):
        parse_lexicon("doing things\n", "my.txt")
    with pytest.raises(PlanprobeError, match="repeats"):
        parse_lexicon("## Job\ndoing things\ndoing things\n", "my.txt")
    with pytest.raises(PlanprobeError, match="at least 2 activities"):
        parse_lexicon("## Job\ndoing things\n", "my.txt")


def test_an_activity_using_a_relation_word_is_refused_with_its_line():
    with pytest.raises(PlanprobeError, match=r"my.txt:3: activity 'checking alarms before opening' contains 'before'"):
        parse_lexicon("## Job\ndoing things\nchecking alarms before opening\n", "my.txt")
