"""Repeated trials and paired comparisons of runs.

pass@k and pass^k summarise repeated trials of one run (with bootstrap CIs over
cases); flaky cases are those whose trials disagree. Two runs of the same cases
are compared pair by pair — (case, trial) results present in both, infrastructure
failures left out — with McNemar's exact test on the discordant pairs and a
paired bootstrap CI on the difference in pass rate. The gate turns that into an
exit code and JUnit XML for CI.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from ..errors import PlanprobeError
from ..runner.store import RunStore
from .stats import bootstrap_ci, mcnemar_exact, pass_at_k, pass_hat_k


def outcomes(store: RunStore) -> dict[str, dict[int, tuple[bool, str | None]]]:
    """case id -> trial -> (passed, primary error), infrastructure failures excluded."""
    out: dict[str, dict[int, tuple[bool, str | None]]] = defaultdict(dict)
    for row in store.rows():
        if not row.infra:
            out[row.case_id][row.trial] = (row.passed, row.primary_error)
    return dict(out)


@dataclass
class TrialStats:
    trials: int
    cases: int
    pass_at: dict[int, tuple[float, tuple[float, float]]]
    pass_hat: dict[int, tuple[float, tuple[float, float]]]
    flaky: list[tuple[str, int, int]]  # (case id, passed, trials)

    def to_json(self) -> dict:
        return {
            "trials": self.trials, "cases": self.cases,
            "pass_at_k": {str(k): {"value": round(v, 6), "ci95": [round(lo, 6), round(hi, 6)]}
                          for k, (v, (lo, hi)) in self.pass_at.items()},
            "pass_hat_k": {str(k): {"value": round(v, 6), "ci95": [round(lo, 6), round(hi, 6)]}
                           for k, (v, (lo, hi)) in self.pass_hat.items()},
            "flaky_cases": [{"case_id": c, "passed": p, "trials": n} for c, p, n in self.flaky],
        }


def trial_stats(store: RunStore, seed: int = 0) -> TrialStats:
    per_case = outcomes(store)
    counts = [(cid, sum(p for p, _ in t.values()), len(t)) for cid, t in per_case.items() if t]
    n_min = min((n for _, _, n in counts), default=0)
    pass_at, pass_hat = {}, {}
    for k in sorted({1, 2, 3, 5, 10, n_min} - {0}):
        if k > n_min:
            continue
        at = [pass_at_k(n, c, k) for _, c, n in counts]
        hat = [pass_hat_k(n, c, k) for _, c, n in counts]
        pass_at[k] = (sum(at) / len(at), bootstrap_ci(at, seed=seed))
        pass_hat[k] = (sum(hat) / len(hat), bootstrap_ci(hat, seed=seed))
    flaky = sorted((cid, c, n) for cid, c, n in counts if 0 < c < n)
    return TrialStats(trials=n_min, cases=len(counts), pass_at=pass_at, pass_hat=pass_hat, flaky=flaky)


@dataclass
class Comparison:
    pairs: int
    shared_cases: int
    rate_a: float
    rate_b: float
    a_only: int  # discordant: A passed, B failed
    b_only: int
    p_value: float
    diff_ci: tuple[float, float]  # CI of rate_b - rate_a
    notes: list[str] = field(default_factory=list)
    regressions: list[tuple[str, int, str | None]] = field(default_factory=list)  # passed in A, failed in B
    results_b: dict[str, dict[int, tuple[bool, str | None]]] = field(default_factory=dict)

    @property
    def diff(self) -> float:
        return self.rate_b - self.rate_a

    def to_json(self) -> dict:
        return {
            "pairs": self.pairs, "shared_cases": self.shared_cases,
            "pass_rate_a": round(self.rate_a, 6), "pass_rate_b": round(self.rate_b, 6),
            "difference": round(self.diff, 6), "difference_ci95": [round(self.diff_ci[0], 6), round(self.diff_ci[1], 6)],
            "a_passed_b_failed": self.a_only, "a_failed_b_passed": self.b_only,
            "mcnemar_exact_p": round(self.p_value, 6), "notes": self.notes,
            "regressions": [{"case_id": c, "trial": t, "error": e} for c, t, e in self.regressions],
        }


def _cases_json(store: RunStore) -> dict[str, str]:
    return {cid: raw for cid, raw in store.db.execute("SELECT case_id, json FROM cases")}


def compare_runs(a: RunStore, b: RunStore, seed: int = 0) -> Comparison:
    """Pair the two runs' results. Runs of different suites are compared on the cases
    they share (same id and same content), with a note; none shared is an error."""
    notes = []
    cases_a, cases_b = _cases_json(a), _cases_json(b)
    shared = {cid for cid, raw in cases_a.items() if cases_b.get(cid) == raw}
    if not shared:
        raise PlanprobeError(f"{a.directory} and {b.directory} share no cases: they ran different suites")
    if a.meta().get("suite_sha256") != b.meta().get("suite_sha256"):
        notes.append(f"the runs used different suites: comparing the {len(shared)} cases they share "
                     f"({len(cases_a)} in A, {len(cases_b)} in B)")
    out_a, out_b = outcomes(a), outcomes(b)
    for name, store, res in (("A", a, out_a), ("B", b, out_b)):
        expected = len(cases_a if store is a else cases_b) * int(store.meta().get("trials", "1"))
        done = sum(len(t) for t in res.values())
        if done < expected:
            notes.append(f"run {name} ({store.directory}) is unfinished or has infrastructure failures: "
                         f"{expected - done} of {expected} results missing; only results present in both are paired")
    per_case: dict[str, list[float]] = {}
    a_only = b_only = pa = pb = pairs = 0
    regressions = []
    for cid in sorted(shared):
        ta, tb = out_a.get(cid, {}), out_b.get(cid, {})
        diffs = []
        for trial in sorted(set(ta) & set(tb)):
            x, y = ta[trial][0], tb[trial][0]
            pairs += 1
            pa += x
            pb += y
            a_only += x and not y
            b_only += y and not x
            if x and not y:
                regressions.append((cid, trial, tb[trial][1]))
            diffs.append(float(y) - float(x))
        if diffs:
            per_case[cid] = diffs
    if pairs == 0:
        raise PlanprobeError("the two runs have no finished results in common to compare")
    # paired bootstrap over cases of the mean per-pair difference
    case_means = [sum(d) / len(d) for d in per_case.values()]
    lo, hi = bootstrap_ci(case_means, seed=seed)
    return Comparison(pairs=pairs, shared_cases=len(per_case), rate_a=pa / pairs, rate_b=pb / pairs, a_only=a_only,
                      b_only=b_only, p_value=mcnemar_exact(a_only, b_only), diff_ci=(lo, hi), notes=notes,
                      regressions=regressions, results_b={c: out_b.get(c, {}) for c in per_case})


def parse_points(text: str) -> float:
    """'2pp', '2', '2%' -> 2.0 percentage points."""
    t = text.strip().lower().removesuffix("pp").removesuffix("%").strip()
    try:
        value = float(t)
    except ValueError:
        raise PlanprobeError(f"--max-drop {text!r}: expected percentage points, e.g. 2pp") from None
    if value < 0:
        raise PlanprobeError(f"--max-drop {text!r}: must not be negative")
    return value


@dataclass
class GateResult:
    passed: bool
    drop_pp: float
    max_drop_pp: float
    alpha: float
    comparison: Comparison

    @property
    def reason(self) -> str:
        c = self.comparison
        base = (f"pass rate {100 * c.rate_a:.1f}% -> {100 * c.rate_b:.1f}% (drop {self.drop_pp:+.1f} pp, "
                f"allowed {self.max_drop_pp:g} pp; McNemar exact p = {c.p_value:.4g})")
        if self.passed:
            return "gate passed: " + base
        return "gate failed: significant drop, " + base


def gate(run: RunStore, baseline: RunStore, max_drop_pp: float, alpha: float = 0.05) -> GateResult:
    """Fails when the pass rate fell by more than ``max_drop_pp`` points and McNemar's
    exact test finds the change significant at ``alpha``."""
    c = compare_runs(baseline, run)
    drop = 100 * (c.rate_a - c.rate_b)
    failed = drop > max_drop_pp and c.p_value < alpha
    return GateResult(passed=not failed, drop_pp=drop, max_drop_pp=max_drop_pp, alpha=alpha, comparison=c)


def junit_xml(result: GateResult) -> str:
    """One test for the gate, one per compared case result (failing where the run failed it)."""
    c = result.comparison
    cases = []
    failures = 0 if result.passed else 1
    gate_case = '<testcase classname="planprobe.gate" name="pass-rate">'
    if not result.passed:
        gate_case += f"<failure message={quoteattr(result.reason)}>{escape(json.dumps(c.to_json()))}</failure>"
    cases.append(gate_case + "</testcase>")
    for cid, trials in sorted(c.results_b.items()):
        for trial, (passed, error) in sorted(trials.items()):
            tc = f'<testcase classname="planprobe.cases" name={quoteattr(f"{cid}#{trial}")}>'
            if not passed:
                failures += 1
                tc += f"<failure message={quoteattr(error or 'failed')}/>"
            cases.append(tc + "</testcase>")
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<testsuite name="planprobe" tests="{len(cases)}" '
            f'failures="{failures}">\n' + "\n".join(cases) + "\n</testsuite>\n")
