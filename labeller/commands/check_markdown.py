"""``build --check --format markdown``: what the check found, as a pull-request comment.

A reviewer reads it on the pull request, so it is short and bounded: each table shows the
first ``diagnostics.TEXT_LIMIT`` rows and counts the rest, and every cell is escaped
(``diagnostics.markdown_cell``): the records, quotes and paths come from the pull request,
and must not become links, images, HTML or @mentions in the comment.
"""

from __future__ import annotations

import os
from pathlib import Path

from labeller.core.check import Drift
from labeller.core.moves import group_line, is_move, move_groups
from labeller.core.resolve import Refusal
from labeller.core.suggest import without_nearest
from labeller.diagnostics import TEXT_LIMIT, listing, markdown_cell, markdown_table, more_line
from labeller.layout import ProjectLayout
from labeller.review.log import STATUS_LABELS

TITLE = "### labeller build --check"


def refusals_markdown(refusals: list[Refusal]) -> str:
    """The broken labels: id, kind, where (the locator), nearest passage (or how to fix it)."""
    rows = ([str(r.record_id), str(r.kind), r.locator.describe(), nearest(r)] for r in refusals)
    unhelped = without_nearest(refusals)
    budget = ["", f"The build's budget for suggestions was reached: {unhelped} later quote(s) not found have no "
              "nearest passage."] if unhelped else []
    return "\n".join([f"{TITLE}: {len(refusals)} broken label(s); nothing can be built until they are fixed", "",
                      *moves_markdown(refusals), *markdown_table(("id", "kind", "where", "nearest passage"), rows, len(refusals),
                                      "broken labels"), *budget])


def moves_markdown(refusals: list[Refusal]) -> list[str]:
    """The moved labels grouped per pair of documents (SPEC §13), before the table."""
    groups = move_groups(refusals)
    if not groups:
        return []
    lines = [f"Moved ({sum(g['labels'] for g in groups)} label(s), applied by `labeller repair --moves`):", ""]
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
        differs = [(_relative(path, layout.root), "differs from a fresh build")
                   for path, ok in ((layout.artifact, drift.artifact_ok), (layout.manifest, drift.manifest_ok)) if not ok]
        changes = [(what, listing(items, what.split()[0]))
                   for what, items in (("records changed", drift.records_changed),
                                       ("records added", drift.records_added),
                                       ("records removed", drift.records_removed),
                                       ("docs changed", drift.docs_changed), ("docs added", drift.docs_added),
                                       ("docs removed", drift.docs_removed),
                                       ("settings changed", drift.settings_changed)) if items]
        problems = [("problem", p) for p in drift.problems]
        rows = [*differs, *changes, *problems]
        lines += markdown_table(("what", "which"), rows, len(differs) + len(changes) + drift.problems.total,
                                "drift rows", listed=len(differs) + len(changes) + len(drift.problems))
    if pending:
        lines += ["", f"{len(pending)} record(s) not reviewed as they stand (`labeller review`):", ""]
        lines += markdown_table(("id", "status"), ([rid, STATUS_LABELS[s]] for rid, s in pending.items()),
                                len(pending), "records not reviewed")
    return "\n".join(lines) + _stale_markdown(stale)




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
