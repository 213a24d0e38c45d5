import itertools
import json
import math
import xml.etree.ElementTree as ET

import pytest

from helpers import cases, planprobe_here
from planprobe import run_suite
from planprobe.analysis.compare import compare_runs, parse_points, trial_stats
from planprobe.analysis.stats import bootstrap_ci, mcnemar_exact, pass_at_k, pass_hat_k
from planprobe.errors import PlanprobeError
from planprobe.runner.store import RunStore
from planprobe.suites.io import write_suite


def test_pass_at_k_and_pass_hat_k_match_enumeration():
    for n in range(1, 7):
        for c in range(n + 1):
            outcomes = [1] * c + [0] * (n - c)
            for k in range(1, n + 1):
                draws = list(itertools.combinations(outcomes, k))
                assert math.isclose(pass_at_k(n, c, k), sum(any(d) for d in draws) / len(draws))
                assert math.isclose(pass_hat_k(n, c, k), sum(all(d) for d in draws) / len(draws))


def test_mcnemar_exact_is_the_two_sided_binomial_test():
    assert mcnemar_exact(0, 0) == 1.0 and mcnemar_exact(5, 5) == 1.0
    assert math.isclose(mcnemar_exact(0, 10), 2 / 1024)
    n, b = 12, 2
    tail = sum(math.comb(n, i) for i in range(b + 1)) / 2 ** n
    assert math.isclose(mcnemar_exact(b, n - b), 2 * tail) and mcnemar_exact(b, n - b) == mcnemar_exact(n - b, b)


def test_bootstrap_ci_is_seeded_and_brackets_the_mean():
    values = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1] * 5
    lo, hi = bootstrap_ci(values, seed=3)
    assert (lo, hi) == bootstrap_ci(values, seed=3) and lo < sum(values) / len(values) < hi


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    suite = cases(60, seed=8)
    run_suite(suite, "oracle", root / "oracle")
    run_suite(suite, "faulty:drop", root / "drop")
    run_suite(suite, "random", root / "random5", trials=5)
    run_suite(cases(60, seed=9), "oracle", root / "other")
    run_suite(suite[:30] + cases(10, seed=9), "oracle", root / "half")
    write_suite(suite, root / "suite.jsonl")
    return root


def test_trial_statistics(runs):
    s = trial_stats(RunStore(runs / "random5"))
    assert s.trials == 5 and s.cases == 60
    p1, p5, h5 = s.pass_at[1][0], s.pass_at[5][0], s.pass_hat[5][0]
    assert h5 <= p1 <= p5 and s.flaky  # random plans disagree across trials
    assert s.pass_at[1][1][0] <= p1 <= s.pass_at[1][1][1]


def test_paired_comparison(runs):
    c = compare_runs(RunStore(runs / "oracle"), RunStore(runs / "drop"))
    assert (c.rate_a, c.rate_b, c.a_only, c.b_only) == (1.0, 0.0, 60, 0) and c.p_value < 1e-10
    assert c.diff_ci == (-1.0, -1.0) and not c.notes and len(c.regressions) == 60
    with pytest.raises(PlanprobeError, match="share no cases"):
        compare_runs(RunStore(runs / "oracle"), RunStore(runs / "other"))
    c = compare_runs(RunStore(runs / "oracle"), RunStore(runs / "half"))
    assert c.shared_cases == 30 and "comparing the 30 cases they share" in c.notes[0]


def test_gate_cli_exit_codes_and_junit(runs, tmp_path):
    fail = planprobe_here("gate", runs / "drop", "--baseline", runs / "oracle", "--max-drop", "2pp", "--junit",
                          tmp_path / "gate.xml")
    assert fail.returncode == 1 and "gate failed" in fail.stdout
    root = ET.parse(tmp_path / "gate.xml").getroot()
    assert root.tag == "testsuite" and int(root.get("failures")) == 61 and int(root.get("tests")) == 61
    ok = planprobe_here("gate", runs / "oracle", "--baseline", runs / "oracle")
    assert ok.returncode == 0 and "gate passed" in ok.stdout
    bad = planprobe_here("gate", runs / "oracle", "--baseline", runs / "oracle", "--max-drop", "lots")
    assert bad.returncode == 2 and "expected percentage points" in bad.stderr


def test_compare_and_trials_cli(runs):
    r = planprobe_here("compare", runs / "oracle", runs / "drop", "--json")
    data = json.loads(r.stdout)
    assert data["difference"] == -1.0 and data["a_passed_b_failed"] == 60
    r = planprobe_here("compare", runs / "oracle", runs / "half")
    assert r.returncode == 0 and "share" in r.stderr
    r = planprobe_here("trials", runs / "random5", "--json")
    assert json.loads(r.stdout)["trials"] == 5


def test_max_drop_parsing():
    assert parse_points("2pp") == parse_points("2") == parse_points("2%") == 2.0
    with pytest.raises(PlanprobeError):
        parse_points("-1")


def test_wilson_interval_holds_its_rate_and_is_exact_at_the_ends():
    """0 of n has lower bound exactly 0 and n of n upper bound exactly 1 (the formula's rounding gave
    2.8e-17 above a rate of 0, which the report's lo <= rate <= hi check caught)."""
    from planprobe.analysis.stats import wilson_interval

    for n in range(1, 301):
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
        for k in range(n + 1):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0, (k, n, lo, hi)
