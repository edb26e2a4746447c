"""Editor fields that never send a record's control characters to the terminal, and never
lose them either.

A query, an answer or a quote may hold characters that act on a terminal (ESC sequences
such as OSC 52, which replaces the clipboard; C1 controls such as U+009B, a one-byte CSI;
bidi overrides, which reorder what the author reads). Textual's ``Input`` and ``TextArea``
paint their value as it is, so these fields hold two texts:

- ``raw``: the real value, the one the record has and the one that is saved;
- the widget's own ``value`` / ``text``: its visible form (``markup.display_line`` /
  ``display_text``), where each such character is one visible stand-in (␛ for ESC, ␍ for
  CR, � for a C1 control or a bidi override), so the cursor, selections and columns still
  count the real characters.

**Lossless by design.** Loading a record sets ``raw``; an untouched field gives back
exactly that value, so saving a record whose query holds an ESC writes the ESC back,
byte for byte. An edit changes only what the author changed (``markup.edited_raw``):
a control character outside the edited part stays in the record, deleting its stand-in
deletes it, and text typed or pasted is taken as it is (a pasted control character is
kept and shown as its stand-in). The author always sees that a record holds such a
character and can remove it; nothing is ever dropped or altered behind their back.

The multi-line field, ``SafeTextArea``, is in ``widgets.fields_area``: the question list's filter
needs only ``SafeInput``, and importing Textual's ``TextArea`` is 1.5% of the app's start, so the first
screen does not load it.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input

from labeller.app.widgets.markup import display_line, edited_raw


# the keys every text field shares (ids ``text_field.…``, one keymap entry moves them in every field)
TEXT_KEYS_INPUT: list[Binding | tuple[str, str] | tuple[str, str, str]] = [  # the type Input.BINDINGS has
    Binding("ctrl+a", "select_all", "Select all", show=False, id="text_field.select-all",
            tooltip="Select the whole field"),
    Binding("alt+left", "cursor_left_word", "Word left", show=False, id="text_field.word-left",
            tooltip="Move to the start of the word (ctrl+left too)"),
    Binding("alt+right", "cursor_right_word", "Word right", show=False, id="text_field.word-right",
            tooltip="Move past the end of the word (ctrl+right too)"),
]


class SafeInput(Input):
    """A one-line ``Input`` showing the visible form of ``raw`` (see the module docstring).

    ``value`` is what is on screen; read ``raw`` for the real text and set ``raw`` to load
    one. Setting ``value`` is an edit of the visible form, as if typed.

    Focusing a field puts the cursor at its end instead of selecting it (Textual's default):
    an author tabbing through a record's fields would otherwise replace a whole query with
    the first key they press.

    Keys as in any editor (issue 38): ctrl+a selects all (Textual's is line start, which
    Home is), alt+left / alt+right move by word beside ctrl+left / ctrl+right."""

    BINDINGS = TEXT_KEYS_INPUT

    # Input sets its virtual width to its text's at every change, and Widget declares that size a
    # layout reactive: each key typed arranged and repainted the whole screen (~40 ms of CPU on the
    # author screen, a frame per key). A one-line field has no scrollbar and scrolls itself from this
    # size; a repaint is all a new width needs (a field sized by its text, ``width: auto``, still
    # asks for a layout: Input does that itself).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), repaint=True)

    def __init__(self, value: str = "", **kwargs) -> None:
        self._raw = value
        self._shown = display_line(value)
        kwargs.setdefault("select_on_focus", False)
        super().__init__(self._shown, **kwargs)

    @property
    def raw(self) -> str:
        return self._raw

    @raw.setter
    def raw(self, text: str) -> None:
        self._raw = text
        self._shown = display_line(text)
        if self.value != self._shown:
            self.value = self._shown

    def watch_value(self, value: str) -> None:
        # runs right after Input's own watcher posted ``Changed``: by the time a handler
        # reads ``raw``, it is the real text behind this value
        if value == self._shown:
            return
        self._raw = edited_raw(self._raw, self._shown, value)
        self._shown = display_line(self._raw)
        if self._shown != value:  # a pasted control character: show its stand-in instead
            cursor = self.cursor_position
            self.value = self._shown
            self.cursor_position = cursor  # same length: the cursor stays where it was
