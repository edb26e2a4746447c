"""``eval --format markdown``: a run, or its comparison with a baseline, as a pull-request comment.

A reviewer wants what moved, not 40 lines of numbers: with ``--baseline`` the paired deltas
(metric, before, after, Δ, interval, verdict) and the queries whose recall changed; without,
the metrics at the shipped k. Every number is the presenter's (``eval.present``), so the
comment shows what ``labeller eval`` prints. Tables are bounded like ``build --check``'s
(``diagnostics.markdown_table``: the first rows, then a count), every cell is escaped
(``diagnostics.markdown_cell``: queries, tags and headings come from the pull request, and must
not mention, reference or link), and the comment is bounded (``diagnostics.bounded_comment``).
"""

from __future__ import annotations

from collections.abc import Sequence

from labeller.diagnostics import TEXT_LIMIT, bounded_comment, markdown_cell, markdown_table, more_line
from labeller.eval.present import (CHARS_DELTAS, CHUNK_DELTAS, MOVED_HEADER, SUBSET_COLUMNS, ReportView, answer_ranks,
                                   ci_text, delta_verdict, inline, mdd_sentence, moved_rows, power_sentence,
                                   subset_rows, subset_sentence, traffic_columns, traffic_lines, traffic_rows,
                                   unplaced_sentence, value_text)
from labeller.eval.report_model import Comparison, Delta, EvalReport, Stat

TITLE = "### labeller eval"
DELTA_HEADER = ("metric", "before", "after", "Δ", "95% interval", "verdict")
SENTENCE_CHARS = 1000  # one sentence of the comment that lists names (the tenants below the rest), escaped
FULL_REPORT = "`labeller eval --format json` (every query and number) or its HTML report (`--html FILE`)"


def eval_markdown(report: EvalReport) -> str:
    """The whole comment: a headline, what was run, then the comparison or the metrics, then the
    misses; cut to ``COMMENT_CHARS`` (``diagnostics.bounded_comment``), pointing at the full report."""
    view = ReportView(report)
    fp, cfg = report.fingerprint, report.config
    k = cfg.shipped_k
    gate = report.aggregate.chunk.get(f"recall@{k}")
    headline = f"chunk recall@{k} {inline(gate)}" if gate is not None else f"shipped k = {k}"
    c = report.comparison
    if c is not None:
        headline = _comparison_headline(c, k)
    lines = [f"{TITLE}: {markdown_cell(headline)}", "",
             markdown_cell(f"retriever {fp.retriever.get('name')} · hit rule {fp.hit_rule} · chunking "
                           f"{report.chunking.name} · {cfg.records.scored} scored queries, {cfg.records.negatives} "
                           f"negatives · {int(cfg.confidence * 100)}% bootstrap intervals · fingerprint "
                           f"{fp.digest[:12]}"), ""]
    if report.chunking.unplaced:
        lines += [f"**warning**: {markdown_cell(unplaced_sentence(report.chunking.unplaced), SENTENCE_CHARS)}", ""]
    lines += _comparison(c, k) if c is not None else _metrics(view)
    for sentence in (mdd_sentence(c) if c is not None else None,
                     power_sentence(report.power) if report.power is not None else None):
        if sentence is not None:  # a blank line first: a line right after a table would be one of its rows
            lines += ["", markdown_cell(sentence)]
    lines += _subset(report.subset) if report.subset is not None else []
    lines += _traffic(report.traffic) if report.traffic is not None else []
    for d in report.diagnostics:  # with judgments: the split, tag and hop groups under the judged floor
        if d.check == "judged_breakdowns" and d.status == "warn":
            lines += ["", f"**warning**: {markdown_cell(d.reading, 1000)}"]
    misses = view.misses()
    lines += ["", f"**misses at k = {k}**: {len(misses)} of {cfg.records.scored} scored queries", ""]
    if misses:
        lines += markdown_table(("id", "query", "answer (hit rank)", "top retrieved"),
                                ([q.query_id, q.query, answer_ranks(q),
                                  q.retrieved[0].heading_path if q.retrieved else "nothing"] for q in misses),
                                len(misses), "misses", listed=None)
    if report.findings:
        lines += ["", markdown_cell(f"{len(report.findings)} leak finding(s): a document quotes a golden "
                                    "question (labeller leaks)")]
    return bounded_comment("\n".join(lines), FULL_REPORT)


def _metrics(view: ReportView) -> list[str]:
    """Each measure at the shipped k with its interval, chunk and document level, then characters."""
    ks, k = view.ks, view.shipped
    at = ks.index(k)
    rows: list[tuple[str, Stat]] = []
    for level in ("chunk", "doc"):
        grid = view.metric_grid(level) + (view.judged_grid() if level == "chunk" else [])
        rows += [(f"{level} {row.label}@{k}", row.stats[at]) for row in grid if len(row.stats) > at]
    per_k, budgets = view.chars_grid()
    rows += [(f"{row.label}@{k}", row.stats[at]) for row in per_k] + [(row.label, row.stats[0]) for row in budgets]
    cells = ([name, value_text(s) or "no data", f"[{ci}]" if (ci := ci_text(s, ", ", 3)) else "", str(s.n)]
             for name, s in rows)
    return markdown_table(("metric", "value", "95% interval", "n"), cells, len(rows), "metrics", listed=None)


def _subset(s: dict) -> list[str]:
    """``--subset N``: its sentence, then the records taken per stratum (strata come from the
    log's columns: escaped, and bounded like every table)."""
    rows = subset_rows(s)
    return ["", f"**subset**: {markdown_cell(subset_sentence(s), SENTENCE_CHARS)}", "",
            *markdown_table(SUBSET_COLUMNS, rows, len(rows), "subset strata")]


def _traffic(t: dict) -> list[str]:
    """The traffic-weighted estimate and its estimator, the tenants named below the rest, then
    one table of strata and one of tenants (the weakest first), each bounded: a log may have
    thousands of tenants, and their names are the log's, so every one is escaped."""
    head, estimator, *below = traffic_lines(t)
    lines = ["", f"**{markdown_cell(head, SENTENCE_CHARS)}**", "", markdown_cell(estimator, SENTENCE_CHARS)]
    lines += [f"**warning**: {markdown_cell(b, SENTENCE_CHARS)}" for b in below]
    rows = traffic_rows(t)
    for by, what in (("stratum", "strata"), ("tenant", "tenants")):
        mine = [r.cells() for r in rows if r.by == by]
        if mine:
            lines += ["", *markdown_table(traffic_columns(t), mine, len(mine), what)]
    return lines


def _comparison_headline(c: Comparison, k: int) -> str:
    if not c.comparable:
        return "not compared with the baseline"
    return f"regression at chunk recall@{k}" if c.regression else f"no regression at chunk recall@{k}"


def _comparison(c: Comparison, k: int) -> list[str]:
    """Fingerprint differences, then the paired deltas per level, then the queries that moved."""
    lines = [markdown_cell(f"baseline {str(c.baseline_fingerprint)[:12]}; current − baseline, paired by query id"
                           + (f" over {c.paired} queries" if c.paired else "")), ""]
    lines += differs_lines(c)
    if not c.comparable:
        lines += ["", f"not compared: {markdown_cell(str(c.reason))}"]
    tables = [("chunk", c.deltas["chunk"], CHUNK_DELTAS)] if c.deltas is not None else []
    tables += [("chars", c.chars_deltas, CHARS_DELTAS)] if c.chars_deltas else []
    lines += delta_tables(tables)
    if c.comparable and c.deltas is not None:
        gate = c.deltas["chunk"][f"recall@{k}"]  # a comparable comparison has it (``compare``)
        lines += ["", f"**verdict**: {'regression' if c.regression else 'no regression'} "
                      f"({markdown_cell(c.gate_metric)} {delta_verdict(gate)}; a drop fails the gate only when its "
                      "interval excludes zero)"]
    return lines + moved_queries(c)


def differs_lines(c: Comparison) -> list[str]:
    """``- differs: field: baseline → current`` for the first ``TEXT_LIMIT`` fingerprint fields
    that differ, then a count: a baseline report is a file, and 400 planted fields were 400
    lines of the comment."""
    diffs = c.fingerprint_differences
    lines = [f"- differs: {markdown_cell(str(d.get('field')))}: {markdown_cell(str(d.get('baseline')))} → "
             f"{markdown_cell(str(d.get('current')))}" for d in diffs[:TEXT_LIMIT]]
    tail = more_line(len(lines), len(diffs), "fingerprint differences")
    return lines + ([f"- {tail}"] if tail else [])


def delta_tables(tables: Sequence[tuple[str, dict[str, Delta], tuple[str, ...]]]) -> list[str]:
    """(level, deltas, metric prefixes) → one table of paired deltas per level (``DELTA_HEADER``),
    each after a blank line; ``eval --baseline`` and ``runs compare`` print the same tables."""
    lines: list[str] = []
    for level, deltas, prefixes in tables:
        rows = ReportView.delta_rows(deltas, prefixes)
        lines += ["", *markdown_table(DELTA_HEADER, ([f"{level} {r.name}", r.baseline, r.current, r.delta, r.ci,
                                                      r.verdict] for r in rows), len(rows), "deltas", listed=None)]
    return lines


def moved_queries(c: Comparison) -> list[str]:
    """The queries whose gate metric changed, most lost first (none: no lines)."""
    moved = moved_rows(c)
    if not moved:
        return []
    return ["", f"**queries whose {markdown_cell(c.gate_metric)} moved**: {len(moved)}", "",
            *markdown_table(MOVED_HEADER, ([m.query_id, m.before, m.after, m.delta] for m in moved), len(moved),
                            "queries that moved", listed=None)]
