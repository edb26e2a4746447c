"""A screen's panes per width class: which are shown, and a focus that never lands on a
hidden one.

Textual lets ``focus()`` reach a widget inside a container with ``display: none`` (what is
typed then vanishes), and applies it only after the keys already queued (those go to the
widget being left). ``Panes.focus`` first shows what the widget is in, then moves the focus
at once; ``Panes.lay_out`` moves it off a pane it hides. The corpus pane of the author screen
is the first user: beside the document where it fits (``app.widths``), else a full-width
view of its own (the screen's ``-corpus-view`` class) in place of the other panes.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen
from textual.widget import Widget

VIEW_CLASS = "-corpus-view"


class Panes:
    def __init__(self, screen: Screen, side: str, others: tuple[str, ...], *, side_home: str,
                 home: str, beside: Callable[[], bool]) -> None:
        """``side``: the selector of the pane that is either beside the ``others`` or a view in
        their place; ``side_home`` / ``home``: where the focus goes when a pane it was in goes;
        ``beside()``: whether the side pane is beside the others now (width and choice)."""
        self.screen = screen
        self.beside = beside
        self.side = side
        self.others = others
        self.side_home = side_home
        self.home = home

    @property
    def viewing(self) -> bool:
        """The side pane is shown as a view of its own."""
        return self.screen.has_class(VIEW_CLASS)

    def lay_out(self) -> None:
        """Show the side pane beside the others, as the view, or not at all."""
        screen = self.screen
        beside = self.beside()
        if beside:
            screen.remove_class(VIEW_CLASS)  # room for it beside them now: no view of its own
        view = self.viewing
        for selector, shown in ((self.side, view or beside), *((s, not view) for s in self.others)):
            widget = screen.query_one(selector)
            if widget.display != shown:
                widget.display = shown
        focused = screen.focused
        if focused is not None and not self.is_shown(focused):
            screen.set_focus(screen.query_one(self.side_home if view else self.home))

    def is_shown(self, widget: Widget) -> bool:
        return all(node.display for node in widget.ancestors_with_self if node is not self.screen)

    def focus(self, widget: Widget) -> None:
        """Focus ``widget`` now, opening or leaving the view so that it is on screen."""
        in_side = self.screen.query_one(self.side) in widget.ancestors_with_self
        if not self.is_shown(widget) or (self.viewing and not in_side):
            self.screen.set_class(in_side and not self.beside(), VIEW_CLASS)
            self.lay_out()
        self.screen.set_focus(widget)
