"""Metrics (SPEC §8): agreement with ir_measures/trec_eval, hit rules from offsets, sanity rules."""

from __future__ import annotations

import random
from collections import namedtuple

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import RR, Qrel, R, ScoredDoc, Success, nDCG

from labeller.core.chunkers import Chunk
from labeller.core.hitrules import parse_hit_rule
from labeller.eval.metrics import (ChunkPositions, MetricsSanityError, QueryScore, check_sanity, distinct_docs,
                                   relevant_chunk_ids, score_queries, score_query, span_hit_ranks)
from labeller.eval.report import aggregate
from labeller.eval.retrievers import Hit, trec_order

SpanRef = namedtuple("SpanRef", "doc_id start end")
PYTREC = ir_measures.providers.registry["pytrec_eval"]  # trec_eval itself: its tie rule is the one we follow
KS = (1, 3, 5, 10)


def chunk(cid: str, doc: str, start: int, end: int, ordinal: int = 0) -> Chunk:
    return Chunk(cid, doc, ordinal, start, end, "x" * end, doc, "", doc)


def synthetic_corpus(rng: random.Random, docs: int = 6, per_doc: int = 8) -> list[Chunk]:
    """Chunks of 90 chars every 100 chars; ids are random hex so tie order is not doc order."""
    return [chunk(f"{rng.getrandbits(64):016x}", f"d{d}.md", i * 100, i * 100 + 90, i)
            for d in range(docs) for i in range(per_doc)]


def test_trec_order_is_score_descending_then_id_descending():
    hits = [Hit("a", 1.0), Hit("c", 0.5), Hit("b", 1.0), Hit("d", 0.5)]
    assert [h.chunk_id for h in trec_order(hits)] == ["b", "a", "d", "c"]


def test_agrees_with_trec_eval_on_random_runs_with_ties():
    """Spans lie inside one chunk each, so span recall is relevant-chunk recall and every
    metric has the same definition on both sides. Scores come from {1, 2, 3}: ties everywhere.

    ir_measures answers RR@k from providers that do not break ties like trec_eval, so RR is
    computed by trec_eval (pytrec_eval) on the run cut to its top k."""
    rng = random.Random(7)
    chunks = synthetic_corpus(rng)
    pos = ChunkPositions(chunks)
    rule = parse_hit_rule("any_overlap")
    checked = 0
    for qn in range(150):
        qid = f"q{qn}"
        gold = rng.sample(chunks, rng.randint(1, 3))
        spans = [SpanRef(c.doc_id, c.start + 10, c.start + 40) for c in gold]
        hits = [Hit(c.chunk_id, float(rng.choice((1, 2, 3)))) for c in rng.sample(chunks, 15)]
        ranked = [h.chunk_id for h in trec_order(hits)]
        ours = score_query(qid, ranked, spans, len(spans) > 1, pos, rule, KS)

        qrels = [Qrel(qid, c.chunk_id, 1) for c in gold]
        run = [ScoredDoc(qid, h.chunk_id, h.score) for h in hits]
        doc_qrels = [Qrel(qid, d, 1) for d in ours.answer_docs]
        docs = list(dict.fromkeys(pos.doc_of(c) for c in ranked))
        doc_run = [ScoredDoc(qid, d, float(-i)) for i, d in enumerate(docs)]
        for level, q, r, got in (("chunk", qrels, run, ours.chunk), ("doc", doc_qrels, doc_run, ours.doc)):
            ref = {str(m.measure): m.value for m in PYTREC.iter_calc(
                [*(R @ k for k in KS), *(Success @ k for k in KS), *(nDCG @ k for k in KS)], q, r)}
            for k in KS:
                assert got[f"recall@{k}"] == pytest.approx(ref[f"R@{k}"]), (qid, level, k)
                assert got[f"success@{k}"] == pytest.approx(ref[f"Success@{k}"]), (qid, level, k)
                assert got[f"ndcg@{k}"] == pytest.approx(ref[f"nDCG@{k}"]), (qid, level, k)
                cut = sorted(r, key=lambda s: (-s.score, _desc(s.doc_id)))[:k]
                rr = [m.value for m in PYTREC.iter_calc([RR], q, cut)]
                assert got[f"mrr@{k}"] == pytest.approx(rr[0] if rr else 0.0), (qid, level, k)
                checked += 1
    assert checked == 150 * 2 * len(KS)


def test_scoring_every_query_at_once_is_scoring_each_alone():
    """``score_queries`` (the measures of all queries as columns) gives ``score_query``'s
    scores, multi-hop and single, bit for bit."""
    rng = random.Random(23)
    chunks = synthetic_corpus(rng)
    pos = ChunkPositions(chunks)
    rule = parse_hit_rule("any_overlap")
    queries = []
    for qn in range(120):
        gold = rng.sample(chunks, rng.randint(1, 3))
        spans = [SpanRef(c.doc_id, c.start + 10, c.start + 40) for c in gold]
        ranked = [c.chunk_id for c in rng.sample(chunks, rng.randint(0, 40))]
        queries.append((f"q{qn}", ranked, spans, len(spans) > 1, None))
    alone = [score_query(qid, ranked, spans, multi, pos, rule, KS) for qid, ranked, spans, multi, _ in queries]
    assert score_queries(queries, pos, rule, KS) == alone
    assert any(s.chunk["ndcg@10"] not in (0.0, 1.0) for s in alone) and any(s.multi for s in alone)


def _desc(s: str):
    """Sort key putting strings in descending order inside an ascending sort."""
    return [-ord(ch) for ch in s] + [1]


def test_aggregates_agree_with_ir_measures_calc_aggregate():
    rng = random.Random(11)
    chunks = synthetic_corpus(rng)
    pos = ChunkPositions(chunks)
    rule = parse_hit_rule("any_overlap")
    scores, qrels, run = [], [], []
    for qn in range(60):
        qid = f"q{qn}"
        gold = rng.sample(chunks, rng.randint(1, 2))
        hits = [Hit(c.chunk_id, float(rng.choice((1, 2)))) for c in rng.sample(chunks, 12)]
        scores.append(score_query(qid, [h.chunk_id for h in trec_order(hits)],
                                  [SpanRef(c.doc_id, c.start, c.end) for c in gold], False, pos, rule, KS))
        qrels += [Qrel(qid, c.chunk_id, 1) for c in gold]
        run += [ScoredDoc(qid, h.chunk_id, h.score) for h in hits]
    agg = aggregate(scores, KS, samples=200, seed=1)["chunk"]
    ref = PYTREC.calc_aggregate([R @ 5, Success @ 5, nDCG @ 10], qrels, run)
    assert agg["recall@5"]["value"] == pytest.approx(ref[R @ 5], abs=1e-6)
    assert agg["success@5"]["value"] == pytest.approx(ref[Success @ 5], abs=1e-6)
    assert agg["ndcg@10"]["value"] == pytest.approx(ref[nDCG @ 10], abs=1e-6)
    assert agg["recall@5"]["n"] == 60


# -- hit rules from offsets -------------------------------------------------------------------

CHUNKS = [chunk("c1", "a.md", 0, 100), chunk("c2", "a.md", 100, 200), chunk("c3", "b.md", 0, 100)]
SPAN = SpanRef("a.md", 80, 140)  # 20 chars in c1, 40 in c2


@pytest.mark.parametrize("rule, ranked, expected", [
    ("any_overlap", ["c3", "c1", "c2"], 2),
    ("span_containment", ["c3", "c1", "c2"], None),  # no single chunk contains the span
    ("coverage>=0.5", ["c1", "c3", "c2"], 3),  # c1 covers 1/3, c2 covers 2/3
    ("union_coverage>=1", ["c1", "c3", "c2"], 3),  # needs both c1 and c2: found when c2 arrives
    ("union_coverage>=0.3", ["c1", "c2"], 1),
])
def test_hit_rank_follows_the_hit_rule_from_offsets(rule, ranked, expected):
    assert span_hit_ranks(ranked, [SPAN], ChunkPositions(CHUNKS), parse_hit_rule(rule)) == [expected]


def test_same_id_in_another_document_never_hits():
    pos = ChunkPositions(CHUNKS)
    assert span_hit_ranks(["c3"], [SpanRef("a.md", 10, 20)], pos, parse_hit_rule("any_overlap")) == [None]


def test_a_chunk_id_shared_by_two_positions_hits_at_either():
    chunks = [chunk("dup", "a.md", 0, 50, 0), chunk("mid", "a.md", 60, 100, 1), chunk("dup", "a.md", 110, 160, 2)]
    pos = ChunkPositions(chunks)
    assert span_hit_ranks(["mid", "dup"], [SpanRef("a.md", 120, 130)], pos, parse_hit_rule("any_overlap")) == [2]


def test_document_ranks_count_distinct_documents():
    chunks = [chunk("a1", "a.md", 0, 10), chunk("a2", "a.md", 20, 30), chunk("b1", "b.md", 0, 10),
              chunk("c1", "c.md", 0, 10)]
    s = score_query("q", ["a1", "a2", "b1", "c1"], [SpanRef("c.md", 0, 5)], False, ChunkPositions(chunks),
                    parse_hit_rule("any_overlap"), (1, 3))
    assert s.hit_ranks == [4] and s.doc_ranks == [3]
    assert s.chunk["recall@3"] == 0.0 and s.doc["recall@3"] == 1.0
    assert s.doc["mrr@3"] == pytest.approx(1 / 3)


def test_multi_hop_reports_all_at_k_and_recall_counts_spans():
    pos = ChunkPositions(CHUNKS)
    spans = [SpanRef("a.md", 10, 20), SpanRef("b.md", 10, 20)]
    s = score_query("q", ["c1", "c2", "c3"], spans, True, pos, parse_hit_rule("any_overlap"), (1, 3))
    assert s.chunk["recall@1"] == 0.5 and s.chunk["all@1"] == 0.0
    assert s.chunk["recall@3"] == 1.0 and s.chunk["all@3"] == 1.0
    single = score_query("q", ["c1"], spans[:1], False, pos, parse_hit_rule("any_overlap"), (1,))
    assert "all@1" not in single.chunk


def test_a_miss_stays_in_mrr_as_zero():
    pos = ChunkPositions(CHUNKS)
    rule = parse_hit_rule("any_overlap")
    hit = score_query("q1", ["c1"], [SpanRef("a.md", 0, 5)], False, pos, rule, (1,))
    miss = score_query("q2", ["c3"], [SpanRef("a.md", 0, 5)], False, pos, rule, (1,))
    assert aggregate([hit, miss], (1,), 100, 1)["chunk"]["mrr@1"]["value"] == 0.5


# -- aggregates and sanity --------------------------------------------------------------------


def test_no_data_is_null_not_zero():
    agg = aggregate([], (1, 5), samples=100, seed=1)
    for level in ("chunk", "doc"):
        for stat in agg[level].values():
            assert stat == {"value": None, "ci_low": None, "ci_high": None, "n": 0}


def test_all_at_k_is_averaged_over_multi_hop_queries_only():
    pos = ChunkPositions(CHUNKS)
    rule = parse_hit_rule("any_overlap")
    single = score_query("s", ["c1"], [SpanRef("a.md", 0, 5)], False, pos, rule, (1,))
    multi = score_query("m", ["c1"], [SpanRef("a.md", 0, 5), SpanRef("b.md", 0, 5)], True, pos, rule, (1,))
    agg = aggregate([single, multi], (1,), 100, 1)["chunk"]
    assert agg["all@1"]["n"] == 1 and agg["all@1"]["value"] == 0.0
    assert agg["recall@1"]["n"] == 2 and agg["recall@1"]["value"] == 0.75


def _score(hit_ranks, chunk):
    return QueryScore("q", False, hit_ranks, ["a.md"], hit_ranks, chunk, dict(chunk))


def test_sanity_rule_passes_on_real_scores_and_raises_on_a_violation():
    pos = ChunkPositions(CHUNKS)
    rule = parse_hit_rule("any_overlap")
    scores = [score_query("q", ["c2", "c1"], [SpanRef("a.md", 0, 5)], False, pos, rule, (1, 2))]
    agg = aggregate(scores, (1, 2), 100, 1)
    check_sanity(scores, agg, (1, 2))

    broken = [_score([1], {"recall@1": 1.0, "success@1": 1.0, "mrr@1": 0.5, "ndcg@1": 1.0})]  # mrr < recall@1
    with pytest.raises(MetricsSanityError, match="recall@1 <= MRR@k <= success@k"):
        check_sanity(broken, aggregate([], (1,), 10, 1), (1,))
    bad_agg = {"chunk": {"recall@1": {"value": 0.2}, "mrr@1": {"value": 0.5}, "success@1": {"value": 0.4}}}
    with pytest.raises(MetricsSanityError):
        check_sanity([], bad_agg, (1,))


@pytest.mark.parametrize("rule", ["any_overlap", "span_containment", "coverage>=0.5", "union_coverage>=0.8"])
def test_relevant_chunks_found_by_bisection_are_those_a_scan_of_every_chunk_finds(rule):
    """The nDCG ideal list: overlapping chunks of every length (one id at two places too),
    spans anywhere, looked up near the span, equal to testing every chunk of the document."""
    rng = random.Random(rule)
    chunks = []
    for d in range(3):
        for i in range(150):
            start = rng.randrange(0, 2000)
            chunks.append(chunk(f"c{d}-{i}", f"d{d}.md", start, start + rng.choice((1, 5, 40, 300, 2000)), i))
    chunks.append(chunk("c0-1", "d2.md", 10, 30))
    pos, hit_rule = ChunkPositions(chunks), parse_hit_rule(rule)
    for _ in range(300):
        start = rng.randrange(0, 4000)
        spans = [SpanRef(f"d{rng.randrange(4)}.md", start, start + rng.choice((1, 3, 50, 700)))]
        scan = {c.chunk_id for sp in spans for c in pos.by_doc.get(sp.doc_id, ())
                if hit_rule.chunk_hits((c.start, c.end), (sp.start, sp.end))}
        assert relevant_chunk_ids(spans, pos, hit_rule) == scan


def _scan_hit_ranks(ranked, spans, pos, rule):
    """The reference: for each span, grow the prefix rank by rank over every position of
    every retrieved id (no index by document, no bisection)."""
    out = []
    for sp in spans:
        prefix, found = [], None
        for rank, cid in enumerate(ranked, 1):
            prefix += [(s, e) for d, s, e in pos.positions.get(cid, ()) if d == sp.doc_id]
            if prefix and rule.span_satisfied(prefix, (sp.start, sp.end)):
                found = rank
                break
        out.append(found)
    return out


_placed = st.tuples(st.sampled_from(["c0", "c1", "c2", "c3", "c4", "c5"]), st.sampled_from(["a.md", "b.md", "c.md"]),
                    st.integers(0, 300), st.sampled_from([1, 2, 10, 50, 200]))
_span = st.tuples(st.sampled_from(["a.md", "b.md", "c.md", "z.md"]), st.integers(0, 400), st.sampled_from([1, 5, 30, 150]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_placed, min_size=1, max_size=25), st.lists(_span, min_size=1, max_size=4),
       st.lists(st.sampled_from(["c0", "c1", "c2", "c3", "c4", "c5", "nowhere"]), max_size=8, unique=True),
       st.sampled_from(["any_overlap", "span_containment", "coverage>=0.5", "union_coverage>=0.8"]))
def test_span_to_chunk_mapping_equals_a_scan_of_every_chunk(placed, spans, ranked, rule):
    """Overlapping chunks, one id at several places (in several documents too), spans in
    documents with no chunk: the bisection (nDCG's ideal list), the hit ranks read from the
    answer documents' ranks only, and the document ranking equal a scan of everything."""
    chunks = [chunk(cid, doc, start, start + length, i) for i, (cid, doc, start, length) in enumerate(placed)]
    pos, hit_rule = ChunkPositions(chunks), parse_hit_rule(rule)
    refs = [SpanRef(doc, start, start + length) for doc, start, length in spans]
    scan = {c.chunk_id for sp in refs for c in chunks if c.doc_id == sp.doc_id
            and hit_rule.chunk_hits((c.start, c.end), (sp.start, sp.end))}
    assert relevant_chunk_ids(refs, pos, hit_rule) == scan
    assert span_hit_ranks(ranked, refs, pos, hit_rule) == _scan_hit_ranks(ranked, refs, pos, hit_rule)
    firsts = [pos.positions[c][0][0] for c in ranked if c in pos.positions]
    assert distinct_docs(ranked, pos) == list(dict.fromkeys(firsts))


@pytest.mark.parametrize("rule", ["any_overlap", "span_containment"])
def test_judged_flags_are_each_chunks_own_judged_test_spread_ids_included(rule):
    """``judged_flags`` skips chunks in documents without a place: the flags must still be
    ``is_judged`` of each chunk, an id placed in two documents (``spread``) and an unknown id included."""
    from labeller.core.vocab import Place
    from labeller.eval.judged import is_judged, judged_flags

    rng = random.Random(11)
    chunks = synthetic_corpus(rng) + [chunk("twice", "d0.md", 0, 90), chunk("twice", "d5.md", 300, 390, 3)]
    pos, hit_rule = ChunkPositions(chunks), parse_hit_rule(rule)
    assert "twice" in pos.spread
    ids = [c.chunk_id for c in chunks] + ["unknown"]
    seen = []
    for i in range(30):
        places = [Place(f"d{rng.randrange(6)}.md", s, s + rng.randint(1, 150)) for s in rng.sample(range(700), 3)]
        if i == 0:  # only in the spread id's second document: judged by its second position
            places = [Place("d5.md", 320, 330)]
        ranked = rng.sample(ids, 20) + ["twice"]
        flags = judged_flags(ranked, places, pos, hit_rule)
        assert flags == [is_judged(cid, places, pos, hit_rule) for cid in ranked]
        seen += flags
        if i == 0:
            assert flags[-1]
    assert any(seen) and not all(seen)
