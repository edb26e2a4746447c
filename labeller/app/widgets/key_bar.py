"""``KeyBar``: the footer's keys in as many rows as the terminal needs.

Textual's ``Footer`` lays its keys out in one row and cuts off what does not fit, so on
an 80-column terminal the keys at the end (often the ones a newcomer looks for) are
simply not there. The key bar is the same footer on a grid of fixed-width cells whose
column count follows the width, so every key stays on screen, wrapped onto a second
(third) row when needed.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

CELL_WIDTH = 16  # columns per key: "^s Save", "del Delete question" folds to its key and first word


class KeyBar(Footer):
    DEFAULT_CSS = """
    KeyBar {
        layout: grid;
        height: auto;
        max-height: 5;
        grid-gutter: 0;
        grid-rows: 1;
    }
    KeyBar FooterKey {
        width: 100%;
    }
    KeyBar FooterKey.-command-palette {
        dock: none;
        border-left: none;
    }
    """

    def _columns(self) -> int:
        return max(1, (self.size.width or self.app.size.width) // CELL_WIDTH)

    def compose(self):
        yield from super().compose()
        self.styles.grid_size_columns = self._columns()  # Footer sets one column per key

    def on_resize(self, event: events.Resize) -> None:
        self.styles.grid_size_columns = self._columns()
