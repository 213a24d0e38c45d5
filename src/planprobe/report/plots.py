"""Report figures with matplotlib: success vs difficulty with 95% CIs, and bar
charts of error classes and root causes. SVG for the HTML report, PNG or SVG
for export.

Deterministic output: a fixed SVG hash salt and no creation date, so the same
runs give a byte-identical report. The legend names each run as the summary
table does (``run_labels``); that user text is escaped for matplotlib, so a ``$``
in someone's directory name is a dollar sign, not mathtext, and a leading ``_``
does not hide the entry (the SVG writer escapes it for XML).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlanprobeError
from .data import Curve, RunData

COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "planprobe"
    matplotlib.rcParams["svg.fonttype"] = "none"  # real text: small files, selectable labels
    matplotlib.rcParams["font.size"] = 9
    import matplotlib.pyplot as plt

    return plt


def _save(fig, fmt: str) -> bytes:
    buf = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buf, format=fmt, metadata=metadata, bbox_inches="tight", dpi=120)
    _pyplot().close(fig)
    return buf.getvalue()


LABEL_CHARS = 48  # a longer run name is cut in the legend (the summary table has it whole)


def run_labels(names: Sequence[str]) -> list[str]:
    """The legend label of each run: its name (cut to LABEL_CHARS), with "(run N)" added
    when two runs would otherwise read the same."""
    cut = [n if len(n) <= LABEL_CHARS else n[:LABEL_CHARS - 1] + "…" for n in names]
    return [f"{c} (run {i + 1})" if cut.count(c) > 1 or not c else c for i, c in enumerate(cut)]


def _text(label: str) -> str:
    """User text as matplotlib shows it literally: every '$' escaped (no mathtext)."""
    return label.replace("$", r"\$")


def _label(names: Sequence[str] | None, run_index: int) -> str:
    return _text(names[run_index]) if names is not None else f"run {run_index + 1}"


def _legend(ax, entries: list[tuple[object, str]]) -> None:
    """A legend of exactly these (handle, label) pairs: matplotlib would leave out a label
    beginning with '_' if it collected them itself."""
    ax.legend([h for h, _ in entries], [lab for _, lab in entries], frameon=False, loc="best")


def curve_figure(axis: str, series: list[tuple[int, Curve]], fmt: str = "svg",
                 names: Sequence[str] | None = None, legend: bool | None = None, family: str = "") -> bytes:
    """Pass rate vs one difficulty axis; one line per run (named ``names[run index]``),
    error bars = Wilson 95% CI. The legend names the runs whenever there are several lines
    or ``legend`` asks for it (a report of several runs: the one line drawn says whose it is);
    ``family``, if given, is named on the x axis (two families' measures may share a name)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.0))
    entries = []
    for k, (run_index, curve) in enumerate(series):
        xs = [p["x"] for p in curve.points]
        ys = [100 * p["rate"] for p in curve.points]
        lo = [max(0.0, 100 * (p["rate"] - p["lo"])) for p in curve.points]
        hi = [max(0.0, 100 * (p["hi"] - p["rate"])) for p in curve.points]
        line = ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", ms=4, capsize=3, lw=1.5, color=COLORS[k % len(COLORS)])
        entries.append((line, _label(names, run_index)))
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(-2, 102)
    ax.set_xlabel(_plain(axis).replace("_", " ") + (f" ({_plain(family)} cases)" if family else ""))
    ax.set_ylabel("pass rate (%)")
    ax.grid(alpha=0.3)
    if len(series) > 1 or legend:
        _legend(ax, entries)
    return _save(fig, fmt)


def bars_figure(title: str, series: list[tuple[int, dict[str, int]]], fmt: str = "svg", legend: bool = False,
                baselines: dict[int, dict[str, int]] | None = None, names: Sequence[str] | None = None) -> bytes:
    """Share of failures per class (or root cause), grouped by run (named ``names[run index]``);
    a run's chance baseline (``baselines[run index]``), if any, is drawn hatched right below its bars."""
    plt = _pyplot()
    baselines = baselines or {}
    labels = sorted({k for _, counts in series for k in counts})
    bars = []
    for k, (run_index, counts) in enumerate(series):
        bars.append((counts, COLORS[k % len(COLORS)], _label(names, run_index), False))
        if run_index in baselines:
            bars.append((baselines[run_index], COLORS[k % len(COLORS)], _label(names, run_index) + " chance baseline",
                         True))
    fig, ax = plt.subplots(figsize=(5.2, 0.35 * max(3, len(labels)) * max(1, len(bars) / 2) + 0.8))
    width = 0.8 / max(1, len(bars))
    entries = []
    for k, (counts, color, label, hatched) in enumerate(bars):
        total = sum(counts.values()) or 1
        ys = [i + k * width for i in range(len(labels))]
        drawn = ax.barh(ys, [100 * counts.get(lab, 0) / total for lab in labels], height=width, color=color,
                        **({"alpha": 0.35, "hatch": "///", "edgecolor": color} if hatched else {}))
        entries.append((drawn, label))
    ax.set_yticks([i + 0.4 - width / 2 for i in range(len(labels))], labels=[_plain(lab) for lab in labels])
    ax.invert_yaxis()
    ax.set_xlabel(f"share of {title} (%)")
    ax.grid(axis="x", alpha=0.3)
    if legend:
        _legend(ax, entries)
    return _save(fig, fmt)


@dataclass
class CurveGroup:
    """One pass-rate figure: a family's difficulty axis, with the runs that have a curve on it."""

    key: str  # file-name-safe; "pass-rate-by-<axis>", with the family when the report holds several
    family: str
    axis: str
    series: list[tuple[int, Curve]]


def curve_groups(runs: list[RunData]) -> list[CurveGroup]:
    """The pass-rate figures: one per (family, axis), so a run is drawn only on its own family's
    measures (a constraint task's "constraints" are not an itinerary's)."""
    axes: dict[tuple[str, str], list[tuple[int, Curve]]] = {}
    for i, run in enumerate(runs):
        for curve in run.curves:
            axes.setdefault((curve.family, curve.axis), []).append((i, curve))
    several = len({family for family, _ in axes}) > 1
    return [CurveGroup(f"pass-rate-by-{_slug(family)}-{_slug(axis)}" if several else f"pass-rate-by-{_slug(axis)}",
                       family, axis, series) for (family, axis), series in sorted(axes.items())]


def figures(runs: list[RunData], fmt: str = "svg") -> dict[str, bytes]:
    """Every figure the report has, by a file-name-safe key."""
    out: dict[str, bytes] = {}
    names = run_labels([run.name for run in runs])
    groups = curve_groups(runs)
    several = len({g.family for g in groups}) > 1
    for g in groups:
        out[g.key] = curve_figure(g.axis, g.series, fmt, names, legend=len(runs) > 1,
                                  family=g.family if several else "")
    for key, title, attr in (("errors", "failures", "errors"), ("root-causes", "dissected failures", "root_causes")):
        counts = [(i, getattr(run, attr)) for i, run in enumerate(runs) if getattr(run, attr)]
        baselines = ({i: run.root_cause_baseline for i, run in enumerate(runs) if run.root_cause_baseline}
                     if attr == "root_causes" else {})
        if counts:
            out[key] = bars_figure(title, counts, fmt, legend=len(runs) > 1 or bool(baselines), baselines=baselines,
                                   names=names)
    return out


def _plain(text: str) -> str:
    """Suite-supplied text without '$', which matplotlib would read as mathtext."""
    return text.replace("$", "")


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-") or "axis"


def export_figures(runs: list[RunData], directory: Path, formats: Iterable[str]) -> list[Path]:
    from ..atomic import write_bytes_atomic

    directory = Path(directory)
    written = []
    for fmt in formats:
        if fmt not in ("png", "svg"):
            raise PlanprobeError(f"--plots format {fmt!r}: use png or svg")
        for key, data in figures(runs, fmt).items():
            path = directory / f"{key}.{fmt}"
            write_bytes_atomic(path, data)
            written.append(path)
    return written


def svg_inline(data: bytes) -> str | None:
    """The <svg> element of a matplotlib SVG file, for inlining (drops the XML prolog)."""
    text = data.decode("utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else None
