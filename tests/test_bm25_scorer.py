"""labeller's BM25 index and scorer (``labeller.eval.retrievers.bm25_index``) against whoosh's own.

whoosh's scores are the reference (``helpers_bm25``: a real whoosh index of the same chunks
written by whoosh's public writer, a term's matcher walked one posting at a time, and a
whole query searched by whoosh as an ``Or`` of boosted ``Term``s). On random corpora whose
few words make ties common, every term's scores and every query's ranking (trec_eval's
order, ties by descending id) must be whoosh's, score for score.
"""

from __future__ import annotations

import io
import json
import math

import pytest
from helpers_bm25 import whoosh_ranking, whoosh_searcher, whoosh_term_scores
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeller.core.chunkers import Chunk
from labeller.eval.analysis import ANALYZERS, AUTO_V1, AUTO_V2, AUTO_V3, PLAIN_V1, PLAIN_V2, PLAIN_V3
from labeller.eval.retrievers.base import Hit
from labeller.eval.retrievers.bm25 import DEFAULT_FIELD_WEIGHTS, FIELDS, INDEX_FILE, BM25Retriever, build_storage
from labeller.eval.retrievers.bm25_index import MAGIC, BM25Index, NotAnIndex, write_index

WORDS = ["vpn", "key", "expires", "laptop", "receipt", "salary", "paid", "torch.compile", "k=60", "経費精算",
         "wireguard", "days", "added", "internal", "pasted"]  # the last three: stemmed apart by v1 and v2


def chunk(i: int, heading: str, breadcrumb: str, body: str) -> Chunk:
    return Chunk(f"doc{i % 3}.md#{i:04d}", f"doc{i % 3}.md", i, 0, len(body), body, heading, heading, breadcrumb)


words = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
corpora = st.lists(st.tuples(words, words, words), min_size=1, max_size=25)
queries = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=5)
weights = st.fixed_dictionaries({f: st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.7]) for f in FIELDS}).filter(
    lambda w: any(w.values()))


def retriever(rows, w=None, analyzer=AUTO_V3) -> tuple[BM25Retriever, object]:
    """labeller's retriever over the rows' chunks, and whoosh's searcher over the same chunks."""
    chunks = [chunk(i, *row) for i, row in enumerate(rows)]
    r = BM25Retriever(chunks, build_storage(chunks, analyzer), analyzer, dict(w or DEFAULT_FIELD_WEIGHTS))
    return r, whoosh_searcher(chunks, analyzer)


def assert_same(ours: list[Hit], reference: list[Hit]) -> None:
    assert [h.chunk_id for h in ours] == [h.chunk_id for h in reference]
    for a, b in zip(ours, reference):
        assert math.isclose(a.score, b.score, rel_tol=1e-9, abs_tol=0.0), (a, b)
        assert a.score == b.score, (a, b)  # the same operations in the same order: bit for bit


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=corpora, qs=queries, w=weights, analyzer=st.sampled_from(sorted(ANALYZERS.values(), key=str)))
def test_scores_and_rankings_equal_whooshs_on_random_corpora(rows, qs, w, analyzer):
    """Under every analyzer: whoosh's index is cut by the same chain (``Analyzer.whoosh``),
    so the oracle stems with the analyzer's own stemmer."""
    r, oracle = retriever(rows, w, analyzer)
    for field in FIELDS:
        for term in {t for q in qs for t in analyzer.terms(q)}:
            ids, scores = r.term_scores(field, term)
            assert (ids.tolist(), scores.tolist()) == whoosh_term_scores(oracle, field, term)
    for q in qs:
        reference = whoosh_ranking(oracle, r.analyzer, r.weights, q)
        assert_same(r.search_hits(q, len(reference) + 1), reference)
        for k in (1, 3):  # a cut through a group of ties keeps trec_eval's order
            assert_same(r.search_hits(q, k), reference[:k])


def test_posting_lists_of_many_blocks_and_ties_across_the_cut():
    """700 chunks, most holding the same words the same number of times (equal scores): whoosh's
    posting blocks (128 postings) are crossed and ties are cut at every k."""
    rows = [("vpn key" if i % 7 else "", "laptop", " ".join(["vpn"] * (1 + i % 3) + ["days"] * (i % 2)))
            for i in range(700)]
    r, oracle = retriever(rows, {"heading": 0.25, "breadcrumb": 0.5, "body": 1.0})  # every field scored
    ids, _ = r.term_scores("body", "vpn")
    assert len(ids) == 700 == oracle.doc_frequency("body", "vpn")
    for field in FIELDS:
        for term in ("vpn", "key", "laptop", "day"):
            got_ids, got = r.term_scores(field, term)
            assert (got_ids.tolist(), got.tolist()) == whoosh_term_scores(oracle, field, term)
    for q in ("vpn", "vpn days laptop", "key"):
        reference = whoosh_ranking(oracle, r.analyzer, r.weights, q)
        assert len({h.score for h in reference}) < len(reference)  # ties exist
        for k in (1, 10, 129, 300, len(reference)):
            assert_same(r.search_hits(q, k), reference[:k])


def test_k1_and_b_given_to_the_retriever_score_as_whooshs_bm25f_with_them():
    """The tuning (benchmarks/bm25_tuning.py) tries k1/b on one index: they must be whoosh's, not the defaults."""
    rows = [("vpn", "laptop", " ".join(["vpn", "key"] * (1 + i) + ["days"] * (i % 3))) for i in range(9)]
    chunks = [chunk(i, *row) for i, row in enumerate(rows)]
    storage = build_storage(chunks, AUTO_V3)
    for k1, b in ((0.5, 1.0), (2.0, 0.1)):
        r = BM25Retriever(chunks, storage, AUTO_V3, dict(DEFAULT_FIELD_WEIGHTS), k1=k1, b=b)
        oracle = whoosh_searcher(chunks, AUTO_V3, b=b, k1=k1)
        assert r.describe()["k1"] == k1 and r.describe()["b"] == b
        for term in ("vpn", "key", "day"):
            ids, scores = r.term_scores("body", term)
            assert (ids.tolist(), scores.tolist()) == whoosh_term_scores(oracle, "body", term)
        reference = whoosh_ranking(oracle, r.analyzer, r.weights, "vpn key days")
        assert_same(r.search_hits("vpn key days", len(reference)), reference)


def test_a_term_in_no_chunk_scores_nothing():
    r, _ = retriever([("vpn", "", "key")])
    ids, scores = r.term_scores("body", "salari")
    assert len(ids) == len(scores) == 0
    assert r.search_hits("salary", 5) == []


def test_a_weight_so_small_the_scores_underflow_to_zero_still_ranks_every_match():
    """A field weight of 5e-324 makes the weighted score of a long chunk (BM25F below 0.5:
    one chunk ~12 times the mean length) 0.0: whoosh still returns that match (score 0), so
    the cut must come from the matches, not from sums above 0."""
    rows = [("", "", "vpn" + " laptop" * (300 if i == 3 else 0)) for i in range(12)]
    r, oracle = retriever(rows, {"heading": 0.0, "breadcrumb": 0.0, "body": 5e-324})
    reference = whoosh_ranking(oracle, r.analyzer, r.weights, "vpn")
    assert len(reference) == 12 and 0.0 in {h.score for h in reference}
    for k in (1, 5, 6, 7, 12, 20):
        assert_same(r.search_hits("vpn", k), reference[:k])


def test_long_fields_plain_analysis_and_cjk_equal_whooshs():
    """Field lengths past the one-byte code's exact range (whoosh quantises them) and a
    CJK-heavy corpus under both analyzers, one of them keeping runs whole."""
    rows = [("経費精算 vpn", "経費", " ".join(["vpn", "経費精算は毎月", "days"] * (1 + 37 * i))) for i in range(9)]
    for analyzer in (AUTO_V3, PLAIN_V3, AUTO_V2, PLAIN_V2, AUTO_V1, PLAIN_V1):
        r, oracle = retriever(rows, analyzer=analyzer)
        for q in ("vpn", "経費精算は毎月", "経費 days"):
            reference = whoosh_ranking(oracle, analyzer, r.weights, q)
            assert reference
            assert_same(r.search_hits(q, len(reference)), reference)


def _rows_index(rows) -> tuple[list[str], bytes]:
    chunks = [chunk(i, *row) for i, row in enumerate(rows)]
    out = io.BytesIO()
    write_index(out, chunks, AUTO_V2)
    return [c.chunk_id for c in chunks], out.getvalue()


ROWS = [("vpn", "", "key laptop"), ("", "it", "vpn vpn days"), ("salary", "", "receipt")]


def test_the_index_is_the_same_bytes_every_time():
    assert _rows_index(ROWS) == _rows_index(list(ROWS))


def test_an_index_of_other_chunks_is_refused():
    """The file holds the sha256 of the ids it was written for: another chunk list (other
    ids, or the same ids in another order) is refused, never scored."""
    ids, data = _rows_index(ROWS)
    BM25Index(data, ids, 0.75, 1.2)
    with pytest.raises(ValueError, match="does not hold these chunks"):
        BM25Index(data, ids[::-1], 0.75, 1.2)
    with pytest.raises(ValueError, match="does not hold these chunks"):
        BM25Index(data, ids[:2], 0.75, 1.2)
    chunks = [chunk(i, *row) for i, row in enumerate(ROWS)]
    with pytest.raises(ValueError, match=f"no {INDEX_FILE}"):
        BM25Retriever(chunks, type(build_storage(chunks, AUTO_V2))(), AUTO_V2, dict(DEFAULT_FIELD_WEIGHTS))


def _header(data: bytes) -> tuple[dict, int]:
    n = int.from_bytes(data[len(MAGIC):len(MAGIC) + 8], "little")
    return json.loads(data[len(MAGIC) + 8:len(MAGIC) + 8 + n]), n


def _with_header(data: bytes, header: dict) -> bytes:
    """``data`` with its header replaced, kept at the same length so the arrays stay where they were."""
    _, n = _header(data)
    text = json.dumps(header, sort_keys=True).encode("ascii")
    assert len(text) <= n
    text += b" " * (n - len(text))
    return data[:len(MAGIC) + 8] + text + data[len(MAGIC) + 8 + n:]


@pytest.mark.parametrize("damage", ["truncated", "no_magic", "header_length", "header_json", "format", "array_past_end",
                                    "array_missing", "ptr_past_postings", "docnum_out_of_range", "misaligned"])
def test_a_file_that_is_not_an_index_labeller_wrote_is_refused(damage):
    """Shape checks before any array is viewed: the cache's MAC already keeps out files this
    user did not write, these keep a damaged or foreign file from being read as postings."""
    ids, data = _rows_index(ROWS)
    header, n = _header(data)
    arrays = header["arrays"]
    if damage == "truncated":
        bad = data[:-1]
    elif damage == "no_magic":
        bad = b"X" + data[1:]
    elif damage == "header_length":
        bad = data[:len(MAGIC)] + (len(data)).to_bytes(8, "little") + data[len(MAGIC) + 8:]
    elif damage == "header_json":
        bad = data[:len(MAGIC) + 8] + b"{" * n + data[len(MAGIC) + 8 + n:]
    elif damage == "format":
        bad = _with_header(data, {**header, "format": "labeller-bm25-v2"})
    elif damage == "array_past_end":
        at = arrays["body.codes"][0]  # the last array: one byte more than is left before the closing magic
        bad = _with_header(data, {**header, "arrays": {**arrays, "body.codes": [at, len(data) - len(MAGIC) - at + 1]}})
    elif damage == "array_missing":
        bad = _with_header(data, {**header, "arrays": {k: v for k, v in arrays.items() if k != "body.codes"}})
    elif damage == "misaligned":
        bad = _with_header(data, {**header, "arrays": {**arrays, "body.freqs": [arrays["body.freqs"][0] + 4,
                                                                               arrays["body.freqs"][1]]}})
    elif damage == "ptr_past_postings":  # the last term's postings run past the docnums
        at, count = arrays["body.ptr"]
        raw = bytearray(data)
        end = at + 8 * (count - 1)
        raw[end:end + 8] = (10 ** 6).to_bytes(8, "little")
        bad = bytes(raw)
    else:  # a docnum past the documents
        at, _ = arrays["body.docs"]
        raw = bytearray(data)
        raw[at:at + 4] = (len(ids)).to_bytes(4, "little")
        bad = bytes(raw)
    with pytest.raises(NotAnIndex):
        BM25Index(bad, ids, 0.75, 1.2)


def test_an_index_counted_in_many_batches_is_the_index_counted_at_once(monkeypatch):
    """The build counts postings a batch of documents at a time (``BATCH_TOKENS``): batches
    as small as a few tokens write the same bytes, and rank as whoosh does."""
    from labeller.eval.retrievers import bm25_index

    rows = [("vpn key" if i % 3 else "", "laptop", " ".join(["vpn", "days", "経費精算"][: 1 + i % 3] * (1 + i % 4)))
            for i in range(40)]
    whole = _rows_index(rows)
    monkeypatch.setattr(bm25_index, "BATCH_TOKENS", 3)
    assert _rows_index(rows) == whole
    r, oracle = retriever(rows)
    for q in ("vpn days", "経費 key laptop"):
        reference = whoosh_ranking(oracle, r.analyzer, r.weights, q)
        assert_same(r.search_hits(q, len(reference)), reference)
