"""The HTML report's charts: Vega-Lite specs rendered to SVG when the report is written.

The charts are declared, not drawn: each function here returns a Vega-Lite spec (data and
encoding), and ``svg`` renders it with vl-convert, which carries Vega-Lite and its
JavaScript engine in one wheel (the ``report`` extra) and needs no browser and no network
(``allowed_base_urls=[]``: a spec cannot name a URL to load). The report then holds plain
SVG, so it opens anywhere with no script and nothing to fetch.

Vega numbers its clip paths with a counter that lives as long as the process (``clip1``,
then ``clip2`` for the same spec), and two charts in one page would share ids; ``svg``
renames every id after the chart it belongs to, in document order, so the same report
gives the same bytes and the ids of one page are unique.
"""

from __future__ import annotations

import re
from typing import Any

from labeller.diagnostics import shorten
from labeller.display import visible_line
from labeller.errors import InvalidInput
from labeller.eval.present import BreakdownRow
from labeller.eval.report_model import Stat

VEGA_LITE = "5.21"  # pinned: the same spec draws the same SVG whichever Vega-Lite vl-convert defaults to
EXTRA = "pip install 'labeller[report]'"
WIDTH = 420
# A group's label on the axis: Vega lays out each label's text at a cost that grows with its
# length (a 32,000-character tag took 12 s, a 300,000-character one did not finish in 10 minutes).
LABEL_CHARS = 80
_ID = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')


def require_vl_convert() -> Any:
    """The vl_convert module, or exit 2 naming the extra that provides it."""
    try:
        import vl_convert
    except ImportError:
        raise InvalidInput(f"--html draws its charts with vl-convert-python, which is not installed: {EXTRA}") from None
    return vl_convert


def svg(spec: dict, name: str) -> str:
    """``spec`` rendered to SVG, its ids renamed ``<name>-1``, ``<name>-2``… in document order."""
    drawn: str = require_vl_convert().vegalite_to_svg(spec, vl_version=VEGA_LITE, allowed_base_urls=[])
    ids: dict[str, str] = {}
    for m in _ID.finditer(drawn):
        if m.group(1).endswith('id="'):
            ids.setdefault(m.group(2), f"{name}-{len(ids) + 1}")
    return _ID.sub(lambda m: m.group(1) + ids.get(m.group(2), m.group(2)), drawn)


def point(series: str, k: int, s: Stat) -> dict | None:
    """One point of a curve with its interval (None: no data at this k)."""
    if s.value is None:
        return None
    low = s.value if s.ci_low is None else s.ci_low
    high = s.value if s.ci_high is None else s.ci_high
    return {"series": series, "k": k, "value": s.value, "low": low, "high": high}


def curve_spec(title: str, metric: str, points: list[dict]) -> dict:
    """A metric over the k sweep, one line per series (colour and dash: equal curves stay
    apart), its 95% interval as a band; the series keep the order they come in."""
    x = {"field": "k", "type": "ordinal", "title": "k", "sort": "ascending", "axis": {"labelAngle": 0}}
    order = list(dict.fromkeys(p["series"] for p in points))
    series = {"field": "series", "type": "nominal", "title": None, "sort": order}
    legend = {"orient": "bottom", "symbolType": "stroke"}
    return {"title": title, "width": WIDTH, "height": 220, "data": {"values": points},
            "resolve": {"legend": {"color": "independent"}},
            "layer": [{"mark": {"type": "area", "opacity": 0.18},
                       "encoding": {"x": x, "y": {"field": "low", "type": "quantitative"}, "y2": {"field": "high"},
                                    "color": {**series, "legend": None}}},
                      {"mark": {"type": "line", "point": True},
                       "encoding": {"x": x, "color": {**series, "legend": legend},
                                    "strokeDash": {**series, "legend": None},
                                    "y": {"field": "value", "type": "quantitative", "title": metric,
                                          "scale": {"domain": [0, 1]}}}}]}


def breakdown_spec(title: str, metric: str, rows: list[BreakdownRow]) -> dict:
    """One bar per group (a split, a tag) at its value, a rule across its 95% interval."""
    values, labels = [], set()
    for i, row in enumerate(rows):
        s = row.values[0]
        if s.value is not None:  # the label keeps its order; untrusted, it is shown with controls visible
            label = f"{shorten(visible_line(row.group), LABEL_CHARS)} (n={row.n})"
            label = label if label not in labels else f"{label} #{i + 1}"  # two cut tags alike stay two bars
            labels.add(label)
            values.append({"group": label, "order": i, "value": s.value,
                           "low": s.value if s.ci_low is None else s.ci_low,
                           "high": s.value if s.ci_high is None else s.ci_high})
    y = {"field": "group", "type": "nominal", "title": None, "sort": {"field": "order"}}
    return {"title": title, "width": WIDTH, "data": {"values": values},
            "height": {"step": 18},
            "layer": [{"mark": {"type": "bar", "opacity": 0.7},
                       "encoding": {"y": y, "x": {"field": "value", "type": "quantitative", "title": metric,
                                                  "scale": {"domain": [0, 1]}}}},
                      {"mark": {"type": "rule"},
                       "encoding": {"y": y, "x": {"field": "low", "type": "quantitative"}, "x2": {"field": "high"}}}]}
