"""The save conflict: questions.jsonl changed on disk, and some records changed on both sides.

``save_over_disk`` is what a save does when the file is not the one the app loaded: it
compares the file on disk with the app's drafts record by record (``session/conflicts.py``),
takes in quietly what changed only on disk, and asks only about the records both sides
changed. ``ConflictScreen`` lists those records; for the highlighted one it shows the
app's version and the version on disk side by side, the lines that differ marked, and the
author keeps theirs or mine per record (or for all). Saving with those choices writes the
file over the version on disk, so every line nobody changed stays byte for byte; Escape
writes nothing and leaves every edit unsaved. Taking the disk's version over an edit is
one undo step.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from labeller.app.screens.host import AppHost
from labeller.app.session.conflicts import MINE, THEIRS, Conflict, DiskMerge
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.markup import fmt, visible, visible_line
from labeller.app.widgets.table import Table
from labeller.display import json_dumps, safe_line
from labeller.errors import LabellerError

CHOICE_SHOWN = {MINE: "keep mine", THEIRS: "take theirs", None: "choose: m / t"}


def record_lines(record: dict | None) -> list[str]:
    """A record as the dialog shows it: indented JSON (C0, C1 and bidi characters escaped),
    one line per field or locator key; ``(deleted)`` when that side has no such record."""
    return ["(deleted)"] if record is None else json_dumps(record, indent=2).splitlines()


def side_by_side(lines: list[str], other: list[str]) -> Content:
    """``lines`` with those the other side does not have marked (a trailing comma aside: the
    last item of a list gains one when the other side adds an item after it)."""
    others = {line.rstrip(",") for line in other}
    return Content("\n").join([Content.styled(visible(line), "" if line.rstrip(",") in others else "bold $warning")
                               for line in lines])


class ConflictScreen(ModalScreen[dict[str, str] | None]):
    """Dismisses with ``{record id: MINE | THEIRS}`` for every conflict, or ``None`` (Escape)."""

    DEFAULT_CSS = """
    ConflictScreen { align: center middle; }
    ConflictScreen > Vertical { width: 95%; height: 90%; border: thick $warning; background: $surface; padding: 0 1; }
    ConflictScreen #conflict-head { height: auto; margin-bottom: 1; }
    ConflictScreen #conflict-list { height: auto; max-height: 8; }
    ConflictScreen #conflict-sides { height: 1fr; }
    ConflictScreen .conflict-side { width: 1fr; border: round $primary; }
    """
    BINDINGS = [
        Binding("m", "choose('mine')", "Keep mine", id="conflict.keep_mine",
                tooltip="Keep the app's version of the highlighted record"),
        Binding("t", "choose('theirs')", "Take theirs", id="conflict.take_theirs",
                tooltip="Take the version on disk of the highlighted record"),
        Binding("M", "choose_all('mine')", "Mine for all", id="conflict.all_mine",
                tooltip="Keep the app's version of every record in the list"),
        Binding("T", "choose_all('theirs')", "Theirs for all", id="conflict.all_theirs",
                tooltip="Take the version on disk of every record in the list"),
        Binding("ctrl+s", "save", "Save", priority=True, id="conflict.save",
                tooltip="Save with these choices (each record needs one); every other line stays as on disk"),
        Binding("escape", "cancel", "Cancel", id="conflict.cancel",
                tooltip="Write nothing: every edit stays unsaved (the next save asks again)"),
    ]

    def __init__(self, merge: DiskMerge, **kwargs) -> None:
        super().__init__(**kwargs)
        self.merge = merge
        self.conflicts: dict[str, Conflict] = {c.record_id: c for c in merge.conflicts}
        self.choices: dict[str, str] = {}
        self.shown: str | None = None

    def compose(self) -> ComposeResult:
        n, taken = len(self.conflicts), len(self.merge.taken)
        with Vertical():
            yield Static(fmt(
                f"[b]questions.jsonl changed on disk: {n} record(s) changed here and there[/b]\n"
                f"{taken} record(s) changed only on disk come in as they are; the records changed only here are "
                "saved. For each record below: [b]m[/b] keep mine, [b]t[/b] take theirs (M / T: all), then "
                "[b]ctrl+s[/b] saves; Escape writes nothing."), id="conflict-head")
            yield Table(id="conflict-list", cursor_type="row")
            with Horizontal(id="conflict-sides"):
                with VerticalScroll(classes="conflict-side", id="conflict-mine-pane"):
                    yield Static(id="conflict-mine")
                with VerticalScroll(classes="conflict-side", id="conflict-theirs-pane"):
                    yield Static(id="conflict-theirs")
            yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#conflict-mine-pane").border_title = "mine (this app)"
        self.query_one("#conflict-theirs-pane").border_title = "theirs (on disk now)"
        table = self.query_one("#conflict-list", DataTable)
        table.add_column("record", key="id")
        table.add_column("what happened", key="kind")
        table.add_column("choice", key="choice")
        for rid, c in self.conflicts.items():
            table.add_row(safe_line(rid), c.kind, CHOICE_SHOWN[None], key=rid)
        table.focus()
        self._show(next(iter(self.conflicts)))

    def _show(self, record_id: str) -> None:
        self.shown = record_id
        c = self.conflicts[record_id]
        mine, theirs = record_lines(c.mine_json), record_lines(c.theirs_json)
        self.query_one("#conflict-mine", Static).update(side_by_side(mine, theirs))
        self.query_one("#conflict-theirs", Static).update(side_by_side(theirs, mine))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self._show(event.row_key.value)

    def _set(self, record_id: str, choice: str) -> None:
        self.choices[record_id] = choice
        self.query_one("#conflict-list", DataTable).update_cell(record_id, "choice", CHOICE_SHOWN[choice])

    def action_choose(self, choice: str) -> None:
        if self.shown is not None:
            self._set(self.shown, choice)
            table = self.query_one("#conflict-list", DataTable)
            if table.cursor_row < table.row_count - 1:
                table.move_cursor(row=table.cursor_row + 1)  # on to the next record

    def action_choose_all(self, choice: str) -> None:
        for rid in self.conflicts:
            self._set(rid, choice)

    def action_save(self) -> None:
        open_ = [rid for rid in self.conflicts if rid not in self.choices]
        if open_:
            self.notify(visible_line(f"choose a version of {', '.join(open_[:5])} first (m / t)"),
                        severity="warning", markup=False)
            return
        self.dismiss(dict(self.choices))

    def action_cancel(self) -> None:
        self.dismiss(None)


def save_over_disk(app: AppHost, save: Callable[[], None]) -> None:
    """The save found questions.jsonl changed on disk: merge it record by record, ask about
    the records changed on both sides (if any), then ``save`` again over the file on disk."""
    session = app.session
    try:
        merge = session.merge_with_disk()
    except LabellerError as exc:
        app.notify(visible_line(f"not saved: questions.jsonl changed on disk and is refused now: {exc}"),
                   severity="error", timeout=15, markup=False)
        return

    def chosen(choices: dict[str, str] | None) -> None:
        if choices is None:
            app.notify("nothing was saved: your edits stay unsaved, and the next save asks again",
                       severity="warning")
            return
        taken = [*merge.taken, *session.take_disk(merge, choices)]
        if taken:
            listed = ", ".join(taken[:8]) + (f" and {len(taken) - 8} more" if len(taken) > 8 else "")
            app.notify(visible_line(f"questions.jsonl changed on disk: took in {len(taken)} record(s) from it: "
                                    f"{listed}"), timeout=10, markup=False)
        app.refresh_screens()
        save()

    if merge.conflicts:
        app.push_screen(ConflictScreen(merge), chosen)
    else:
        chosen({})
