"""Issue #26, item 17: dissection names a purely lexical flaw — a connective word — as
the cause, with a significance test against its chance baseline, at every K; anatomy
ranks connective words."""

import json
import random
import re
import subprocess

import pytest

from helpers import cases, planprobe_cmd, run_agent, subprocess_env
from planprobe import run_suite
from planprobe.agents import make_agent
from planprobe.analysis.anatomy import anatomy
from planprobe.analysis.dissect import connective_table, paired_test, significance
from planprobe.analysis.stats import (
    holm_adjust,
    mcnemar_exact_greater,
    paired_difference_ci,
)
from planprobe.errors import PlanprobeError
from planprobe.report.data import read_root_causes, root_cause_tests
from planprobe.runner.store import RunStore
from planprobe.suites.constraints.mutations import case_connectives, rephrase_without
from planprobe.suites.constraints.prepared import prepare
from planprobe.suites.constraints.reader import default_reader
from planprobe.suites.constraints.reading import requirement_of
from planprobe.suites.registry import get_family

AFTER = re.compile(r"\bafter\b", re.IGNORECASE)


def _says_after(case) -> bool:
    return AFTER.search(requirement_of(case.task)) is not None


def _dissect(path, *args):
    r = subprocess.run(planprobe_cmd() + ["dissect", str(path), "--json", *args], capture_output=True, text=True,
                       timeout=600, env=subprocess_env())
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_misread_agent_fails_only_where_the_text_says_the_word():
    agent = make_agent("misread:after")
    family = get_family("constraints")
    failed_with, failed_without = 0, 0
    for case in cases(60, seed=11):
        passed = family.check(case, run_agent(agent, case)).passed
        failed_with += not passed and _says_after(case)
        failed_without += not passed and not _says_after(case)
    assert failed_without == 0 and failed_with >= 20
    with pytest.raises(PlanprobeError, match="choose one of"):
        make_agent("misread:whenever")


def test_a_misread_connective_is_named_as_the_cause_with_significance_at_every_k(tmp_path):
    run_suite(cases(30, seed=11), "misread:after", tmp_path / "run")
    store = RunStore(tmp_path / "run")
    failed = [c for c in store.cases() if c.id in {r.case_id for r in store.rows() if not r.passed}]
    store.close()
    assert len(failed) >= 10 and all(_says_after(c) for c in failed)
    named = []
    for k in ("1", "3", "8"):
        data = _dissect(tmp_path / "run", "--k", k)
        assert data["cases"] == len(failed)
        assert data["causes"]["Phrasing"] == len(failed), data["causes"]  # not Terminal/Structure/Constraint
        top = data["connectives"][0]
        assert top["word"] == "after" and top["cases"] == top["alone"] == len(failed)
        assert len(data["connectives"]) == 1  # no other word's minimal pair fixed any case
        assert top["p_value"] < 0.001 and top["p_holm"] < 0.001 and top["difference_ci95"][0] > 0.5
        assert data["significance"]["Phrasing"]["p_value"] < 0.001
        assert data["significance"]["Probability"]["by_construction"] is True
        assert data["baseline"]["causes"]["Phrasing"] == 0  # a deterministic agent: re-runs never pass
        named.append((data["causes"], data["connectives"]))
    assert named[0] == named[1] == named[2]  # the same answer whatever K
    assert set(read_root_causes(tmp_path / "run").values()) == {"Phrasing: after"}  # as the HTML report shows it
    # the seed's procedure without the stage spreads the same failures over the other causes
    paper = _dissect(tmp_path / "run", "--k", "3", "--no-phrasing")
    assert paper["causes"]["Phrasing"] == 0 and paper["connectives"] == [] and paper["phrasing"] is False


def test_the_text_output_says_the_probability_stage_equals_its_baseline(tmp_path):
    run_suite(cases(6, seed=11), "misread:after", tmp_path / "run")
    r = subprocess.run(planprobe_cmd() + ["dissect", str(tmp_path / "run"), "--k", "1"], capture_output=True,
                       text=True, timeout=600, env=subprocess_env(COLUMNS="200"))
    assert r.returncode == 0, r.stderr
    assert "Probability equals its baseline by construction" in r.stdout
    assert "McNemar" in r.stdout and "'after'" in r.stdout
    tests = root_cause_tests(tmp_path / "run")  # the HTML report's column
    assert tests is not None and tests["Probability"] == "= by construction" and float(tests["Phrasing"]) < float(tests["Terminal"]) == 1.0


@pytest.mark.parametrize("extended", [False, True], ids=["basic", "extended"])
def test_the_minimal_pair_rewords_only_the_word_and_keeps_the_constraints(extended):
    reader = default_reader()
    rng = random.Random(3)
    tried = 0
    for case in cases(60, seed=8, extended=extended, actions=(2, 6)):
        words = case_connectives(case)
        assert words and words == sorted(words)
        for word in words:
            mutant = rephrase_without(case, word, rng)
            tried += 1
            reading = reader.read(requirement_of(mutant.task))
            assert reading.ok and _atoms(mutant, reading.atoms) == _atoms(case)
            left = case_connectives(mutant)
            assert word not in left
            if word != "after" and "after" in words:  # "only after" loses "only", not "after"
                assert "after" in left
            assert mutant.meta.parent == case.id and mutant.meta.generator["connective"] == word
            assert _nonconnective(mutant) == _nonconnective(case)  # names, verbs, joiners: untouched
    assert tried >= 120


def _atoms(case, reading=None):
    cc = prepare(case)
    by_name = {name: cc.ids[i] for i, name in enumerate(cc.names)}
    if reading is not None:
        return {(k, by_name[a], by_name[b] if k == "order" else b) for k, a, b in reading}
    return {(c.kind, c.a, c.b if c.kind == "order" else c.hour) for c in cc.spec.constraints}


def _nonconnective(case):
    """The skeleton with the index of every relational phrase blanked out (order verbs,
    prepositions, subordinating conjunctions): what the minimal pair must leave alone."""

    def rel(np):
        if "rel" in np:
            np["rel"]["p" if "p" in np["rel"] else "v"] = None

    skeleton = json.loads(json.dumps(case.spec["skeleton"]))
    for sentence in skeleton:
        for part in sentence["parts"]:
            rel(part["s"])
            if "m" in part:
                part["sc"] = None
                rel(part["o"])
                continue
            part["p" if "p" in part else "v"] = None
            if "g" in part["o"]:
                rel(part["o"])
    return skeleton


def test_exact_tests_agree_with_brute_force():
    from math import comb

    for b in range(8):
        for c in range(8):
            n = b + c
            brute = sum(comb(n, i) for i in range(n + 1) if i >= b) / 2 ** n if n else 1.0
            assert mcnemar_exact_greater(b, c) == pytest.approx(brute)
    lo, hi = paired_difference_ci(10, 8, 2, 20)
    assert lo < (8 - 2) / 40 < hi and -1 <= lo and hi <= 1
    assert paired_difference_ci(0, 0, 0, 30) == pytest.approx((-0.1135, 0.1135), abs=1e-3)  # both Wilson 0/30
    assert paired_difference_ci(0, 30, 0, 0)[0] > 0.8
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_significance_is_deterministic_and_baseline_paired():
    rows = [{"cause": "Phrasing", "connectives": ["after"], "baseline_cause": "Constraint"} for _ in range(8)]
    rows += [{"cause": "Phrasing", "connectives": ["after", "prior"], "baseline_cause": "Constraint"}]
    rows += [{"cause": "Terminal", "baseline_cause": "Phrasing", "baseline_connectives": ["before"]}]
    sig = significance(rows)
    assert sig["Phrasing"]["discordant"] == [9, 1] and sig["Phrasing"]["p_value"] == pytest.approx(11 / 1024, rel=1e-5)
    assert sig["Terminal"]["discordant"] == [1, 0] and sig["Probability"]["by_construction"]
    table = connective_table(rows, baseline=True)
    assert [(e["word"], e["cases"], e["alone"]) for e in table] == [("after", 9, 8), ("prior", 1, 0), ("before", 0, 0)]
    assert table[0]["p_value"] == pytest.approx(1 / 512, rel=1e-5) and table[2]["p_value"] == 1.0
    assert table[2]["baseline_cases"] == 1
    assert paired_test([True] * 3, [True] * 3)["p_value"] == 1.0
    assert significance(rows) == sig and connective_table(rows, True) == table


def test_anatomy_ranks_connective_words(tmp_path):
    suite = cases(60, seed=11)
    run_suite(suite, "misread:after", tmp_path / "misread")
    run_suite(suite, "oracle", tmp_path / "oracle")
    a = anatomy([("misread", RunStore(tmp_path / "misread"))]).to_json()
    words = a["connective_words"]
    by_word = {w["word"]: w for w in words}
    # ranked by the lower bound of the rate's CI; "only" is said only as "only after", and it says so
    top = next(w["word"] for w in words if not w["always_with"])
    assert top == "after" and by_word["after"]["violation_rate"] > 0.6
    assert "only" in by_word and by_word["only"]["always_with"] == ["after"]
    assert all(w["violation_rate"] < by_word["after"]["violation_rate"] for w in words
               if "after" not in w["always_with"] and w["word"] != "after")
    good = anatomy([("oracle", RunStore(tmp_path / "oracle"))]).to_json()
    assert good["connective_words"] and all(w["violated"] == 0 for w in good["connective_words"])
    r = subprocess.run(planprobe_cmd() + ["anatomy", str(tmp_path / "misread")], capture_output=True, text=True,
                       env=subprocess_env(COLUMNS="200"))
    assert r.returncode == 0 and "connective words violated most" in r.stdout
