"""``labeller eval``: score the golden set against a retriever, with intervals and a regression gate.

Exit codes: 0 done (also with leak findings, which only warn); 1 a regression, and only
with ``--fail-on-regression``: chunk recall at the shipped k dropped against the baseline
and the paired bootstrap interval of the drop excludes zero; 2 invalid input (including a
baseline that cannot gate this run because it measured a different quantity).
"""

from __future__ import annotations

import argparse
import sys

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from labeller.commands.common import add_format_option, add_project_options, console, placement_line, project_from
from labeller.commands.comparison_text import print_moved
from labeller.commands.eval_markdown import eval_markdown
from labeller.core.hitrules import hit_rule_forms
from labeller.core.outputs import check_output
from labeller.diagnostics import listing, print_bounded, safe_short, shorten
from labeller.display import safe_line, visible_line
from labeller.errors import EXIT_INVALID, EXIT_OK, EXIT_REFUSED, InvalidInput, LabellerError
from labeller.eval.html_report import require_charts, write_html_report
from labeller.eval.leaks import format_warning
from labeller.eval.present import (ALL_AT_K, CHARS_DELTAS, CHUNK_DELTAS, MAX_TAG_ROWS, PRECISION_OMEGA,
                                   SUBSET_COLUMNS, GridRow, ReportView, answer_ranks, ci_text, inline, mdd_sentence,
                                   power_sentence, scope_note, subset_rows, subset_sentence, traffic_columns,
                                   traffic_lines, traffic_rows, unplaced_sentence, value_text)
from labeller.eval.report_model import Comparison, Delta, Stat
from labeller.eval.report import read_report, render, write_report
from labeller.eval.chunkset import load_chunk_set
from labeller.eval.retrievers import make_retriever, write_run
from labeller.eval.runner import SPLITS, EvalResult, parse_budgets, parse_ks, run_eval

STAGES = {"index": "indexing chunks", "embed": "embedding chunks", "retrieve": "retrieving"}
FUSIONS = ("hybrid", "rrf")  # retrievers that fuse --run files with their members
QUERY_CHARS = 60


def register(sub) -> None:
    p = sub.add_parser("eval",
                       description="Build the golden set in memory, retrieve the top k chunks for every query "
                       "(BM25 by default, a TREC run file or a registered retriever) over the project's chunks or a "
                       "chunk file's (--chunks), and report recall@k, success@k, all@k, MRR@k and nDCG@k at chunk "
                       "and document level and character recall/precision/IoU@k, with 95% bootstrap intervals.")
    add_project_options(p)
    p.add_argument("--k", help="k sweep, comma-separated (default [eval] k: 1,5,10,20,50; the shipped k is "
                   "always added)")
    p.add_argument("--hit-rule", dest="eval_hit_rule",
                   help=f"hit rule for scoring (default: the build hit rule): {', '.join(hit_rule_forms())}")
    p.add_argument("--chunks", help="score this chunk file's chunking (JSONL, one chunk a line: {id, doc, start, "
                   "end} or {id, doc?, text}) instead of the project's chunks; BM25 and --run use its ids")
    p.add_argument("--strict", action="store_true", help="with --chunks: refuse the chunk file (exit 2) if any of "
                   "its chunks cannot be placed (default: leave them out, report them and the most recall could "
                   "change)")
    p.add_argument("--run", action="append", help="score this TREC run file (qid Q0 docid rank score tag; docid = "
                   "chunk id of the chunking scored) instead of BM25; repeated, or with --retriever rrf:... or "
                   "hybrid, the runs are fused with the retrievers")
    p.add_argument("--retriever", help="a registered retriever by name: bm25 (default), dense and hybrid "
                   "(labeller[dense], [retriever.dense]), rrf:NAME,NAME,... (reciprocal-rank fusion, "
                   "[retriever.fusion]); third-party ones register in the labeller.retrievers entry-point group")
    p.add_argument("--budget", help="character budgets for chars recall@budget=B, comma-separated (e.g. 2000,8000)")
    p.add_argument("--analyzer", help="BM25 analyzer (default [eval] analyzer: auto); e.g. auto, plain")
    p.add_argument("--split", choices=SPLITS, help="score only this split")
    p.add_argument("--include-holdout", action="store_true",
                   help="also score holdout records (kept out of every eval otherwise)")
    p.add_argument("--baseline", help="a previous JSON report to compare with (paired per-query deltas)")
    p.add_argument("--condensed", action="store_true",
                   help="drop the chunks nobody judged (no label or judgment covers them) from each ranking before "
                   "scoring, as trec_eval -J")
    p.add_argument("--power", type=float, metavar="DELTA",
                   help="how many questions a difference of DELTA in chunk recall at the shipped k needs to be "
                   "detected (80%% power), at this set's variance (paired against --baseline when given)")
    p.add_argument("--subset", type=int, metavar="N",
                   help="score a stable, stratified subset of N records (a pull request's quick run; the full set "
                   "stays for the nightly one) and state the smallest difference it can still detect")
    p.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 if chunk recall at the shipped k dropped and its interval excludes zero")
    add_format_option(p, "markdown")  # markdown: a pull-request comment (eval_markdown.py)
    p.add_argument("--out", dest="report_out", help="also write the JSON report to this file")
    p.add_argument("--html", help="also write a self-contained HTML report (charts, sortable per-query table, "
                   "misses, leaks; needs the report extra: pip install 'labeller[report]')")
    p.add_argument("--write-run", help="write the retrieved rankings as a TREC run file")
    p.add_argument("--no-history", action="store_true", help="do not append this run to the run history")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.fail_on_regression and not args.baseline:
        raise InvalidInput("--fail-on-regression needs --baseline REPORT")
    runs = args.run or []
    name = args.retriever or ("rrf" if len(runs) > 1 else "run" if runs else "bm25")
    fused = name in FUSIONS or name.startswith("rrf:")
    if runs and name != "run" and not fused:
        raise InvalidInput(f"--run replays a run file; it cannot be combined with --retriever {args.retriever} "
                           f"(fuse them: --retriever rrf:{args.retriever})")
    if name == "run" and len(runs) != 1:
        raise InvalidInput("--retriever run needs --run FILE" if not runs else
                           "--retriever run replays one run file; fuse several with --retriever rrf")
    if args.analyzer and name != "bm25":
        raise InvalidInput(f"--analyzer applies to the BM25 retriever, not to {'a --run file' if args.run else name}")
    ks = parse_ks(args.k) if args.k else None
    budgets = parse_budgets(args.budget) if args.budget else ()
    baseline = read_report(args.baseline) if args.baseline else None
    project = project_from(args)
    for flag, target in (("--out", args.report_out), ("--write-run", args.write_run), ("--html", args.html)):
        if target:  # before the work: a report must not replace the labels it scores
            check_output(project.config, target, flag)
    if args.html:
        require_charts()  # before the work: a missing extra is exit 2 with the install line, not a lost run
    if not args.no_history:
        check_output(project.config, project.layout.run_history, "[eval] history")
    chunks = load_chunk_set(project, args.chunks, strict=args.strict)
    with progress_bar() as progress:
        options = ({"path": runs[0]} if name == "run" else {"runs": runs, "progress": progress} if fused else
                   {"analyzer": args.analyzer, "progress": progress} if name == "bm25" else {"progress": progress})
        retriever = make_retriever(name, project, chunks=chunks, **options)
        result = run_eval(project, ks=ks, hit_rule=args.eval_hit_rule, retriever=retriever, chunks=chunks,
                          split=args.split, include_holdout=args.include_holdout, baseline=baseline,
                          budgets=budgets, progress=progress, condensed=args.condensed, power=args.power,
                          subset=args.subset)
    absent = missing_queries(result)
    unrecorded = None
    if not args.no_history:  # before the report is written: a failure is one of its warnings
        from labeller.eval.history import append_run

        try:
            append_run(project.layout.run_history, result.model, result.seconds)
        except LabellerError as exc:
            unrecorded = f"run not recorded in the history: {exc}"
    leaks = format_warning(result.report["findings"], k=result.report["config"]["retrieved_depth"], one_line=True)
    # one line each, at most three, sorted: what the text output prints on stderr, in the document
    report = result.report | {"warnings": sorted(shorten(w) for w in (absent, leaks.removeprefix("warning: "),
                                                                       unrecorded) if w)}
    written = write_report(args.report_out, report, keep=args.format == "json") if args.report_out else None
    if args.write_run:
        write_run(args.write_run, result.hits, tag=_run_tag(report))
    if args.html:
        write_html_report(args.html, result, project)
    if args.format == "json":  # stdout is the document alone, its warnings inside: stderr is for errors
        sys.stdout.writelines(written if written is not None else [render(report)])  # encoded once: --out's text
        return gate(report, args.fail_on_regression)
    if args.format == "markdown":
        print(eval_markdown(result.model))
    else:
        print_report(result)
    err = console(stderr=True)
    unplaced = report["chunking"].get("unplaced")
    if unplaced:
        print_unplaced(err, unplaced)
    if absent:
        err.print(f"[yellow]warning:[/] {safe_line(absent)}", soft_wrap=True)
    for judged in (d for d in report["diagnostics"] if d["check"] in ("judged", "judged_breakdowns")):
        if judged["status"] == "warn":  # under --format json: in its diagnostics only
            err.print(f"[yellow]warning:[/] {safe_line(judged['reading'])}", soft_wrap=True)
    warning = format_warning(report["findings"], k=report["config"]["retrieved_depth"])
    if warning:
        print(warning, file=sys.stderr)
    if unrecorded:
        err.print(f"[yellow]warning:[/] {safe_line(unrecorded)}")
    return gate(report, args.fail_on_regression)


def print_unplaced(err, unplaced: dict) -> None:
    """The chunk file's unplaced chunks on stderr: how many, what they may have cost (an upper
    bound), and the first ``TEXT_LIMIT`` with line and reason (every one is in the JSON report)."""
    err.print(f"[yellow]warning:[/] {unplaced_sentence(unplaced)}; --strict refuses such a file", soft_wrap=True)
    print_bounded(err, (f"  line {u['line']} {safe_short(u['id'])}: {safe_line(u['message'])}"
                        for u in unplaced["listed"]), unplaced["chunks"], "unplaced chunks")


def missing_queries(result: EvalResult) -> str | None:
    """The warning for golden queries a run file has no rows for (None: it has all, or the
    retriever is not a run), on one bounded line: the first ten ids and a count."""
    missing = getattr(result.retriever, "missing", None)
    absent = missing(list(result.hits)) if missing is not None else []
    if not absent:
        return None
    one = len(absent) == 1
    return (f"{len(absent)} golden quer{'y has' if one else 'ies have'} no rows in the run file and "
            f"score{'s' if one else ''} as misses (negatives: as drawing nothing): {listing(absent, 'queries', 10)}")


def gate(report: dict, fail_on_regression: bool) -> int:
    comparison = report.get("comparison")
    if not fail_on_regression or comparison is None:
        return EXIT_OK
    if not comparison["comparable"]:
        console(stderr=True).print(f"[bold red]cannot gate on this baseline:[/] {safe_line(comparison['reason'])}")
        return EXIT_INVALID
    return EXIT_REFUSED if comparison["regression"] else EXIT_OK


def _run_tag(report: dict) -> str:
    r = report["fingerprint"]["retriever"]
    return "-".join(str(x) for x in (r.get("name"), r.get("analyzer")) if x) or "labeller"


class progress_bar:
    """A rich progress bar on stderr while indexing and retrieving (only on a terminal)."""

    def __enter__(self):
        self.bar: Progress | None = None
        self.tasks: dict[str, TaskID] = {}
        if sys.stderr.isatty():
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=console(stderr=True), transient=True)
            self.bar.start()
        return self if self.bar is not None else None

    def __call__(self, stage: str, done: int, total: int) -> None:
        bar = self.bar
        if bar is None:  # __enter__ hands out no callback without a bar
            return
        if stage not in self.tasks:
            self.tasks[stage] = bar.add_task(STAGES.get(stage, stage), total=total)
        bar.update(self.tasks[stage], completed=done, total=total)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


# -- text output ----------------------------------------------------------------------------


def fmt_stat(s: Stat) -> Text:
    """The value, and under it its 95% interval (dim); "no data" when n is 0."""
    value = value_text(s)
    if value is None:
        return Text("no data", style="dim")
    ci = ci_text(s)
    return Text(value) + Text(f"\n{ci}" if ci else "", style="dim")


def grid_table(title: str, ks: list[int], rows: list[GridRow]) -> Table:
    t = Table(title=title, title_justify="left")
    t.add_column("metric")
    for k in ks:
        t.add_column(f"@{k}", justify="right")
    t.add_column("n", justify="right")
    for row in rows:
        cells = [fmt_stat(s) for s in row.stats]
        t.add_row(row.label, *cells, *([""] * (len(ks) - len(cells))), str(row.n))
    return t


def print_report(result: EvalResult) -> None:
    rep = result.model
    view = ReportView(rep)
    out = console()
    fp, cfg = rep.fingerprint, rep.config
    ks = fp.k
    r = fp.retriever
    settings = ", ".join(f"{k} {v}" for k, v in r.items() if k in ("analyzer", "file", "model"))
    if "members" in r:  # a fusion: its members, by name
        settings = f"{r['fusion']['method']} of " + " + ".join(
            str(m.get("model") or m.get("file") or m.get("name")) for m in r["members"])
    if "field_weights" in r:
        settings += ", weights " + " ".join(f"{k} {v:g}" for k, v in r["field_weights"].items())
    rec = cfg.records
    scope = scope_note(cfg.split, cfg.include_holdout)
    out.print(f"[bold]labeller eval[/] · {safe_line(r['name'])} ({safe_line(settings)})")
    ch = rep.chunking
    scored = (safe_line(ch.name) if ch.origin != "file" else
              f"chunk file {safe_line(ch.name)} ({ch.n_chunks} chunks, digest {ch.digest[:12]}; golden set "
              f"built with {fp.chunker})")
    out.print(f"hit rule [bold]{fp.hit_rule}[/] · {scored} · "
              f"{rec.scored} scored queries, {rec.negatives} negatives, {scope} · "
              f"{int(cfg.confidence * 100)}% bootstrap intervals ({cfg.bootstrap_samples} resamples, "
              f"seed {cfg.seed}) · fingerprint {fp.digest[:12]}")
    if ch.located is not None:
        out.print(f"chunks placed: {placement_line(ch.located)}", soft_wrap=True)
    if ch.unplaced:
        out.print(f"unplaced: {unplaced_sentence(ch.unplaced)}", soft_wrap=True)
    out.print(grid_table(f"chunk level (a hit: a retrieved chunk satisfies {fp.hit_rule} for an answer span; "
                         f"not comparable across chunkings)" + (" · condensed: unjudged chunks dropped" if
                                                                cfg.condensed else ""),
                         ks, view.metric_grid("chunk") + view.judged_grid()))
    out.print(grid_table("document level (ranks among distinct retrieved documents)", ks, view.metric_grid("doc")))
    per_k, budgets = view.chars_grid()
    out.print(grid_table("characters (share of the answer text retrieved; comparable across chunkings)", ks,
                         per_k + budgets))
    mean = f"{ch.mean_chars:.0f}" if ch.mean_chars is not None else "-"
    out.print(f"chunking {safe_line(ch.name)}: {ch.n_chunks} chunks, mean {mean} characters · precision_omega "
              f"({PRECISION_OMEGA}) {inline(ch.precision_omega)}"
              + (f" · [yellow]{ch.unreachable_spans} answer span(s) no chunk can hit under {fp.hit_rule}[/]"
                 if ch.unreachable_spans else ""))
    out.print(ALL_AT_K, style="dim")
    shipped = cfg.shipped_k
    print_breakdowns(view, shipped)
    d = Table(title="diagnostics", title_justify="left")
    d.add_column("check")
    d.add_column("status")
    d.add_column("reading")
    colour = {"ok": "green", "warn": "yellow", "fail": "bold red", "n/a": "dim"}
    for diag in rep.diagnostics:
        d.add_row(diag.check, Text(diag.status, style=colour[diag.status]), safe_line(diag.reading))  # tag names
    out.print(d)
    misses = view.misses()
    if misses:
        m = Table(title=f"misses at k = {shipped}: what was retrieved instead", title_justify="left")
        for col in ("query", "text", "answer (hit rank)", "retrieved instead"):
            m.add_column(col)
        for q in misses:
            answer = answer_ranks(q)
            instead = "\n".join(f"{h.rank}. {h.heading_path}" for h in q.retrieved[:3]) or "nothing"
            m.add_row(safe_line(q.query_id), safe_line(_short(q.query)), safe_line(answer), safe_line(instead)
                      if "\n" not in instead else Text("\n".join(visible_line(x) for x in instead.split("\n"))))
        out.print(m)
    else:
        out.print(f"no misses at k = {shipped}")
    if rep.negatives:
        n = Table(title="negatives (unanswerable: not in recall or MRR) and the scores they drew", title_justify="left")
        for col in ("query", "text", "top score", "top result"):
            n.add_column(col, justify="right" if col == "top score" else "left")
        for neg in rep.negatives:
            top = neg.retrieved[0].heading_path if neg.retrieved else "nothing"
            score = f"{neg.top_score:.3f}" if neg.top_score is not None else "-"
            n.add_row(safe_line(neg.query_id), safe_line(_short(neg.query)), score, safe_line(top))
        out.print(n)
    if rep.comparison is not None:
        print_comparison(rep.comparison, shipped)
    if rep.power is not None:
        out.print(safe_line(power_sentence(rep.power)))
    if rep.subset is not None:
        print_subset(rep.subset)
    if rep.traffic is not None:
        print_traffic(rep.traffic)


def print_subset(s: dict) -> None:
    """``--subset N``: its sentence, then how many records each stratum gave."""
    out = console()
    out.print(safe_line(subset_sentence(s)))
    table = Table(title="subset by stratum", title_justify="left")
    for col in SUBSET_COLUMNS:
        table.add_column(col, justify="left" if col == "stratum" else "right")
    for cells in subset_rows(s):
        table.add_row(*(safe_line(c) for c in cells))
    out.print(table)


def print_traffic(t: dict) -> None:
    """The traffic-weighted estimate (SPEC §14) beside the unweighted mean, then per stratum and
    per tenant, and the tenants whose interval lies below the rest's."""
    out = console()
    lines = traffic_lines(t)
    out.print(safe_line(lines[0]))
    out.print(safe_line(lines[1]), style="dim")
    columns = traffic_columns(t)
    table = Table(title=f"traffic-weighted {t['metric']} by stratum and tenant", title_justify="left")
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i in (0, 1, 5) else "right")
    for row in traffic_rows(t):
        table.add_row(*(safe_line(c) for c in row.cells()), style="bold red" if row.below else None)
    out.print(table)
    for line in lines[2:]:
        out.print(safe_line(line))


def print_breakdowns(view: ReportView, shipped: int) -> None:
    """One line per split, hop and tag (values only; intervals are in the JSON)."""
    names, rows, hidden = view.breakdown_rows()
    b = Table(title=f"breakdowns (chunk level, shipped k = {shipped})", title_justify="left")
    for col in ("by", "group", *names, "n"):
        b.add_column(col, justify="left" if col in ("by", "group") else "right")
    for row in rows:
        b.add_row(row.kind, safe_line(row.group), *(_value(s) for s in row.values), str(row.n))
    if b.row_count:
        out = console()
        out.print(b)
        if hidden:
            out.print(f"  (the {MAX_TAG_ROWS} tags with the lowest {names[0]}; {hidden} more in --format json)")


def _value(s: Stat) -> Text:
    value = value_text(s)
    return Text("no data", style="dim") if value is None else Text(value)


def print_comparison(c: Comparison, shipped: int) -> None:
    out = console()
    out.print(f"[bold]comparison with baseline[/] {str(c.baseline_fingerprint)[:12]}")
    for d in c.fingerprint_differences:
        out.print(f"  [yellow]differs:[/] {safe_line(d['field'])}: {safe_line(str(d['baseline']))} → "
                  f"{safe_line(str(d['current']))}")
    if not c.comparable:
        out.print(f"  [bold yellow]not compared:[/] {safe_line(str(c.reason))}")
    if c.deltas is not None:
        out.print(delta_table(f"paired deltas over {c.paired} queries (current − baseline, chunk level)",
                              c.deltas["chunk"], CHUNK_DELTAS))
    if c.chars_deltas:
        n = max((s.n for s in c.chars_deltas.values()), default=0)
        out.print(delta_table(f"paired deltas over {n} queries (current − baseline, characters: comparable across "
                              "chunkings)", c.chars_deltas, CHARS_DELTAS))
    if (sentence := mdd_sentence(c)) is not None:
        out.print(safe_line(sentence))
    if c.comparable:
        verdict = ("[bold red]regression[/]: recall@{k} dropped and the interval excludes zero" if c.regression
                   else "[green]no regression[/] at recall@{k} (a drop counts only when its interval excludes zero)")
        out.print(verdict.format(k=shipped))
    print_moved(out, c)


def delta_table(title: str, deltas: dict[str, Delta], prefixes: tuple[str, ...]) -> Table:
    t = Table(title=title, title_justify="left")
    for col in ("metric", "baseline", "current", "delta [95% CI]"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for row in ReportView.delta_rows(deltas, prefixes):
        t.add_row(row.name, row.baseline, row.current, Text(row.delta) + Text(f" {row.ci}", style="dim"))
    return t


def _short(text: str) -> str:
    return text if len(text) <= QUERY_CHARS else text[:QUERY_CHARS - 1] + "…"
