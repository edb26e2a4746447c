"""The editor's checkboxes, ticked or not plain to see without colour.

Textual's ``Checkbox`` draws ``▐X▌`` in both states and tells them apart by colour alone, so
in a terminal without colour (``NO_COLOR``, a monochrome theme, a screen reader's capture,
``tmux capture-pane``) an unticked "exact" or "whole doc" read as ticked (issue 38.12). Here
the box is empty until it is ticked; the colours stay as they were.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox

TICKED = "X"
UNTICKED = " "


class TickBox(Checkbox):
    """A ``Checkbox`` whose box shows ``X`` when ticked and nothing when not."""

    def render(self) -> Content:
        # the box's glyph is Textual's public BUTTON_INNER, read on every draw; a change of
        # ``value`` redraws (Checkbox's reactive), so the glyph follows the value
        self.BUTTON_INNER = TICKED if self.value else UNTICKED
        return super().render()
