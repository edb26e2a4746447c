"""``KeyBar``: the footer's keys in as many rows as the terminal needs, none cut short.

Textual's ``Footer`` lays its keys out in one row and cuts off what does not fit, so on
an 80-column terminal the keys at the end (often the ones a newcomer looks for) are
simply not there. A grid of equal cells is no better: a cell narrow enough for many keys
per row cuts the longer labels ("Delete question" became "Delete ques"). The key bar
wraps the keys as text wraps words: each key keeps its whole label, and a key that would
run past the right edge starts the next row. The rows are laid out again when the width
changes.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer

from labeller.app.widgets.textual_adapter import FooterKey, bindings_ready

# What a FooterKey draws around its two texts in the (non-compact) footer style, from its
# DEFAULT_CSS: " key " (padding 0 1) then "description " (padding 0 1 0 0). The key bar
# draws the command-palette key the same way (Textual's footer docks it on the right, compact
# and with a border), so this is every key's width. tests/test_app_layout.py checks the rendered bar, so a Textual change shows.
KEY_PADDING = 3


def key_width(key: FooterKey) -> int:
    """Columns the key takes on screen: its key, its description and their padding."""
    return cell_len(key.key_display) + cell_len(key.description) + KEY_PADDING


def wrap_keys(widths: list[int], width: int) -> list[list[int]]:
    """Indices of the keys on each row: as many as fit, in order (a key wider than the
    whole bar gets a row of its own)."""
    rows: list[list[int]] = []
    used = width + 1
    for i, w in enumerate(widths):
        if used + w > width:
            rows.append([])
            used = 0
        rows[-1].append(i)
        used += w
    return rows


class KeyBar(Footer):
    DEFAULT_CSS = """
    KeyBar {
        layout: vertical;
        height: auto;
    }
    KeyBar > HorizontalGroup {
        height: 1;
    }
    KeyBar FooterKey.-command-palette {
        dock: none;
        border-left: none;
        padding-right: 0;
    }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._laid_out_for = 0  # the width the rows were made for
        self._shown: tuple = ()  # the bindings the rows show

    def _bar_width(self) -> int:
        return self.size.width or self.app.size.width

    def compose(self):
        keys: list[Widget] = list(super().compose())
        self._shown = self._what_shows(self.screen) if bindings_ready(self) else ()
        for key in keys:
            if key.has_class("-command-palette"):  # Textual leaves it compact: drawn like the rest here
                key.data_bind(compact=Footer.compact)
            if isinstance(key, FooterKey):
                # born with the bar's value (and its class, before any styling): a key starts
                # compact and its binding then makes it not, which restyled every key twice
                # before the first frame (3% of the app's start)
                key.set_reactive(FooterKey.compact, self.compact)
                key.set_class(self.compact, "-compact", update=False)
        self._laid_out_for = width = self._bar_width()
        widths = [key_width(k) if isinstance(k, FooterKey) else width for k in keys]
        for row in wrap_keys(widths, width):
            yield HorizontalGroup(*(keys[i] for i in row))

    @staticmethod
    def _what_shows(screen) -> tuple:
        return tuple((b.key, b.description, enabled) for _, b, enabled, _ in screen.active_bindings.values()
                     if b.show)

    def bindings_changed(self, screen) -> None:
        """Lay the keys out again only when what they say changed: Textual's footer rebuilds
        itself on every focus change, and each rebuild moves the layout under it."""
        if not bindings_ready(self) or self._what_shows(screen) != self._shown:
            super().bindings_changed(screen)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for and bindings_ready(self):
            self.call_after_refresh(self.recompose)
