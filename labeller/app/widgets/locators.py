"""A record's locators: the list (one row each, with its live status) and the editor of one."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Checkbox, DataTable, Input, Label

from labeller.app.session.drafts import Draft, LocatorDraft
from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.markup import display_line
from labeller.app.widgets.question_list import status_text
from labeller.app.widgets.table import Table
from labeller.app.widgets.tick_box import TickBox
from labeller.display import safe_line


class LocatorTable(Table):
    """One row per locator; the highlighted row is the locator being edited."""

    BINDINGS = [Binding("delete", "remove", "Remove locator", show=True, id="locator_list.remove", tooltip="Remove the highlighted locator")]

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class RemoveRequested(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)

    def on_mount(self) -> None:
        self.add_column("#", key="n")
        self.add_column("status", key="status")
        self.add_column("locator", key="locator")

    def show(self, draft: Draft, statuses: list[str], active: int) -> None:
        rows = [(str(i + 1), status_text(statuses[i] if i < len(statuses) else "…"),
                 safe_line(loc.describe()[:200])) for i, loc in enumerate(draft.locators)]
        with self.prevent(DataTable.RowHighlighted):
            if self.row_count == len(rows):
                # same rows: change the cells that differ, so typing a quote does not relayout the screen
                for i, row in enumerate(rows):
                    for col, value in zip(("n", "status", "locator"), row):
                        if self.get_cell(str(i), col) != value:
                            self.update_cell(str(i), col, value, update_width=True)
            else:
                self.clear()
                for i, row in enumerate(rows):
                    self.add_row(*row, key=str(i))
            if rows and self.cursor_row != min(active, len(rows) - 1):
                self.move_cursor(row=min(active, len(rows) - 1))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Chosen(int(event.row_key.value)))

    def action_remove(self) -> None:
        if self.row_count:
            self.post_message(self.RemoveRequested(self.cursor_row))


class LocatorForm(Vertical):
    """doc, quote, its context (prefix / suffix), heading (for a section locator), exact and
    whole doc (the one way to label a whole document: a doc alone is incomplete); posts ``Changed``. The context fields are never trimmed: a space at their inner edge is
    part of the rule (SPEC §2.2), so a record read from disk comes back exactly as it was.
    The fields are ``SafeInput``s: control characters in a quote or context show as
    stand-ins and are kept unless the author edits them (``widgets.fields``)."""

    class Changed(Message):
        def __init__(self, locator: LocatorDraft) -> None:
            super().__init__()
            self.locator = locator

    def __init__(self, doc_ids: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self._doc_ids = set(doc_ids)
        # the doc field completes and accepts a document's visible form; it stands for that document
        self._doc_shown = {display_line(d): d for d in doc_ids}

    def compose(self) -> ComposeResult:
        """Laid out as ``QuestionForm``'s fields (a label beside or above its control); the two
        context boxes each under their own label, "before" and "after" the quote."""
        with Horizontal(classes="field"):
            yield Label("quote", classes="field-label")
            yield SafeInput(placeholder="exact words, or select in the document", id="loc-quote", compact=True)
        with Horizontal(classes="field"):
            yield Label("doc", classes="field-label")
            with Horizontal(classes="controls"):
                yield SafeInput(placeholder="optional: pin to one document", id="loc-doc", compact=True,
                                suggester=SuggestFromList(list(self._doc_shown), case_sensitive=True))
                yield TickBox("exact", id="loc-exact", compact=True)
        with Horizontal(classes="field-row"):
            with Horizontal(classes="field"):
                yield Label("before", classes="field-label")
                yield SafeInput(placeholder="optional context", id="loc-prefix", compact=True)
            with Horizontal(classes="field"):
                yield Label("after", classes="field-label short")
                yield SafeInput(placeholder="optional context", id="loc-suffix", compact=True)
        with Horizontal(classes="field"):
            yield Label("heading", classes="field-label")
            with Horizontal(classes="controls"):
                yield SafeInput(placeholder="or a whole section (needs doc)", id="loc-heading", compact=True)
                yield TickBox("whole doc", id="loc-whole", compact=True,
                               tooltip="label the whole document (SPEC §2.1): only with no quote and no heading")

    def load(self, loc: LocatorDraft | None) -> None:
        loc = loc or LocatorDraft()
        with self.prevent(Input.Changed, Checkbox.Changed):
            for wid, value in (("#loc-quote", loc.quote), ("#loc-doc", loc.doc), ("#loc-heading", loc.heading),
                               ("#loc-prefix", loc.prefix), ("#loc-suffix", loc.suffix)):
                inp = self.query_one(wid, SafeInput)
                if inp.raw != (value or ""):
                    inp.raw = value or ""
            self.query_one("#loc-exact", Checkbox).value = bool(loc.exact)
            self.query_one("#loc-whole", Checkbox).value = loc.whole
        self.disabled = False

    @property
    def locator(self) -> LocatorDraft:
        def value(wid: str) -> str | None:
            v = self.query_one(wid, SafeInput).raw
            return v if v.strip() else None

        doc = value("#loc-doc")
        doc = self._doc_shown.get(doc, doc) if doc is not None and doc not in self._doc_ids else doc
        return LocatorDraft(doc=doc, quote=value("#loc-quote"), heading=value("#loc-heading"),
                            exact=True if self.query_one("#loc-exact", Checkbox).value else None,
                            prefix=value("#loc-prefix"), suffix=value("#loc-suffix"),
                            whole=self.query_one("#loc-whole", Checkbox).value)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "loc-quote":  # a context belongs to the quote it was written for
            with self.prevent(Input.Changed):
                for wid in ("#loc-prefix", "#loc-suffix"):
                    self.query_one(wid, SafeInput).raw = ""
        self.post_message(self.Changed(self.locator))

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self.locator))
