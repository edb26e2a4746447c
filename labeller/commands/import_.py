"""``labeller import FORMAT FILE``: merge labels from another tool into questions.jsonl.

Every record is checked against the corpus first, exactly as a build would resolve it; a
record whose labels do not resolve (unknown path, a document no single section covers, an
unknown chunk id, a quote not found...) is kept out, listed and counted, and the rest are
merged atomically. A malformed or unsafe file imports nothing (exit 2). Exit 1 says some
records were kept out, so a script cannot mistake a partial import for a full one.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from rich.table import Table

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.commands.format_flags import (add_format_argument, add_format_flags, chosen_options, describe_formats,
                                            folder_note)
from labeller.diagnostics import TEXT_LIMIT, more_line, print_bounded, safe_short
from labeller.display import json_dumps, safe_line
from labeller.errors import EXIT_OK, EXIT_REFUSED
from labeller.interop import all_formats
from labeller.interop.format import Direction
from labeller.interop.merge import Merge, merge
from labeller.interop.near_duplicates import describe, near_duplicates
from labeller.interop.plan import ImportPlan, plan_import


def register(sub) -> None:
    p = sub.add_parser("import",
                       description="Read FILE in FORMAT, check every record against the corpus, and merge the "
                       f"records that resolve into questions.jsonl. Formats — {describe_formats(Direction.IMPORT)}.")
    add_format_argument(p, Direction.IMPORT)
    p.add_argument("file", metavar="FILE", help="the file to import" + folder_note(Direction.IMPORT))
    p.add_argument("--replace", action="store_true", help="overwrite records whose id already exists with a different "
                   "record (an identical one is left alone and counted unchanged)")
    p.add_argument("--dry-run", action="store_true", help="check and report, write nothing")
    p.add_argument("--force", action="store_true", help="replace questions.jsonl even if it is read-only")
    add_project_options(p)
    add_format_option(p)
    add_format_flags(p, Direction.IMPORT)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    options = chosen_options(args, Direction.IMPORT)
    project = project_from(args)
    read = all_formats()[args.fmt].read
    assert read is not None  # the parser offers only the formats that import
    incoming = read(Path(args.file), project, options)
    plan = plan_import(project, incoming, args.file)
    merged = merge(project, plan.questions, args.replace)
    similar = near_duplicates([(q.id, q.query) for q in plan.questions],
                              [(q.id, q.query) for q in merged.qf.questions])
    written = None
    if merged.changed and not args.dry_run:
        merged.qf.save(force=args.force)
        written = str(project.config.questions)
    counts = dict(sorted(Counter(k.kind for k in plan.kept_out).items()))
    if args.format == "json":
        print(json_dumps({"ok": not plan.kept_out, "errors": [], "format": args.fmt, "file": args.file,
                          "dry_run": args.dry_run, "read": plan.read, "added": merged.added,
                          "replaced": merged.replaced, "unchanged": merged.unchanged,
                          "kept_out": [k.as_json() for k in plan.kept_out],
                          "kept_out_counts": counts, "notes": incoming.notes, "written": written,
                          "near_duplicates": similar.pairs, "near_duplicate_check": similar.as_json()},
                         indent=2, sort_keys=True))
    else:
        print_report(args, plan, merged, counts, incoming.notes, describe(similar), written)
    return EXIT_REFUSED if plan.kept_out else EXIT_OK


def print_report(args: argparse.Namespace, plan: ImportPlan, merged: Merge, counts: dict, notes: list[str],
                 similar: list[str], written: str | None) -> None:
    out = console()
    err = console(stderr=True)
    out.print(f"read {plan.read} record(s) from {safe_line(args.file)} ({args.fmt})")
    print_bounded(out, (f"  note: {safe_short(note)}" for note in notes), len(notes), "notes")
    for line in similar:  # already bounded: the closest pairs and a count
        out.print(f"  note: {safe_line(line)}")
    verb = "would import" if args.dry_run else "imported"
    out.print(f"{verb} {len(merged.added) + len(merged.replaced)}: {len(merged.added)} new, "
              f"{len(merged.replaced)} replaced, {len(merged.unchanged)} unchanged (already in the questions file)")
    if plan.kept_out:
        t = Table(title=f"kept out: {len(plan.kept_out)} record(s)", title_justify="left")
        for column in ("record", "reason", "detail"):
            t.add_column(column)
        for k in plan.kept_out[:TEXT_LIMIT]:
            t.add_row(safe_short(k.record_id), k.kind, safe_short(f"{k.where}: {k.message}"))
        err.print(t)
        tail = more_line(TEXT_LIMIT, len(plan.kept_out), "records kept out")
        if tail:
            err.print(f"[dim]{tail}[/]")
        err.print("kept out by reason: " + ", ".join(f"{kind} {n}" for kind, n in counts.items()))
    if written:
        out.print(f"wrote {safe_line(written)}")
    elif args.dry_run:
        out.print("dry run: nothing was written")
