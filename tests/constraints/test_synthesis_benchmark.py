"""The synthesis benchmark's rows switch off exactly the check their label names.

docs/BENCHMARKS.md states what each stronger check of issue #10 costs from these rows,
so a row that silently kept (or dropped) a check would make that figure wrong. No
timing here: speed is measured by the script, never by a test.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from planprobe.suites.constraints import synthesis as S
from planprobe.suites.constraints.generator import case_lines

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "synthesis_throughput.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location("synthesis_throughput", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(SCRIPT.parent))


def _variant(bench, label):
    return next((changes, bound) for name, changes, bound in bench.VARIANTS if name == label)


def _cases(bench, label, extended=False, n=150):
    changes, bound = _variant(bench, label)
    opts = bench.options(n, extended, 11, changes)
    saved = S.MAX_STATEMENTS
    S.MAX_STATEMENTS = bound
    try:
        return opts, [json.loads(line) for line in case_lines(opts, 0, n)]
    finally:
        S.MAX_STATEMENTS = saved


def _most_statements(cases):
    return max(len(c["clauses"]) for case in cases for c in case["spec"]["constraints"])


def test_the_default_row_keeps_every_check(bench):
    opts, cases = _cases(bench, "")
    assert opts.check_text and not opts.allow_unconstrained and opts.synthesis.max_sentences is None
    assert _most_statements(cases) <= 2
    assert all(case["meta"]["difficulty"]["unconstrained"] == 0 for case in cases)


def test_each_row_switches_off_what_its_label_says(bench):
    opts, _ = _cases(bench, "no read-back", n=1)
    assert not opts.check_text and not opts.allow_unconstrained and opts.synthesis.max_sentences is None

    opts, cases = _cases(bench, "seed's N = 3")
    assert opts.check_text and opts.allow_unconstrained
    assert {case["meta"]["generator"]["max_sentences"] for case in cases} == {3}
    assert _most_statements(cases) <= 2

    opts, cases = _cases(bench, "no restatement bound", n=400)
    assert opts.check_text and not opts.allow_unconstrained and opts.synthesis.max_sentences is None
    assert _most_statements(cases) > 2  # the bound really is lifted

    opts, cases = _cases(bench, "pre-#10 checks", n=400)
    assert not opts.check_text and opts.allow_unconstrained and opts.synthesis.max_sentences == 3
    assert _most_statements(cases) > 2


def test_a_row_restores_the_restatement_bound(bench, tmp_path):
    changes, bound = _variant(bench, "no restatement bound")
    row = bench.Row("basic, no restatement bound", False, changes, bound, 1)
    row.run_once(20, 0)
    assert S.MAX_STATEMENTS == 2
    assert len(row.cpu) == len(row.wall) == 1 and row.cpu[0] > 0 and len(row.checks) == 20
