"""The terminal width classes the app lays itself out for, defined here and nowhere else.

80×24 (a laptop split, an ssh session, a tmux pane) is the first-class size, 100×30 and
160×48 the comfortable ones; each falls in its own class. Textual puts the class on every
screen as ``-narrow`` / ``-medium`` / ``-wide`` (the app's ``HORIZONTAL_BREAKPOINTS``), so a
stylesheet says ``.-narrow #x`` and never repeats a column count.

The author screen's corpus pane (files and search) sits beside the document only where it
fits with the document and the record's fields both readable (``SIDE_PANE``); at narrow
widths it is a full-width view of its own. Whether the side pane shows is the author's
choice per class (F9, ``settings.json``'s ``panes``), because a pane wanted at 160 columns
squeezes the form off screen at 100.
"""

from __future__ import annotations

from collections.abc import Mapping

# (name, first column of the class), narrowest first
WIDTH_CLASSES = (("narrow", 0), ("medium", 100), ("wide", 140))
BREAKPOINTS = [(edge, f"-{name}") for name, edge in WIDTH_CLASSES]
# where the corpus pane may sit beside the document, and whether it does unless the author chose
SIDE_PANE = {"medium": False, "wide": True}
PANE_CHOICES = ("shown", "hidden")
# where the eval's recall@k curve shows, beside the metrics table (with the character table
# under it); narrower, the tables stand one above the other at full width and a line says
# where the curve went (issue 38.10: the README said 120 while the curve needed 140)
CURVE_COLUMNS = 120


def width_class(columns: int) -> str:
    return next(name for name, edge in reversed(WIDTH_CLASSES) if columns >= edge)


def side_pane_shown(panes: Mapping[str, str], cls: str) -> bool:
    """The corpus pane beside the document at width class ``cls``: the author's choice for
    that class (``panes``: class -> shown / hidden), else the class's default."""
    if cls not in SIDE_PANE:
        return False
    return {"shown": True, "hidden": False}.get(panes.get(cls, ""), SIDE_PANE[cls])
