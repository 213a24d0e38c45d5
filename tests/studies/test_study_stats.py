"""The unpaired figures a study adds beside a paper's (yours against its model on other
instances): Newcombe's interval of a difference and Fisher's exact test."""

from __future__ import annotations

import pytest

from planprobe.analysis.stats import difference_ci, fisher_exact


def test_difference_ci_is_newcombes_method_10():
    # Newcombe (1998), Table II, examples (a) and (b): 56/70 - 48/80 and 9/10 - 3/10
    assert difference_ci(56, 70, 48, 80) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    assert difference_ci(9, 10, 3, 10) == pytest.approx((0.1705, 0.8090), abs=5e-5)
    assert difference_ci(0, 0, 3, 10) == (-1.0, 1.0)


def test_fisher_exact_two_sided():
    # 3/10 against 7/10: the hypergeometric tail both ways (R: fisher.test(matrix(c(3,7,7,3),2)))
    assert fisher_exact(3, 10, 7, 10) == pytest.approx(0.1788954, abs=1e-6)
    assert fisher_exact(5, 10, 5, 10) == 1.0
    assert fisher_exact(10, 10, 0, 10) == pytest.approx(2 / 184756 * 1, rel=1e-6)
