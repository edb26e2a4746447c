"""A one-line question (find in the document, go to line, the reviewer's name).

Enter answers with the typed text, Escape with ``None``; the caller decides what the
text means, so one small dialog serves every prompt. The field is a ``SafeInput``: a
prefilled value with control characters shows them as stand-ins and answers with them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from labeller.app.screens.field_keys import field_tab_bindings
from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.markup import fmt


class Ask(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask.cancel"), *field_tab_bindings("ask")]

    def __init__(self, title: str, placeholder: str = "", value: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self._title = title
        self._placeholder = placeholder
        self._value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(fmt("[b]$title[/b]", title=self._title), classes="dialog-title")
            yield SafeInput(self._value, placeholder=self._placeholder, id="ask-input")

    def on_mount(self) -> None:
        self.query_one(SafeInput).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(self.query_one(SafeInput).raw)  # the real text, not its visible form

    def action_cancel(self) -> None:
        self.dismiss(None)
