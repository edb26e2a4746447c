"""Keys in a burst (a paste, fast typing) kept in order: Tab and Shift+Tab read as the app
reads them, for every screen with several fields, and a save that waits for the text typed
before it.

Textual's own Tab moves the focus when the field it leaves handles the key; keys typed in
the same burst (a paste, fast typing) are by then queued for that field and land in it.
As priority bindings the focus moves as the key is read, so what follows lands in the
field Tab went to (issue 27). One definition, used by each screen with its own id scope
(``author.focus-next``, ``record_editor.focus-next`` ...): ids are unique app-wide, as a
``keymap.toml`` names them.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding
from textual.screen import Screen


def field_tab_bindings(scope: str) -> list[Binding]:
    """Tab / Shift+Tab as priority bindings with ids ``SCOPE.focus-next`` / ``SCOPE.focus-previous``."""
    return [
        Binding("tab", "app.focus_next", "Next field", show=False, id=f"{scope}.focus-next", priority=True,
                tooltip="Next field (what is typed or pasted right after the Tab lands there)"),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False, id=f"{scope}.focus-previous",
                priority=True, tooltip="Previous field"),
    ]


def after_typed_keys(screen: Screen, callback: Callable[[], object]) -> None:
    """Run ``callback`` once the keys typed before the one that asked have reached what they
    edit. A priority binding (Ctrl+S) runs as the app reads its key, while text typed just
    before it in the same burst still waits in the focused field's queue, and the field's
    change then travels up through its containers (a form, the screen) before the record
    holds it: saving at once left that text out. Each queue is first in, first out, and a
    message moves up only when it is handled, so a callback queued twice on each of the
    field, its containers, the screen and the app in turn comes after all of it."""
    focused = screen.focused
    steps = [node for node in (focused.ancestors_with_self if focused is not None else ()) for _ in range(2)]

    def step(i: int) -> None:
        if i == len(steps):
            callback()
        elif not steps[i].call_later(step, i + 1):  # a node already closed: nothing waits there
            step(i + 1)

    step(0)
