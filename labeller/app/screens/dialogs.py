"""Small modal questions: restore the journal, confirm, quit (a save conflict has its own screen)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from labeller.app.widgets.markup import fmt


class Choice(ModalScreen[str | None]):
    """A message and a row of buttons; dismisses with the chosen button's id (None on Escape)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel")]

    def __init__(self, title: str, body: Content, buttons: list[tuple[str, str, ButtonVariant]], *,
                 cancellable: bool = True, **kwargs) -> None:
        """``buttons``: (id, label, variant). A dialog that is not ``cancellable`` ignores Escape:
        one of its buttons must be chosen."""
        super().__init__(**kwargs)
        self._title = title
        self._body = body
        self._buttons = buttons
        self._cancellable = cancellable

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(fmt("[b]$title[/b]", title=self._title), classes="dialog-title")
            yield Static(self._body, classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                for bid, label, variant in self._buttons:
                    yield Button(label, id=bid, variant=variant)

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id)

    def action_cancel(self) -> None:
        if self._cancellable:
            self.dismiss(None)


def restore_dialog(changes: list[str], questions: str, changed_since: bool) -> Choice:
    """``changes``: one line per record the journal holds, saying what restoring it changes
    (``session.journal_diff.journal_changes``), not just its id (issue 38.12)."""
    body = fmt("The journal holds unsaved edits from a previous session of [b]$questions[/b]; restoring "
               "puts back, per record:", questions=questions)
    for line in changes:
        body += fmt("\n- $line", line=line)
    if changed_since:
        body += Content.from_markup("\n\n[$warning]The questions file changed on disk since then; restoring puts "
                                    "your edited records over the current file.[/]")
    # no Escape: dismissing it without a choice would let the next edit overwrite the journal
    return Choice("Restore unsaved edits?", body, [("restore", "Restore", "primary"),
                                                  ("discard", "Discard them", "error")], cancellable=False)


def quit_dialog() -> Choice:
    body = Content("You have unsaved edits. They are kept in the journal either way and offered again on the "
                   "next start.")
    return Choice("Quit labeller?", body, [("save", "Save and quit", "primary"), ("quit", "Quit", "warning"),
                                           ("cancel", "Cancel", "default")])


def confirm_dialog(title: str, body: str, ok: str) -> Choice:
    return Choice(title, fmt("$body", body=body), [("ok", ok, "error"), ("cancel", "Cancel", "default")])
