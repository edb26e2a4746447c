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


# -- suggestions for a quote not found --------------------------------------------------

WORDS = ("harbour", "pilot", "tide", "ledger", "beacon", "keel", "mast", "anchor", "chart", "rope", "gale",
         "buoy", "quay", "stern", "hull", "deck", "sail", "crew", "port", "knot")


def paragraphs(n: int, seed: int) -> list[str]:
    import random

    rng = random.Random(seed)
    return [" ".join(f"{rng.choice(WORDS)}{rng.randrange(400)}" for _ in range(90)) + "." for _ in range(n)]


def mutated(text: str, every: int = 40) -> str:
    """The text with one character in ``every`` changed: a quote no longer found as is."""
    return "".join("#" if i % every == every // 2 and ch != " " else ch for i, ch in enumerate(text))


@pytest.fixture
def scored(monkeypatch):
    """The alignment work of every fuzzy scoring call (``suggest._alignment_cost`` units)."""
    from rapidfuzz import process

    from labeller.core import suggest

    work = []
    real = process.extract

    def counting(query, choices, **kw):
        work.append((len(choices), sum(suggest._alignment_cost(len(query), len(c)) for c in choices)))
        return real(query, choices, **kw)

    monkeypatch.setattr(process, "extract", counting)
    return work


def test_a_long_quote_not_found_scores_a_bounded_number_of_chunks(make_project, scored):
    from labeller.core import suggest
    from labeller.core.anchors import fold_quote

    chunks_scored = {}
    for n_docs in (10, 20):
        paras = paragraphs(12 * n_docs, seed=n_docs)
        docs = {f"d{d:02}.md": "# Doc\n\n" + "\n\n".join(paras[12 * d:12 * d + 12]) + "\n" for d in range(n_docs)}
        project = make_project(docs, name=f"p{n_docs}")
        source = " ".join(paras[7:10])[:1600]
        quote = fold_quote(mutated(source))
        scored.clear()
        found = suggest.nearest_passages(project.resolver, quote, None)
        assert sum(w for _, w in scored) <= suggest.WORK_BUDGET
        chunks_scored[n_docs] = sum(n for n, _ in scored)
        assert chunks_scored[n_docs] < len(project.all_chunks) / 4
        start = docs["d00.md"].index(paras[7])
        best = found[0][1]
        assert best.doc == "d00.md" and best.start < start + len(source) and start < best.end, found[0]
    assert chunks_scored[20] <= chunks_scored[10]  # bounded: twice the corpus, no more chunks scored


def test_a_quote_of_words_found_everywhere_reads_a_bounded_number_of_matches(make_project, monkeypatch):
    from labeller.core import suggest

    monkeypatch.setattr(suggest, "WORK_BUDGET", 1)  # the pre-filter, always
    project = make_project({"a.md": "# A\n\n" + "\n\n".join(["keel " * 200] * 50)})
    reads = []
    real = suggest._chunks_with_grams

    def counting(*args):
        found, hits = real(*args)
        reads.append(found)
        return found, hits

    monkeypatch.setattr(suggest, "_chunks_with_grams", counting)
    monkeypatch.setattr(suggest, "MAX_PREFILTER_HITS", 1000)
    assert suggest.nearest_passages(project.resolver, "keel keel keel " * 100 + "x", None) == []
    assert reads and len(reads[0]) < 1000 // 150 + 2  # stopped after 1,000 matches, 150 to a chunk


def example_near_misses():
    from labeller.config import load_config
    from labeller.core.anchors import fold_quote
    from labeller.core.project import Project

    from conftest import REPO

    project = Project(load_config(REPO))
    quotes = [loc.quote for q in project.load_questions().questions for loc in q.locators if loc.quote]
    return project, [fold_quote(w[:len(w) // 2] + "q" + w[len(w) // 2 + 1:]) for w in quotes]


def test_suggestions_for_the_bundled_examples_near_misses_are_the_exhaustive_ones(monkeypatch):
    """On a corpus like the bundled one every chunk is still scored: the suggestions are
    exactly those of scoring all chunks, whatever the budget, for a quote of each record
    with one character changed."""
    from labeller.core import suggest

    project, quotes = example_near_misses()
    got = [suggest.nearest_passages(project.resolver, q, None) for q in quotes]
    monkeypatch.setattr(suggest, "WORK_BUDGET", 10 ** 18)
    assert [suggest.nearest_passages(project.resolver, q, None) for q in quotes] == got
    assert len(quotes) > 80 and sum(bool(g) for g in got) > 80


def test_the_pre_filter_keeps_the_best_suggestion_of_every_near_miss(monkeypatch):
    """Forced onto the bundled example (a budget one unit short of scoring every chunk),
    the pre-filter still finds the best passage of each near miss, CJK included."""
    from labeller.core import suggest

    project, quotes = example_near_misses()
    chunks = project.all_chunks
    exhaustive = [suggest.nearest_passages(project.resolver, q, None)[:1] for q in quotes]
    got = []
    for q in quotes:
        monkeypatch.setattr(suggest, "WORK_BUDGET", sum(suggest._alignment_cost(len(q), len(c.text)) for c in chunks) - 1)
        got.append(suggest.nearest_passages(project.resolver, q, None)[:1])
    assert got == exhaustive


def test_the_restart_scan_reads_each_line_a_bounded_number_of_times(monkeypatch):
    """Fences at indent 2-3 with no restart line between them asked "is a list item open?"
    of the whole text since the last restart line, once per fence: quadratic."""
    from labeller.core import windows
    from labeller.core.corpus import make_document

    real = windows._LIST_MARKER_LINE
    scanned = [0]

    class Counting:
        def search(self, text, pos, endpos):
            scanned[0] += endpos - pos
            return real.search(text, pos, endpos)

    monkeypatch.setattr(windows, "_LIST_MARKER_LINE", Counting())
    for n in (1000, 2000):
        for body in ("  ```\n  x\n  ```\n", "   ~~~\n   y\n   ~~~\n\n"):
            doc = make_document("x.md", "text\n" + body * n)
            scanned[0] = 0
            windows.restart_lines(doc)
            assert scanned[0] <= len(doc.text), (n, scanned[0], len(doc.text))


def test_a_section_locator_reads_each_window_once_per_pass():
    """A block quote holds no restart line, so its thousands of headings are one window;
    the section scan read that window's headings again at every heading-like line."""
    from functools import partial

    from labeller.core.corpus import make_document
    from labeller.core.expansion import section_span
    from labeller.core.windows import DocWindows

    read = [0]

    class CountingList(list):
        def __iter__(self):
            read[0] += len(self)
            return super().__iter__()

    for n in (1000, 2000):
        doc = make_document("x.md", "> # A\n>\n" + "".join(f"> ## A{i} A\n>\n" for i in range(n)) + "\n# B\n")
        windows = DocWindows.of(doc)

        def blocks_at(first, last):
            blocks = windows.blocks_at(doc, first, last)
            if not isinstance(blocks.headings, CountingList):
                blocks.headings = CountingList(blocks.headings)
            return blocks

        read[0] = 0
        assert section_span(doc, blocks_at, "A")[0] == 0
        assert read[0] <= 3 * (n + 2), (n, read[0])


def test_suggestions_for_quotes_not_found_stop_at_the_builds_budget(tmp_path, monkeypatch, capsys):
    """A file of many quotes not found: the first ones get nearest passages until the
    build's units are spent (here exactly three quotes' worth), the later ones are reported
    without, and one line says so; the refusals, their order and the exit code stay."""
    import json

    from labeller.config import load_config
    from labeller.core import suggest
    from labeller.core.anchors import fold_quote
    from labeller.core.project import Project

    monkeypatch.setenv("LABELLER_WORKERS", "1")
    near_misses = [f"The answer is hare {i:02d}" for i in range(8)]  # one length: one cost each
    root = write_project(tmp_path / "proj", {"guide.md": "# Guide\n\nThe answer is here, in one sentence.\n"},
                         [q(f"q{i}", {"quote": quote}) for i, quote in enumerate(near_misses)])
    chunks = Project(load_config(root)).all_chunks
    per_quote = sum(suggest._alignment_cost(len(fold_quote(near_misses[0])), len(c.text)) for c in chunks)
    monkeypatch.setattr(suggest, "BUILD_NEAREST_BUDGET", 3 * per_quote)
    outputs = []
    for _ in range(2):  # the same input, the same bytes
        capsys.readouterr()
        assert main(["build", "--root", str(root), "--format", "json"]) == 1
        outputs.append(capsys.readouterr())
    assert outputs[0] == outputs[1] and outputs[0].err == ""
    report = json.loads(outputs[0].out)
    errors = report["errors"]
    assert [e["id"] for e in errors] == [f"q{i}" for i in range(8)] and {e["kind"] for e in errors} == {"not_found"}
    assert all(e["suggestions"] and suggest.NEAREST_SPENT not in e["message"] for e in errors[:3])
    assert all(not e["suggestions"] and e["message"].endswith(suggest.NEAREST_SPENT) for e in errors[3:])
    assert report["suggestion_budget_reached"] == {"quotes_without_suggestions": 5}
    capsys.readouterr()
    assert main(["build", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count("budget for suggestions was reached") == 1 and "5 later quote(s)" in err
    assert err.count("nearest passage ") == 3 and err.count("not_found record") == 8
    assert main(["build", "--check", "--root", str(root), "--format", "markdown"]) == 1  # the pull-request comment
    assert capsys.readouterr().out.count("budget for suggestions was reached: 5 later quote(s)") == 1
