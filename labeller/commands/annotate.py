"""``labeller annotate --as NAME``: label the queries blind as a second annotator.

A second person labels the same queries without seeing the first labels (queries only, into
``golden/annotations/NAME.jsonl``); ``labeller agreement`` then measures how far the two label
sets agree and ``labeller adjudicate`` settles the records where they differ.
"""

from __future__ import annotations

import argparse

from labeller.commands.annotations import open_annotations
from labeller.commands.common import add_filter_options, add_project_options, console, project_from, select
from labeller.errors import EXIT_OK
from labeller.io import check_output_path


def register(sub) -> None:
    p = sub.add_parser("annotate",
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    ann = open_annotations(project, args.annotator, must_exist=False)
    check_output_path(ann.path)  # a symlinked annotations/ folder: refused here, not at the app's first save
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
