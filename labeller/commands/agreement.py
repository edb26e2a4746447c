"""``labeller agreement --with NAME``: how far questions.jsonl (A) and a second annotator (B) agree.

Per record and overall: character-level span F1, exact block match, Cohen's kappa over
(record, block) decisions, and answer-bearing chunk id Jaccard.
"""

from __future__ import annotations

import argparse

from rich.table import Table

from labeller.commands.annotations import open_annotations
from labeller.commands.common import (add_filter_options, add_format_option, add_project_options, console,
                                      project_from, select)
from labeller.diagnostics import listing, print_bounded, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK
from labeller.review.agreement import AgreementReport, agreement


def register(sub) -> None:
    p = sub.add_parser("agreement",
                       description="Per record and overall: character-level span F1, exact block match rate, "
                       "Cohen's kappa over (record, block) decisions, and answer-bearing chunk id Jaccard, between "
                       "the labels in questions.jsonl (A) and NAME's annotations (B).")
    add_project_options(p)
    add_filter_options(p)
    p.add_argument("--with", dest="annotator", required=True, metavar="NAME", help="the second annotator")
    add_format_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    ann = open_annotations(project, args.annotator, must_exist=True)
    report = agreement(project, select(project.load_questions().questions, args), ann)
    if args.format == "json":
        print(json_dumps(report.as_json(), indent=2, sort_keys=True))
    else:
        print_agreement(report)
    return EXIT_OK


def _num(x: float | None) -> str:
    return "no data" if x is None else f"{x:.3f}"


def print_agreement(report: AgreementReport) -> None:
    out, err = console(), console(stderr=True)
    t = Table(title=f"agreement: questions.jsonl (A) vs {safe_line(report.annotator)} (B), "
              f"chunks under {report.hit_rule}")
    for col in ("record", "char F1", "exact", "blocks A/B/both", "kappa", "chunk Jaccard"):
        t.add_column(col, justify="left" if col == "record" else "right")
    for r in report.records:
        t.add_row(safe_line(r.record_id), _num(r.chars.f1), "yes" if r.exact_match else "no",
                  f"{len(r.a.spans)}/{len(r.b.spans)}/{r.blocks_matched}", _num(r.kappa.kappa),
                  _num(r.chunk_jaccard))
    out.print(t)
    o = report.overall()
    out.print(f"records compared      {o['records']}")
    out.print(f"char F1 (mean)        {_num(o['char_f1']['value'])}  (n={o['char_f1']['n']})")
    out.print(f"exact block match     {_num(o['exact_block_match']['value'])}  (n={o['exact_block_match']['n']})")
    items = o["kappa"]["items"]
    out.print(f"Cohen's kappa         {_num(o['kappa']['value'])}  (n={o['kappa']['n']} record-block items)")
    out.print(f"  blocks labelled by both {items['both']}, A only {items['a_only']}, B only {items['b_only']}, "
              f"neither {items['neither']}")
    out.print(f"chunk Jaccard (mean)  {_num(o['chunk_jaccard']['value'])}  (n={o['chunk_jaccard']['n']})")
    if report.not_annotated:
        err.print(f"not annotated by {safe_line(report.annotator)} yet: {len(report.not_annotated)} record(s)")
    if report.not_in_questions:
        err.print(f"[yellow]warning:[/] annotated records no longer in questions.jsonl: "
                  f"{safe_line(listing(report.not_in_questions, 'records'))}")
    print_bounded(err, (f"[yellow]left out:[/] record {safe_short(u['record_id'])} side {u['side'].upper()}: "
                        f"{u['kind']}: {safe_short(u['message'])}" for u in report.unresolved),
                  len(report.unresolved), "labels left out")
