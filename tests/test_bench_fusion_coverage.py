"""``benchmarks/fusion_coverage.py`` (issue 37.6, third round): each question's coverage is the
share of its distinct analysed terms that BM25's first hit holds, and the dense member's weight
follows it down the ramp, so a question BM25's first hit holds whole is ranked as BM25 ranks it."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import dense  # noqa: E402
import fusion_coverage  # noqa: E402
import outside_sets  # noqa: E402


def _notes(tmp_path: Path, queries: tuple[str, ...]) -> Path:
    notes = tmp_path / "notes"
    (notes / "corpus").mkdir(parents=True)
    topics = ("burn rate and runway", "vpn and remote work", "api versioning rules", "raft leader election")
    for i, topic in enumerate(topics):
        (notes / "corpus" / f"n{i}.md").write_text(f"# Note {i}\n\nThis note is about {topic}.\n")
    outside_sets.write_questions(notes, [
        {"id": f"q-{i}", "query": q, "expected_answer": "", "locators": [{"doc": f"n{i}.md"}]}
        for i, q in enumerate(queries)], Counter())
    return dense.copy_project(notes, tmp_path / "p", "unused-model", "", "")


def test_coverage_is_the_share_of_the_query_terms_bm25s_first_hit_holds(tmp_path):
    from labeller.eval.retrievers import make_retriever

    queries = ("runway burn rate", "remote vpn from the moon", "versioning of galaxies", "leader election")
    root = _notes(tmp_path, queries)
    project = dense.open_project(root)
    bm25 = make_retriever("bm25", project)
    runs = {"bm25": {f"q-{i}": [[h.chunk_id, h.score] for h in bm25.retrieve(f"q-{i}", q, 10)]
                     for i, q in enumerate(queries)}}
    cover = fusion_coverage.coverages(root, runs, unreadable=False)  # no model here: dense's tests read it
    chunks = {c.chunk_id: c for c in project.all_chunks}
    analyse = bm25.analyzer.terms
    seen = set()
    for i, q in enumerate(queries):
        top = chunks[runs["bm25"][f"q-{i}"][0][0]]
        held = set(analyse(top.heading)) | set(analyse(top.breadcrumb)) | set(analyse(top.text))
        terms = set(analyse(q))
        assert cover[f"q-{i}"]["count"] == len(terms & held) / len(terms)
        assert 0.0 <= cover[f"q-{i}"]["idf"] <= 1.0
        seen.add(cover[f"q-{i}"]["count"])
    assert 1.0 in seen and min(seen) < 1.0  # both kinds of question are here


def test_the_dense_weight_follows_the_ramp_and_a_fully_held_question_is_ranked_as_bm25_ranks_it():
    kind, w, low, high, unread_low, unread_high = fusion_coverage.CHOSEN

    def weight(held: float, unreadable: float = 0.0) -> float:
        return fusion_coverage.dense_weight({kind: held, "unreadable": unreadable}, fusion_coverage.CHOSEN)

    assert weight(low) == weight(0.0) == weight(0.0, unread_low) == w
    assert weight(high) == weight(1.0) == weight(0.0, unread_high) == weight(0.0, 1.0) == 0.0
    middle, unread_middle = (low + high) / 2, (unread_low + unread_high) / 2
    assert weight(middle) == w * (high - middle) / (high - low)
    assert weight(middle, unread_middle) == \
        w * (high - middle) / (high - low) * (unread_high - unread_middle) / (unread_high - unread_low)
    # the earlier rules: no unreadable ramp
    assert fusion_coverage.dense_weight({kind: 0.0, "unreadable": 1.0}, fusion_coverage.BEFORE) == w
    assert fusion_coverage.dense_weight({kind: 1.0, "unreadable": 1.0}, fusion_coverage.TODAY) == w
    # BM25's first two near a tie; the dense member sure of the second: at weight 0.4 it wins
    bm25 = [["a", 10.0], ["b", 9.9]] + [[f"x{i}", 1.0 - i / 100] for i in range(20)]
    dense_run = [["b", 0.9]] + [[f"x{i}", 0.2 - i / 1000] for i in range(20)] + [["a", 0.1]]
    runs = {"bm25": {"held": bm25, "loose": bm25}, "dense": {"held": dense_run, "loose": dense_run}}
    cover = {"held": {kind: 1.0, "unreadable": 0.0}, "loose": {kind: 0.0, "unreadable": 0.0}}
    top = fusion_coverage.fused(runs, cover, fusion_coverage.CHOSEN, {})
    assert top["held"] == [c for c, _ in bm25[:5]]
    assert top["loose"][0] == "b"
