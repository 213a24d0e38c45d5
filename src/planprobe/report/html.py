"""One self-contained HTML file per report: inline CSS, inline SVG plots, the case
data as an inert block, and one inline script — no network, no CDN.

The case data is JSON, gzip-compressed and base64-encoded (the browser inflates
it with DecompressionStream): a 10,000-case run is ~18 MB of JSON, mostly task
text, and ~3 MB this way. Each task is stored once per case, not per result.

Escaping, in layers: Jinja2 autoescapes every value in the markup; the data
block is base64, which cannot close its element; the script puts data on the
page only through ``textContent``; and a Content-Security-Policy lets only the
report's own script (by its SHA-256) run, so even a missed escape could not
execute anything.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ..analysis.compare import compare_runs
from ..errors import PlanprobeError
from ..runner.store import RunStore
from ..version import __version__
from .data import RunData
from .plots import curve_groups, figures, svg_inline


def packed_json(obj: Any) -> str:
    """JSON -> gzip (mtime 0, so reports are byte-identical) -> base64: compact, and
    base64 has no character that could end the <script> element holding it."""
    raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _resource(name: str) -> str:
    return files("planprobe.report").joinpath("templates").joinpath(name).read_text(encoding="utf-8")


def _comparisons(runs: list[RunData]) -> tuple[list[dict], list[dict]]:
    """Each later run paired with the first, on the cases they share."""
    done, refused = [], []
    base = RunStore(Path(runs[0].directory))
    try:
        for j in range(1, len(runs)):
            other = RunStore(Path(runs[j].directory))
            try:
                done.append({"a": 0, "b": j, "data": compare_runs(base, other).to_json()})
            except PlanprobeError as exc:
                refused.append({"a": 0, "b": j, "reason": str(exc)})
            finally:
                other.close()
    finally:
        base.close()
    return done, refused


CAPTIONS = {
    "errors": "Primary error class of each failure, as a share of the run's failures.",
    "root-causes": "Root cause found by 'planprobe dissect' for each dissected failure.",
}


def render_report(runs: list[RunData], title: str = "") -> str:
    import jinja2

    if not runs:
        raise PlanprobeError("no runs to report")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    template = env.from_string(_resource("report.html.j2"))
    script = _resource("report.js")
    script_hash = "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    figs = figures(runs, "svg")
    captions = dict(CAPTIONS)
    for g in curve_groups(runs):
        whose = ", ".join(runs[i].name for i, _ in g.series)
        captions[g.key] = (f"Pass rate by {g.axis.replace('_', ' ')} of the {g.family or 'suite'} cases ({whose}), "
                           "with Wilson 95% confidence intervals.")
    comparisons, refused = _comparisons(runs) if len(runs) > 1 else ([], [])
    notes: list[str] = []
    cases: dict[str, Any] = {}
    for r in runs:
        for cid, info in r.cases.items():
            cases.setdefault(cid, info)
    data = {"cases": cases, "runs": [{"name": r.name, "rows": r.rows} for r in runs]}
    return template.render(
        title=title or ("planprobe report: " + ", ".join(r.name for r in runs)),
        version=__version__, runs=runs, heads=[r.head() for r in runs], notes=notes,
        comparisons=comparisons, refused=refused,
        figures=[(k, Markup(svg_inline(v) or "")) for k, v in figs.items()], captions=captions,
        css=Markup(_resource("report.css")), script=Markup(script), script_hash=script_hash,
        data_packed=packed_json(data),
    )
