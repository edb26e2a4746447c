"""Every case of blocks-v1 (SPEC §3), one document at a time."""

import pytest

from labeller.core.models import Locator
from labeller.core.resolve import Refusal, Span
from labeller.core.suggest import suggest

DOC = """\
---
title: Front Title
tags: [a]
---
# Heading One

First paragraph line one
and line two.

| name | value |
|------|-------|
| alpha | 1 |
| beta | 2 |
| gamma | 3 |

- top item
  - nested child
  - second child
- sibling item

- loose item after blank

1. first step
2. second step

```python
# a comment, not a heading
x = 1
```

    indented code line

<div>
html block text
</div>

Setext Heading
--------------

> quoted line one
> quoted line two

> - quoted list item

## Section B

tail paragraph one.

tail paragraph two.

### Sub of B

sub text.

## Section C

c text.
"""


@pytest.fixture
def resolve(make_project):
    p = make_project({"d.md": DOC})
    text = p.corpus["d.md"].text

    def run(quote=None, **kw):
        r = p.resolver.resolve(Locator(doc="d.md", quote=quote, **kw) if quote else Locator(doc="d.md", **kw))
        if isinstance(r, Span):
            return r.block, text[r.start:r.end]
        return suggest(p.resolver, r)

    return run


def test_table_row_only(resolve):
    assert resolve("beta") == ("table_row", "| beta | 2 |\n")


def test_table_header_row(resolve):
    assert resolve("value") == ("table_row", "| name | value |\n")


def test_table_rows_touched_are_contiguous_and_include_delimiter_between(resolve):
    assert resolve("value |\n|------|-------|\n| alpha") == \
        ("table_row", "| name | value |\n|------|-------|\n| alpha | 1 |\n")
    assert resolve("1 |\n| beta") == ("table_row", "| alpha | 1 |\n| beta | 2 |\n")


def test_delimiter_row_alone_is_refused(resolve):
    r = resolve("|------|-------|")
    assert isinstance(r, Refusal) and r.kind == "invalid"


def test_innermost_list_item(resolve):
    assert resolve("nested child") == ("list_item", "  - nested child\n")


def test_list_item_includes_nested_items(resolve):
    assert resolve("top item") == ("list_item", "- top item\n  - nested child\n  - second child\n")


def test_list_item_through_later_sibling(resolve):
    assert resolve("second child\n- sibling") == \
        ("list_item", "  - second child\n- sibling item\n")


def test_list_item_drops_trailing_blank_line(resolve):
    assert resolve("sibling item") == ("list_item", "- sibling item\n")


def test_numbered_list_item(resolve):
    assert resolve("second step") == ("list_item", "2. second step\n")


def test_paragraph(resolve):
    assert resolve("and line two") == ("paragraph", "First paragraph line one\nand line two.\n")


def test_atx_heading_alone_is_heading_only(resolve):
    r = resolve("Heading One")
    assert isinstance(r, Refusal) and r.kind == "heading_only"
    assert r.suggestions == [{"doc": "d.md", "heading": "Heading One"}]


def test_setext_heading_is_labelled(resolve):
    assert resolve("Setext Heading") == ("heading", "Setext Heading\n--------------\n")


def test_fenced_code_whole(resolve):
    assert resolve("x = 1") == ("code", "```python\n# a comment, not a heading\nx = 1\n```\n")


def test_indented_code(resolve):
    assert resolve("indented code line") == ("code", "    indented code line\n")


def test_html_block(resolve):
    assert resolve("html block text") == ("html", "<div>\nhtml block text\n</div>\n")


def test_block_quote_paragraph_keeps_markers(resolve):
    assert resolve("quoted line two") == ("paragraph", "> quoted line one\n> quoted line two\n")


def test_list_inside_block_quote(resolve):
    assert resolve("quoted list item") == ("list_item", "> - quoted list item\n")


def test_cross_block_union_takes_first_kind(resolve):
    assert resolve("tail paragraph one. tail paragraph") == \
        ("paragraph", "tail paragraph one.\n\ntail paragraph two.\n")
    assert resolve("and line two. | name") == \
        ("paragraph", "First paragraph line one\nand line two.\n\n| name | value |\n")


def test_front_matter_is_refused(resolve):
    r = resolve("Front Title")
    assert isinstance(r, Refusal) and r.kind == "front_matter"
    r = resolve("Front Title", exact=True)
    assert r.kind == "front_matter"


def test_exact_skips_expansion(resolve):
    assert resolve("and line two", exact=True) == ("exact", "and line two")


def test_section_locator(resolve):
    assert resolve(heading="Section B") == \
        ("section", "## Section B\n\ntail paragraph one.\n\ntail paragraph two.\n\n### Sub of B\n\nsub text.\n")
    assert resolve(heading="Section C") == ("section", "## Section C\n\nc text.\n")
    assert resolve(heading="Setext Heading")[1].startswith("Setext Heading\n---")


def test_section_locator_refusals(resolve):
    assert resolve(heading="Nope").kind == "not_found"


def test_expansion_is_idempotent(resolve, make_project):
    block, text = resolve("nested child")
    again = resolve(text.strip())
    assert again == (block, text)
