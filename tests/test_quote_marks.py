"""A quote not found only because of its quote marks is told which marks differ, and stays
not found (issue 27): a hint, never a fuzzy resolution."""

from __future__ import annotations

import pytest

from labeller.core.models import Locator
from labeller.core.resolve import Refusal
from labeller.core.suggest import suggest
from labeller.core.vocab import RefusalKind

DOC = "# Pager\n\nThe engineer’s pager rings. She said “ack it” and went back to sleep.\nIt's plain here.\n"


@pytest.mark.parametrize("quote, text_mark, quote_mark", [
    ("engineer's pager", "’ (U+2019)", "' (U+0027)"),
    ('said "ack it" and', "“ (U+201C)", '" (U+0022)'),
    ("It’s plain", "' (U+0027)", "’ (U+2019)"),
])
def test_only_the_quote_marks_differ(make_project, quote, text_mark, quote_mark):
    p = make_project({"pager.md": DOC})
    refusal = suggest(p.resolver, p.resolver.resolve(Locator(quote=quote)))
    assert isinstance(refusal, Refusal) and refusal.kind == RefusalKind.NOT_FOUND
    assert "only its quote marks differ" in refusal.message
    assert f"the text has {text_mark} where the quote has {quote_mark}" in refusal.message


CODE = "# App\n\nThe `App` class’s `run` method starts it.\n"


def test_a_quote_holding_a_code_span_is_told_its_quote_marks_differ(make_project):
    """The backticks of a code span are Markdown, not quote marks: they stay as they are in
    every variant, so only the apostrophe is compared (issue 35)."""
    p = make_project({"app.md": CODE})
    refusal = suggest(p.resolver, p.resolver.resolve(Locator(quote="The `App` class's `run` method")))
    assert refusal.kind == RefusalKind.NOT_FOUND
    assert "the text has ’ (U+2019) where the quote has ' (U+0027)" in refusal.message
    assert "U+0060" not in refusal.message  # the backtick is never named


def test_other_differences_get_no_such_hint(make_project):
    p = make_project({"pager.md": DOC})
    refusal = suggest(p.resolver, p.resolver.resolve(Locator(quote="engineer's beeper")))
    assert refusal.kind == RefusalKind.NOT_FOUND and "quote marks" not in refusal.message
    refusal = suggest(p.resolver, p.resolver.resolve(Locator(quote="the pager buzzes")))
    assert "quote marks" not in refusal.message
