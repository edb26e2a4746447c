"""``labeller repair``: apply the build's moved and nearest-passage suggestions (SPEC §13).

For people and CI bots that do not open the app. The plan is the core's (``core.repair``,
which the app's broken-label view uses too); this module reads the flags, asks at the prompt
(``--interactive``), prints the diff (``--dry-run``) or writes questions.jsonl through the
core's one writer (minimal, atomic, comments kept, a read-only file refused), and logs an
``edit`` in the review log for each repaired record, pinning the version that was reviewed, so
it reads *changed since review* until someone reads it again.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys

from rich.table import Table

from labeller.commands.committed_corpus import last_build
from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.commands.repair_markdown import counted, left_kinds, repair_markdown
from labeller.core.build import build
from labeller.core.fixes import MOVED, NEAREST, Fix, Left
from labeller.core.moves import group_line
from labeller.core.models import Locator, Question
from labeller.core.questions import QuestionsFile, prepare_questions, write_questions
from labeller.core.repair import (DEFAULT_MIN_KEPT, DEFAULT_MIN_SCORE, NoMorePicks, RepairPlan, fix_groups,
                                   plan_repair, with_picks)
from labeller.core.vocab import RefusalKind
from labeller.diagnostics import print_bounded, print_with_command, safe_short, shorten
from labeller.display import json_dumps, safe_line, visible
from labeller.errors import EXIT_INVALID, EXIT_OK, EXIT_REFUSED, InvalidInput
from labeller.io import check_output_path
from labeller.review.log import append_reviews, new_entry
from labeller.review.reviewers import default_reviewer


MAX_COMMENT = 2000  # characters of the review-log comment saying what a repair did


def register(sub) -> None:
    p = sub.add_parser("repair",
                       description="Re-point refused labels the build can repair without a guess: moved ones (the "
                       "quote verbatim in exactly one other document) and, unless --moves, the passage where the quote "
                       "stood at the last build when it keeps --min-kept of the quote, else a nearest passage that is "
                       "unique and the only one scoring --min-score or more. Every repaired record is logged as "
                       "edited in the review log (it needs review again). Exit 1 while labels are left broken.")
    p.add_argument("ids", nargs="*", metavar="ID", help="only these records (default: every refused one)")
    p.add_argument("--moves", action="store_true", help="apply moved suggestions only (the quote unchanged)")
    p.add_argument("--min-score", type=float, metavar="S",
                   help=f"apply nearest passages scoring S or more (default {DEFAULT_MIN_SCORE:g})")
    p.add_argument("--min-kept", type=float, metavar="K",
                   help="apply the passage where the quote stood at the last build when it keeps K%% or more of the "
                   f"quote (default {DEFAULT_MIN_KEPT:g}; docs/rules.md)")
    p.add_argument("--dry-run", action="store_true", help="print the diff of questions.jsonl; write nothing")
    p.add_argument("--interactive", action="store_true", help="ask for each record, old and new side by side; "
                   "then offer each locator left its suggestions, numbered best first, to pick one")
    p.add_argument("--as", dest="reviewer", metavar="NAME", help="name written to the review log (default: "
                   "$LABELLER_REVIEWER, else the login name)")
    add_project_options(p)
    add_format_option(p, "markdown")  # markdown: a pull request's body (repair_markdown.py)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for flag, value in (("--min-score", args.min_score), ("--min-kept", args.min_kept)):
        if args.moves and value is not None:
            raise InvalidInput(f"--moves applies moved suggestions only; {flag} is for edited quotes: give one")
        if value is not None and not 0 <= value <= 100:
            raise InvalidInput(f"{flag} {value:g} is not a score from 0 to 100")
    if args.interactive and args.format != "text":
        raise InvalidInput(f"--interactive asks at the terminal; it does not go with --format {args.format}")
    project = project_from(args)
    config = project.config
    qf = project.load_questions()
    reviewer = None if args.dry_run else default_reviewer(args.reviewer)  # before any work: a bad name is exit 2
    result = build(project, qf.questions)
    bars = {"moves_only": args.moves, "min_score": DEFAULT_MIN_SCORE if args.min_score is None else args.min_score,
            "min_kept": DEFAULT_MIN_KEPT if args.min_kept is None else args.min_kept, "last_build": last_build(project)}
    plan = plan_repair(project, result.records, args.ids or None, accept=ask if args.interactive else None, **bars)
    if args.interactive:  # then what it left, picked from the same ranked suggestions as the app's
        with_picks(project, plan, result.records, pick, **bars)
    rel = os.path.relpath(config.questions, config.layout.root)
    written = False
    diff = ""
    if plan.after:
        if args.dry_run:
            diff = unified_diff(qf, prepare_questions(qf, changed=plan.after.values(), limits=config.limits), rel)
        else:
            check_output_path(config.questions)
            write_questions(qf, changed=plan.after.values(), limits=config.limits, check_unchanged_on_disk=True)
            written = True
            assert reviewer is not None
            fixes = plan.by_record()
            append_reviews(config.layout.review_log, [
                new_entry(before, reviewer, "edit", shorten("labeller repair: " + "; ".join(
                    f.describe() for f in fixes[rid]), MAX_COMMENT)) for rid, before in plan.before.items()])
    if args.format == "json":
        print(json_dumps({"ok": not plan.left, "dry_run": args.dry_run, "written": written, "questions": rel,
                          **plan.as_json(), **({"diff": diff} if args.dry_run else {})}, indent=2, sort_keys=True))
    elif args.format == "markdown":
        print(repair_markdown(plan, written, args.dry_run, rel, fix_groups(plan.fixes, result.refusals)))
    else:
        if args.dry_run:  # exact when piped (to git apply, say); a terminal sees control characters drawn
            sys.stdout.write(visible(diff) if sys.stdout.isatty() else diff)
        print_plan(plan, written, args.dry_run, rel, fix_groups(plan.fixes, result.refusals))
    if any(x.kind == RefusalKind.INVALID for x in plan.left):
        return EXIT_INVALID  # as the build: a locator that is invalid input, not a label to repair
    return EXIT_REFUSED if plan.left else EXIT_OK


def unified_diff(before: QuestionsFile, after: QuestionsFile, rel: str) -> str:
    """The exact unified diff of the file's text (``git diff``'s form, ``a/`` and ``b/``)."""
    lines = difflib.unified_diff(before.render().splitlines(keepends=True), after.render().splitlines(keepends=True),
                                 f"a/{rel}", f"b/{rel}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def print_plan(plan: RepairPlan, written: bool, dry_run: bool, rel: str, groups: list[dict] | None = None) -> None:
    """What was (or would be) applied, and what was left and why, on stderr: stdout is the diff.
    ``groups``: as ``repair_markdown``'s."""
    err = console(stderr=True)
    s = plan.summary()
    verb = "would apply" if dry_run else "applied"
    headings = sum(f.kind == NEAREST and f.new.heading is not None for f in plan.fixes)
    err.print(f"[bold]{verb}[/] {s['applied']} fix(es) to {s['records']} record(s): {s['moved']} moved, "
              f"{s['nearest'] - headings} nearest passage(s)" + (f", {headings} nearest heading(s)" * bool(headings)))
    groups = fix_groups(plan.fixes) if groups is None else groups
    if groups:  # the moves as the build groups them: one line a renamed page, not one a label
        err.print("  moved, per pair of documents:")
        print_bounded(err, (f"    {safe_short(group_line(g))}" for g in groups), len(groups), "groups of moved labels")
    edited = [f for f in plan.fixes if f.kind != MOVED]
    if edited:
        err.print(f"  edited quotes{' and headings' * bool(headings)} re-pointed (read each):")
        print_bounded(err, (f"    {safe_short(f.record_id)} locator {f.index + 1}: {safe_short(f.describe())}"
                            for f in edited), len(edited), "edited quotes re-pointed")
    if plan.left:
        by_doc = plan.left_by_doc()
        err.print(f"[bold yellow]left[/] {len(plan.left)} refused locator(s) in {len(by_doc)} document(s) "
                  f"({left_kinds(plan)}):")
        if len(plan.left) > 1:  # where they are, most first, before the locators one by one
            print_bounded(err, (f"  {safe_short(row['doc'] or '(any document)')}: {row['left']} "
                                f"({counted(row['kinds'])})" for row in by_doc), len(by_doc), "documents")
            err.print("each, with why:")
        print_bounded(err, (f"  {safe_short(x.record_id)}"
                            f"{'' if x.index is None else f' locator {x.index + 1}'} ({x.kind}): {safe_short(x.reason)}"
                            for x in plan.left), len(plan.left), "locators left")
    if written:
        print_with_command(err, f"wrote {safe_line(rel)}; {s['records']} record(s) logged as edited (changed since "
                           "review); rebuild the golden set:", "labeller build")
    elif dry_run and plan.after:
        err.print("dry run: nothing written")


def ask(before: Question, after: Question, fixes: list[Fix]) -> bool:
    """One record at the prompt: each fix's locator now and repaired, side by side; y applies."""
    out = console(stderr=True)
    t = Table(title=f"{safe_line(before.id)}: {safe_short(before.query, 120)}", show_lines=True)
    t.add_column("now (refused)")
    t.add_column("repaired")
    for f in fixes:
        t.add_row(_locator_text(f.old), _locator_text(f.new) + f"\n[dim]{safe_short(f.describe())}[/]")
    out.print(t)
    out.print("apply? \\[y/N] ", end="")
    line = sys.stdin.readline()
    return line.strip().lower() in ("y", "yes")


MAX_PICKS = 9  # suggestions numbered for one locator at the prompt (offered ranks them, best first)


def pick(question: Question, left: Left, offers: list[Fix]) -> Fix | None:
    """A locator ``repair`` left, its suggestions numbered best first: a number picks one; Enter
    (or anything else) leaves it as it is; the end of input leaves it and every one after it."""
    out = console(stderr=True)
    shown = offers[:MAX_PICKS]
    out.print(f"[b]{safe_line(question.id)}[/]: {safe_short(question.query, 120)}")
    lines = [f"  locator {(left.index or 0) + 1} ({left.kind}) left: {safe_short(left.reason)}",
             f"  now: {safe_short(left.locator.describe())}", *(f"  {i}) {safe_short(f.describe())}"
                                                              for i, f in enumerate(shown, 1))]
    for line in lines:
        out.print(line, soft_wrap=True)  # each one line, bounded: the choices stay apart
    out.print(f"pick 1-{len(shown)}, or Enter to leave it: ", end="")
    line = sys.stdin.readline()
    if not line:
        out.print()
        raise NoMorePicks
    line = line.strip()
    return shown[int(line) - 1] if line.isdigit() and 1 <= int(line) <= len(shown) else None


def _locator_text(loc: Locator) -> str:
    parts = [f"[b]{safe_line(loc.doc or '(any document)')}[/]", safe_short(loc.quote or loc.heading or "")]
    for name in ("prefix", "suffix"):
        value = getattr(loc, name)
        if value is not None:
            parts.append(f"[dim]{name}:[/] {safe_short(value)}")
    return "\n".join(parts)
