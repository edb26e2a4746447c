"""How the review round stands, as printed by ``labeller build`` (which reports it without reviewing)."""

from __future__ import annotations

from labeller.commands.common import console
from labeller.display import safe_line
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
    err.print(f"[bold red]not reviewed:[/] {len(pending)} record(s) are unreviewed, flagged or changed since their "
              "review (labeller review)")
    for rid, status in pending.items():
        err.print(f"  {safe_line(rid)}: {STATUS_LABELS[status]}")
