"""``Rankings``: a ranking handed in as columns reads as the ``Hit``s a retriever would have
returned, whole or by its top n, and a run file scored through them gives ``retrieve``'s hits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.eval.rankings import Rankings
from labeller.eval.retrievers import Hit
import labeller.eval.retrievers.run_file as run_file
from labeller.eval.retrievers.run_file import parse_run

ranking = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "e"]), st.floats(-5, 5)), max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), st.tuples(ranking, st.booleans())), st.integers(0, 9))
def test_columns_and_hits_read_alike(queries, n):
    rankings = Rankings()
    for qid, (rows, as_columns) in queries.items():
        if as_columns:
            rankings.add_columns(qid, [c for c, _ in rows], [s for _, s in rows])
        else:
            rankings.add_hits(qid, [Hit(c, s) for c, s in rows])
    assert list(rankings) == list(queries) and len(rankings) == len(queries)
    for qid, (rows, _) in queries.items():
        expected = [Hit(c, s) for c, s in rows]
        assert rankings.ids[qid] == [c for c, _ in rows]
        assert rankings.top(qid, n) == expected[:n]
        assert rankings[qid] == expected and rankings[qid] is rankings[qid]  # made once
        assert rankings.top(qid, n) == expected[:n]
    assert "q9" not in rankings and rankings.get("q9") is None


def test_a_run_files_columns_are_its_top_hits():
    run = parse_run("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 2.0 t\nq1 Q0 c 3 3.5 t\nq2 Q0 a 1 1.0 t\n")
    for qid in ("q1", "q2", "q3"):
        for k in range(5):
            ids, scores = run.top_columns(qid, k)
            assert list(map(Hit, ids, scores)) == run.top(qid, k)
    assert run.top_columns("q1", 2) == (["c", "b"], [3.5, 2.0])  # score descending, ties by id descending



run_rows = st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["a", "b", "c", "B", "a1"]),
                              st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 1e-300])), max_size=25)


@settings(max_examples=200, deadline=None)
@given(run_rows)
def test_the_one_key_sort_and_lexsort_give_trec_order(rows):
    """``Run._ranked`` by one int64 key, and by lexsort when the keys would not fit: both the
    trec order (score descending, ties by docid descending), query by query."""
    rows = list({(q, d): (q, d, s) for q, d, s in reversed(rows)}.values())  # a docid once per query
    text = "".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rows)
    one_key = {q: parse_run(text).top(q, 99) for q in ("q1", "q2", "q3")}
    bound = run_file._ONE_KEY_BELOW
    run_file._ONE_KEY_BELOW = 0  # every key "too large": lexsort
    try:
        lexsorted = {q: parse_run(text).top(q, 99) for q in ("q1", "q2", "q3")}
    finally:
        run_file._ONE_KEY_BELOW = bound
    for q in one_key:
        hits = sorted((Hit(d, s) for qq, d, s in rows if qq == q), key=lambda h: h.chunk_id, reverse=True)
        assert one_key[q] == lexsorted[q] == sorted(hits, key=lambda h: -h.score)
