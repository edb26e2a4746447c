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

from textual.geometry import Region, Spacing
from textual.widget import Widget

from labeller.app.widgets.textual_adapter import MeasuredDataTable


class Table(MeasuredDataTable):
    """A DataTable whose rows never keep widths measured before their own cells, and whose
    Home and End go to the first and last row of a row-cursor table (Textual's scroll it
    sideways, which a table read row by row never wants), and whose cursor stays in view when
    the table is resized (issue 27: a question deleted at the end of the list moves the cursor
    to the new last row, whose shorter detail then grows the panel below and shrinks the table
    under a cursor scrolled to the bottom of the old height)."""

    def on_data_table_row_highlighted(self, event: MeasuredDataTable.RowHighlighted) -> None:
        # a table as tall as its rows (the eval's: issue 38, no scroll box inside a scrolling
        # screen) cannot scroll its cursor into view itself: the containers that scroll do. Only
        # for the table the keys are in: a table being filled highlights its first row too, and
        # revealing that would move the screen under the reader to wherever the table's layout
        # stood when the highlight arrived (before or after the fill's layout: load decides)
        if self.max_scroll_y == 0 and self.has_focus:
            self.call_after_refresh(self.reveal_cursor)

    def reveal_cursor(self) -> None:
        """Scroll the nearest scrolling container around the table so that the cursor's row is
        drawn (the first row with the header above it)."""
        if not self.is_mounted or not self.row_count:
            return
        rows = self.ordered_rows
        row = min(max(self.cursor_row, 0), len(rows) - 1)
        above = sum(r.height for r in rows[:row])
        y = self.content_region.y + self.header_height + above - round(self.scroll_y)  # screen coordinates
        height = rows[row].height
        if row == 0:
            y, height = y - self.header_height, height + self.header_height
        for container in self.ancestors:
            if isinstance(container, Widget) and container.max_scroll_y > 0:
                # the header and key bar docked over the scrolling area hide what lies under them
                docked = {edge: sum(c.outer_size.height for c in container.children
                                    if c.display and str(c.styles.dock) == edge) for edge in ("top", "bottom")}
                inside = Region(0, y - container.content_region.y + round(container.scroll_y), 1, height)
                container.scroll_to_region(inside, animate=False, immediate=True,
                                           spacing=Spacing(docked["top"] + 1, 0, docked["bottom"] + 1, 0))
                return

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
