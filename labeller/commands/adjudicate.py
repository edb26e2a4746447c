"""``labeller adjudicate --with NAME``: settle the records where questions.jsonl and NAME differ.

The outcome is written into questions.jsonl and logged as an accept by the adjudicator.
"""

from __future__ import annotations

import argparse

from labeller.commands.annotations import open_annotations
from labeller.commands.common import add_filter_options, add_project_options, console, project_from, select
from labeller.review.reviewers import default_reviewer
from labeller.display import safe_line
from labeller.errors import EXIT_OK
from labeller.review.agreement import agreement


def register(sub) -> None:
    p = sub.add_parser("adjudicate",
                       description="Show questions.jsonl's spans (A) and NAME's (B) side by side for every record "
                       "where they differ; keep A, keep B, merge, or write a new record. The result is written to "
                       "questions.jsonl and logged as an accept by the adjudicator.")
    add_project_options(p)
    add_filter_options(p)
    p.add_argument("--with", dest="annotator", required=True, metavar="NAME", help="the second annotator")
    p.add_argument("--as", dest="adjudicator", metavar="NAME",
                   help="adjudicator name for the review log (default: $LABELLER_REVIEWER, else the login name)")
    p.add_argument("--all", action="store_true", help="every record NAME annotated, not only disagreements")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    ann = open_annotations(project, args.annotator, must_exist=True)
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
