"""F1: every key binding of the app, where it applies, what it does, and its id.

A compact table, one line per key (issue 38: the long explanations wrapped into 2-4 lines while
the id column sat half empty, six keys a page at 80×24): the key, the binding's short name and
its id, which is what a keymap file names to move a key (``labeller.app.settings``). The long
explanation of each action is the palette's (ctrl+p), beside its name.
"""

from __future__ import annotations

from rich.console import Group
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
            yield Static("[b]labeller keys[/b] · Esc or F1 closes · ctrl+p: every action, explained",
                         classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(self._table(), id="help-keys")
            yield Static(Text(f"Move a key: [keymap] <id> = \"<keys>\" in ~/.config/labeller/{KEYMAP_FILE} "
                              "($XDG_CONFIG_HOME/labeller)", style="dim"), id="help-keymap")

    def _table(self) -> Group:
        """One table per place, under its name, the columns alike in all of them. The id is never
        wrapped or cut (it is typed into keymap.toml as shown) and a key wraps only at its " / ";
        what a key does is the binding's short name, one line, the width left (issue 27: at 80
        columns a fourth column for the place folded ids as ``app.new_questio`` / ``n``)."""
        key_width = max((len(part) for _, rows in self._groups for key, _, _ in rows for part in key.split(" / ")),
                        default=1)
        id_width = max((len(binding_id) for _, rows in self._groups for _, _, binding_id in rows), default=1)
        tables: list[Table | Text] = []
        for n, (where, rows) in enumerate(self._groups):
            if n:
                tables.append(Text(""))
            table = Table(title=Text(where, style="bold"), title_justify="left", expand=True, box=None,
                          show_edge=False, pad_edge=False, show_header=n == 0, header_style="bold")
            table.add_column("key", width=key_width, overflow="fold", style="bold")
            table.add_column("does", ratio=1, no_wrap=True, overflow="ellipsis")
            table.add_column("id", width=id_width, no_wrap=True, style="dim")
            for key, what, binding_id in rows:
                table.add_row(Text(key), Text(what), Text(binding_id))
            tables.append(table)
        return Group(*tables)

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()


def open_help(app: AppHost) -> None:
    app.push_screen(HelpScreen(app.help_groups()))
