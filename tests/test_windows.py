"""Parsing a document in windows between restart lines gives exactly the full parse.

The build parses only the windows that hold a quote (labeller.core.windows), so every
window of every document here is compared with the whole-document parse: the bundled
handbook, the real corpus in ../shared/corpora when present, the synthetic benchmark
corpus, and generated documents made of the line shapes that break naive cutting
(fences at every indent, fences and HTML on list-marker lines, HTML comments, tabs,
block quotes, setext underlines, front matter).
"""

from __future__ import annotations

import sys
from functools import partial
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labeller.core.corpus import Document, load_corpus, make_document
from labeller.core.expansion import DocBlocks, ExpansionRefused, parse_blocks, section_span
from labeller.core.windows import DocWindows, restart_lines, window

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpora"
sys.path.insert(0, str(REPO / "benchmarks"))

import synth  # noqa: E402


def in_range(blocks: DocBlocks, start: int, stop: int) -> tuple:
    """The blocks of ``[start, stop)``, with list ids replaced by the first line of their
    list's first item in the range (ids are counters, so a window numbers its lists from
    0, and a window may start in the middle of a list)."""
    def inside(b) -> bool:
        return start <= b.first < stop

    first_item = {}
    for item in blocks.items:
        if inside(item):
            first_item.setdefault(item.parent, item.first)
    return (blocks.front_matter_lines,
            [b for b in blocks.leaves if inside(b)],
            [(i.first, i.last, i.depth, first_item[i.parent]) for i in blocks.items if inside(i)],
            [t for t in blocks.tables if inside(t)],
            [h for h in blocks.headings if inside(h)])


def reference_section(doc: Document, full: DocBlocks, heading: str):
    """SPEC's section rule read straight off the whole-document parse."""
    wanted = heading.strip()
    matches = [h for h in full.headings if h.text == wanted]
    if len(matches) != 1:
        return ("not_found", "ambiguous")[bool(matches)]
    h = matches[0]
    stop = next((o.first for o in full.headings if o.first > h.first and o.level <= h.level), len(doc.line_starts))
    last = stop - 1
    while last > h.first and not doc.text[doc.line_starts[last]:doc.line_end(last)].strip():
        last -= 1
    return doc.line_starts[h.first], doc.line_end(last)


def windowed_section(doc: Document, heading: str):
    windows = DocWindows.of(doc)
    try:
        return section_span(doc, partial(windows.blocks_at, doc), heading)
    except ExpansionRefused as exc:
        return exc.kind


def assert_windows_exact(doc: Document) -> int:
    full = parse_blocks(doc)
    n = len(doc.line_starts)
    restarts = restart_lines(doc)
    assert list(restarts) == sorted(set(restarts)) and all(0 < r < n for r in restarts)
    bounds = [0, *restarts, n]
    for a, b in pairwise(bounds):
        for blk in [*full.leaves, *full.items, *full.tables, *full.headings]:
            assert not (blk.first < a <= blk.last), f"{doc.doc_id}: block {blk} crosses restart line {a}"
        assert in_range(parse_blocks(doc, a, b), a, b) == in_range(full, a, b), f"{doc.doc_id}: window {a}-{b}"
    if len(bounds) > 3:  # a window over several pieces is exact too
        a, b = bounds[1], bounds[-2]
        assert in_range(parse_blocks(doc, a, b), a, b) == in_range(full, a, b)
    for title in {h.text for h in full.headings} | {"Nowhere", "#"}:
        assert windowed_section(doc, title) == reference_section(doc, full, title), f"{doc.doc_id}: {title!r}"
    return len(restarts)


def corpus_docs(folder: Path) -> list[Document]:
    return list(load_corpus(folder))


def test_every_window_of_the_bundled_handbook_is_exact():
    docs = corpus_docs(REPO / "corpus")
    cuts = sum(assert_windows_exact(d) for d in docs)
    assert cuts > 10 * len(docs)  # the handbook really is cut, not parsed whole


def test_every_window_of_the_synthetic_benchmark_corpus_is_exact(tmp_path):
    synth.write_project(synth.generate(400_000, 50, seed=11), tmp_path)
    docs = corpus_docs(tmp_path / "corpus")
    assert sum(assert_windows_exact(d) for d in docs) > 10 * len(docs)


@pytest.mark.skipif(not (SHARED / "textual-docs").is_dir(), reason="../shared/corpora/textual-docs is not present")
def test_every_window_of_a_real_documentation_corpus_is_exact():
    for doc in corpus_docs(SHARED / "textual-docs"):
        assert_windows_exact(doc)


LINES = ["", "   ", "\t", "## Heading", "> # Heading", "1) # Heading", "### Heading ###", "Para text", "plain words", "# Heading", "Heading", "===", "---", "***", "- item",
         "  - nested", "    - deep", "1. one", "2) two", "10. ten", "- ```", "1. ~~~", "- - ```", "```", "  ```",
         "   ```", "    ```", "     ```", "      ```", "~~~", "````", "``` py", "```x`", "  ~~~~", " \t```", "\t```",
         "<div>", "</div>", "<!--", "-->", "  <!--", "    <!-- x", "<pre>", "</pre>", "<?php", "?>", "- <div>",
         "> quote", "> ```", ">", "  > ```", "| a | b |", "|---|---|", "a | b", "    code", "\tcode", "* * *",
         "- - -", "+ plus", "[ref]: /url", "text <b>", "#nohash", "Ünïcode ä", "  text", "   text", "-",
         "1.", "-     ```", "  -->", "   </pre>", "\u00a0", " \u3000", "\x0c"]

FEW = ["", "Cut", "```", "  ```", "- item", "<!--", "-->", "## Cut", "Cut\n---", "# Top", "> ## Cut", "- Cut",
       "1. Cut", "2. Cut", "  - sub", "<div>"]  # few shapes, so they meet in telling orders


@settings(max_examples=600, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(LINES) | st.sampled_from(FEW), max_size=40), st.booleans())
@example(["- item", "", "    <!--", "  ```", "  -->", "  ```", "", "Restart", "```", "", "Inside", "```"], False)
@example(["Para", "2. ```", "", "   ```", "secret", "", "Cut", "```"], False)
@example(["1. step", "", "   ```", "     ```", "", "Cut", "   ```"], True)
@example(["- item", "  ```", "Para", "", "```", "inside", "", "Cut", "```"], False)
@example(["- ```", "  code", "  ```", "  more", "", "  ```", "  x", "```", "", "Cut", "```"], False)
@example(["<div>", "```", "", "Cut", "```", "", "Inside", "```"], False)
@example(["- item", "", "  ```", "Para", "", "```", "x", "", "Cut", "```"], False)
@example(["Para", "\u00a0", "Cut"], False)
@example(["- item", "", "  ```", "Para", "", "  ```", "", "Cut", "```"], False)
@example(["1. item", "", "   ```", "     ```", "", "Cut", "```"], False)
@example(["1. item", "", "   ```", "  ```", "", "Cut", "```"], False)
@example(["```", "    ```", "", "Cut", "```"], False)
def test_generated_documents_cut_exactly(lines, front):
    text = ("---\ntitle: t\n\nmore: x\n---\n" if front else "") + "\n".join(lines) + "\n"
    assert_windows_exact(make_document("gen.md", text))


def test_window_picks_the_pieces_around_a_line_range():
    assert window((3, 7, 12), 4, 5, 20) == (3, 7)
    assert window((3, 7, 12), 3, 7, 20) == (3, 12)
    assert window((3, 7, 12), 0, 1, 20) == (0, 3)
    assert window((3, 7, 12), 13, 19, 20) == (12, 20)
    assert window((), 5, 6, 20) == (0, 20)


def test_top_level_list_items_are_restart_lines():
    doc = make_document("l.md", "Intro\n- one\n  - nested\n- two\n\n3. three\nPara\n2. not an item\n<div>\n- html\n")
    assert restart_lines(doc) == (1, 3, 5)


def test_a_fence_that_spans_blank_lines_is_never_cut():
    doc = make_document("f.md", "Intro\n\n```\ncode\n\nNot a restart\n```\n\nAfter\n")
    assert restart_lines(doc) == (8,)


def test_an_html_comment_stops_the_cutting():
    doc = make_document("h.md", "Intro\n\nOne\n\n<!--\n\nHidden\n-->\n\nAfter\n")
    assert restart_lines(doc) == (2,)
