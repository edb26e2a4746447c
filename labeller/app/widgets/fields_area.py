"""``SafeTextArea``: the multi-line editor field of ``widgets.fields`` (see its docstring: the
visible form of a record's control characters, the real text kept), apart so that a screen
with only one-line fields does not import Textual's ``TextArea``."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TextArea
from textual.widgets.text_area import Edit, EditResult

from labeller.app.widgets.markup import display_text, edited_raw


class SafeTextArea(TextArea):
    """A ``TextArea`` showing the visible form of ``raw`` (see ``widgets.fields``);
    ``load_raw`` loads a real text, ``raw`` reads it back.

    Keys as in any editor (issue 38): ctrl+a selects all; Home and End go to the start and
    the end of the *logical* line (Textual's go to the wrapped row's, so text typed after
    End landed mid-sentence); word movement on ctrl/alt+left/right."""

    BINDINGS = [
        Binding("ctrl+a", "select_all", "Select all", show=False, id="text_area.select-all",
                tooltip="Select the whole field"),
        Binding("end", "line_end", "Line end", show=False, id="text_area.line-end",
                tooltip="The end of the line (not of its wrapped row)"),
        Binding("shift+end", "line_end(True)", "Select to line end", show=False, id="text_area.select-line-end"),
        Binding("home", "line_start", "Line start", show=False, id="text_area.line-start",
                tooltip="The start of the line (not of its wrapped row)"),
        Binding("shift+home", "line_start(True)", "Select to line start", show=False,
                id="text_area.select-line-start"),
        Binding("alt+left", "cursor_word_left", "Word left", show=False, id="text_area.word-left"),
        Binding("alt+right", "cursor_word_right", "Word right", show=False, id="text_area.word-right"),
    ]

    def __init__(self, text: str = "", **kwargs) -> None:
        self._raw = text
        self._shown = display_text(text)
        super().__init__(self._shown, **kwargs)

    @property
    def raw(self) -> str:
        self._sync()
        return self._raw

    def load_raw(self, text: str) -> None:
        self._raw = text
        self._shown = display_text(text)
        if self.text != self._shown:
            self.load_text(self._shown)

    def action_line_end(self, select: bool = False) -> None:
        row, _ = self.cursor_location
        self.move_cursor((row, len(self.document.get_line(row))), select=select)

    def action_line_start(self, select: bool = False) -> None:
        row, _ = self.cursor_location
        self.move_cursor((row, 0), select=select)

    def edit(self, edit: Edit) -> EditResult:
        result = super().edit(edit)
        self._sync()  # one edit at a time, so each is carried over on its own
        return result

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._sync()  # changes that do not go through ``edit`` (undo, redo); the event bubbles on

    def _sync(self) -> None:
        text = self.text
        if text == self._shown:
            return
        self._raw = edited_raw(self._raw, self._shown, text)
        self._shown = display_text(self._raw)
        if self._shown != text:  # a pasted control character: show its stand-in instead
            selection = self.selection
            self.load_text(self._shown)
            self.selection = selection  # same length: the cursor stays where it was
