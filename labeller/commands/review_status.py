"""How the review round stands, as printed by ``labeller build`` (which reports it without reviewing)."""

from __future__ import annotations

from labeller.commands.common import console
from labeller.diagnostics import print_bounded, print_with_command, safe_short
from labeller.review.log import STATUS_LABELS, STATUSES


def counts_line(counts: dict | None) -> str:
    """One line of review counts, for the build summary (``None``: the log could not be read)."""
    if counts is None:
        return "unavailable (see the warning above)"
    return "  ".join(f"{STATUS_LABELS[status]} {counts[status]}" for status in STATUSES)


def print_pending(pending: dict[str, str]) -> None:
    """Why ``build --check --require-reviewed`` fails: every record not reviewed as it stands."""
    if not pending:
        return
    err = console(stderr=True)
    print_with_command(err, f"[bold red]not reviewed:[/] {len(pending)} record(s) are unreviewed, flagged or changed "
                       "since their review; review them with:", "labeller review")
    print_bounded(err, (f"  {safe_short(rid)}: {STATUS_LABELS[status]}" for rid, status in pending.items()),
                  len(pending), "records not reviewed")
