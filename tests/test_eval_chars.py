"""Character metrics (SPEC §8.1) against hand computations, overlapping chunks counted once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.core.chunkfile import Chunking, ChunkRange
from labeller.core.vocab import Place
from labeller.eval.chars import budget_recall, overlap, ratios, score_chars, size, union

# A 100-character document chunked in 20-character windows with a stride of 10 (50% overlap):
# w0 [0,20) w1 [10,30) w2 [20,40) ... w8 [80,100).
WINDOWS = Chunking("windows", [ChunkRange(f"w{i}", Place("d", 10 * i, 10 * i + 20)) for i in range(9)], "file")
SPAN = [Place("d", 25, 45)]  # 20 characters


@settings(max_examples=300, deadline=None)
@given(st.lists(st.builds(lambda d, s, n: Place(d, s, s + n), st.sampled_from("abc"), st.integers(0, 60),
                          st.integers(1, 15)), max_size=25))
def test_union_is_each_documents_characters_as_sorted_disjoint_ranges(places):
    u = union(places)
    for doc in "abc":
        chars = {i for p in places if p.doc == doc for i in range(p.start, p.end)}
        ranges = u.get(doc, [])
        assert {i for s, e in ranges for i in range(s, e)} == chars
        assert all(e1 < s2 for (_, e1), (s2, _) in zip(ranges, ranges[1:]))  # sorted, apart (touching ones merge)
    assert set(u) == {p.doc for p in places}


def w(i: int) -> list[Place]:
    return [Place("d", 10 * i, 10 * i + 20)]


def test_union_and_overlap_count_each_character_once():
    u = union([Place("d", 10, 30), Place("d", 20, 40), Place("e", 0, 5), Place("d", 40, 41)])
    assert u == {"d": [(10, 41)], "e": [(0, 5)]} and size(u) == 36
    assert overlap(u, union([Place("d", 0, 15), Place("d", 35, 50), Place("e", 4, 9), Place("x", 0, 9)])) == 5 + 6 + 1


def test_a_fifty_percent_overlap_chunking_against_a_hand_computation():
    ranked = [w(2), w(3), w(1), w(6)]  # [20,40) [30,50) [10,30) [60,80)
    s = score_chars("q", SPAN, ranked, WINDOWS, ks=(1, 2, 3, 4), budgets=(10, 25, 30))
    v = s.values
    # k=1: R = [20,40): |E∩R| = |[25,40)| = 15
    assert (v["recall@1"], v["precision@1"], v["iou@1"]) == (15 / 20, 15 / 20, 15 / 25)
    # k=2: R = [20,50), 30 characters (the windows' 10 shared ones counted once, not 40)
    assert (v["recall@2"], v["precision@2"], v["iou@2"]) == (1.0, 20 / 30, 20 / 30)
    # k=3: R = [10,50)
    assert (v["recall@3"], v["precision@3"], v["iou@3"]) == (1.0, 20 / 40, 20 / 40)
    # k=4: R = [10,50) + [60,80) = 60 characters
    assert (v["recall@4"], v["precision@4"], v["iou@4"]) == (1.0, 20 / 60, 20 / 60)
    # budgets: w2 alone is 20 characters; w2+w3 is 30; adding w1 makes 40
    assert (v["recall@budget=10"], v["recall@budget=25"], v["recall@budget=30"]) == (0.0, 15 / 20, 1.0)
    # ceiling: the windows overlapping [25,45) are w1..w4, whose union [10,60) is 50 characters
    assert s.precision_omega == 20 / 50


def test_budget_walk_stops_at_the_first_chunk_that_would_pass_it():
    expected = union(SPAN)
    # w8 (far away, 20 chars) fits a budget of 45 with w2 (40 in all); w3 would make 50 and stops the
    # walk, so w4 after it is never taken even though a smaller union would have been possible
    assert budget_recall(expected, [w(2), w(8), w(3), w(4)], 45) == 15 / 20
    # a chunk wholly inside what was taken adds nothing and is taken
    assert budget_recall(expected, [w(2), [Place("d", 25, 30)], w(3)], 30) == 1.0


def test_overlapping_spans_are_one_answer_and_nothing_retrieved_is_zero():
    spans = [Place("d", 0, 10), Place("d", 5, 15), Place("e", 0, 5)]  # E = 15 + 5 characters
    s = score_chars("q", spans, [], WINDOWS, ks=(1,))
    assert s.values == {"recall@1": 0.0, "precision@1": 0.0, "iou@1": 0.0}
    s = score_chars("q", spans, [w(0)], WINDOWS, ks=(1,))
    assert s.values["recall@1"] == pytest.approx(15 / 20) and s.values["precision@1"] == 15 / 20
    assert s.values["iou@1"] == 15 / (20 + 20 - 15)
    # e.md has no chunk: the ceiling counts only d's cover [0,30) -> 15 / 30
    assert s.precision_omega == 15 / 30


def test_an_id_with_two_places_contributes_both():
    s = score_chars("q", [Place("d", 0, 10), Place("d", 50, 60)], [[Place("d", 0, 10), Place("d", 50, 60)]],
                    WINDOWS, ks=(1,))
    assert s.values["recall@1"] == 1.0 and s.values["precision@1"] == 1.0


@st.composite
def _tiled_ranking(draw):
    """A chunking of two documents cut into adjacent chunks (no two share a character; one id
    may name two chunks), a ranking of its ids with repeats, and answer spans anywhere."""
    ranges, by_id = [], {}
    for doc in "ab":
        cuts = sorted(set(draw(st.lists(st.integers(1, 199), max_size=12))) | {0, 200})
        for s, e in zip(cuts, cuts[1:]):
            cid = draw(st.sampled_from([f"{doc}{s}", "twice"]))
            ranges.append(ChunkRange(cid, Place(doc, s, e)))
            by_id.setdefault(cid, []).append(Place(doc, s, e))
    ids = sorted(by_id)
    ranked = [by_id[c] for c in draw(st.lists(st.sampled_from(ids), max_size=30))]
    spans = draw(st.lists(st.builds(lambda d, s, n: Place(d, s, min(200, s + n)), st.sampled_from("abc"),
                                    st.integers(0, 190), st.integers(1, 60)), min_size=1, max_size=3))
    ks = sorted(set(draw(st.lists(st.integers(1, 35), min_size=1, max_size=5))))
    return Chunking("tiles", ranges, "file"), ranked, spans, ks


@settings(max_examples=400, deadline=None)
@given(_tiled_ranking())
def test_a_chunking_without_overlaps_gives_the_merged_unions_ratios(case):
    """With no two chunks overlapping, ``score_chars`` sums lengths instead of merging every
    prefix: each value is still the one the merged unions give."""
    chunking, ranked, spans, ks = case
    assert chunking.disjoint
    got = score_chars("q", spans, ranked, chunking, ks).values
    expected = union(spans)
    for k in ks:
        retrieved = union(p for places in ranked[:k] for p in places)
        assert (got[f"recall@{k}"], got[f"precision@{k}"], got[f"iou@{k}"]) == ratios(expected, retrieved)


def test_disjoint_is_false_when_two_chunks_share_a_character():
    assert not WINDOWS.disjoint
    tiles = Chunking("tiles", [ChunkRange(f"t{i}", Place("d", 20 * i, 20 * i + 20)) for i in range(5)], "file")
    assert tiles.disjoint
    assert not Chunking("twins", [*tiles.ranges, ChunkRange("x", Place("d", 0, 20))], "file").disjoint
