"""A chunk file's ``ChunkSet`` makes its ``Chunk``s when they are read (``ChunkSet.of_foreign``,
issue 37 point 7): every map it holds must be the one made from all the chunks at once
(``ChunkSet.of`` over ``foreign_chunks``), whichever chunk is read first."""

from __future__ import annotations

import pytest

from labeller.core.chunkfile import FOREIGN_FIELDS, Chunking, ChunkRange, foreign_chunks
from labeller.core.corpus import Corpus, make_document
from labeller.core.vocab import Place
from labeller.eval.chunkset import ChunkSet

A = "# Alpha\n\nThe kestrel nests\non the ridge.\n\nShared line.\n"
B = "---\ntitle: Bee doc\n---\nShared line.\n\nbeta  facts here\n"
CORPUS = Corpus.from_documents([make_document("a.md", A), make_document("b.md", B)])

# Overlapping ranges, an id at two places of one document and in two documents (spread),
# documents out of order, and an unplaced chunk a retriever may still name.
RANGES = [("b2", "b.md", 30, 40), ("a1", "a.md", 0, 7), ("dup", "b.md", 0, 5), ("a2", "a.md", 3, 20),
          ("dup", "a.md", 9, 16), ("twice", "a.md", 20, 30), ("twice", "a.md", 40, 45), ("b1", "b.md", 20, 35)]
UNPLACED = [{"path": "c.jsonl", "line": 9, "id": "gone", "message": "text not found"}]


def _sets() -> tuple[ChunkSet, ChunkSet]:
    chunking = Chunking("c", [ChunkRange(i, Place(d, s, e)) for i, d, s, e in RANGES], origin="file",
                        unplaced=UNPLACED)
    return ChunkSet.of_foreign(chunking, CORPUS), ChunkSet.of(chunking, foreign_chunks(chunking, CORPUS), FOREIGN_FIELDS)


@pytest.mark.parametrize("read_first", ["twice", "dup", "gone", "b1", None])
def test_chunks_made_when_read_are_those_made_at_once(read_first):
    lazy, eager = _sets()
    if read_first is not None:
        assert lazy.positions.first[read_first] == eager.positions.first[read_first]
    lp, ep = lazy.positions, eager.positions
    assert (lp.positions, lp.doc, lp.spread) == (ep.positions, ep.doc, ep.spread)
    assert list(lp.first) == list(ep.first) and len(lp.first) == len(ep.first)
    assert lp.first.items() == list(ep.first.items()) and lp.first.values() == list(ep.first.values())
    assert [lp.first.get(k) for k in [*ep.first, "absent"]] == [ep.first.get(k) for k in [*ep.first, "absent"]]
    assert "twice" in lp.first and "absent" not in lp.first
    assert lp.by_doc == ep.by_doc and lp.chunking is ep.chunking
    assert lazy.chunks == eager.chunks and lazy.fields == eager.fields == FOREIGN_FIELDS


@pytest.fixture
def made(monkeypatch) -> list[int]:
    """The chunk numbers the chunk set's ``foreign_chunk_maker`` makes, in order."""
    import labeller.core.chunkfile as chunkfile

    numbers: list[int] = []
    maker = chunkfile.foreign_chunk_maker

    def counting(chunking, corpus):
        make = maker(chunking, corpus)
        return lambda i: (numbers.append(i), make(i))[1]

    monkeypatch.setattr("labeller.eval.chunkset.foreign_chunk_maker", counting)
    return numbers


def test_no_chunk_is_made_until_one_is_read(made):
    lazy, _ = _sets()
    assert made == []
    lazy.positions.first["b1"]
    lazy.positions.first["b1"]
    assert len(made) == 1


@pytest.mark.parametrize("read_first", ["twice", "gone", None])
def test_shown_is_the_chunks_doc_and_heading_path_made_or_not(read_first):
    """``positions.shown`` (a report's retrieved rows) is the made chunk's document and heading
    path, for a chunk not yet made, one made, an unplaced one, and the project's own chunks."""
    lazy, eager = _sets()
    if read_first is not None:
        lazy.positions.first[read_first]
    for cid in eager.positions.first:
        c = eager.positions.first[cid]
        assert lazy.positions.shown(cid) == eager.positions.shown(cid) == (c.doc_id, c.heading_path)
    with pytest.raises(KeyError):
        lazy.positions.shown("absent")


def test_shown_makes_no_chunk(made):
    lazy, eager = _sets()
    shown = [lazy.positions.shown(cid) for cid in eager.positions.first]
    assert made == []
    assert shown == [(c.doc_id, c.heading_path) for c in eager.positions.first.values()]
