"""``labeller leaks``: the ``golden-queries-quoted`` scan on its own, without retrieval.

The same scan runs inside every ``labeller eval``; alone it needs no index, so every
``rank_in_top_k`` is null. Findings are an observation, not a failure: they go to the
report and to a stderr warning, and the exit code stays 0. A build with label errors
exits 1 instead, because the whole-document exemption needs every record's spans.
"""

from __future__ import annotations

import argparse
import sys

from rich.table import Table

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.commands.refusals import report_refusals
from labeller.core.build import build
from labeller.diagnostics import TEXT_LIMIT, listing, more_line, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, EXIT_REFUSED
from labeller.eval.leaks import CLEAN, LEAK_CHECK, MIN_NEEDLE_CODE_POINTS, find_leaks, format_warning, needles


def register(sub) -> None:
    p = sub.add_parser("leaks",
                       description=f"Scan every chunk of the corpus for documents that quote two or more golden "
                       f"queries word for word ({LEAK_CHECK}). Such a document is either a note about the "
                       "evaluation or a source the golden file should list as expected. Findings never change "
                       "the exit code.")
    add_project_options(p)
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    result = build(project, project.load_questions().questions)
    if not result.ok:
        report_refusals(project, result, args.format, "leaks needs a clean build",
                        "fix them first (the scan exempts each record's answer documents)")
        return EXIT_REFUSED
    findings = find_leaks(project.all_chunks, result.records)
    if args.format == "json":
        print(json_dumps({"findings": findings}, indent=2, sort_keys=True))
    else:
        print_findings(findings, n_needles=len(needles(result.records)), n_records=len(result.records),
                       n_chunks=len(project.all_chunks))
    warning = format_warning(findings, one_line=args.format == "json")
    if warning:
        print(warning, file=sys.stderr)
    return EXIT_OK


def print_findings(findings: list[dict], *, n_needles: int, n_records: int, n_chunks: int) -> None:
    out = console()
    out.print(f"scanned {n_chunks:,} chunks (heading, breadcrumb, body) for {n_needles:,} distinct golden "
              f"queries of {n_records:,} records (queries under {MIN_NEEDLE_CODE_POINTS} characters are skipped)")
    if not findings:
        out.print(f"[green]clean:[/] {CLEAN}")
        return
    t = Table(title=LEAK_CHECK)
    t.add_column("document")
    t.add_column("quoted queries")
    for f in findings[:TEXT_LIMIT]:
        t.add_row(safe_short(f["path"]), safe_line(listing([q["query_id"] for q in f["quoted"]], "queries")))
    out.print(t)
    more = more_line(TEXT_LIMIT, len(findings), "documents")
    if more:
        out.print(f"[dim]{more}[/]")
