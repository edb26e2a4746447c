"""F1: every key binding of the app, where it applies, and what it does."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from labeller.app.screens.host import AppHost
from labeller.app.screens.spec import ModeSpec


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1", "dismiss(None)", "Close help")]

    def __init__(self, groups: list[tuple[str, list[tuple[str, str]]]], **kwargs) -> None:
        super().__init__(**kwargs)
        self._groups = groups

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static("[b]labeller keys[/b]  ·  Escape or F1 closes  ·  ctrl+p lists every command",
                         classes="dialog-title")
            yield DataTable(id="help-keys", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("where", "key", "does")
        for where, rows in self._groups:
            for key, what in rows:
                table.add_row(where, key, what)
        table.focus()


def open_help(app: AppHost) -> None:
    app.push_screen(HelpScreen(app.help_groups()))


SPEC = ModeSpec("help", "Help", "f1", "Every key binding, by where it applies", HelpScreen, open=open_help)
