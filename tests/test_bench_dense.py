"""``benchmarks/dense.py --ks``: each cut-off asked for is reported for every retriever, read
from ``labeller eval``'s own report (a six-note set needs @1: at @5 five notes of six are found)."""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import dense  # noqa: E402
import outside_sets  # noqa: E402
from helpers_dense import TINY, require_dense, tiny_model  # noqa: E402,F401  (a fixture)


def test_each_cut_off_asked_for_is_reported_for_every_retriever(tmp_path, tiny_model):
    require_dense()
    notes = tmp_path / "notes"
    (notes / "corpus").mkdir(parents=True)
    for i, topic in enumerate(("burn rate and runway", "vpn and remote work", "api versioning", "raft leader")):
        (notes / "corpus" / f"n{i}.md").write_text(f"# Note {i}\n\nThis note is about {topic}.\n")
    outside_sets.write_questions(notes, [
        {"id": f"q-{i}", "query": topic, "expected_answer": "", "locators": [{"doc": f"n{i}.md"}]}
        for i, topic in enumerate(("runway", "remote vpn", "versioning", "leader"))], Counter())
    root = dense.copy_project(notes, tmp_path / "p", TINY, "", "")
    shutil.copytree(tiny_model, root / TINY)
    recall = dense.recalls(root, [1, 5])
    assert sorted(recall) == ["bm25", "dense", "hybrid"]
    for r in recall.values():
        assert sorted(k for k in r if "@" in k) == ["chunk_recall@1", "chunk_recall@5", "doc_recall@1", "doc_recall@5"]
        assert r["doc_recall@1"] <= r["doc_recall@5"] and r["queries"] == 4
    assert recall["bm25"]["doc_recall@1"] == 1.0  # each query's word is in its note only


def test_the_fusion_benchmark_computes_labellers_own_hybrid_and_measures_gaps_to_the_better_member(tmp_path,
                                                                                                  tiny_model,
                                                                                                  monkeypatch):
    """Its fusion rows are what ``--retriever hybrid`` ranks with the same ``[retriever.fusion]``
    settings (RRF and zscore; the default, coverage, is ``fusion_coverage.py``'s), computed from the members' cached rankings; the gaps are to the
    better member per set and measure; a second run reads the cache instead of ranking again."""
    require_dense()
    import fusion
    from labeller.eval.retrievers import make_retriever

    notes = tmp_path / "notes"
    (notes / "corpus").mkdir(parents=True)
    topics = ("burn rate and runway", "vpn and remote work", "api versioning", "raft leader", "cap theorem")
    for i, topic in enumerate(topics):
        (notes / "corpus" / f"n{i}.md").write_text(f"# Note {i}\n\nThis note is about {topic}.\n\n## More\n\n"
                                                   f"Other words on {topic.split()[-1]} and the team.\n")
    queries = ("runway", "remote vpn", "versioning", "leader", "theorem")
    outside_sets.write_questions(notes, [
        {"id": f"q-{i}", "query": q, "expected_answer": "", "locators": [{"doc": f"n{i}.md"}]}
        for i, q in enumerate(queries)], Counter())
    root = dense.copy_project(notes, tmp_path / "p", TINY, "", "")
    shutil.copytree(tiny_model, root / TINY)
    golden, doc_of, runs = fusion.cached_rankings(root, tmp_path / "cache", "notes")
    assert sorted(runs) == ["bm25", "dense"] and len(golden) == 5
    toml = (root / "labeller.toml").read_text(encoding="utf-8")
    for table_text, settings in (('method = "rrf"\n', {"method": "rrf"}),
                                 ('method = "zscore"\nwindow = 3\nweights = {dense = 0.4}\n',
                                            {"method": "zscore", "window": 3, "weights": {"dense": 0.4}})):
        (root / "labeller.toml").write_text(f"{toml}\n[retriever.fusion]\n{table_text}", encoding="utf-8")
        hybrid = make_retriever("hybrid", dense.open_project(root))
        own = {f"q-{i}": [h.chunk_id for h in hybrid.retrieve(f"q-{i}", q, fusion.DEPTH)] for i, q in enumerate(queries)}
        assert fusion.fused(runs, settings) == own
    heavy = fusion.fused(runs, {"method": "rrf", "weights": {"dense": 1000.0}})  # RRF with the dense member weighing most: its order
    assert {q: ids[:len(runs["dense"][q])] for q, ids in heavy.items()} == {
        q: [c for c, _ in hits] for q, hits in runs["dense"].items()}
    rows = {name: (figures, gaps) for name, figures, gaps in fusion.table({"notes": (golden, doc_of, runs)})}
    assert rows["bm25"][1] is None and rows["dense"][1] is None
    assert rows["bm25"][0][1] == 1.0  # doc success@5: each query's word is in its note only
    for name, (figures, gaps) in rows.items():
        better = [max(b, d) for b, d in zip(rows["bm25"][0], rows["dense"][0])]
        assert gaps is None or gaps == [b - f for b, f in zip(better, figures)]
    monkeypatch.setattr(fusion, "rankings", lambda root: pytest.fail("ranked again instead of reading the cache"))
    assert fusion.cached_rankings(root, tmp_path / "cache", "notes") == (golden, doc_of, runs)
