"""Small statistics shared by summaries and reports."""

from __future__ import annotations

import math


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval for a proportion; (0, 1) when n is 0. Its bounds at 0 and n
    successes are exactly 0 and 1 (the formula's rounding gives 3e-17 for 0 of 10, which a
    check of lo <= rate would catch)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, min(hi, 1.0)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one case (Chen et al., 2021): the chance that at least one
    of k trials drawn without replacement from n (c passing) passes."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k for one case (Yao et al., 2024): the chance that k trials drawn without
    replacement all pass — consistency rather than luck."""
    return math.comb(c, k) / math.comb(n, k)


def bootstrap_ci(values: list[float], resamples: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean, seeded so reports are reproducible."""
    import random

    if not values:
        return 0.0, 1.0
    rng = random.Random(seed)
    n = len(values)
    # choices() draws the n indices in C: a 10,000-case comparison takes about a second, not twenty
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    lo = means[int((1 - level) / 2 * resamples)]
    hi = means[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return lo, hi


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pair counts: under no
    difference, b ~ Binomial(b + c, 1/2)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def cohen_kappa(a: list, b: list) -> float | None:
    """Cohen's κ between two raters' labels of the same items: agreement beyond what
    their own label frequencies would give by chance. None when it is undefined
    (no items, or both raters always give the same single label)."""
    if len(a) != len(b):
        raise ValueError("cohen_kappa needs two label lists of the same length")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    labels = set(a) | set(b)
    expected = sum((a.count(v) / n) * (b.count(v) / n) for v in labels)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def fleiss_kappa(counts: list[list[int]]) -> float | None:
    """Fleiss' κ: agreement among several raters (e.g. repeated judge samples), one row
    per item with how many raters chose each category. Every row needs the same number
    of raters (at least 2). None when undefined (no items, or one category only)."""
    rows = [r for r in counts if sum(r) > 0]
    if not rows:
        return None
    m = sum(rows[0])
    if m < 2 or any(sum(r) != m for r in rows):
        raise ValueError("fleiss_kappa needs the same number (>= 2) of ratings per item")
    n = len(rows)
    p_item = [(sum(c * c for c in r) - m) / (m * (m - 1)) for r in rows]
    p_bar = sum(p_item) / n
    k = len(rows[0])
    p_cat = [sum(r[j] for r in rows) / (n * m) for j in range(k)]
    p_e = sum(p * p for p in p_cat)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def mcnemar_exact_greater(b: int, c: int) -> float:
    """One-sided exact McNemar p-value that the first of two paired proportions is the
    larger: P(X >= b) for X ~ Binomial(b + c, 1/2), b and c the discordant pair counts."""
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, sum(math.comb(n, i) for i in range(b, n + 1)) / 2 ** n)


def paired_difference_ci(both: int, only_first: int, only_second: int, neither: int,
                         z: float = 1.959963984540054) -> tuple[float, float]:
    """95% CI of p1 - p2 for two proportions measured on the same items (Newcombe 1998,
    method 10: Wilson intervals of each combined through the phi correlation). Exact
    arithmetic, no resampling, so the same counts always give the same interval."""
    n = both + only_first + only_second + neither
    if n == 0:
        return -1.0, 1.0
    x1, x2 = both + only_first, both + only_second
    p1, p2 = x1 / n, x2 / n
    l1, u1 = wilson_interval(x1, n, z)
    l2, u2 = wilson_interval(x2, n, z)
    denom = (x1 * (n - x1) * x2 * (n - x2))
    phi = (both * neither - only_first * only_second) / math.sqrt(denom) if denom else 0.0
    d = p1 - p2
    delta = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    eps = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return max(-1.0, d - delta), min(1.0, d + eps)


def holm_adjust(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values (in the given order)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def difference_ci(x1: int, n1: int, x2: int, n2: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% CI of p1 - p2 for two independent proportions (Newcombe 1998, method 10: the
    Wilson intervals of each combined); exact arithmetic, like ``paired_difference_ci``."""
    if n1 == 0 or n2 == 0:
        return -1.0, 1.0
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson_interval(x1, n1, z)
    l2, u2 = wilson_interval(x2, n2, z)
    d = p1 - p2
    return max(-1.0, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)), min(1.0, d + math.sqrt((u1 - p1) ** 2
                                                                                            + (p2 - l2) ** 2))


def fisher_exact(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided Fisher exact p-value of the 2×2 table (x1 of n1 against x2 of n2): the
    probability, with the margins fixed, of a table no more likely than the one seen."""
    total, hits = n1 + n2, x1 + x2
    if total == 0:
        return 1.0
    denom = math.comb(total, hits)

    def prob(k: int) -> float:
        return math.comb(n1, k) * math.comb(n2, hits - k) / denom

    seen = prob(x1)
    lo, hi = max(0, hits - n2), min(hits, n1)
    p = sum(q for k in range(lo, hi + 1) if (q := prob(k)) <= seen * (1 + 1e-9))
    return min(1.0, p)
