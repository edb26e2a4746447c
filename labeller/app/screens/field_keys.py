"""Tab and Shift+Tab read as the app reads them, for every screen with several fields.

Textual's own Tab moves the focus when the field it leaves handles the key; keys typed in
the same burst (a paste, fast typing) are by then queued for that field and land in it.
As priority bindings the focus moves as the key is read, so what follows lands in the
field Tab went to (issue 27). One definition, used by each screen with its own id scope
(``author.focus-next``, ``record_editor.focus-next`` ...): ids are unique app-wide, as a
``keymap.toml`` names them.
"""

from __future__ import annotations

from textual.binding import Binding


def field_tab_bindings(scope: str) -> list[Binding]:
    """Tab / Shift+Tab as priority bindings with ids ``SCOPE.focus-next`` / ``SCOPE.focus-previous``."""
    return [
        Binding("tab", "app.focus_next", "Next field", show=False, id=f"{scope}.focus-next", priority=True,
                tooltip="Next field (what is typed or pasted right after the Tab lands there)"),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False, id=f"{scope}.focus-previous",
                priority=True, tooltip="Previous field"),
    ]
