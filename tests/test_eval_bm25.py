"""The BM25 retriever: its on-disk cache (stale, corrupt, atomic), ties, weights, search API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_project

from labeller.config import load_config
from labeller.core.cache import DigestCache
from labeller.core.chunkers import chunker_spec, get_chunker
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.analysis import AUTO_V3, STEMMER_VERSION
from labeller.eval.retrievers.bm25 import (MANIFEST, B, K1, BM25Retriever, _manifest_mac, build_storage,
                                           distinct_chunks, field_weights, index_key, load_storage)

DOCS = {
    "expenses.md": "# Expenses\n\nReimbursements are paid on the 25th with the salary.\n\n## Receipts\n\n"
                   "Submit receipts within 30 days of the purchase.\n",
    "vpn.md": "# VPN\n\nThe WireGuard key of a laptop expires after 90 days.\n",
    "経費.md": "# 経費精算\n\n立て替えた経費は毎月25日に給与と一緒に振り込まれます。\n",
}


def disk_project(root) -> Project:
    cfg = load_config(root)
    return Project(cfg, DigestCache(cfg.layout.cache_dir))


def index_dir(root):
    (folder,) = [p for p in (root / ".labeller-cache" / "bm25").iterdir() if not p.name.startswith(".")]
    return folder


def ranking(r: BM25Retriever, text: str) -> list[tuple[str, float]]:
    return [(h.chunk_id, h.score) for h in r.search_hits(text, 10)]


def test_index_is_cached_on_disk_and_reused(tmp_path):
    root = write_project(tmp_path / "p", DOCS)
    first = BM25Retriever.for_project(disk_project(root))
    assert first.cache_status == "built (missing)"
    second = BM25Retriever.for_project(disk_project(root))
    assert second.cache_status == "loaded"
    assert ranking(first, "when are reimbursements paid") == ranking(second, "when are reimbursements paid")
    assert not [p for p in index_dir(root).parent.iterdir() if p.name.startswith(".")]  # no temp folders left


def test_changing_one_corpus_file_invalidates_the_cache(tmp_path):
    root = write_project(tmp_path / "p", DOCS)
    BM25Retriever.for_project(disk_project(root))
    (root / "corpus" / "vpn.md").write_text("# VPN\n\nPhones use certificates that last 365 days.\n")
    r = BM25Retriever.for_project(disk_project(root))
    assert r.cache_status == "built (stale)"
    top = r.search_hits("certificates phones", 1)[0]
    assert "365 days" in r.chunk(top.chunk_id).text
    assert BM25Retriever.for_project(disk_project(root)).cache_status == "loaded"


@pytest.mark.parametrize("damage", ["flip_byte", "truncate", "delete_file", "extra_file", "bad_manifest",
                                    "no_manifest"])
def test_a_corrupt_cache_is_detected_and_rebuilt_never_used(tmp_path, damage):
    root = write_project(tmp_path / "p", DOCS)
    fresh = ranking(BM25Retriever.for_project(disk_project(root)), "receipts purchase")
    folder = index_dir(root)
    victim = sorted(p for p in folder.iterdir() if p.name != MANIFEST)[-1]
    if damage == "flip_byte":
        data = bytearray(victim.read_bytes())
        data[len(data) // 2] ^= 0xFF
        victim.write_bytes(bytes(data))
    elif damage == "truncate":
        victim.write_bytes(victim.read_bytes()[:5])
    elif damage == "delete_file":
        victim.unlink()
    elif damage == "extra_file":
        (folder / "stray.seg").write_bytes(b"x")
    elif damage == "bad_manifest":
        (folder / MANIFEST).write_text("{not json")
    else:
        (folder / MANIFEST).unlink()
    project = disk_project(root)
    reason = "missing" if damage == "no_manifest" else "corrupt"
    key = index_key(project, AUTO_V3, distinct_chunks(project.all_chunks))
    assert load_storage(folder, key, project.cache.secret) == (None, reason)  # caught by the stored hashes, not by whoosh failing
    r = BM25Retriever.for_project(project)
    assert r.cache_status == f"built ({reason})"
    assert ranking(r, "receipts purchase") == fresh
    assert BM25Retriever.for_project(disk_project(root)).cache_status == "loaded"


def test_a_manifest_for_other_inputs_is_stale(tmp_path):
    root = write_project(tmp_path / "p", DOCS)
    BM25Retriever.for_project(disk_project(root))
    manifest = index_dir(root) / MANIFEST
    data = json.loads(manifest.read_text())
    data["key"]["corpus_digest"] = "0" * 64
    manifest.write_text(json.dumps(data))
    assert BM25Retriever.for_project(disk_project(root)).cache_status == "built (untrusted)"  # MAC no longer fits
    data = json.loads(manifest.read_text())
    data["key"]["corpus_digest"] = "0" * 64
    data["mac"] = _manifest_mac(disk_project(root).cache.secret, data["files"], data["key"])  # as labeller writes it
    manifest.write_text(json.dumps(data))
    assert BM25Retriever.for_project(disk_project(root)).cache_status == "built (stale)"


def test_an_index_stemmed_by_another_pystemmer_version_is_stale(tmp_path):
    """v2's stems come from PyStemmer: an upgrade that stems differently must rebuild, not reuse."""
    root = write_project(tmp_path / "p", DOCS)
    BM25Retriever.for_project(disk_project(root))
    manifest = index_dir(root) / MANIFEST
    data = json.loads(manifest.read_text())
    assert data["key"]["stemmer"] == STEMMER_VERSION
    data["key"]["stemmer"] = "0.0.0"
    data["mac"] = _manifest_mac(disk_project(root).cache.secret, data["files"], data["key"])
    manifest.write_text(json.dumps(data))
    assert BM25Retriever.for_project(disk_project(root)).cache_status == "built (stale)"


def test_changing_the_analyzer_uses_another_index(tmp_path):
    root = write_project(tmp_path / "p", DOCS)
    p = disk_project(root)
    auto = BM25Retriever.for_project(p)
    plain = BM25Retriever.for_project(p, analyzer="plain")
    assert plain.cache_status == "built (missing)"
    assert auto.describe()["analyzer"] == "labeller-auto-v3" and plain.describe()["analyzer"] == "labeller-plain-v3"
    old = BM25Retriever.for_project(p, analyzer="labeller-auto-v1")  # the previous default: its own index
    assert old.cache_status == "built (missing)" and old.describe()["analyzer"] == "labeller-auto-v1"
    assert auto.search_hits("経費はいつ振り込まれますか", 1)
    assert not plain.search_hits("経費はいつ振り込まれますか", 1)


@pytest.mark.parametrize("spec", ["words-v1:size=12,overlap=3", "fixed-chars-v1:size=60,overlap=0", "sections-v1"])
def test_every_chunker_gets_its_own_cached_index_keyed_by_its_spec(tmp_path, spec):
    """A chunker of the family has no max_chars: the index folder and key name its spec (so
    two settings of one rule never share an index) and the index is reused like md-struct's."""
    root = write_project(tmp_path / "p", DOCS, toml=f'[build]\nchunker = "{spec}"\n')
    first = BM25Retriever.for_project(disk_project(root))
    assert first.cache_status == "built (missing)"
    assert BM25Retriever.for_project(disk_project(root)).cache_status == "loaded"
    assert json.loads((index_dir(root) / MANIFEST).read_text())["key"]["chunker"] == chunker_spec(get_chunker(spec))
    other = spec.replace("=12", "=13").replace("=60", "=61") if "=" in spec else "sections-v1:size=500"
    (root / "labeller.toml").write_text(f'[build]\nchunker = "{other}"\n')
    assert BM25Retriever.for_project(disk_project(root)).cache_status == "built (missing)"


def test_without_a_disk_cache_nothing_is_written(make_project, tmp_path):
    project = make_project(DOCS)
    assert BM25Retriever.for_project(project).cache_status == "memory"
    assert not (project.config.root / ".labeller-cache").exists()


def test_score_ties_at_the_cut_are_broken_by_descending_chunk_id(make_project):
    project = make_project({f"d{i}.md": "# Same\n\nidentical text about kestrels\n" for i in range(6)})
    r = BM25Retriever.for_project(project)
    hits = r.search_hits("kestrels", 2)
    all_ids = sorted((c.chunk_id for c in project.all_chunks), reverse=True)
    assert len({h.score for h in r.search_hits("kestrels", 6)}) == 1
    assert [h.chunk_id for h in hits] == all_ids[:2]


def test_field_weights_validate_and_default():
    assert field_weights({}) == {"heading": 0.25, "breadcrumb": 0.1, "body": 1.0}
    assert field_weights({"heading": 2})["heading"] == 2.0
    for bad in ({"title": 1}, {"body": -1}, {"body": "x"}, {"heading": 0, "breadcrumb": 0, "body": 0}):
        with pytest.raises(InvalidInput, match="field_weights"):
            field_weights(bad)


def test_configured_k1_and_b_reach_the_retriever_and_its_fingerprint(make_project):
    """``[eval] bm25_k1``/``bm25_b``: how a baseline recorded with other defaults is reproduced
    (the index holds counts, so the same index serves both)."""
    docs = {"a.md": "# A\n\nkestrel kestrel kestrel falcon owl\n", "b.md": "# B\n\nkestrel\n", "c.md": "# C\n\nowl\n"}
    default = BM25Retriever.for_project(make_project(docs, name="default"))
    project = make_project(docs, toml="[eval]\nbm25_k1 = 1.7\nbm25_b = 0.2\n", name="tuned")
    tuned = BM25Retriever.for_project(project)
    assert (default.k1, default.b) == (K1, B) and (tuned.describe()["k1"], tuned.describe()["b"]) == (1.7, 0.2)
    chunks = distinct_chunks(project.all_chunks)
    direct = BM25Retriever(chunks, build_storage(chunks, tuned.analyzer), tuned.analyzer, tuned.weights, k1=1.7, b=0.2)
    scores = lambda r: [h.score for h in r.search_hits("kestrel", 2)]  # noqa: E731
    assert scores(tuned) == scores(direct) != scores(default)


def test_field_weights_change_the_ranking_without_a_rebuild(make_project):
    project = make_project({"a.md": "# Kestrel\n\nabout falcons\n", "b.md": "# Falcon\n\nkestrel kestrel note\n"})
    body_only = BM25Retriever.for_project(project, weights={"heading": 0, "breadcrumb": 0, "body": 1})
    heading_only = BM25Retriever.for_project(project, weights={"heading": 1, "breadcrumb": 0, "body": 0})
    top = lambda r: r.chunk(r.search_hits("kestrel", 1)[0].chunk_id).doc_id  # noqa: E731
    assert top(body_only) == "b.md" and top(heading_only) == "a.md"


def test_a_query_with_no_terms_retrieves_nothing(make_project):
    project = make_project(DOCS)
    assert BM25Retriever.for_project(project).search_hits("? a - I !", 5) == []
    assert BM25Retriever.for_project(project, analyzer="labeller-auto-v2").search_hits("the and of ?", 5) == []


def test_concurrent_index_builds_do_not_delete_each_others_files(make_project):
    """Each build writes into its own private temporary folder."""
    from concurrent.futures import ThreadPoolExecutor

    from labeller.eval.retrievers.bm25 import build_storage

    project = make_project({f"d{i}.md": f"# T{i}\n\n" + f"word{i} text " * 200 + "\n" for i in range(60)})
    chunks = distinct_chunks(project.all_chunks)
    with ThreadPoolExecutor(4) as pool:
        storages = list(pool.map(lambda _: build_storage(chunks, AUTO_V3), range(4)))
    rankings = {tuple(ranking(BM25Retriever(chunks, s, AUTO_V3, field_weights()), "word7 text")) for s in storages}
    assert len(rankings) == 1


def test_scores_equal_whoosh_searching_an_or_of_boosted_terms():
    """labeller's index must score as whoosh BM25F exactly: same scores, bit for bit, same
    order (the oracle: whoosh's own index of the same chunks, ``helpers_bm25``)."""
    from helpers_bm25 import whoosh_ranking, whoosh_searcher

    from labeller.config import load_config as load
    from labeller.core.project import Project as P

    fixture = Path(__file__).parent / "fixtures" / "mixed_ja"
    project = P(load(fixture, corpus="corpus", questions="questions.jsonl"))
    r = BM25Retriever.for_project(project)
    oracle = whoosh_searcher(distinct_chunks(project.all_chunks), r.analyzer)
    for q in project.load_questions().questions:
        reference = whoosh_ranking(oracle, r.analyzer, r.weights, q.query)
        assert r.search_hits(q.query, len(reference) + 1) == reference, q.id
