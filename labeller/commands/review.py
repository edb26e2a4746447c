"""``labeller review``: review mode in the app, or ``--summary`` of where the review round stands."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from rich.table import Table

from labeller.commands.common import (add_filter_options, add_format_option, add_project_options, console, project_from,
                                      select)
from labeller.core.build import answers_now
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.vocab import NEEDS_REVIEW_TAG
from labeller.diagnostics import print_bounded, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, LabellerError
from labeller.eval.pooling import read_pool
from labeller.review.log import STATUS_LABELS, STATUSES, ReviewLog, read_review_log
from labeller.review.reviewers import default_reviewer

def register(sub) -> None:
    p = sub.add_parser("review",
                       description="Open review mode: each record's query, expected answer and resolved spans in "
                       "context, with chunk boundaries. a accepts, f flags with a comment, e edits the record (which "
                       "then needs re-review), n/p move. By default the queue holds every record not reviewed as it "
                       "stands: changed since its review first, then flagged, then unreviewed. Decisions are "
                       "appended to golden/reviews.jsonl. With --summary, print how many records are reviewed, need "
                       "re-review, are flagged or unreviewed.")
    add_project_options(p)
    add_filter_options(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--status", choices=STATUSES, help="only records with this review status")
    which.add_argument("--all", action="store_true", help="every record in file order, reviewed ones included "
                   "(default: the records still needing a look, stale first, then flagged, then unreviewed)")
    p.add_argument("--as", dest="reviewer", metavar="NAME",
                   help="reviewer name written to the log (default: $LABELLER_REVIEWER, else the login name)")
    p.add_argument("--summary", action="store_true", help="print review counts instead of opening the app")
    p.add_argument("--pool", metavar="POOL.jsonl", help="judge this pool (`labeller pool`) instead: r relevant, x not "
                   "relevant, s skip, P relevant and promoted to a locator; resumes where this judge (--as) stopped")
    add_format_option(p)
    p.set_defaults(func=run)




def warn_log_problems(log: ReviewLog, fmt: str) -> None:
    """Ignored log lines are always shown (the first of them, and how many), never fixed: the
    reader decides what happened. Under ``--format json``, whose stdout is only the JSON, one line."""
    err = console(stderr=True)
    if fmt == "json":
        if log.problems:
            err.print(f"labeller: warning: {log.problems.total:,} line(s) of the review log ignored, the first: "
                      f"{safe_short(str(log.problems[0]))}", soft_wrap=True)
        return
    print_bounded(err, (f"labeller: warning: {safe_short(str(p))}" for p in log.problems), log.problems.total,
                  "review-log warnings", listed=0)  # this command's JSON has the counts only


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    every = project.load_questions().questions
    questions = select(every, args)
    log = read_review_log(project.layout.review_log)
    warn_log_problems(log, args.format)
    if args.summary:
        print_summary(log, questions, answers_or_warn(project, every), args.format)
        return EXIT_OK
    if args.pool:
        return judge_pool(args)
    ids = log.queue(questions, args.status, args.all, answers_or_warn(project, every))
    if not ids:
        console().print("no records match these filters; nothing to review")
        return EXIT_OK
    reviewer = default_reviewer(args.reviewer)
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.review import ReviewScreen

    ScreenApp(lambda: ReviewScreen(project, ids, reviewer), title=f"labeller review ({reviewer})").run()
    return EXIT_OK


def answers_or_warn(project: Project, questions: list[Question]) -> Mapping[str, str]:
    """Today's answer digests (``core.answer_text``), so that a label whose text changed since
    its review is counted and queued as needing re-review; a corpus that cannot be read costs
    that comparison only (a warning), not the summary of the log."""
    try:
        return answers_now(project, questions)
    except LabellerError as exc:
        console(stderr=True).print(f"labeller: warning: answer texts not compared with the reviewed ones: "
                                   f"{safe_short(str(exc))}", soft_wrap=True, markup=False)
        return {}


def judge_pool(args: argparse.Namespace) -> int:
    """The pool queue of review mode, stand-alone (verdicts go to golden/judgments.jsonl)."""
    judge = default_reviewer(args.reviewer)
    project = project_from(args)
    read_pool(Path(args.pool))  # a missing or malformed pool is refused before the app starts (exit 2)
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.judging import PoolScreen

    ScreenApp(lambda: PoolScreen(project, Path(args.pool), judge), title=f"labeller review --pool ({judge})").run()
    return EXIT_OK


def print_summary(log: ReviewLog, questions: list[Question], answers: Mapping[str, str], fmt: str) -> None:
    counts = log.counts(questions, answers)
    statuses = log.statuses(questions, answers)
    # imported with a context placed by a looser tier than a quote (SPEC §10.1), not yet reviewed
    placed = [q.id for q in questions if NEEDS_REVIEW_TAG in q.tags and statuses[q.id] != "reviewed"]
    changed = {q.id for q in questions if statuses[q.id] == "needs_rereview" and log.answer_changed(q, answers)}
    if fmt == "json":  # answer_changed: of needs_rereview, the records whose text changed under them
        print(json_dumps(counts | {"needs_review": len(placed), "answer_changed": len(changed)}, sort_keys=True))
        return
    out = console()
    out.print(f"review status of {counts['records']} record(s)")
    t = Table(show_header=False, box=None)
    for status in STATUSES:
        t.add_row(STATUS_LABELS[status], str(counts[status]))
    out.print(t)
    for rid in placed:
        out.print(f"  needs review: {safe_line(rid)}  (a context was placed by its rendered text or its words)")
    for status in ("flagged", "needs_rereview"):
        ids = [r for r, s in statuses.items() if s == status]
        print_bounded(out, (_last_decision(log, status, rid, rid in changed) for rid in ids), len(ids),
                      f"{STATUS_LABELS[status]} records", listed=0)


def _last_decision(log: ReviewLog, status: str, rid: str, answer_changed: bool) -> str:
    latest = log.latest(rid)
    assert latest is not None  # a record with a status has a latest entry
    comment = f": {safe_short(latest.comment)}" if latest.comment else ""
    label = STATUS_LABELS["answer_changed" if answer_changed else status]
    return f"  {label}: {safe_short(rid)}  (last {latest.decision} by {safe_short(latest.reviewer)}{comment})"
