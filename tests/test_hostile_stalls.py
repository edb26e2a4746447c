"""Hostile Markdown and hostile quotes cost linear work (issue 18, item 3).

No test here reads a clock: the work is counted (characters handed to markdown-it,
chunks scored by the fuzzy matcher), on inputs of n and 2n lines, so a quadratic path
shows as a count that quadruples, on any machine.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from conftest import q, write_project
from labeller.cli import main
from labeller.core import markdown


@pytest.fixture
def parsed_chars(monkeypatch):
    """Characters every markdown-it parser is handed, in this process (one worker)."""
    count = [0]
    real = MarkdownIt.parse

    def counting(self, src, env=None):
        count[0] += len(src)
        return real(self, src, env)

    monkeypatch.setattr(MarkdownIt, "parse", counting)
    monkeypatch.setenv("LABELLER_WORKERS", "1")
    return count


def unclosed_front_matter(n: int) -> str:
    return "---\n" + "".join(f"- item {i}\n" for i in range(n))


def rule_then_bullets(n: int) -> str:
    return "---\n\n# Title\n\n" + "".join(f"- bullet number {i}\n" for i in range(n))


def long_opener_short_closers(n: int) -> str:
    """An opening line of 8 dashes, then lines of 3 that look like closers but are not."""
    return "--------\n" + "".join(f"---\ntext {i}\n" for i in range(n))


HOSTILE = [unclosed_front_matter, rule_then_bullets, long_opener_short_closers]


@pytest.mark.parametrize("make", HOSTILE)
def test_front_matter_parses_a_bounded_multiple_of_the_document(make, parsed_chars):
    for n in (500, 1000, 2000):
        text = make(n)
        markdown.front_matter.cache_clear()
        parsed_chars[0] = 0
        markdown.front_matter(text)
        assert parsed_chars[0] <= 3 * len(text), (n, parsed_chars[0], len(text))


@pytest.mark.parametrize("make", HOSTILE)
def test_a_build_over_hostile_markdown_does_linear_parsing_work(make, parsed_chars, tmp_path):
    """The whole build (front matter, restart scan, windows, chunker, expansion): the
    characters parsed grow like the document, not like its square."""
    work = {}
    for n in (600, 1200):
        markdown.front_matter.cache_clear()
        text = make(n)
        root = write_project(tmp_path / str(n), {"a.md": text},
                             [q("r1", {"doc": "a.md", "quote": text.splitlines()[-1].lstrip("- ")})])
        parsed_chars[0] = 0
        assert main(["build", "--root", str(root), "--format", "json"]) in (0, 1)
        work[n] = parsed_chars[0]
        assert work[n] <= 8 * len(text), (n, work[n], len(text))
    assert work[1200] <= 2.5 * work[600], work


DOC_LINES = ["---", "----", "   ---", "    ---", "\t---", "...", " ...", "....", "--- ", "---x", "- a",
             "title: T", "", "text", "```", "  - b", "-", "--"]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(["---", "----", "-----", "---  ", "--- x"]), st.lists(st.sampled_from(DOC_LINES), max_size=30))
def test_front_matter_equals_the_whole_document_parse(opener, lines):
    text = "\n".join([opener, *lines]) + "\n"
    markdown.front_matter.cache_clear()
    whole = next(((t.map[1], t.content) for t in MarkdownIt("zero").use(markdown.front_matter_plugin).parse(text)
                  if t.type == "front_matter"), (0, None))
    assert markdown.front_matter(text) == whole
