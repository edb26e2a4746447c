"""Putting untrusted text (queries, documents, paths) on screen without it acting as markup
or on the terminal.

Two markup languages meet in a Textual app. Rich's (DataTable cells and Tree labels given
as ``str``) is made safe by ``labeller.display.safe``/``safe_line``. Textual's own content
markup (Static, Label, OptionList prompts, border titles, notifications) parses brackets
differently: an unclosed ``[`` in a document, which Rich's escaping rightly leaves alone,
makes Textual read everything up to the next ``]`` as a tag and fail. So Textual markup
here never contains untrusted text: templates take it through ``$name`` variables, which
Textual substitutes after parsing. Control characters are made visible by the display
module's rule, as everywhere else.

Text the author *edits* (the document view's selection, the editor fields) needs one more
property: a stand-in of the same length as the character it replaces, so that columns,
the cursor and selections stay code points of the real text (``display_text``), and an
edit of the visible form can be carried back to the real one (``edited_raw``).
"""

from __future__ import annotations

import re

from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from labeller.display import CONTROL, visible


def visible_line(text: str) -> str:
    """``visible`` on one line: newlines shown as ⏎ for compact listings."""
    return visible(text.replace("\n", "⏎ ").replace("\t", " "))


def fmt(template: str, **values) -> Content:
    """Textual markup ``template`` with ``$name`` slots filled, each value on one line."""
    return Content.from_markup(template, **{k: visible_line(str(v)) for k, v in values.items()})


def fmt_block(template: str, **values) -> Content:
    """Like ``fmt`` but values keep their newlines (a query or answer shown whole)."""
    return Content.from_markup(template, **{k: visible(str(v)) for k, v in values.items()})


# Characters that would break a TextArea row or act on the terminal: the display module's
# control set (C0/C1 controls, U+2028/9, bidi overrides) plus nothing else; tab and LF are
# not in it. Each becomes exactly one visible character, so columns stay code points.
_STAND_INS = {"\u2028": "\u2424", "\u2029": "\u00b6", "\x7f": "\u2421"}
# a one-line field (an Input) shows tab and LF as their control pictures too
_ONE_LINE = re.compile(f"[\\t\\n]|{CONTROL.pattern}")


def _stand_in(m: re.Match) -> str:
    ch = m.group(0)
    if ch in _STAND_INS:
        return _STAND_INS[ch]
    code = ord(ch)
    return chr(0x2400 + code) if code < 0x20 else "\ufffd"


def display_text(text: str) -> str:
    """``text`` with every line-breaking or control character (but LF and tab) replaced by
    one visible character; same length, same LF positions."""
    return CONTROL.sub(_stand_in, text)


def display_line(text: str) -> str:
    """``display_text`` for a one-line field: tab and LF become ␉ and ␊ as well."""
    return _ONE_LINE.sub(_stand_in, text)


def edited_raw(raw: str, shown_before: str, shown_after: str) -> str:
    """The real text after the author edited its visible form from ``shown_before`` (the
    same-length visible form of ``raw``) to ``shown_after``.

    The edit is the part between the longest common prefix and suffix: characters outside
    it keep their real value (a control character the author did not touch stays in the
    record), characters inside it are what the author typed or pasted, taken literally.
    Deleting a stand-in deletes the character it stands for."""
    if len(shown_before) != len(raw):  # not the visible form of raw: nothing to carry over
        return shown_after
    limit = min(len(shown_before), len(shown_after))
    p = 0
    while p < limit and shown_before[p] == shown_after[p]:
        p += 1
    s = 0
    while s < limit - p and shown_before[-1 - s] == shown_after[-1 - s]:
        s += 1
    return raw[:p] + shown_after[p:len(shown_after) - s] + raw[len(raw) - s:]


class Hanging(Visual):
    """A first line, and under it lines indented as a block: each is wrapped to the width
    left after the indent, so a long one (an ambiguous quote's extension in a panel 36
    columns wide) goes on under its own label instead of at the left edge, where it read as
    a new entry (issue 27). Laid out again for each width it is drawn at."""

    def __init__(self, head: Content, body: list[Content], indent: int = 4) -> None:
        self.head = head
        self.body = body
        self.indent = indent

    def laid_out(self, width: int) -> Content:
        pad = Content(" " * self.indent)
        lines = [self.head, *(pad + part for line in self.body for part in line.wrap(max(1, width - self.indent)))]
        return Content("\n").join(lines)

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return self.laid_out(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return max(self.head.cell_length, *(self.indent + line.cell_length for line in self.body))

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.laid_out(width).get_height(rules, width)
