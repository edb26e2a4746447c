"""The numpy BM25F scorer (``labeller.eval.retrievers.postings``) against whoosh's own.

whoosh's scores are the reference: a term's matcher walked one posting at a time, and a
whole query searched by whoosh as an ``Or`` of boosted ``Term``s. On random corpora whose
few words make ties common, every term's scores and every query's ranking (trec_eval's
order, ties by descending id) must be whoosh's, score for score. The scorer reads its
postings from the index's sidecar (``bm25_writer.SIDECAR``), so these also hold the sidecar
to what whoosh's matchers read from the index's blocks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from whoosh.query import Or, Term

from labeller.core.chunkers import Chunk
from labeller.eval.analysis import AUTO_V1
from labeller.eval.retrievers.bm25 import DEFAULT_FIELD_WEIGHTS, FIELDS, BM25Retriever, build_storage
from labeller.eval.retrievers.base import Hit, trec_order
from labeller.eval.retrievers.bm25_writer import SIDECAR
from labeller.eval.retrievers.postings import PostingScorer

WORDS = ["vpn", "key", "expires", "laptop", "receipt", "salary", "paid", "torch.compile", "k=60", "経費精算",
         "wireguard", "days"]


def chunk(i: int, heading: str, breadcrumb: str, body: str) -> Chunk:
    return Chunk(f"doc{i % 3}.md#{i:04d}", f"doc{i % 3}.md", i, 0, len(body), body, heading, heading, breadcrumb)


words = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
corpora = st.lists(st.tuples(words, words, words), min_size=1, max_size=25)
queries = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=5)
weights = st.fixed_dictionaries({f: st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.7]) for f in FIELDS}).filter(
    lambda w: any(w.values()))


def retriever(rows, w=None) -> BM25Retriever:
    chunks = [chunk(i, *row) for i, row in enumerate(rows)]
    return BM25Retriever(chunks, build_storage(chunks, AUTO_V1), AUTO_V1, dict(w or DEFAULT_FIELD_WEIGHTS))


def whoosh_term_scores(r: BM25Retriever, field: str, term: str) -> tuple[list[int], list[float]]:
    """One posting at a time, through whoosh's matcher and scorer (the old path)."""
    m = Term(field, term).matcher(r._searcher, r._searcher.context())
    ids, scores = [], []
    while m.is_active():
        ids.append(m.id())
        scores.append(m.score())
        m.next()
    return ids, scores


def whoosh_ranking(r: BM25Retriever, text: str) -> list[Hit]:
    terms = list(dict.fromkeys(r.analyzer.terms(text)))
    query = Or([Term(f, t, boost=w) for f, w in r.weights.items() if w > 0 for t in terms])
    return trec_order(Hit(r._ids[d], s) for d, s in r._searcher.search(query, limit=None).items())


def assert_same(ours: list[Hit], reference: list[Hit]) -> None:
    assert [h.chunk_id for h in ours] == [h.chunk_id for h in reference]
    for a, b in zip(ours, reference):
        assert math.isclose(a.score, b.score, rel_tol=1e-9, abs_tol=0.0), (a, b)
        assert a.score == b.score, (a, b)  # the same operations in the same order: bit for bit


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=corpora, qs=queries, w=weights)
def test_scores_and_rankings_equal_whooshs_on_random_corpora(rows, qs, w):
    r = retriever(rows, w)
    for field in FIELDS:
        for term in {t for q in qs for t in AUTO_V1.terms(q)}:
            ids, scores = r.term_scores(field, term)
            assert (ids.tolist(), scores.tolist()) == whoosh_term_scores(r, field, term)
    for q in qs:
        reference = whoosh_ranking(r, q)
        assert_same(r.search_hits(q, len(reference) + 1), reference)
        for k in (1, 3):  # a cut through a group of ties keeps trec_eval's order
            assert_same(r.search_hits(q, k), reference[:k])


def test_posting_lists_of_many_blocks_and_ties_across_the_cut():
    """whoosh writes 128 postings a block: 700 chunks, most holding the same words the same
    number of times (equal scores), cross block boundaries and cut ties at every k."""
    rows = [("vpn key" if i % 7 else "", "laptop", " ".join(["vpn"] * (1 + i % 3) + ["days"] * (i % 2)))
            for i in range(700)]
    r = retriever(rows)
    ids, _ = r.term_scores("body", "vpn")
    assert len(ids) == 700
    assert r._searcher.reader().term_info("body", "vpn").doc_frequency() == 700
    for field in FIELDS:
        for term in ("vpn", "key", "laptop", "day"):
            got_ids, got = r.term_scores(field, term)
            assert (got_ids.tolist(), got.tolist()) == whoosh_term_scores(r, field, term)
    for q in ("vpn", "vpn days laptop", "key"):
        reference = whoosh_ranking(r, q)
        assert len({h.score for h in reference}) < len(reference)  # ties exist
        for k in (1, 10, 129, 300, len(reference)):
            assert_same(r.search_hits(q, k), reference[:k])


def test_a_term_in_no_chunk_scores_nothing():
    r = retriever([("vpn", "", "key")])
    ids, scores = r.term_scores("body", "salari")
    assert len(ids) == len(scores) == 0
    assert r.search_hits("salary", 5) == []


def test_a_weight_so_small_the_scores_underflow_to_zero_still_ranks_every_match():
    """A field weight of 5e-324 makes the weighted score of a long chunk (BM25F below 0.5)
    0.0: whoosh still returns that match (score 0), so the cut must come from the matches,
    not from sums above 0."""
    rows = [("", "", "vpn" + " laptop" * (300 if i in (3, 8) else 0)) for i in range(12)]
    r = retriever(rows, {"heading": 0.0, "breadcrumb": 0.0, "body": 5e-324})
    reference = whoosh_ranking(r, "vpn")
    assert len(reference) == 12 and 0.0 in {h.score for h in reference}
    for k in (1, 5, 6, 7, 12, 20):
        assert_same(r.search_hits("vpn", k), reference[:k])


def test_a_sidecar_that_is_not_the_indexs_is_refused():
    """The sidecar is written with the index and checked against it: another index's sidecar
    (other terms), or one whose postings disagree with the term info (first/last docnum,
    count), is refused, never scored."""
    rows = [("vpn", "", "key laptop"), ("", "it", "vpn vpn days"), ("salary", "", "receipt")]
    chunks = [chunk(i, *row) for i, row in enumerate(rows)]
    storage = build_storage(chunks, AUTO_V1)
    other = build_storage([chunk(0, "vpn", "", "key")], AUTO_V1)
    searcher = BM25Retriever(chunks, storage, AUTO_V1, dict(DEFAULT_FIELD_WEIGHTS))._searcher
    with pytest.raises(ValueError, match="does not hold"):
        PostingScorer(searcher, searcher.weighting, other.files[SIDECAR])
    with pytest.raises(ValueError, match="not one labeller wrote"):
        PostingScorer(searcher, searcher.weighting, bytes(storage.files[SIDECAR])[:-1])
    # the body's "vpn" (chunk 1 only) moved to chunk 2: the same shape, other postings
    raw = bytearray(storage.files[SIDECAR])
    scorer = PostingScorer(searcher, searcher.weighting, bytes(raw))
    ids, _, _ = scorer.postings("body", "vpn")
    at = int(scorer._doc_at[np.searchsorted(scorer._offsets, searcher.reader().term_info("body", "vpn").extent()[0])])
    assert ids.tolist() == [1]
    raw[8 + 4 * at:8 + 4 * at + 4] = (2).to_bytes(4, "little")
    with pytest.raises(ValueError, match="are not the index's"):
        PostingScorer(searcher, searcher.weighting, bytes(raw)).postings("body", "vpn")
    without = type(storage)()
    without.files = {name: data for name, data in storage.files.items() if name != SIDECAR}
    with pytest.raises(ValueError, match="has no"):
        BM25Retriever(chunks, without, AUTO_V1, dict(DEFAULT_FIELD_WEIGHTS))
