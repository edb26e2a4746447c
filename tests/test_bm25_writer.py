"""The block writer (``labeller.eval.retrievers.bm25_writer``) against whoosh's own writer.

whoosh's ``add_document`` + ``commit`` is the reference: on random corpora (few words, so
repeated terms, ties and empty fields are common) and on the bundled example, the index the
block writer makes must be the very index whoosh writes — the same files, byte for byte,
once the segment's random name is fixed — and so whoosh's searcher must find the same
documents with the same scores, and labeller's numpy scorer rank them the same, ties included.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from whoosh.codec.base import Segment
from whoosh.filedb.filestore import FileStorage, RamStorage
from whoosh.query import Or, Term
from whoosh.scoring import BM25F

from labeller.config import load_config
from labeller.core.chunkers import Chunk
from labeller.core.project import Project
from labeller.eval.analysis import AUTO_V1, PLAIN_V1
from labeller.eval.retrievers import bm25_writer
from labeller.eval.retrievers.base import Hit, trec_order
from labeller.eval.retrievers.bm25 import (B, DEFAULT_FIELD_WEIGHTS, FIELDS, K1, BM25Retriever,
                                           build_storage, distinct_chunks, schema)

REPO = Path(__file__).resolve().parent.parent
WORDS = ["vpn", "key", "expires", "laptop", "receipt", "salary", "paid", "torch.compile", "k=60", "経費精算",
         "wireguard", "days", "the", "Ünïcode", "naïve"]


@pytest.fixture(autouse=True)
def fixed_segment_name(monkeypatch):
    """whoosh names each segment at random; both writers get the same name so their files compare."""
    monkeypatch.setattr(Segment, "_random_id", classmethod(lambda cls, size=16: "s" * size))
    # A compound segment records each part's mtime; both writers get the same clock.
    monkeypatch.setattr(FileStorage, "file_modified", lambda self, name: 0.0)


def whoosh_storage(chunks: list[Chunk], analyzer) -> RamStorage:
    """whoosh's ordinary writer: ``add_document`` per chunk (its analyzer run per field), then commit,
    into a folder on disk as ``build_storage`` does (the files are then read back into memory)."""
    with tempfile.TemporaryDirectory() as folder:
        ix = FileStorage(folder).create().create_index(schema(analyzer))
        writer = ix.writer()
        for c in chunks:
            writer.add_document(chunk_id=c.chunk_id, heading=c.heading, breadcrumb=c.breadcrumb, body=c.text)
        writer.commit()
        storage = RamStorage()
        for name in os.listdir(folder):
            if name != f"{ix.indexname}_WRITELOCK":
                storage.files[name] = Path(folder, name).read_bytes()
    return storage


def files(storage) -> dict[str, bytes]:
    """The index's files, whoosh's own: without labeller's postings sidecar (held to whoosh's
    postings by ``assert_same_index`` and tests/test_bm25_scorer.py)."""
    return {name: bytes(storage.files[name]) for name in storage.list() if name != bm25_writer.SIDECAR}


def chunk(i: int, heading: str, breadcrumb: str, body: str) -> Chunk:
    return Chunk(f"doc{i % 3}.md#{i:04d}", f"doc{i % 3}.md", i, 0, len(body), body, heading, heading, breadcrumb)


def assert_same_index(chunks: list[Chunk], analyzer, queries: list[str]) -> None:
    ours, theirs = build_storage(chunks, analyzer), whoosh_storage(chunks, analyzer)
    assert set(ours.list()) == set(theirs.list()) | {bm25_writer.SIDECAR}
    assert files(ours) == files(theirs)
    searchers = [s.open_index().searcher(weighting=BM25F(B=B, K1=K1)) for s in (ours, theirs)]
    a = BM25Retriever(chunks, ours, analyzer, dict(DEFAULT_FIELD_WEIGHTS))
    # the sidecar holds every posting list of whoosh's index (whoosh's matcher on whoosh's own files)
    reader = searchers[1].reader()
    for field in ("heading", "breadcrumb", "body"):
        for tbytes in reader.lexicon(field):
            term = tbytes.decode("utf-8")
            m = Term(field, term).matcher(searchers[1], searchers[1].context())
            postings = []
            while m.is_active():
                postings.append((m.id(), m.weight()))
                m.next()
            ids, weights, df = a._scorer.postings(field, term)
            assert list(zip(ids.tolist(), weights.tolist())) == postings and df == len(postings)
    for q in queries:
        terms = list(dict.fromkeys(analyzer.terms(q)))
        query = Or([Term(f, t, boost=w) for f, w in DEFAULT_FIELD_WEIGHTS.items() for t in terms])
        found = [sorted(s.search(query, limit=None).items()) for s in searchers]
        assert found[0] == found[1]
        reference = trec_order(Hit(chunks[d].chunk_id, score) for d, score in found[1])
        assert a.search_hits(q, 10) == reference[:10]
        assert a.search_hits(q, len(chunks)) == reference


words = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
corpora = st.lists(st.tuples(words, words, words), min_size=1, max_size=25)
queries = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=corpora, qs=queries, plain=st.booleans())
def test_the_block_writer_writes_whooshs_index_on_random_corpora(rows, qs, plain):
    assert_same_index([chunk(i, *row) for i, row in enumerate(rows)], PLAIN_V1 if plain else AUTO_V1, qs)


def test_posting_lists_of_many_blocks():
    """whoosh cuts a posting list every 128 postings: lists of exactly 128, 129, 256 and 700
    postings, and weights that vary within a block and are constant in another."""
    rows = [("vpn key" if i % 7 else "", "laptop" if i < 128 else "", " ".join(
        ["vpn"] * (1 + i % 3) + ["days"] * (i < 256) + ["salary"] * (i < 129))) for i in range(700)]
    chunks = [chunk(i, *row) for i, row in enumerate(rows)]
    assert_same_index(chunks, AUTO_V1, ["vpn", "vpn days laptop", "key", "salary", "receipt"])


def test_an_empty_corpus_and_empty_fields():
    assert_same_index([chunk(0, "", "", "")], AUTO_V1, ["vpn"])
    assert_same_index([chunk(0, "", "", "vpn"), chunk(1, "", "", "")], AUTO_V1, ["vpn"])
    assert files(build_storage([], AUTO_V1)) == files(whoosh_storage([], AUTO_V1))


def test_the_bundled_example_index_is_whooshs():
    project = Project(load_config(REPO))
    chunks = distinct_chunks(project.all_chunks)
    qs = [q.query for q in project.load_questions().questions][:60]
    assert len(chunks) > 50 and qs
    assert_same_index(chunks, AUTO_V1, qs)


def test_every_field_is_written():
    storage = build_storage([chunk(0, "VPN", "IT > Access", "WireGuard keys expire")], AUTO_V1)
    reader = storage.open_index().reader()
    assert {f for f, _ in reader.all_terms()} == set(FIELDS)  # the id is stored, not indexed
    assert reader.stored_fields(0) == {"chunk_id": "doc0.md#0000"}


@pytest.mark.parametrize("window", [1, 5, 130])
def test_posting_lists_written_a_few_terms_at_a_time(monkeypatch, window):
    """The writer turns its arrays into Python values a run of terms at a time (``WINDOW``
    postings, or one term's when it has more): runs cut inside, at and across the terms of
    many blocks write the same index."""
    monkeypatch.setattr(bm25_writer, "WINDOW", window)
    rows = [(f"key{i % 4}", "laptop" if i < 140 else "", " ".join(
        ["vpn"] * (1 + i % 3) + ["days"] * (i < 256) + [f"w{i % 9}"])) for i in range(300)]
    assert_same_index([chunk(i, *row) for i, row in enumerate(rows)], AUTO_V1, ["vpn", "days w3", "key1 laptop"])
