"""The pieces the review screens share: the record pager, the flag-comment dialog and the
record editor.

Kept apart from any one screen so that review, annotation and adjudication each import
what they use from here, never from one another.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from labeller.app.screens.field_keys import after_typed_keys, field_tab_bindings
from labeller.app.session.review import RecordCursor
from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.fields_area import SafeTextArea
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.record_view import plain
from labeller.core.models import Question
from labeller.display import json_dumps
from labeller.errors import LabellerError
from labeller.review.adjudicate import validated


class CommentScreen(ModalScreen[str | None]):
    """Ask for the comment a flag needs (Enter to flag, Escape to cancel)."""

    DEFAULT_CSS = """
    CommentScreen { align: center middle; }
    CommentScreen > Vertical { width: 80; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    CommentScreen #cm-error { color: $error; height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="comment.cancel"), *field_tab_bindings("comment")]

    def __init__(self, prompt: str) -> None:
        super().__init__()
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.prompt))
            yield SafeInput(placeholder="what is wrong with this label?", id="cm-input")
            yield Static("", id="cm-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        comment = self.query_one("#cm-input", SafeInput).raw
        if not comment.strip():
            self.query_one("#cm-error", Static).update("a flag needs a comment")
            return
        self.dismiss(comment.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class RecordEditor(ModalScreen[Question | None]):
    """Edit one record as JSON (query, expected answer, locators ...); Ctrl+S saves.

    ``save_record`` does the writing and raises ``LabellerError`` to refuse; the message is
    shown and the editor stays open, so nothing half-valid is ever written.

    ``context`` is what the editor is opened from (a review's status, the record's query and
    quotes), drawn above the JSON: the editor covers the screen it was opened from at 80×24,
    and the JSON alone, scrolled to the line being edited, no longer says which question and
    quote it is. The editor takes the whole terminal up to a comfortable size (a 90% box
    left 21 of 24 rows and wrapped the JSON at 72 columns); the context is a few lines of a
    fixed count (``record_summary``: one line each), the JSON the rest.
    """

    DEFAULT_CSS = """
    RecordEditor { align: center middle; }
    RecordEditor > Vertical { width: 100%; max-width: 130; height: 100%; max-height: 44;
                              border: thick $accent; background: $surface; padding: 0 1; }
    RecordEditor #ed-context { height: auto; border-bottom: solid $panel; }
    RecordEditor #ed-text { height: 1fr; min-height: 5; }
    RecordEditor #ed-error { color: $error; height: auto; max-height: 5; }
    """
    BINDINGS = [Binding("ctrl+s", "save", "Save", priority=True, id="record_editor.save"),
                Binding("escape", "cancel", "Cancel", id="record_editor.cancel"),
                *field_tab_bindings("record_editor")]

    def __init__(self, title: str, record: dict, record_id: str, save_record: Callable[[Question], None],
                 context: RenderableType | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.record = record
        self.record_id = record_id
        self.save_record = save_record
        self.context = context

    def compose(self) -> ComposeResult:
        with Vertical():
            # the keys are the key bar's (below): the title stays one line at 80 columns
            yield Static(plain(self.title_text + " (the id cannot change)", "bold"), id="ed-title")
            if self.context is not None:
                yield Static(self.context, id="ed-context")
            # JSON with C1 controls and bidi overrides escaped too (json escapes C0 itself): the
            # same record, nothing in it acts on the terminal; a pasted one shows as a stand-in
            yield SafeTextArea(json_dumps(self.record, indent=2), id="ed-text", show_line_numbers=True)
            yield Static("", id="ed-error")
            yield KeyBar()

    def action_save(self) -> None:
        after_typed_keys(self, self._save_now)  # text typed just before Ctrl+S is saved too

    def _save_now(self) -> None:
        error = self.query_one("#ed-error", Static)
        try:
            data = json.loads(self.query_one("#ed-text", SafeTextArea).raw)
        except json.JSONDecodeError as exc:
            error.update(plain(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"))
            return
        try:
            if not isinstance(data, dict):
                raise LabellerError("a record must be a JSON object")
            edited = validated(data, self.record_id)
            self.save_record(edited)
        except LabellerError as exc:
            error.update(plain(str(exc)))
            return
        self.dismiss(edited)

    def action_cancel(self) -> None:
        self.dismiss(None)


def pager_bindings(scope: str) -> list[Binding]:
    """Next, previous and close, as every pager binds them; ``scope`` makes each id its screen's
    own (``review.next``, ``pool.close``), so a keymap can move one screen's keys alone."""
    return [Binding("n,right", "next", "Next", id=f"{scope}.next"),
            Binding("p,left", "prev", "Prev", id=f"{scope}.prev"),
            Binding("q,escape", "close", "Close", id=f"{scope}.close")]


class RecordPager(Screen):
    """A screen that walks its model's records one at a time (review, annotation and
    adjudication share it): ``n``/``p`` move the model's cursor and redraw."""

    model: RecordCursor

    if TYPE_CHECKING:  # each pager shows its own record
        def show(self) -> None: ...

    @property
    def record_ids(self) -> list[str]:
        return self.model.record_ids

    @property
    def index(self) -> int:
        return self.model.index

    def action_next(self) -> None:
        self.model.step(1)
        self.show()

    def action_prev(self) -> None:
        self.model.step(-1)
        self.show()

    def action_close(self) -> None:
        self.dismiss(None)
