"""ROUGE-L as API-Bank's ``rouge`` package computes it, and API-Bank's response scoring."""

from __future__ import annotations

import json
import random

import pytest

from planprobe.suites.apibank.rouge import EmptyText, response_score, rouge_l_f


def f(p: float, r: float) -> float:
    return 2.0 * ((p * r) / (p + r + 1e-8))


def test_hand_computed_values():
    # ref "the cat" (2 distinct words), hyp "the cat sat" (3): LCS 2 -> P 2/3, R 1
    assert rouge_l_f("the cat sat", "the cat") == f(2 / 3, 1.0)
    # identical texts: P = R = 1, but the package's 1e-8 keeps F just below 1
    assert rouge_l_f("a b c", "a b c") == f(1.0, 1.0) < 1.0
    # disjoint words
    assert rouge_l_f("x y", "a b") == 0.0
    # order matters: LCS of "c b a" and "a b c" is one word
    assert rouge_l_f("c b a", "a b c") == f(1 / 3, 1 / 3)


def test_counts_distinct_words_and_splits_sentences_at_dots():
    # repeated words count once (exclusive=True): "a a a" vs "a" is a perfect match
    assert rouge_l_f("a a a", "a") == f(1.0, 1.0)
    # summary level: the union of per-sentence LCSs; "b a" in two sentences recovers both words
    assert rouge_l_f("b. a", "a b") == f(1.0, 1.0)
    assert rouge_l_f("b a", "a b") == f(0.5, 0.5)
    # case and punctuation other than "." are kept
    assert rouge_l_f("Hello, world", "hello world") == f(0.5, 0.5)  # only "world" matches


def test_texts_without_a_sentence_raise_as_the_package_does():
    with pytest.raises(EmptyText):
        rouge_l_f("...", "a b")
    with pytest.raises(EmptyText):
        rouge_l_f("a b", "")


def test_response_scores_follow_each_evaluator():
    ref = "Your appointment has been modified successfully."
    # levels 1-2 (evaluator.py): rounded to 4 places; empty scores 0
    assert response_score("Your appointment is modified.", ref, 1) == round(rouge_l_f("Your appointment is modified.", ref), 4)
    assert response_score("", ref, 2) == 0.0
    assert response_score("...", ref, 1) == 0.0  # the package raises; API-Bank would crash
    # level 3 (lv3_evaluator.py): "AI:"/"User:" removed, stripped, not rounded
    raw = rouge_l_f("Your appointment is modified.", ref)
    assert response_score("AI: Your appointment is modified.", ref, 3) == raw
    assert response_score("  AI:  ", ref, 3) == 0.0


def test_long_texts_do_not_hit_the_recursion_limit():
    text = " ".join(f"w{i}" for i in range(3000))
    assert rouge_l_f(text, text) == f(1.0, 1.0)


def test_equal_to_the_rouge_package_when_installed(shared_texts):
    rouge = pytest.importorskip("rouge")
    scorer = rouge.Rouge()
    rng = random.Random(3)
    for k in range(300):
        a, b = rng.choice(shared_texts), rng.choice(shared_texts)
        if k % 3 == 0:
            words = a.split()
            rng.shuffle(words)
            a = " ".join(words[: rng.randint(1, len(words))])
        assert rouge_l_f(a, b) == scorer.get_scores(a, b)[0]["rouge-l"]["f"]


@pytest.fixture
def shared_texts():
    from helpers import shared_path

    path = shared_path("data", "api-bank", "test-data", "level-1-response.json")
    return [row["expected_output"] for row in json.loads(path.read_text())]
