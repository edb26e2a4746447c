"""``labeller runs``: the eval run history (DuckDB), with a trend of one metric.

``labeller runs compare BEFORE AFTER`` compares two recorded runs as ``eval --baseline``
compares two reports (``labeller.eval.runs_compare``): per rank metric at the shipped k,
chunk and document level, before, after, the paired delta, its bootstrap interval and a
verdict, with the minimum detectable difference and the queries whose gate metric moved; as
text, JSON or a Markdown table for a pull request. Exit 0, or 2 when a run id is unknown or the runs measured different things.
"""

from __future__ import annotations

import argparse
import re

from rich.table import Table
from rich.text import Text

from labeller.commands.common import add_format_option, add_root_options, config_from, console, refuse_action_format
from labeller.commands.comparison_text import print_moved
from labeller.commands.eval_markdown import DELTA_HEADER, delta_tables, differs_lines, moved_queries
from labeller.diagnostics import bounded_comment, markdown_cell, print_with_command
from labeller.core.outputs import check_output
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, InvalidInput
from labeller.eval.history import list_runs
from labeller.eval.measures import FAMILIES
from labeller.eval.metrics import LEVELS
from labeller.eval.present import ReportView, mdd_sentence
from labeller.eval.report_model import Comparison
from labeller.eval.runs_compare import compare_runs

SPARKS = "▁▂▃▄▅▆▇█"


def register(sub) -> None:
    p = sub.add_parser("runs",
                       description="List the runs recorded by `labeller eval` in the run history "
                       "([eval] history, default .labeller/runs.duckdb) with one metric per run and its trend. "
                       "The database is plain DuckDB: query it with SQL for anything else.")
    add_root_options(p)
    p.add_argument("--metric", help="metric to show, e.g. recall@5, mrr@10 (default: recall at the shipped k)")
    p.add_argument("--level", choices=LEVELS, default="chunk", help="chunk or doc level (default chunk)")
    p.add_argument("--limit", type=int, default=20, help="how many of the latest runs (default 20)")
    add_format_option(p, "markdown")  # markdown: `compare`'s, here so it may come before `compare`
    p.set_defaults(func=run)
    actions = p.add_subparsers(dest="action", metavar="compare")
    c = actions.add_parser("compare", help="compare two recorded runs: paired deltas with intervals and verdicts",
                           description="Compare two runs of the history as `labeller eval --baseline` compares "
                           "reports: each rank metric at the shipped k (chunk and doc level), before, after, the "
                           "paired delta over the queries both scored, its 95% paired bootstrap interval, a verdict "
                           "(better/worse only when the interval excludes zero) and the minimum detectable "
                           "difference at 80% power. Runs that measured different things (another hit rule or "
                           "chunking) are refused (exit 2).")
    c.add_argument("before", metavar="BEFORE", help="a run id as `labeller runs` lists it, or latest, latest~1, ...")
    c.add_argument("after", metavar="AFTER", help="the run compared with BEFORE (e.g. latest)")
    add_root_options(c, inherited=True)  # `labeller runs --root R compare A B` keeps R
    add_format_option(c, "markdown", inherited=True)
    c.set_defaults(func=run_compare)


def run(args: argparse.Namespace) -> int:
    refuse_action_format(args, "runs compare", "markdown")
    cfg = config_from(args)
    metric = args.metric or f"recall@{cfg.eval.shipped_k}"
    families = FAMILIES.names()
    if not re.fullmatch(rf"({'|'.join(map(re.escape, families))})@([1-9]\d*)", metric):
        raise InvalidInput(f"--metric must look like recall@5 (one of {', '.join(families)} @ k), got {metric!r}")
    if args.limit < 1:
        raise InvalidInput("--limit must be at least 1")
    path = check_output(cfg, cfg.layout.run_history, "[eval] history")  # DuckDB may write even to read
    rows = list_runs(path, metric, args.level, args.limit)
    if args.format == "json":
        runs = [{**r, "started_at": r["started_at"].isoformat() if r["started_at"] else None} for r in rows]
        print(json_dumps({"history": str(path), "metric": metric, "level": args.level, "runs": runs}, indent=2, sort_keys=True))
        return EXIT_OK
    out = console()
    if not rows:
        print_with_command(out, f"no runs recorded yet in {safe_line(str(path))}; an eval records one:", "labeller eval")
        return EXIT_OK
    t = Table(title=f"eval runs ({args.level} {metric}, oldest first)", title_justify="left")
    # a run id is what `runs compare` takes: never cut or folded (issue 38); the other columns wrap
    t.add_column("run", no_wrap=True, min_width=max(len(safe_line(r["run_id"])) for r in rows))
    for col in ("started (UTC)", "retriever", "hit rule", "n", metric, "Δ", "leaks"):
        t.add_column(col, justify="right" if col in ("n", metric, "Δ", "leaks") else "left")
    prev: dict[tuple, float] = {}
    for r in rows:
        measure = (r["chunker"], r["max_chars"], r["hit_rule"])
        value = r["value"]
        delta = ""
        if value is not None and measure in prev:
            delta = f"{value - prev[measure]:+.3f}"
        if value is not None:
            prev[measure] = value
        shown = Text("no data", style="dim") if value is None else (
            Text(f"{value:.3f}") + Text(f" {r['ci_low']:.2f}–{r['ci_high']:.2f}", style="dim"))
        retriever = retriever_label(r["retriever"], r["analyzer"])
        t.add_row(safe_line(r["run_id"]), r["started_at"].strftime("%Y-%m-%d %H:%M"), safe_line(retriever),
                  safe_line(r["hit_rule"]),
                  str(r["n_scored"]), shown, delta, str(r["n_findings"]))
    out.print(t)
    latest = rows[-1]
    measure = (latest["chunker"], latest["max_chars"], latest["hit_rule"])
    series = [r["value"] for r in rows if (r["chunker"], r["max_chars"], r["hit_rule"]) == measure
              and r["value"] is not None]
    if series:
        out.print(f"trend of {metric} over the {len(series)} run(s) with {safe_line(str(measure[0]))} max_chars "
                  f"{measure[1]} and hit rule {safe_line(str(measure[2]))} (other settings measure something else): "
                  f"{sparkline(series)} "
                  f"{series[0]:.3f} → {series[-1]:.3f}")
    return EXIT_OK


def sparkline(values: list[float]) -> str:
    """One block character per value, scaled between the series' min and max."""
    lo, hi = min(values), max(values)
    if hi == lo:
        return SPARKS[len(SPARKS) // 2] * len(values)
    return "".join(SPARKS[round((v - lo) / (hi - lo) * (len(SPARKS) - 1))] for v in values)


def run_compare(args: argparse.Namespace) -> int:
    cfg = config_from(args)
    path = check_output(cfg, cfg.layout.run_history, "[eval] history")  # DuckDB may write even to read
    data = compare_runs(path, args.before, args.after)
    if args.format == "json":
        print(json_dumps(data, indent=2, sort_keys=True))
        return EXIT_OK
    c = Comparison.model_validate(data["comparison"])
    assert c.deltas is not None  # a comparable comparison has them (``compare_runs`` refuses the others)
    tables = [(level, c.deltas[level], ("",)) for level in LEVELS]
    if args.format == "markdown":
        lines = [f"### labeller runs compare: {markdown_cell(headline(data, c))}", "",
                 *(f"- {markdown_cell(line)}" for line in summary(data)),
                 *differs_lines(c), *delta_tables(tables)]
        lines += ["", markdown_cell(sentence)] if (sentence := mdd_sentence(c)) is not None else []
        print(bounded_comment("\n".join(lines + moved_queries(c)), "`labeller runs compare --format json`"))
        return EXIT_OK
    out = console()
    out.print(f"[bold]{safe_line(headline(data, c))}[/]")
    for line in summary(data):
        out.print(safe_line(line), soft_wrap=True)
    for line in differences(c):
        out.print(f"  [yellow]differs:[/] {safe_line(line)}")
    t = Table(title=f"paired deltas at k = {data['shipped_k']} (after − before)", title_justify="left")
    for col in DELTA_HEADER:
        t.add_column(col, justify="left" if col in ("metric", "verdict") else "right")
    for level, deltas, prefixes in tables:
        for r in ReportView.delta_rows(deltas, prefixes):
            t.add_row(f"{level} {r.name}", r.baseline, r.current, r.delta, r.ci, r.verdict)
    out.print(t)
    if (sentence := mdd_sentence(c)) is not None:
        out.print(safe_line(sentence), soft_wrap=True)
    print_moved(out, c)
    return EXIT_OK


def headline(data: dict, c: Comparison) -> str:
    """What moved at the gate metric, in the words of ``eval --baseline``'s verdict."""
    before, after = data["before"]["run_id"], data["after"]["run_id"]
    return f"{before} → {after}: {'regression' if c.regression else 'no regression'} at {c.gate_metric}"


def summary(data: dict) -> list[str]:
    """Which runs, how many queries were paired and how many only one run scored, how the intervals were drawn."""
    c = data["comparison"]

    def run_line(side: str) -> str:
        run = data[side]
        r = run["retriever"] or {}
        retriever = retriever_label(r.get("name"), r.get("analyzer"))
        started = (run["started_at"] or "?")[:19].replace("T", " ")
        return f"{side} {run['run_id']}: {retriever}, started {started} UTC, {run['queries']} queries"

    return [run_line("before"), run_line("after"),
            f"{c['paired']} queries paired by id, {c['only_in_baseline']} only in before, {c['only_in_current']} "
            "only in after",
            f"{int(data['confidence'] * 100)}% paired bootstrap intervals ({data['bootstrap_samples']} samples, seed "
            f"{data['seed']}); better or worse only when the interval excludes zero"]


def differences(c: Comparison) -> list[str]:
    """The fingerprint fields that differ (what the comparison is about: retriever, corpus, ...)."""
    return [f"{d.get('field')}: {d.get('baseline')} → {d.get('current')}" for d in c.fingerprint_differences]


def retriever_label(name, analyzer) -> str:
    """``bm25 labeller-auto-v2``: a run's retriever as the listing and the comparison name it."""
    return " ".join(str(x) for x in (name, analyzer) if x) or "unknown"
