"""Text tables of a comparison that ``eval --baseline`` and ``runs compare`` both print.

The two commands compare the same way (``eval.compare``) and may not import each other
(each is a sub-command), so what their text shows alike is drawn here once, from the
presenter's rows (``eval.present``), as ``eval_markdown`` does for their Markdown.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from labeller.diagnostics import TEXT_LIMIT, more_line
from labeller.display import safe_line
from labeller.eval.present import MOVED_HEADER, moved_rows
from labeller.eval.report_model import Comparison


def print_moved(out: Console, c: Comparison) -> None:
    """The queries whose gate metric moved (``present.moved_rows``, most lost first), the first
    ``TEXT_LIMIT`` as the Markdown lists them, then how many more (the JSON holds them all)."""
    moved = moved_rows(c)
    if not moved:
        return
    out.print(f"queries whose {safe_line(c.gate_metric)} moved: {len(moved)} (most lost first)", soft_wrap=True)
    t = Table()  # the line above is its title: a title would wrap at this narrow table's width
    for col in MOVED_HEADER:
        t.add_column(col, justify="left" if col == "id" else "right")
    for m in moved[:TEXT_LIMIT]:
        t.add_row(safe_line(m.query_id), m.before, m.after, m.delta)
    out.print(t)
    if (tail := more_line(min(len(moved), TEXT_LIMIT), len(moved), "queries that moved")) is not None:
        out.print(f"[dim]{tail}[/]", soft_wrap=True)
