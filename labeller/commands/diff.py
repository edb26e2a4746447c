"""``labeller diff [OLD [NEW]]``: what changed in the golden set between two versions.

A version is a git revision (its committed questions and artifact: the spans as that
revision's corpus made them, nothing checked out), a questions file (built in memory against
the current corpus), or, when NEW is left out, the working tree (built in memory, so a label
mid-edit shows as it resolves now). OLD defaults to ``HEAD``: ``labeller diff`` is "what have I
changed", ``labeller diff origin/main HEAD`` is "what does this pull request change".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from labeller.commands.common import add_format_option, add_project_options, console, project_from
from labeller.commands.git_blobs import blob_at, commit_of, find_commit, git_installed
from labeller.core.build import build
from labeller.core.committed import MAX_COMMITTED_BYTES
from labeller.core.golden_diff import SCHEMA, LabelledRecord, RecordChange, Version, compare, summary, \
    version_from_artifact, version_from_build
from labeller.core.project import Project
from labeller.core.questions import load_questions, parse_questions, questions_text
from labeller.diagnostics import (KEEP, MESSAGE_CHARS, TEXT_LIMIT, bounded_comment, markdown_cell, markdown_table,
                                  more_line, safe_short)
from labeller.display import json_dumps
from labeller.errors import EXIT_OK, EXIT_REFUSED, InvalidInput
from labeller.layout import in_repo, project_tree

SIGIL = {"added": "+", "removed": "-"}
CHUNK_ID_CHARS = 12  # of a chunk id shown in text and Markdown; JSON has them whole


def register(sub) -> None:
    p = sub.add_parser("diff",
                       description="Records added, removed, re-worded, re-anchored (locators edited), moved (same "
                       "locators, other spans), re-chunked (same spans, other chunks) or re-tagged between OLD and "
                       "NEW. Each is a git revision (its committed questions and artifact) or a questions file "
                       "(built against the current corpus); NEW left out is the working tree.")
    p.add_argument("old", nargs="?", default="HEAD", metavar="OLD", help="revision or questions file (default HEAD)")
    p.add_argument("new", nargs="?", metavar="NEW", help="revision or questions file (default: the working tree)")
    add_project_options(p)
    add_format_option(p, "markdown")
    p.add_argument("--exit-code", action="store_true", help="exit 1 when anything changed (as git diff --exit-code)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    old = load_version(project, args.old)
    new = working_tree(project) if args.new is None else load_version(project, args.new)
    changes = compare(old, new)
    counts = summary(changes)
    if args.format == "json":
        print(json_dumps({"schema": SCHEMA, "old": old.label, "new": new.label, "summary": counts,
                          "change_count": len(changes), "changes": [c.as_json() for c in changes[:KEEP]]},
                         indent=2, sort_keys=True))
    elif args.format == "markdown":
        print(bounded_comment("\n".join(markdown_lines(old, new, changes, counts)), "`labeller diff --format json`"))
    else:
        print_text(old, new, changes, counts)
    return EXIT_REFUSED if args.exit_code and changes else EXIT_OK


def load_version(project: Project, spec: str) -> Version:
    """A questions file when ``spec`` names one, else a git revision; both is exit 2.

    Not the file first: a pull request can commit a file named ``HEAD`` or ``origin/main``,
    and ``labeller diff origin/main HEAD`` would then compare what it planted (git refuses
    an ambiguous name the same way)."""
    path = Path(spec)
    if path.is_file():
        commit = find_commit(project_tree(project.config.layout.root), spec) if git_installed() else None
        if commit is not None:
            raise InvalidInput(f"{spec!r} names both a file and the revision {commit[:12]}; give the file as "
                               f"./{spec} or the revision as {spec}^{{commit}}")
        questions = load_questions(path, project.config.limits).questions
        return version_from_build(spec, build(project, questions))
    return revision(project, spec)


def working_tree(project: Project) -> Version:
    return version_from_build("working tree", build(project, project.load_questions().questions))


def revision(project: Project, rev: str) -> Version:
    """``rev``'s committed golden set: no questions file there is an empty set (every record added)."""
    layout = project.config.layout
    top = project_tree(layout.root)
    commit = commit_of(top, rev)
    label = f"{rev} ({commit[:12]})"
    limits = project.config.limits
    questions_path = in_repo(layout.questions, layout.root, top)
    data = blob_at(top, commit, questions_path, limits.max_file_bytes, "questions.jsonl")
    if data is None:
        return Version(label, {})
    qpath = f"{label}:{questions_path}"
    questions = parse_questions(questions_text(data, qpath), qpath, limits).questions
    artifact = blob_at(top, commit, in_repo(layout.artifact, layout.root, top), MAX_COMMITTED_BYTES,
                       "the golden-set artifact")
    return version_from_artifact(label, questions, artifact or b"")


def details(change: RecordChange) -> list[tuple[str, str, str]]:
    """(what, before, after) for each part of a record the change touched; one side is empty
    for an added or removed record. Every output format shows these rows."""
    shown = {"reworded": "query", "answer": "answer", "reanchored": "locators", "moved": "spans",
             "rechunked": "chunks", "retagged": "tags"}
    parts: tuple[str, ...]
    if change.kinds in (("added",), ("removed",)):
        parts = ("query", "locators", "spans", "chunks")
    else:
        parts = tuple(dict.fromkeys(shown[k] for k in change.kinds))
        if "locators" in parts or "spans" in parts:
            parts += tuple(p for p in ("spans", "chunks") if p not in parts)
    return [(part, _part(change.before, part), _part(change.after, part)) for part in parts]


def _part(rec: LabelledRecord | None, part: str) -> str:
    if rec is None:
        return ""
    q = rec.question
    if part == "query":
        return q.query
    if part == "answer":
        return q.expected_answer
    if part == "locators":
        return "; ".join(loc.describe() for loc in q.locators) or "(none)"
    if part == "spans":
        spans = ", ".join(f"{doc} {start}–{end}" for doc, start, end in rec.spans) or "(none)"
        return f"{spans} (some locators do not resolve)" if rec.broken else spans
    if part == "chunks":
        return ", ".join(cid[:CHUNK_ID_CHARS] for cid in rec.chunk_ids) or "(none)"
    fields = [f"tags {', '.join(q.tags) or '(none)'}", f"split {q.split or '(none)'}", f"hop {q.hop}"]
    return " · ".join(fields + (["unanswerable"] if q.unanswerable else []))


def headline(old: Version, new: Version, changes: list[RecordChange], counts: dict[str, int]) -> str:
    moved = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n) or "no change"
    return f"{old.label} → {new.label}: {len(changes)} record(s) changed ({moved})"


def print_text(old: Version, new: Version, changes: list[RecordChange], counts: dict[str, int]) -> None:
    out = console()
    out.print(safe_short(f"labeller diff {headline(old, new, changes, counts)}"), soft_wrap=True)
    for change in changes[:TEXT_LIMIT]:
        sigil = SIGIL.get(change.kinds[0], "~")
        out.print(safe_short(f"{sigil} {change.record_id}  {', '.join(change.kinds)}"), soft_wrap=True)
        for what, before, after in details(change):
            text = f"{before} → {after}" if before and after else before or after
            out.print(safe_short(f"    {what}: {text}"), soft_wrap=True)
    tail = more_line(min(len(changes), TEXT_LIMIT), len(changes), "changed records",
                     listed=min(len(changes), KEEP))
    if tail:
        out.print(f"[dim]{tail}[/]", soft_wrap=True)


def markdown_lines(old: Version, new: Version, changes: list[RecordChange], counts: dict[str, int]) -> list[str]:
    """A pull-request comment: the counts, then one row per changed record (bounded, escaped)."""
    # escaped: a branch name (a fork's github.head_ref) may hold <, ` and |
    lines = [f"### labeller diff: {markdown_cell(headline(old, new, changes, counts), MESSAGE_CHARS)}"]
    if not changes:
        return lines
    rows = ([change.record_id, ", ".join(change.kinds),
             "; ".join(f"{what}: {before}" for what, before, _ in details(change) if before),
             "; ".join(f"{what}: {after}" for what, _, after in details(change) if after)] for change in changes)
    return lines + ["", *markdown_table(("id", "change", "before", "after"), rows, len(changes), "changed records",
                                        listed=min(len(changes), KEEP))]

