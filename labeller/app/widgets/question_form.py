"""The fields of one record: query, expected answer, hop, split, tags, unanswerable.

The text fields are ``widgets.fields`` ones: a record's control characters show as visible
stand-ins (never reaching the terminal) and are kept as they are unless the author edits them;
every value this form reports is the real text (``raw``), never the stand-ins."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Checkbox, Input, Label, Select, TextArea

from labeller.app.session.drafts import Draft
from labeller.app.widgets.fields import SafeInput
from labeller.app.widgets.fields_area import SafeTextArea
from labeller.app.widgets.markup import fmt
from labeller.app.widgets.tick_box import TickBox


class QuestionForm(Vertical):
    """Edits one draft; every change leaves as a ``Changed(field, value)`` message."""

    class Changed(Message):
        def __init__(self, record_id: str, field: str, value) -> None:
            super().__init__()
            self.record_id = record_id
            self.field = field
            self.value = value

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.record_id: str | None = None
        self.border_title = "no question open"  # the form's title on its border: no row of its own

    def compose(self) -> ComposeResult:
        """Each field is a label and its control (``.field``): beside it where the record has the
        width, above it in a narrow column (author.tcss); two short fields share a ``.field-row``."""
        with Horizontal(classes="field"):
            yield Label("query", classes="field-label")
            yield SafeInput(placeholder="what a user would type", id="form-query", compact=True)
        with Horizontal(classes="field tall"):
            yield Label("answer", classes="field-label")
            yield SafeTextArea("", id="form-answer", soft_wrap=True, show_line_numbers=False)
        with Horizontal(classes="field-row"):
            with Horizontal(classes="field"):
                yield Label("hop", classes="field-label")
                yield Select([("single", "single"), ("multi", "multi")], allow_blank=False, value="single",
                             id="form-hop", compact=True)
            with Horizontal(classes="field"):
                yield Label("split", classes="field-label short")
                yield Select([(s, s) for s in ("dev", "test", "holdout")], prompt="none", id="form-split",
                             compact=True)
        with Horizontal(classes="field"):
            yield Label("tags", classes="field-label")
            with Horizontal(classes="controls"):
                yield SafeInput(placeholder="comma separated", id="form-tags", compact=True)
                yield TickBox("unanswerable", id="form-unanswerable", compact=True)

    def load(self, draft: Draft) -> None:
        """Show ``draft`` without echoing the values back as edits."""
        self.record_id = draft.id
        self.border_title = fmt("question [b]$id[/b]", id=draft.id)
        with self.prevent(Input.Changed, TextArea.Changed, Select.Changed, Checkbox.Changed):
            query = self.query_one("#form-query", SafeInput)
            if query.raw != draft.query:
                query.raw = draft.query
            answer = self.query_one("#form-answer", SafeTextArea)
            if answer.raw != draft.expected_answer:
                answer.load_raw(draft.expected_answer)
            self.query_one("#form-hop", Select).value = draft.hop
            split = self.query_one("#form-split", Select)
            split.value = draft.split if draft.split else Select.NULL
            self.query_one("#form-unanswerable", Checkbox).value = bool(draft.unanswerable)
            tags = self.query_one("#form-tags", SafeInput)
            if _tags(tags.raw) != list(draft.tags):
                tags.raw = ", ".join(draft.tags)

    def _changed(self, field: str, value) -> None:
        if self.record_id is not None:
            self.post_message(self.Changed(self.record_id, field, value))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "form-query":
            self._changed("query", self.query_one("#form-query", SafeInput).raw)
        elif event.input.id == "form-tags":
            self._changed("tags", _tags(self.query_one("#form-tags", SafeInput).raw))

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._changed("expected_answer", self.query_one("#form-answer", SafeTextArea).raw)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "form-hop":
            self._changed("hop", event.value)
        elif event.select.id == "form-split":
            self._changed("split", None if event.value is Select.NULL else event.value)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        # absent and false mean the same; only true is written
        self._changed("unanswerable", True if event.value else None)


def _tags(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]
