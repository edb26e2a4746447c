"""The DataTable every screen uses: Textual's, with its rows redrawn once they are measured.

Textual's DataTable measures new rows and updated cells lazily, when the table next goes
idle, but it caches each drawn row under a key that this measurement does not change
(Textual issue #4470). A frame drawn between filling a table and that idle moment (the
screen refreshes on its own clock, so under load it happens) caches the rows at the
column widths of the header alone, and they stay that narrow until the cursor or the
mouse moves. Here the measurement also moves the cache key on and asks for a redraw, so
what is shown never depends on when a frame happened to be drawn. That takes DataTable's
private measurement, so it lives in ``textual_adapter`` (``MeasuredDataTable``).
"""

from __future__ import annotations

from labeller.app.widgets.textual_adapter import MeasuredDataTable


class Table(MeasuredDataTable):
    """A DataTable whose rows never keep widths measured before their own cells, and whose
    Home and End go to the first and last row of a row-cursor table (Textual's scroll it
    sideways, which a table read row by row never wants), and whose cursor stays in view when
    the table is resized (issue 27: a question deleted at the end of the list moves the cursor
    to the new last row, whose shorter detail then grows the panel below and shrinks the table
    under a cursor scrolled to the bottom of the old height)."""

    def on_resize(self) -> None:
        if self.show_cursor and self.row_count:
            self.move_cursor(row=self.cursor_row, column=self.cursor_column)

    def action_scroll_home(self) -> None:
        if self.cursor_type == "row":
            self.action_scroll_top()
        else:
            super().action_scroll_home()

    def action_scroll_end(self) -> None:
        if self.cursor_type == "row":
            self.action_scroll_bottom()
        else:
            super().action_scroll_end()
