"""``build --check --format markdown``: what the check found, as a pull-request comment.

A reviewer reads it on the pull request, so it is short and bounded: each table shows the
first ``diagnostics.TEXT_LIMIT`` rows and counts the rest, every cell is escaped
(``diagnostics.markdown_cell``): the records, quotes and paths come from the pull request,
and must not become links, images, HTML, mentions or references in the comment; and the
comment is cut to ``diagnostics.COMMENT_CHARS`` (``bounded_comment``).
"""

from __future__ import annotations

import os
from pathlib import Path

from labeller.core.check import Drift
from labeller.core.drift_classes import DriftClasses
from labeller.core.moves import group_line, is_move, move_groups
from labeller.core.resolve import Refusal
from labeller.core.suggest import without_nearest
from labeller.diagnostics import TEXT_LIMIT, bounded_comment, listing, markdown_cell, markdown_table, more_line
from labeller.layout import ProjectLayout
from labeller.review.log import STATUS_LABELS

TITLE = "### labeller build --check"
FULL_REPORT = "`labeller build --check --format json`"


def refusals_markdown(refusals: list[Refusal], beside: DriftClasses, not_compared: str = "",
                      pending: dict[str, str] | None = None, stale: list[dict] | None = None) -> str:
    """The broken labels: id, kind, where (the locator), nearest passage (or how to fix it); then
    the records that still resolve and changed (``check.beside_refusals``), the ones to re-read
    named, or why they were ``not_compared``; then, as a clean check's comment has them, the
    records not reviewed and the stale judgments."""
    rows = ([str(r.record_id), str(r.kind), r.locator.describe(), nearest(r)] for r in refusals)
    unhelped = without_nearest(refusals)
    budget = ["", f"The build's budget for suggestions was reached: {unhelped} later quote(s) not found have no "
              "nearest passage."] if unhelped else []
    return bounded_comment("\n".join([
        f"{TITLE}: {len(refusals)} broken label(s); nothing can be built until they are fixed", "",
        *moves_markdown(refusals),
        *markdown_table(("id", "kind", "where", "nearest passage"), rows, len(refusals), "broken labels"), *budget,
        *(["", "Among the labels that still resolve: " + _classes_lead(beside)] if beside.rows() else []),
        *(["", f"The labels that still resolve were not compared: {markdown_cell(not_compared)}"]
          if not_compared else []), *_pending_markdown(pending or {})]) + _stale_markdown(stale or []),
        FULL_REPORT)


def moves_markdown(refusals: list[Refusal]) -> list[str]:
    """The moved labels grouped per pair of documents (SPEC §13), before the table."""
    groups = move_groups(refusals)
    plain, several = sum(g["labels"] for g in groups), sum(g["several"] for g in groups)
    held = f", {several} whose quote is in another document several times" if several else ""
    return groups_markdown(groups, f"Moved ({plain} label(s){held}; applied by `labeller repair --moves`):")


def groups_markdown(groups: list[dict], title: str) -> list[str]:
    """Groups of moved labels (``core.moves.grouped``), the first ``TEXT_LIMIT`` as a list under
    ``title``, the rest counted; nothing when there are none."""
    if not groups:
        return []
    lines = [title, ""]
    lines += [f"- {markdown_cell(group_line(g))}" for g in groups[:TEXT_LIMIT]]
    more = more_line(min(len(groups), TEXT_LIMIT), len(groups), "groups of moved labels")
    return lines + ([f"- {more}"] if more else []) + [""]


def nearest(r: Refusal) -> str:
    """The first thing ``labeller build`` suggests for a refusal, on one line (empty: none)."""
    for occ in r.occurrences:
        if occ.get("extension"):
            return f"{len(r.occurrences)} occurrences; unique if lengthened to: {occ['extension']}"
    for sug in r.suggestions:
        if is_move(sug):
            return f"moved to {sug['where']}"
        if "quote" in sug and "score" in sug:
            return f"{sug['where']} ({sug['score']}): {sug['quote']}"
        if "quote" in sug:
            return f"the quote occurs {sug['where']}"
        if sug.get("heading") and "score" in sug:
            return f"{sug['where']} ({sug['score']}): # {sug['heading']}"
        if sug.get("heading"):
            return f"section locator: {sug['doc']} # {sug['heading']}"
    return f"{len(r.occurrences)} occurrences" if r.occurrences else ""


def drift_markdown(drift: Drift, pending: dict[str, str], layout: ProjectLayout, stale: list[dict]) -> str:
    """Up to date, or which committed files differ from a fresh build and how; then the records
    ``--require-reviewed`` found not reviewed; then the stale judgments. The heading names every
    reason the check failed, so a comment never reads "up to date" above a failing check."""
    failed = [why for why, bad in (("drift", not drift.ok), ("not reviewed", bool(pending)),
                                   ("stale judgments", bool(stale))) if bad]
    if not failed:
        return f"{TITLE}: up to date\n\nThe committed golden set matches a fresh build."
    lines = [f"{TITLE}: {', '.join(failed)}", ""]
    if not drift.ok:
        lines += ["The committed golden set does not match a fresh build (run `labeller build` and commit the "
                  "result).", ""]
        lines += [_classes_lead(drift.classes), ""] if drift.records_changed else []
        differs = [(_relative(path, layout.root), "differs from a fresh build")
                   for path, ok in ((layout.artifact, drift.artifact_ok), (layout.manifest, drift.manifest_ok)) if not ok]
        changes = [(what, listing(items, "ids")) for what, items in drift.change_rows()]
        problems = [("problem", p) for p in drift.problems]
        rows = [*differs, *changes, *problems]
        lines += markdown_table(("what", "which"), rows, len(differs) + len(changes) + drift.problems.total,
                                "drift rows", listed=len(differs) + len(changes) + len(drift.problems))
    lines += _pending_markdown(pending)
    return bounded_comment("\n".join(lines) + _stale_markdown(stale), FULL_REPORT)




def _classes_lead(c: DriftClasses) -> str:
    """The comment's first words on the changed records (SPEC §13): how many a person must
    re-read, named, before how many merely need the artifact regenerated."""
    reread = c.to_reread
    lead = (f"**Re-read {len(reread)} record(s)**: their answer text changed"
            f"{' or could not be compared' if c.not_comparable else ''}: {markdown_cell(listing(reread, 'ids'))}."
            if reread else "**No answer text changed.**")
    rest = [f"{len(c.edited_only)} edited only (questions.jsonl fields)" if c.edited_only else "",
            f"{len(c.derived_only)} derived only (offsets or chunk ids moved: regenerate, nothing to read)"
            if c.derived_only else ""]
    return " ".join([lead, *(f"{r}." for r in rest if r)])


def _pending_markdown(pending: dict[str, str]) -> list[str]:
    """The records ``--require-reviewed`` found not reviewed as they stand (none: nothing)."""
    if not pending:
        return []
    return ["", f"{len(pending)} record(s) not reviewed as they stand (`labeller review`):", "",
            *markdown_table(("id", "status"), ([rid, STATUS_LABELS[s]] for rid, s in pending.items()),
                            len(pending), "records not reviewed")]


def _stale_markdown(stale: list[dict]) -> str:
    """Judgments whose passage no longer resolves (SPEC §11): the check fails on them."""
    if not stale:
        return ""
    rows = ([f"line {s['line']}", str(s["id"]), str(s["judge"]), str(s["kind"]), str(s["message"])] for s in stale)
    return "\n".join(["", "", f"{len(stale)} stale judgment(s) (`golden/judgments.jsonl`: judge those passages again):",
                      "", *markdown_table(("line", "question", "judge", "kind", "why"), rows, len(stale),
                                          "stale judgments")])


def _relative(path: Path, root: Path) -> str:
    """A committed file as the repository names it (not the CI runner's absolute path)."""
    return os.path.relpath(path, root)
