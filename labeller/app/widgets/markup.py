"""Putting untrusted text (queries, documents, paths) on screen without it acting as markup.

Two markup languages meet in a Textual app. Rich's (DataTable cells and Tree labels given
as ``str``) is made safe by ``labeller.display.safe``/``safe_line``. Textual's own content
markup (Static, Label, OptionList prompts, border titles, notifications) parses brackets
differently: an unclosed ``[`` in a document, which Rich's escaping rightly leaves alone,
makes Textual read everything up to the next ``]`` as a tag and fail. So Textual markup
here never contains untrusted text: templates take it through ``$name`` variables, which
Textual substitutes after parsing. Control characters are made visible by the display
module's rule, as everywhere else.
"""

from __future__ import annotations

from textual.content import Content

from labeller.display import visible


def visible_line(text: str) -> str:
    """``visible`` on one line: newlines shown as ⏎ for compact listings."""
    return visible(text.replace("\n", "⏎ ").replace("\t", " "))


def fmt(template: str, **values) -> Content:
    """Textual markup ``template`` with ``$name`` slots filled, each value on one line."""
    return Content.from_markup(template, **{k: visible_line(str(v)) for k, v in values.items()})


def fmt_block(template: str, **values) -> Content:
    """Like ``fmt`` but values keep their newlines (a query or answer shown whole)."""
    return Content.from_markup(template, **{k: visible(str(v)) for k, v in values.items()})
