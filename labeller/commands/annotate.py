"""``labeller annotate``, ``labeller agreement`` and ``labeller adjudicate``: double annotation.

A second person labels the same queries blind (``annotate --as NAME``: queries only, into
``golden/annotations/NAME.jsonl``); ``agreement --with NAME`` measures how far the two
label sets agree; ``adjudicate --with NAME`` settles the records where they differ and
writes the outcome into questions.jsonl.
"""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.commands.review import add_filter_options, select
from labeller.display import safe_line
from labeller.errors import EXIT_OK, InvalidInput
from labeller.review.agreement import AgreementReport, agreement
from labeller.review.annotations import Annotations, check_annotator, load_annotations
from labeller.review.reviewers import default_reviewer


def register(sub) -> None:
    p = sub.add_parser("annotate", help="label the queries blind as a second annotator (--as NAME)",
                       description="Open the blind annotation screen: each query is shown without its existing "
                       "labels (and without its expected answer unless --show-answers); type a quote, see it "
                       "resolve, Enter adds it. Locators are saved to golden/annotations/NAME.jsonl, never to "
                       "questions.jsonl.")
    add_project_options(p)
    add_filter_options(p)
    p.add_argument("--as", dest="annotator", required=True, metavar="NAME",
                   help="annotator name; also the file name (letters, digits, . _ -)")
    p.add_argument("--missing", action="store_true", help="only records NAME has not annotated yet")
    p.add_argument("--show-answers", action="store_true", help="also show each record's expected answer (hidden by "
                   "default: it often repeats the words the first annotator quoted)")
    p.set_defaults(func=run_annotate)

    g = sub.add_parser("agreement", help="agreement between questions.jsonl and a second annotator (--with NAME)",
                       description="Per record and overall: character-level span F1, exact block match rate, "
                       "Cohen's kappa over (record, block) decisions, and answer-bearing chunk id Jaccard, between "
                       "the labels in questions.jsonl (A) and NAME's annotations (B).")
    add_project_options(g)
    add_filter_options(g)
    g.add_argument("--with", dest="annotator", required=True, metavar="NAME", help="the second annotator")
    add_format_option(g)
    g.set_defaults(func=run_agreement)

    j = sub.add_parser("adjudicate", help="settle disagreements with a second annotator (--with NAME)",
                       description="Show questions.jsonl's spans (A) and NAME's (B) side by side for every record "
                       "where they differ; keep A, keep B, merge, or write a new record. The result is written to "
                       "questions.jsonl and logged as an accept by the adjudicator.")
    add_project_options(j)
    add_filter_options(j)
    j.add_argument("--with", dest="annotator", required=True, metavar="NAME", help="the second annotator")
    j.add_argument("--as", dest="adjudicator", metavar="NAME",
                   help="adjudicator name for the review log (default: $LABELLER_REVIEWER, else the login name)")
    j.add_argument("--all", action="store_true", help="every record NAME annotated, not only disagreements")
    j.set_defaults(func=run_adjudicate)


def _annotations(project, name: str, *, must_exist: bool) -> Annotations:
    ann = load_annotations(project.config, check_annotator(name))
    if must_exist and not ann.path.exists():
        raise InvalidInput(f"no annotations by {name!r} yet (run labeller annotate --as {name})", path=str(ann.path))
    return ann


def run_annotate(args: argparse.Namespace) -> int:
    project = project_from(args)
    ann = _annotations(project, args.annotator, must_exist=False)
    ids = [q.id for q in select(project.load_questions().questions, args)
           if not args.missing or ann.get(q.id) is None]
    if not ids:
        console().print("no records match these filters; nothing to annotate")
        return EXIT_OK
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.annotate import AnnotateScreen

    ScreenApp(lambda: AnnotateScreen(project, ids, args.annotator, args.show_answers),
              title=f"labeller annotate ({args.annotator})").run()
    return EXIT_OK


def run_agreement(args: argparse.Namespace) -> int:
    project = project_from(args)
    ann = _annotations(project, args.annotator, must_exist=True)
    report = agreement(project, select(project.load_questions().questions, args), ann)
    if args.format == "json":
        print(json.dumps(report.as_json(), ensure_ascii=False, indent=2, sort_keys=True))
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
                  f"{safe_line(', '.join(report.not_in_questions))}")
    for u in report.unresolved:
        err.print(f"[yellow]left out:[/] record {safe_line(u['record_id'])} side {u['side'].upper()}: "
                  f"{u['kind']}: {safe_line(u['message'])}")


def run_adjudicate(args: argparse.Namespace) -> int:
    project = project_from(args)
    ann = _annotations(project, args.annotator, must_exist=True)
    adjudicator = default_reviewer(args.adjudicator)
    questions = select(project.load_questions().questions, args)
    if args.all:
        ids = [q.id for q in questions if ann.get(q.id) is not None]
    else:
        report = agreement(project, questions, ann)
        differ = {r.record_id for r in report.records if not r.exact_match} | {u["record_id"]
                                                                              for u in report.unresolved}
        ids = [q.id for q in questions if q.id in differ]
    if not ids:
        console().print(f"nothing to adjudicate: questions.jsonl and {safe_line(args.annotator)} agree on every "
                        "annotated record")
        return EXIT_OK
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.adjudicate import AdjudicateScreen

    ScreenApp(lambda: AdjudicateScreen(project, args.annotator, adjudicator, ids),
              title=f"labeller adjudicate ({adjudicator} vs {args.annotator})").run()
    return EXIT_OK
