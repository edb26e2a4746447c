"""``labeller eval --html REPORT.html``: the run as one self-contained page to look at.

What it shows is what the text report shows, from the same presenter (``eval.present``):
recall@k and MRR@k curves with their intervals, the per-split and per-tag breakdowns, the
metrics table, the comparison with a baseline, every scored query in a table that sorts
on a click, the misses with each gold span beside the top retrieved chunk, the negatives,
the leak report and the run's fingerprint.

One file, nothing to fetch: the CSS and the sorting script are inline, the charts are SVG
drawn when the report is written (``eval.charts``), and a Content-Security-Policy lets the
page load nothing (``default-src 'none'``) and run only its own script (by hash). Queries,
tags, headings and passages come from the repository, which is untrusted (a fork's pull
request): every one is HTML-escaped, with control and bidi characters made visible
(``display.visible``), so none can become markup, a script or reordered text. The same
run gives the same bytes: no timestamp, ids numbered per chart, rows in report order.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from labeller.core.project import Project
from labeller.diagnostics import more_line, shorten
from labeller.display import visible, visible_line
from labeller.eval import charts
from labeller.eval.present import (CHARS_DELTAS, CHUNK_DELTAS, SUBSET_COLUMNS, ReportView, interval, mdd_sentence,
                                   number, rank_text, subset_rows, subset_sentence, traffic_columns, traffic_lines,
                                   traffic_rows, unplaced_sentence, value_text)
from labeller.eval.report_model import EvalReport
from labeller.eval.runner import EvalResult
from labeller.io import atomic_write_text

MISS_LIMIT = 100  # misses shown with their passages; the per-query table lists every query
PASSAGE_CHARS = 1200  # one passage, in the misses section

require_charts = charts.require_vl_convert

SORT_JS = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var numeric = th.dataset.type === "number";
      var key = function (row) {
        var c = row.cells[col], text = c.dataset.sort !== undefined ? c.dataset.sort : c.textContent;
        if (!numeric) return text;
        var v = parseFloat(text);
        return isNaN(v) ? -Infinity : v;  // "no data" sorts below every number
      };
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var d = x < y ? -1 : x > y ? 1 : 0;
        return (up ? d : -d) || a.dataset.order - b.dataset.order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""

CSS = """\
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ddd; padding: 2px 6px;
  text-align: left; vertical-align: top; unicode-bidi: isolate; } td.num, th.num { text-align: right; }
#queries td:first-child { white-space: nowrap; }
table.sortable th { cursor: pointer; background: #f4f4f4; } th[aria-sort=ascending]::after { content: " ▲"; }
th[aria-sort=descending]::after { content: " ▼"; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; } .charts figure { margin: 0; }
.charts svg { max-width: 100%; height: auto; }
.miss { display: grid; grid-template-columns: 1fr 1fr; gap: .5em 1em; margin: 1em 0; }
.miss h3 { grid-column: 1 / 3; font-size: 1em; margin: 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f8f8f8; padding: .5em; margin: .2em 0; }
.worse, .fail { color: #b00; } .better, .ok { color: #070; } .warn { color: #a60; } .dim { color: #777; }
"""


@dataclass(frozen=True)
class Passage:
    """A piece of the corpus shown in full: where it is and its text."""

    where: str
    text: str


@dataclass(frozen=True)
class MissPassages:
    gold: list[Passage]
    top: Passage | None


def miss_passages(result: EvalResult, project: Project) -> dict[str, MissPassages]:
    """For each miss: the gold spans' texts and the top retrieved chunk's, from the corpus."""
    first = result.chunks.positions.first
    out = {}
    for q in result.model.queries:
        if not q.miss:
            continue
        gold = [Passage(f"{sp['doc_id']}:{sp['char_start']}–{sp['char_end']}",
                        project.corpus[sp["doc_id"]].text[sp["char_start"]:sp["char_end"]]) for sp in q.answer_spans]
        top = None
        if q.retrieved:
            c = first[q.retrieved[0].chunk_id]
            top = Passage(f"rank 1 · chunk {c.chunk_id[:12]} · {c.doc_id}:{c.start}–{c.end} · {c.heading_path}",
                          c.text)
        out[q.query_id] = MissPassages(gold, top)
    return out


def write_html_report(path: str | Path, result: EvalResult, project: Project) -> None:
    atomic_write_text(Path(path), render_html(result.model, miss_passages(result, project)))


# -- the page -----------------------------------------------------------------------------


def render_html(report: EvalReport, passages: dict[str, MissPassages]) -> str:
    """The whole page; ``passages``: the texts of each miss (``miss_passages``)."""
    view = ReportView(report)
    fp = report.fingerprint
    body = [f"<h1>labeller eval · {_t(str(fp.retriever.get('name')))} · fingerprint {_t(fp.digest[:12])}</h1>",
            f"<p>{_t(_summary(report))}</p>",
            *([f"<p><strong>warning</strong>: {_t(unplaced_sentence(report.chunking.unplaced))}</p>"]
              if report.chunking.unplaced else []),
            *_charts(view), *_metrics(view), *_comparison(view), *_subset(report), *_traffic(report),
            *_breakdowns(view), *_queries(view),
            *_misses(view, passages), *_negatives(report), *_diagnostics(report), *_leaks(report, view),
            *_fingerprint(report)]
    script_hash = base64.b64encode(hashlib.sha256(SORT_JS.encode()).digest()).decode()
    csp = f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{script_hash}'"
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>labeller eval {_t(fp.digest[:12])}</title>", f"<style>\n{CSS}</style>", "</head>", "<body>",
        *body, f"<script>{SORT_JS}</script>", "</body>", "</html>", ""])  # the text the hash is of


def _summary(report: EvalReport) -> str:
    fp, cfg = report.fingerprint, report.config
    rec = cfg.records
    return (f"hit rule {fp.hit_rule} · chunking {report.chunking.name} ({report.chunking.n_chunks} chunks) · "
            f"{rec.scored} scored queries, {rec.negatives} negatives · shipped k = {cfg.shipped_k} · "
            f"{int(cfg.confidence * 100)}% bootstrap intervals ({cfg.bootstrap_samples} resamples, seed {cfg.seed})")


def _charts(view: ReportView) -> list[str]:
    agg = view.report.aggregate
    chars = agg.chars or {}
    levels = (("chunk", agg.chunk), ("document", agg.doc), ("characters", chars))

    def points(metric: str) -> list[dict]:
        return [p for series, stats in levels for k in view.ks
                if (s := stats.get(f"{metric}@{k}")) is not None and (p := charts.point(series, k, s)) is not None]

    specs = [("recall", charts.curve_spec("recall@k", "recall", points("recall"))),
             ("mrr", charts.curve_spec("MRR@k", "MRR", points("mrr")))]
    names, rows, hidden = view.breakdown_rows()
    for kind, title in (("split", "per split"), ("tag", "per tag")):
        mine = [r for r in rows if r.kind == kind]
        if mine:
            more = f" (the {len(mine)} weakest; {hidden} more in the JSON)" if kind == "tag" and hidden else ""
            specs.append((kind, charts.breakdown_spec(f"{names[0]} {title}{more}", names[0], mine)))
    return ["<h2>Curves and breakdowns</h2>", '<div class="charts">',
            *(f'<figure class="chart" id="chart-{name}">{charts.svg(spec, f"chart-{name}")}</figure>'
              for name, spec in specs), "</div>"]


def _metrics(view: ReportView) -> list[str]:
    rows = [*((f"chunk {r.label}", r) for r in view.metric_grid("chunk")),
            *((f"doc {r.label}", r) for r in view.metric_grid("doc"))]
    per_k, budgets = view.chars_grid()
    rows += [(r.label, r) for r in per_k + budgets]
    head = ["metric", *(f"@{k}" for k in view.ks)]
    return ["<h2>Metrics (value [95% interval] n)</h2>",
            _table(head, ([name, *(interval(s) for s in r.stats)] for name, r in rows),
                   numeric=set(range(1, len(head))))]


def _comparison(view: ReportView) -> list[str]:
    c = view.comparison
    if c is None:
        return []
    out = ["<h2>Comparison with the baseline</h2>",
           f"<p>baseline {_t(str(c.baseline_fingerprint)[:12])}; current − baseline, paired by query id</p>"]
    out += [f"<p>differs: {_t(str(d.get('field')))}: {_t(str(d.get('baseline')))} → {_t(str(d.get('current')))}</p>"
            for d in c.fingerprint_differences]
    if not c.comparable:
        out.append(f"<p>not compared: {_t(str(c.reason))}</p>")
    tables = [("chunk", c.deltas["chunk"], CHUNK_DELTAS)] if c.deltas is not None else []
    tables += [("chars", c.chars_deltas, CHARS_DELTAS)] if c.chars_deltas else []
    for level, deltas, prefixes in tables:
        rows = ReportView.delta_rows(deltas, prefixes)
        out.append(_table(["metric", "before", "after", "Δ", "95% interval", "verdict"],
                          ([f"{level} {r.name}", r.baseline, r.current, r.delta, r.ci, r.verdict] for r in rows),
                          numeric={1, 2, 3}))
    if c.comparable:
        out.append(f'<p class="{"fail" if c.regression else "ok"}">{"regression" if c.regression else "no regression"}'
                   f" at {_t(c.gate_metric)}</p>")
    if (sentence := mdd_sentence(c)) is not None:
        out.append(f"<p>{_t(sentence)}</p>")
    return out


def _subset(report: EvalReport) -> list[str]:
    """``--subset N``: what it scored, what it can still detect, and the records per stratum."""
    s = report.subset
    if s is None:
        return []
    return ["<h2>Subset (--subset)</h2>", f"<p>{_t(subset_sentence(s))}</p>",
            _table(SUBSET_COLUMNS, subset_rows(s), numeric={1, 2}, sortable=True)]


def _traffic(report: EvalReport) -> list[str]:
    """The traffic-weighted estimate, its estimator, the tenants below the rest, and one row per
    stratum and tenant (the tenant names are the log's: escaped like every cell)."""
    t = report.traffic
    if t is None:
        return []
    head, estimator, *below = traffic_lines(t)
    return ["<h2>Traffic-weighted estimates</h2>", f"<p>{_t(head)}</p>", f"<p class=dim>{_t(estimator)}</p>",
            *(f'<p class="fail">{_t(b)}</p>' for b in below),
            _table(traffic_columns(t), (r.cells() for r in traffic_rows(t)), numeric={2, 4}, sortable=True)]


def _breakdowns(view: ReportView) -> list[str]:
    names, rows, hidden = view.breakdown_rows()
    if not rows:
        return []
    out = ["<h2>Breakdowns (chunk level)</h2>",
           _table(["by", "group", *names, "n"], ([r.kind, r.group, *(value_text(s) or "no data" for s in r.values),
                                                  str(r.n)] for r in rows),
                  numeric=set(range(2, 3 + len(names))), sortable=True)]
    if hidden:
        out.append(f"<p class=dim>the tags with the lowest {_t(names[0])} are listed; {hidden} more in the JSON</p>")
    return out


def _queries(view: ReportView) -> list[str]:
    k = view.shipped
    rows = []
    for line, q in zip(view.query_lines(), view.report.queries):
        sort = {4: "Infinity" if line.first_rank is None else str(line.first_rank)}  # not retrieved: last
        rows.append(([line.query_id, line.query, q.split or "", ", ".join(q.tags),
                      str(line.first_rank or "not retrieved"), line.recall, line.mrr, "miss" if q.miss else ""], sort))
    head = ["id", "query", "split", "tags", "first hit rank", f"recall@{k}", f"mrr@{k}", f"miss@{k}"]
    return [f"<h2>Queries ({len(rows)}; click a column to sort)</h2>",
            _table(head, (cells for cells, _ in rows), numeric={4, 5, 6}, sortable=True, sort_keys=[s for _, s in rows],
                   table_id="queries")]


def _misses(view: ReportView, passages: dict[str, MissPassages]) -> list[str]:
    misses = view.misses()
    out = [f"<h2>Misses at k = {view.shipped} ({len(misses)}): each gold span beside the top retrieved chunk</h2>"]
    for q in misses[:MISS_LIMIT]:
        p = passages.get(q.query_id)
        gold = "".join(f"<p>{_t(g.where)} ({rank_text(rank)})</p><pre>{_block(g.text)}</pre>"
                       for g, rank in zip(p.gold if p else [], q.hit_ranks))
        top = (f"<p>{_t(p.top.where)}</p><pre>{_block(p.top.text)}</pre>" if p and p.top
               else "<p>nothing retrieved</p>")
        out.append(f'<section class="miss"><h3>{_t(q.query_id)}: {_t(q.query)}</h3>'
                   f"<div><strong>gold</strong>{gold}</div>"
                   f"<div><strong>retrieved instead</strong>{top}</div></section>")
    tail = more_line(min(len(misses), MISS_LIMIT), len(misses), "misses")
    return out + ([f"<p class=dim>{_t(tail)}</p>"] if tail else [])


def _negatives(report: EvalReport) -> list[str]:
    if not report.negatives:
        return []
    rows = ([n.query_id, n.query, number(n.top_score), n.retrieved[0].heading_path if n.retrieved else "nothing"]
            for n in report.negatives)
    return ["<h2>Negatives (unanswerable) and the scores they drew</h2>",
            _table(["id", "query", "top score", "top result"], rows, numeric={2})]


def _diagnostics(report: EvalReport) -> list[str]:
    return ["<h2>Diagnostics</h2>",
            _table(["check", "status", "reading"], ([d.check, d.status, d.reading] for d in report.diagnostics))]


def _leaks(report: EvalReport, view: ReportView) -> list[str]:
    out = ["<h2>Leak report</h2>"]
    if not report.findings:
        return out + ["<p>no document quotes a golden question</p>"]
    rows = ([f.check, path, quoted] for f, (path, quoted) in zip(report.findings, view.leak_rows()))
    return out + [_table(["check", "document", "questions quoted (rank of the document)"], rows)]


def _fingerprint(report: EvalReport) -> list[str]:
    fp = report.fingerprint.model_dump(mode="json")
    rows = ([key, str(fp[key])] for key in sorted(fp))
    return ["<h2>Fingerprint</h2>", _table(["field", "value"], rows)]


# -- cells --------------------------------------------------------------------------------


def _t(text: str) -> str:
    """Untrusted text on one line, as HTML text: escaped, controls and bidi marks visible."""
    return html.escape(visible_line(text), quote=True)


def _block(text: str) -> str:
    """An untrusted passage, its lines kept, cut at ``PASSAGE_CHARS``."""
    return html.escape(visible(shorten(text, PASSAGE_CHARS)), quote=True)


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Collection[int] = (),
           sortable: bool = False, sort_keys: Sequence[dict[int, str]] = (), table_id: str | None = None) -> str:
    """A table of escaped cells; a sortable one has each row's order and, per column, a sort key."""
    attrs = (f' id="{table_id}"' if table_id else "") + (' class="sortable"' if sortable else "")
    ths = "".join(f'<th{" class=num data-type=number" if i in numeric else ""}>{_t(h)}</th>'
                  for i, h in enumerate(head))
    lines = [f"<table{attrs}>", f"<thead><tr>{ths}</tr></thead>", "<tbody>"]
    for n, row in enumerate(rows):
        keys = sort_keys[n] if n < len(sort_keys) else {}
        tds = "".join(_cell(cell, i in numeric, keys.get(i)) for i, cell in enumerate(row))
        lines.append(f'<tr data-order="{n}">{tds}</tr>')
    return "\n".join([*lines, "</tbody>", "</table>"])


def _cell(text: str, numeric: bool, sort_key: str | None) -> str:
    attrs = (" class=num" if numeric else "") + (f' data-sort="{_t(sort_key)}"' if sort_key is not None else "")
    return f"<td{attrs}>{_t(text)}</td>"
