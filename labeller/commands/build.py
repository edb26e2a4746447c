"""``labeller build`` and ``labeller build --check``."""

from __future__ import annotations

import argparse
from collections import Counter

from rich.console import Console
from rich.table import Table
from rich.text import Text

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.commands.check_markdown import drift_markdown, refusals_markdown
from labeller.commands.committed_corpus import committed_texts
from labeller.commands.refusals import refusals_exit_code, report_refusals
from labeller.commands.review_status import counts_line, print_pending
from labeller.core.answer_text import answer_digests
from labeller.core.build import BuildResult, build, write_artifacts
from labeller.core.check import Drift, beside_refusals, check
from labeller.core.drift_classes import DriftClasses
from labeller.core.judgments import stale_judgments
from labeller.core.hitrules import hit_rule_forms
from labeller.core.project import Project
from labeller.diagnostics import Bounded, listing, print_bounded, print_kind, print_with_command, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, EXIT_REFUSED, InvalidInput
from labeller.interop.near_duplicates import NearDuplicates, describe, near_duplicates
from labeller.review.log import build_review_summary, unreviewed_or_stale

def register(sub) -> None:
    p = sub.add_parser("build",
                       description="Resolve questions.jsonl against the corpus and write golden/golden-set.v1.jsonl "
                       "and its manifest. With --check, rebuild in memory and exit 1 if the committed files differ.")
    add_project_options(p)
    p.add_argument("--out", help="output folder (default: golden/)")
    p.add_argument("--hit-rule", help=f"build hit rule (default any_overlap): {', '.join(hit_rule_forms())}")
    p.add_argument("--check", action="store_true", help="compare a fresh in-memory build with the committed files")
    p.add_argument("--require-reviewed", action="store_true", help="with --check: also exit 1 while any record is "
                   "unreviewed, flagged or changed since its review (golden/reviews.jsonl)")
    add_format_option(p, "markdown")  # markdown: with --check, a pull-request comment (check_markdown.py)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.format == "markdown" and not args.check:
        raise InvalidInput("--format markdown goes with --check (a pull-request comment of what the check found)")
    project = project_from(args)
    questions = project.load_questions().questions
    result = build(project, questions)
    answers = answer_digests(result.records, project.corpus)  # what each label's reviewer would read today
    review, review_warnings, review_log = build_review_summary(project.config, questions, answers)
    similar = near_duplicates([(q.id, q.query) for q in questions])
    warnings = {"warnings": review_warnings, "warning_count": review_warnings.total,
                "near_duplicates": similar.pairs, "near_duplicate_check": similar.as_json()}
    print_warnings(args.format, review_warnings, similar)
    summary = result.summary | {"review": review}  # a copy: the build result may be shared through the cache
    out = console()
    if not result.ok and not args.check:
        return report_refusals(project, result, args.format, "build refused", "nothing was written", summary,
                               extra=warnings)
    if args.check:
        # the log read once (a 64 MiB planted log is not parsed twice); an unreadable one is read
        # again here so that --require-reviewed fails on it instead of passing
        pending = unreviewed_or_stale(project.config, questions, review_log, answers) if args.require_reviewed else {}
        stale = stale_judgments(project, [q.id for q in questions])  # SPEC §11: a judged text that changed
        if not result.ok:
            return report_refused_check(project, result, args.format, summary, warnings, pending, stale)
        drift = check(result, project.config.layout.artifact, project.config.layout.manifest,
                      corpus=lambda: project.corpus, old_texts=committed_texts(project))
        if args.format == "markdown":
            print(drift_markdown(drift, pending, project.config.layout, stale))
        elif args.format == "json":
            print(json_dumps({"ok": drift.ok and not pending and not stale, "errors": [], "drift": drift.as_json(),
                              "summary": summary, "not_reviewed": pending, "stale_judgments": stale} | warnings,
                             indent=2, sort_keys=True))
        else:
            print_drift(drift)
            print_pending(pending)
        if args.format == "text":
            print_stale(stale)
        return EXIT_OK if drift.ok and not pending and not stale else EXIT_REFUSED
    write_artifacts(project, result)
    if args.format == "json":
        print(json_dumps({"ok": True, "errors": [], "summary": summary,
                          "written": [str(project.config.layout.artifact), str(project.config.layout.manifest)]}
                         | warnings, indent=2, sort_keys=True))
    else:
        print_summary(summary)
        out.print(f"wrote {safe_line(str(project.config.layout.artifact))} and "
                  f"{safe_line(project.config.layout.manifest.name)}")
    return EXIT_OK


def report_refused_check(project: Project, result: BuildResult, fmt: str, summary: dict, warnings: dict,
                         pending: dict[str, str], stale: list[dict]) -> int:
    """A refused ``--check``: the label errors, then the answer texts changed beside them
    (``check.beside_refusals``), the records not reviewed and the stale judgments, as a clean
    check reports them: one broken label must not hide what else the change did."""
    layout = project.config.layout
    not_compared = ""
    try:
        beside = beside_refusals(result, layout.artifact, layout.manifest, project.corpus, committed_texts(project))
    except InvalidInput as e:  # a committed artifact refused as input: the refusals still come first
        beside, not_compared = DriftClasses(), str(e)
    if fmt == "markdown":
        print(refusals_markdown(result.refusals, beside, not_compared, pending, stale))
        return refusals_exit_code(result.refusals)
    compared = beside.as_json() | ({"not_compared": not_compared} if not_compared else {})
    code = report_refusals(project, result, fmt, "build refused", "the check fails until they are fixed", summary,
                           extra=warnings | {"drift_beside_refusals": compared, "not_reviewed": pending,
                                             "stale_judgments": stale})
    if fmt == "text":
        print_beside(beside, not_compared)
        print_pending(pending)
        print_stale(stale)
    return code


def print_beside(beside: DriftClasses, not_compared: str) -> None:
    """The labels that still resolve and changed, the ones to re-read first; or why they were
    not compared."""
    err = console(stderr=True)
    if not_compared:
        err.print(f"[yellow]beside the refusals:[/] the labels that still resolve were not compared: "
                  f"{safe_short(not_compared)}", soft_wrap=True)
    rows = beside.rows()
    if not rows:
        return
    err.print("[bold red]beside the refusals[/], in the labels that still resolve:" if beside.to_reread else
              "beside the refusals, no answer text changed in the labels that resolve:")
    print_rows(err, rows)


def print_rows(err: Console, rows: list[tuple[str, list[str]]]) -> None:
    """Each ``(what, ids)`` row on one bounded line."""
    for label, items in rows:
        err.print(f"  {label}: {safe_line(listing(items, 'ids'))}")


def print_warnings(fmt: str, review_warnings: Bounded[str], similar: NearDuplicates) -> None:
    """The review log's problems and the near-duplicate questions, bounded per kind; nothing
    under ``--format json``, which lists them."""
    if fmt == "json":
        return
    err = console(stderr=True)
    print_kind(err, review_warnings, lambda w: f"[yellow]warning:[/] {safe_short(w)}", "review-log warnings")
    for line in describe(similar):
        err.print(f"[yellow]warning:[/] {safe_short(line)}", soft_wrap=True)


def print_stale(stale: list[dict]) -> None:
    """Judgments whose passage no longer resolves (SPEC §11): they count for nothing until judged again."""
    if not stale:
        return
    err = console(stderr=True)
    print_with_command(err, f"[bold red]stale judgments:[/] {len(stale)} judgment(s) no longer resolve; judge "
                       "those passages again (this lists them):", "labeller pool")
    print_bounded(err, (f"  {safe_short(describe_stale(j))}" for j in stale), len(stale), "stale judgments")


def describe_stale(j: dict) -> str:
    return f"{j['path']}:{j['line']}: question {j['id']}, judge {j['judge']}: {j['message']}"


def print_summary(s: dict) -> None:
    out = console()
    t = Table(title="golden set", show_header=False, box=None)
    for key in ("docs", "chars", "chunks", "records", "spans", "single", "multi", "negative", "no_answer"):
        t.add_row(key, f"{s[key]:,}")
    if s["span_chars"]:
        sc = s["span_chars"]
        t.add_row("span chars", f"min {sc['min']}  median {sc['median']}  mean {sc['mean']}  max {sc['max']}")
    t.add_row("blocks", "  ".join(f"{k} {v}" for k, v in s["blocks"].items()))
    t.add_row("chunks/record", "  ".join(f"{k}:{v}" for k, v in s["chunks_per_record"].items()))
    t.add_row("review", counts_line(s["review"]))
    per_doc = Counter(s["labels_per_doc"].values())
    per_doc[0] = len(s["unlabelled_docs"])
    t.add_row("spans per doc", "  ".join(f"{k}: {v} doc{'' if v == 1 else 's'}"
                                         for k, v in sorted(per_doc.items()) if v))
    out.print(t)
    rows: list[tuple[str | Text, str | Text]] = [(safe_line(doc), str(n)) for doc, n in sorted(s["labels_per_doc"].items(), key=lambda kv: (-kv[1], kv[0]))]
    rows += [(Text(safe_line(doc), style="dim"), Text("0", style="dim")) for doc in s["unlabelled_docs"]]
    d = Table(title="labels per document", box=None)
    d.add_column("document")
    d.add_column("spans", justify="right")
    for row in rows[:MAX_DOC_ROWS]:
        d.add_row(*row)
    if len(rows) > MAX_DOC_ROWS:
        d.add_row(Text(f"… {len(rows) - MAX_DOC_ROWS:,} more documents (--format json lists them all)", style="dim"),
                  "")
    out.print(d)


# A corpus of hundreds of documents would print a page per build; the distribution row
# above and the JSON summary carry the rest.
MAX_DOC_ROWS = 25


def print_drift(drift: Drift) -> None:
    out = console()
    if drift.ok:
        out.print("[green]up to date:[/] the committed artifact and manifest match a fresh build")
        return
    err = console(stderr=True)
    print_with_command(err, "[bold red]drift:[/] the committed golden set does not match a fresh build; run this "
                       "and commit the result:", "labeller build")
    print_bounded(err, (f"  {safe_short(p)}" for p in drift.problems), drift.problems.total,
                  "problems with the committed artifact", listed=len(drift.problems))
    print_rows(err, drift.change_rows())
