"""F1: every key binding of the app, where it applies, what it does, and its id.

The rows wrap to the terminal's width (a table of cells would cut the longer ones off
on an 80-column terminal); the id is what a keymap file names to move a key
(``labeller.app.settings``).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from labeller.app.screens.host import AppHost, BindingGroups
from labeller.app.settings import KEYMAP_FILE


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1", "dismiss(None)", "Close help", id="help.close")]

    def __init__(self, groups: BindingGroups, **kwargs) -> None:
        super().__init__(**kwargs)
        self._groups = groups

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static("[b]labeller keys[/b]  ·  Escape or F1 closes  ·  ctrl+p lists every command",
                         classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(self._table(), id="help-keys")
            yield Static(Text(f"Move a key: [keymap] <id> = \"<keys>\" in $XDG_CONFIG_HOME/labeller/{KEYMAP_FILE} "
                              f"(~/.config/labeller/{KEYMAP_FILE})", style="dim"), id="help-keymap")

    def _table(self) -> Table:
        table = Table(expand=True, box=None, show_edge=False, pad_edge=False, header_style="bold")
        table.add_column("where", ratio=2, overflow="fold")
        table.add_column("key", ratio=2, overflow="fold", style="bold")
        table.add_column("does", ratio=6, overflow="fold")
        table.add_column("id", ratio=3, overflow="fold", style="dim")
        for where, rows in self._groups:
            for n, (key, what, binding_id) in enumerate(rows):
                table.add_row(Text(where if n == 0 else ""), Text(key), Text(what), Text(binding_id))
        return table

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()


def open_help(app: AppHost) -> None:
    app.push_screen(HelpScreen(app.help_groups()))
