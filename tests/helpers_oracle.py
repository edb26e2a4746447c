"""An oracle for SPEC §2 written from the spec alone, sharing no code with labeller's resolver.

Quote: canonicalised (LF, NFC) and trimmed; each whitespace run (``str.isspace``) matches any
whitespace run of the text; nothing else folds; occurrences are counted overlapping. Headings,
front matter, rules and tables: markdown-it's, as SPEC §2 says, read straight from the library.
Tests compare labeller's answers with these.
"""

from __future__ import annotations

import re
import sys
import unicodedata

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

WS_RUN = "[" + re.escape("".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())) + "]+"
MARKDOWN_IT = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)


def oracle_quote(raw: str) -> str:
    return unicodedata.normalize("NFC", raw.replace("\r\n", "\n").replace("\r", "\n")).strip()


def oracle_occurrences(text: str, quote: str) -> list[tuple[int, int]]:
    """Every (start, end) where the quote matches, overlapping ones included: the first
    word found with ``str.find`` at each position in turn, the rest checked by a regex."""
    pieces = re.split(WS_RUN, quote)
    pattern = re.compile(WS_RUN.join(map(re.escape, pieces)))
    found, pos = [], text.find(pieces[0])
    while pos != -1:
        m = pattern.match(text, pos)
        if m:
            found.append((pos, m.end()))
        pos = text.find(pieces[0], pos + 1)
    return found


def line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n" and i + 1 < len(text)]


def oracle_front_matter_lines(text: str) -> int:
    return next((t.map[1] for t in MARKDOWN_IT.parse(text) if t.type == "front_matter" and t.map), 0)


def oracle_invalid_quote(text: str, start: int, end: int) -> bool:
    """A quote that starts or ends on a thematic break outside any list item, or lies in a
    table's delimiter row alone: it holds no answer text, so it is refused as ``invalid``."""
    tokens = MARKDOWN_IT.parse(text)
    in_items = {n for t in tokens if t.type == "list_item_open" and t.map for n in range(*t.map)}
    rules = {t.map[0] for t in tokens if t.type == "hr" and t.map} - in_items
    delimiters = {t.map[0] + 1 for t in tokens if t.type == "table_open" and t.map}
    first, last = text[:start].count("\n"), text[:end - 1].count("\n")
    return first in rules or last in rules or first == last in delimiters


def oracle_headings(text: str) -> list[tuple[int, int, str]]:
    """(first line, level, title) of every heading markdown-it finds, in document order."""
    tokens = MARKDOWN_IT.parse(text)
    return [(t.map[0], int(t.tag[1]), tokens[i + 1].content.strip())
            for i, t in enumerate(tokens) if t.type == "heading_open" and t.map]


def oracle_section(text: str, headings: list[tuple[int, int, str]], index: int) -> tuple[int, int]:
    """SPEC §2: the heading's line through the line before the next heading of the same or
    higher level (or the end), trailing blank lines excluded."""
    bounds = [*line_starts(text), len(text)]  # line n is text[bounds[n]:bounds[n + 1]]
    first, level, _ = headings[index]
    stop = next((f for f, lv, _ in headings[index + 1:] if f > first and lv <= level), len(bounds) - 1)
    while stop - 1 > first and not text[bounds[stop - 1]:bounds[stop]].strip(" \t\n"):
        stop -= 1  # a trailing blank line (CommonMark: spaces and tabs only)
    return bounds[first], bounds[stop]


def _context_pattern(context: str) -> str:
    """A prefix/suffix as a regex: trimmed and canonical, each whitespace run a run."""
    return WS_RUN.join(map(re.escape, re.split(WS_RUN, oracle_quote(context)))) if oracle_quote(context) else ""


def oracle_context_matches(text: str, start: int, end: int, prefix: str | None, suffix: str | None) -> bool:
    """SPEC §2.2 for the quote occurrence ``[start, end)``: the prefix stands right before it
    (whitespace at its inner edge: the whole run between them), the suffix right after."""
    if prefix:
        before = _context_pattern(prefix) + (WS_RUN if prefix[-1].isspace() else "")
        if not re.search("(?:" + before + r")\Z", text[:start]):
            return False
    if suffix:
        after = (WS_RUN if suffix[0].isspace() else "") + _context_pattern(suffix)
        if not re.match(after, text[end:]):
            return False
    return True
