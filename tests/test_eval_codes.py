"""A ranking's ids as codes into a table of distinct ids (``eval.codes``, issue 37 point 7):
what the codes read must be what the chunk set's dicts hold, and an eval of a run file
scored by its codes must give the report scored by its ids, byte for byte."""

from __future__ import annotations

import json
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np

from labeller.core.chunkfile import Chunking, ChunkRange
from labeller.core.corpus import Corpus, make_document
from labeller.core.vocab import Place
from labeller.errors import InvalidInput
from labeller.eval.chars import score_chars
from labeller.eval.chunkset import ChunkSet
from labeller.eval.codes import ChunkCodes
from labeller.eval.retrievers.run_file import RunFileRetriever, parse_run, read_run
from labeller.eval.runner import run_eval
from test_eval_chunks import project, sections_project, windows, write_jsonl

A = "# Alpha\n\nThe kestrel nests\non the ridge.\n\nShared line.\n"
B = "---\ntitle: Bee doc\n---\nShared line.\n\nbeta  facts here\n"
CORPUS = Corpus.from_documents([make_document("a.md", A), make_document("b.md", B)])
# an id at two places of one document, one in two documents (spread), overlapping ranges
RANGES = [("b2", "b.md", 30, 40), ("a1", "a.md", 0, 7), ("dup", "b.md", 0, 5), ("a2", "a.md", 3, 20),
          ("dup", "a.md", 9, 16), ("twice", "a.md", 20, 30), ("twice", "a.md", 40, 45), ("b1", "b.md", 20, 35)]
IDS = ["a1", "a2", "b1", "b2", "dup", "twice", "gone", "nope"]  # the last two: no chunk


@settings(max_examples=200, deadline=None)
@given(st.permutations(IDS).flatmap(lambda t: st.tuples(st.just(t), st.lists(st.integers(0, len(t) - 1),
                                                                             max_size=12))))
def test_codes_read_what_the_dicts_hold(table_codes):
    table, codes = table_codes
    chunking = Chunking("c", [ChunkRange(i, Place(d, s, e)) for i, d, s, e in RANGES], origin="file")
    chunks = ChunkSet.of_foreign(chunking, CORPUS)
    pos = chunks.positions
    coded = ChunkCodes(table, pos)
    at = np.array(codes, dtype=np.uint32)
    ids = [table[c] for c in codes]
    assert coded.docs(at) == list(map(pos.doc.get, ids))
    places = coded.places(at)
    assert places == chunks.places_of(ids)
    assert all(p is q for p, q in zip(places, chunks.places_of(ids)) if p)  # the positions' own lists
    assert coded.known(at) == all(map(pos.first.__contains__, ids))


# Chunks sharing no character: an id in two documents (spread), one at two places, an empty one.
DISJOINT = [("a1", "a.md", 0, 7), ("a2", "a.md", 7, 20), ("dup", "b.md", 0, 5), ("dup", "a.md", 20, 25),
            ("twice", "a.md", 30, 35), ("twice", "a.md", 40, 45), ("empty", "b.md", 6, 6), ("b1", "b.md", 10, 20),
            ("b2", "b.md", 25, 40)]
DISJOINT_IDS = ["a1", "a2", "dup", "twice", "empty", "b1", "b2", "gone"]
span = st.tuples(st.sampled_from(["a.md", "b.md"]), st.integers(0, 45), st.integers(0, 20)).map(
    lambda t: Place(t[0], t[1], t[1] + t[2]))


@settings(max_examples=300, deadline=None)
@given(st.permutations(DISJOINT_IDS), st.lists(st.integers(0, len(DISJOINT_IDS) - 1), max_size=10),
       st.lists(span, min_size=1, max_size=3), st.sampled_from([(1, 2, 5), (3,), (1, 10)]), st.booleans())
def test_the_coded_sweep_gives_the_character_scores_of_the_places(table, codes, spans, ks, budget):
    chunking = Chunking("c", [ChunkRange(i, Place(d, s, e)) for i, d, s, e in DISJOINT], origin="file")
    assert chunking.disjoint
    chunks = ChunkSet.of_foreign(chunking, CORPUS)
    coded = ChunkCodes(table, chunks.positions)
    at = np.array(codes, dtype=np.uint32)
    ranked = coded.places(at)
    budgets = (12,) if budget else ()
    by_codes = score_chars("q", spans, ranked, chunking, ks, budgets, partial(coded.sweep, at))
    assert by_codes == score_chars("q", spans, ranked, chunking, ks, budgets)
    clean = {"a1", "a2", "b1", "b2", "twice", "gone"}  # places (or none) in one document, none empty
    taken = coded.sweep(at, {s.doc for s in spans}) is not None
    assert taken == (all(table[c] in clean for c in codes) and len(set(codes)) == len(codes))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["a", "b", "c", "B", "a1"]),
                          st.sampled_from([0.0, 1.0, 2.5, -3.0])), max_size=25), st.integers(-1, 7))
def test_a_runs_codes_name_its_top_ids(rows, k):
    rows = list({(q, d): (q, d, s) for q, d, s in reversed(rows)}.values())  # a docid once per query
    run = parse_run("".join(f"{q} Q0 {d} 1 {s!r} t\n" for q, d, s in rows))
    retriever = RunFileRetriever(__file__, run)  # (the path is only named)
    for qid in ("q1", "q2", "q3", "q9"):
        table, codes = retriever.ranked_codes(qid, "", k)
        assert [table[c] for c in codes.tolist()] == retriever.ranked_columns(qid, "", k)[0]


class _IdsOnly(RunFileRetriever):
    """The run read by its ids alone: the path every retriever without codes takes."""

    ranked_codes = None  # type: ignore[assignment]


def _reports(p, chunk_file, retriever, **kw) -> tuple[str, str]:
    by_codes = run_eval(p, chunks=chunk_file, retriever=retriever, **kw)
    by_ids = run_eval(p, chunks=chunk_file, retriever=_IdsOnly(retriever.path, retriever.run), **kw)
    return (json.dumps(by_codes.report, sort_keys=True), json.dumps(by_ids.report, sort_keys=True))


@pytest.mark.parametrize("condensed", [False, True])
@pytest.mark.parametrize("size", [60, 30])  # overlapping windows, and disjoint ones (``ChunkCodes.sweep``)
def test_a_run_scored_by_codes_gives_the_report_scored_by_ids(tmp_path, condensed, size):
    root = sections_project(tmp_path)
    rows = windows(root, size=size)
    chunk_file = write_jsonl(tmp_path / "windows.jsonl", rows)
    p = project(root)
    qids = [q.id for q in p.load_questions().questions]
    # each query a ranking of windows: some of its own document, more of others, and ids repeated across queries
    lines = [f"{qid} Q0 {rows[(7 * i + 3 * j) % len(rows)]['id']} {j + 1} {10 - j} sys\n"
             for i, qid in enumerate(qids) for j in range(9)]
    run_path = tmp_path / "sys.run"
    run_path.write_text("".join(lines))
    retriever = RunFileRetriever(run_path, read_run(run_path))
    by_codes, by_ids = _reports(p, chunk_file, retriever, condensed=condensed, budgets="50,200")
    assert by_codes == by_ids
    assert json.loads(by_codes)["aggregate"]["chunk"]["recall@5"]["value"] > 0  # something was found


def test_an_unknown_id_is_refused_alike_by_codes_and_by_ids(tmp_path):
    root = sections_project(tmp_path)
    rows = windows(root)
    chunk_file = write_jsonl(tmp_path / "windows.jsonl", rows)
    p = project(root)
    qid = p.load_questions().questions[0].id
    run_path = tmp_path / "sys.run"
    run_path.write_text(f"{qid} Q0 {rows[0]['id']} 1 2.0 sys\n{qid} Q0 no-such-window 2 1.0 sys\n")
    messages = []
    for cls in (RunFileRetriever, _IdsOnly):
        with pytest.raises(InvalidInput, match="no-such-window") as exc:
            run_eval(p, chunks=chunk_file, retriever=cls(run_path, read_run(run_path)))
        messages.append(str(exc.value))
    assert messages[0] == messages[1]
