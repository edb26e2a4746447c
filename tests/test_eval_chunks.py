"""Scoring any pipeline: a foreign chunking (chunk file), its runs, Python callables, adapters
for LangChain/LlamaIndex retriever interfaces (small fakes, no dependency), registered and
entry-point retrievers, and baselines across chunkings."""

from __future__ import annotations

import importlib.metadata
import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import write_project

from labeller.cli import main
from labeller.config import load_config
from labeller.core.chunkfile import Chunking, ChunkRange
from labeller.core.project import Project
from labeller.core.vocab import Place
from labeller.errors import InvalidInput
from labeller.eval import retrievers
from labeller.eval.retrievers.bm25 import BM25Retriever
from labeller.eval.runner import run_eval

TOPICS = ["kestrel", "heron", "osprey", "plover", "avocet", "curlew"]
PARTS = ["Nesting", "Feeding", "Migration"]


def section(topic: str, part: str) -> str:
    return f"## {part}\n\nThe {topic} {part.lower()} facts: {topic}-{part.lower()}-detail lives here.\n"


def doc_text(topic: str) -> str:
    return f"# {topic.title()}\n\n" + "\n".join(section(topic, p) for p in PARTS)


def sections_project(tmp_path, name="proj"):
    """Six documents of three sections; one question per section, labelled by its heading."""
    docs = {f"{t}.md": doc_text(t) for t in TOPICS}
    questions = [{"id": f"{t}-{p.lower()}", "query": f"what about {t} {p.lower()}", "expected_answer": "",
                  "locators": [{"doc": f"{t}.md", "heading": p}]} for t in TOPICS for p in PARTS]
    return write_project(tmp_path / name, docs, questions)


def section_chunks(root) -> list[dict]:
    """The pipeline's own chunking: one chunk per section, written as passages (text form)."""
    return [{"id": f"s-{t}-{p.lower()}", "text": section(t, p).rstrip("\n"), "meta": {"by": "pipeline"}}
            for t in TOPICS for p in PARTS]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def eval_json(root, capsys, *args):
    rc = main(["eval", "--root", str(root), "--format", "json", "--no-history", *args])
    out = capsys.readouterr()
    try:
        return rc, json.loads(out.out), out.err
    except ValueError:
        return rc, None, out.err


def project(root) -> Project:
    return Project(load_config(root))


# -- the cookbook case: a pipeline's own chunks and top-3 runs, scored by its own metric ------------


def test_three_pipelines_score_as_their_own_recall_and_mrr_at_3(tmp_path, capsys):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))
    ids = [c["id"] for c in section_chunks(root)]
    qids = [f"{t}-{p.lower()}" for t in TOPICS for p in PARTS]
    gold = {q: f"s-{q}" for q in qids}
    rng = random.Random(7)
    for pipeline in ("bm25ish", "dense", "hybrid"):
        run, own_recall, own_mrr = [], [], []
        for q in qids:
            top = rng.sample([i for i in ids if i != gold[q]], 3)
            where = rng.choice([0, 1, 2, None])  # the gold section at rank 1, 2, 3 or missing
            if where is not None:
                top[where] = gold[q]
            run += [f"{q} Q0 {cid} {r} {3 - r}.0 {pipeline}\n" for r, cid in enumerate(top, 1)]
            # the pipeline's published definitions: gold section in the top 3; 1 / its rank
            own_recall.append(1.0 if gold[q] in top else 0.0)
            own_mrr.append(1.0 / (top.index(gold[q]) + 1) if gold[q] in top else 0.0)
        run_path = tmp_path / f"{pipeline}.run"
        run_path.write_text("".join(run))
        rc, report, err = eval_json(root, capsys, "--chunks", str(chunk_file), "--run", str(run_path), "--k", "3")
        assert rc == 0, err
        agg = report["aggregate"]["chunk"]
        assert agg["recall@3"]["value"] == pytest.approx(sum(own_recall) / len(qids), abs=1e-6)
        assert agg["mrr@3"]["value"] == pytest.approx(sum(own_mrr) / len(qids), abs=1e-6)
        assert report["chunking"]["name"] == "sections" and report["chunking"]["n_chunks"] == 18
        assert report["chunking"]["unreachable_spans"] == 0


# -- a chunk file with BM25 ----------------------------------------------------------------------


def windows(root, size=60, stride=30) -> list[dict]:
    """A sliding-window splitter with 50% overlap, written as offsets."""
    p = project(root)
    rows = []
    for doc in p.corpus:
        n = len(doc.text)
        for i, start in enumerate(range(0, n, stride)):
            rows.append({"id": f"{doc.doc_id}#{i}", "doc": doc.doc_id, "start": start, "end": min(n, start + size)})
    return rows


def test_bm25_indexes_a_chunk_file_and_caches_it_by_digest(tmp_path, capsys):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "win.jsonl", windows(root))
    rc, report, err = eval_json(root, capsys, "--chunks", str(chunk_file))
    assert rc == 0, err
    ch = report["chunking"]
    chunking = project(root)  # the digest is the chunk file's, by SPEC §10
    from labeller.core.chunkfile import read_chunk_file
    expected = read_chunk_file(chunk_file, chunking.corpus, max_bytes=10**7, max_chunks=10**5)
    assert (ch["name"], ch["digest"], ch["origin"], ch["n_chunks"]) == ("win", expected.digest, "file",
                                                                          expected.n_chunks)
    assert report["fingerprint"]["chunking"] == {"name": "win", "digest": expected.digest}
    assert report["queries"][0]["retrieved"][0]["chunk_id"].startswith(("kestrel.md#", "heron.md#"))
    assert set(report["aggregate"]["chars"]) >= {"recall@5", "precision@5", "iou@5"}
    assert report["aggregate"]["chunk"]["recall@50"]["value"] > 0.5
    slots = [p.name for p in (root / ".labeller-cache" / "bm25").iterdir()]
    assert any(s.startswith(f"chunks-{expected.digest[:16]}-") for s in slots)
    from labeller.core.cache import DigestCache
    cached = Project(load_config(root), DigestCache(load_config(root).layout.cache_dir))
    again = BM25Retriever.for_project(cached, chunks=_chunk_set(root, chunk_file))
    assert again.cache_status == "loaded"
    rc, report2, _ = eval_json(root, capsys, "--chunks", str(chunk_file), "--write-run", str(tmp_path / "w.run"))
    assert report2 == report  # deterministic, cached or not
    rc, replay, _ = eval_json(root, capsys, "--chunks", str(chunk_file), "--run", str(tmp_path / "w.run"))
    assert rc == 0 and replay["aggregate"] == report["aggregate"] and replay["chunking"] == report["chunking"]


def _chunk_set(root, path):
    from labeller.eval.chunkset import load_chunk_set
    return load_chunk_set(project(root), path)


def test_a_span_no_chunk_reaches_is_counted_not_refused(tmp_path, capsys):
    root = sections_project(tmp_path)
    rows = [r for r in section_chunks(root) if r["id"] != "s-heron-feeding"]
    chunk_file = write_jsonl(tmp_path / "partial.jsonl", rows)
    rc, report, err = eval_json(root, capsys, "--chunks", str(chunk_file))
    assert rc == 0, err
    assert report["chunking"]["unreachable_spans"] == 1
    row = next(q for q in report["queries"] if q["query_id"] == "heron-feeding")
    assert row["unreachable_spans"] == 1 and row["hit_ranks"] == [None] and row["chars"]["recall@50"] == 0.0
    assert row["precision_omega"] == 0.0


def test_a_run_naming_ids_outside_the_chunk_file_is_refused(tmp_path, capsys):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))
    run = tmp_path / "r.run"
    run.write_text("kestrel-nesting Q0 s-kestrel-nesting 1 2.0 t\nkestrel-nesting Q0 nope 2 1.0 t\n")
    rc, _, err = eval_json(root, capsys, "--chunks", str(chunk_file), "--run", str(run))
    assert rc == 2
    rc = main(["eval", "--root", str(root), "--no-history", "--chunks", str(chunk_file), "--run", str(run)])
    err = " ".join(capsys.readouterr().err.split())
    assert rc == 2 and "r.run:2" in err and "'nope' is not a chunk id of chunking 'sections'" in err


def test_a_bad_chunk_file_is_refused_with_exit_2_naming_line_and_id(tmp_path, capsys):
    root = sections_project(tmp_path)
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "a", "doc": "kestrel.md", "start": 0, "end": 5},
                                               {"id": "b", "text": "facts"}])
    rc = main(["eval", "--root", str(root), "--no-history", "--chunks", str(bad), "--strict"])
    err = " ".join(capsys.readouterr().err.split())
    assert rc == 2 and "bad.jsonl:2 record 'b': text is ambiguous: found 18 times in the corpus" in err
    rc, report, _ = eval_json(root, capsys, "--chunks", str(bad), "--strict")
    assert rc == 2 and report["ok"] is False and report["errors"][0]["line"] == 2 and report["errors"][0]["id"] == "b"
    rc, report, _ = eval_json(root, capsys, "--chunks", str(bad))  # without --strict: scored, b reported
    assert rc == 0 and [u["id"] for u in report["chunking"]["unplaced"]["listed"]] == ["b"]
    assert "text is ambiguous: found 18 times" in report["chunking"]["unplaced"]["listed"][0]["message"]
    (root / "labeller.toml").write_text("[eval]\nchunk_file_max_chunks = 1\n")
    rc = main(["eval", "--root", str(root), "--no-history", "--chunks", str(bad)])
    assert rc == 2 and "over the bound of 1" in capsys.readouterr().err


def test_the_text_report_names_the_chunking_and_the_character_metrics(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "220")
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))
    assert main(["eval", "--root", str(root), "--no-history", "--chunks", str(chunk_file), "--budget", "500"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "chunk file sections (18 chunks" in out and "not comparable across chunkings" in out
    assert "characters (share of the answer text retrieved; comparable across chunkings)" in out
    assert "chars recall, budget 500" in out and "precision_omega" in out


# -- Python callables and the adapters docs/eval.md shows --------------------------------------------


def test_a_callable_returning_passage_texts_ranges_or_ids_scores_the_same(tmp_path):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))
    p = project(root)
    texts = {c["id"]: c["text"] for c in section_chunks(root)}

    def by_id(query, k):  # the gold section second, after a wrong one
        topic, part = query.split()[2:]
        wrong = f"s-{TOPICS[(TOPICS.index(topic) + 1) % len(TOPICS)]}-{part}"
        return [wrong, f"s-{topic}-{part}"][:k]

    reports = {}
    reports["ids"] = run_eval(p, chunks=chunk_file, retriever=by_id).report
    reports["texts"] = run_eval(p, chunks=chunk_file, retriever=lambda q, k: [texts[i] for i in by_id(q, k)]).report
    ranges = {r.id: r.place for r in _chunk_set(root, chunk_file).chunking.ranges}
    reports["ranges"] = run_eval(p, chunks=chunk_file,
                                 retriever=lambda q, k: [tuple(ranges[i]) for i in by_id(q, k)]).report
    for name, rep in reports.items():
        assert rep["aggregate"]["chunk"]["mrr@5"]["value"] == 0.5, name
        assert rep["aggregate"]["chunk"] == reports["ids"]["aggregate"]["chunk"]
        assert rep["aggregate"]["chars"] == reports["ids"]["aggregate"]["chars"]
        assert rep["fingerprint"]["retriever"]["name"] == "function"


def test_a_callable_result_that_is_no_chunk_is_refused(tmp_path):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))
    p = project(root)
    with pytest.raises(InvalidInput, match="result 1: text not found in the corpus"):
        run_eval(p, chunks=chunk_file, retriever=lambda q, k: ["a passage from nowhere"])
    with pytest.raises(InvalidInput, match=r"result 1: range \('kestrel.md', 0, 3\) is not a chunk"):
        run_eval(p, chunks=chunk_file, retriever=lambda q, k: [("kestrel.md", 0, 3)])
    with pytest.raises(InvalidInput, match="is not a chunk of chunking 'sections'"):
        run_eval(p, chunks=chunk_file, retriever=lambda q, k: ["The kestrel nesting facts"])
    with pytest.raises(InvalidInput, match="must return a list"):
        run_eval(p, chunks=chunk_file, retriever=lambda q, k: "s-kestrel-nesting")


class FakeLangChainRetriever:
    """The part of LangChain's ``BaseRetriever`` an adapter touches: ``invoke(query)`` returning
    ``Document``s with ``page_content`` and ``metadata``."""

    def __init__(self, passages):
        self.passages = passages

    def invoke(self, query):
        words = set(query.split())
        scored = sorted(self.passages, key=lambda t: (-len(words & set(t.split())), t))
        return [SimpleNamespace(page_content=t, metadata={"source": "x"}) for t in scored[:4]]


class FakeLlamaIndexRetriever:
    """LlamaIndex's ``BaseRetriever.retrieve(query)`` returning ``NodeWithScore``s (``.node``
    with ``get_content()`` and ``.metadata``, and ``.score``)."""

    def __init__(self, passages):
        self.passages = passages

    def retrieve(self, query):
        words = set(query.split())
        scored = sorted(self.passages, key=lambda t: (-len(words & set(t.split())), t))
        return [SimpleNamespace(node=SimpleNamespace(get_content=lambda t=t: t, metadata={}), score=1.0 / (i + 1))
                for i, t in enumerate(scored[:4])]


def test_the_readme_adapters_for_langchain_and_llamaindex(tmp_path):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))
    passages = [c["text"] for c in section_chunks(root)]
    p = project(root)
    lc_retriever = FakeLangChainRetriever(passages)
    li_retriever = FakeLlamaIndexRetriever(passages)
    # exactly the adapters docs/eval.md shows
    langchain = lambda query, k: [doc.page_content for doc in lc_retriever.invoke(query)[:k]]  # noqa: E731
    llamaindex = lambda query, k: [n.node.get_content() for n in li_retriever.retrieve(query)[:k]]  # noqa: E731
    page = (Path(__file__).resolve().parents[1] / "docs" / "eval.md").read_text(encoding="utf-8")
    assert "    return [doc.page_content for doc in retriever.invoke(query)[:k]]" in page
    assert "    return [n.node.get_content() for n in retriever.retrieve(query)[:k]]" in page
    lc = run_eval(p, chunks=chunk_file, retriever=langchain).report
    li = run_eval(p, chunks=chunk_file, retriever=llamaindex).report
    assert lc["aggregate"]["chunk"] == li["aggregate"]["chunk"]
    # the fakes rank by shared words, so the topic's sections come first and the gold one is among them
    assert lc["aggregate"]["chunk"]["recall@5"]["value"] == 1.0
    assert lc["aggregate"]["chunk"]["recall@1"]["value"] > 0.3


# -- registered and entry-point retrievers ---------------------------------------------------------


def test_a_third_party_retriever_is_found_through_its_entry_point(tmp_path, capsys, monkeypatch):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))

    def factory(project, chunks=None):
        ids = [r.id for r in chunks.chunking.ranges]
        return lambda query, k: ids[:k]  # a callable is a retriever too

    def broken():
        raise ImportError("no module named dense_stuff")

    fake = [SimpleNamespace(name="mine", value="pkg.mod:factory", load=lambda: factory),
            SimpleNamespace(name="broken", value="pkg.mod:nothing", load=broken)]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: fake if group == "labeller.retrievers" else [])
    assert "mine" in retrievers.known_retrievers()
    rc, report, err = eval_json(root, capsys, "--chunks", str(chunk_file), "--retriever", "mine")
    assert rc == 0, err
    assert report["fingerprint"]["retriever"]["name"] == "function"
    assert report["queries"][0]["retrieved"][0]["chunk_id"] == "s-avocet-nesting"  # first in place order
    rc, _, err = eval_json(root, capsys, "--retriever", "broken")
    assert rc == 2
    rc = main(["eval", "--root", str(root), "--no-history", "--retriever", "nope"])
    assert rc == 2 and "known: bm25, broken, dense, hybrid, mine, rrf, run" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--retriever", "run"], "--retriever run needs --run FILE"),
    (["--run", "x.run", "--retriever", "bm25"], "cannot be combined"),
    (["--retriever", "run", "--analyzer", "plain", "--run", "x"], "applies to the BM25 retriever"),
    (["--budget", "0"], "at least 1 character"),
])
def test_retriever_flags_that_do_not_fit_are_invalid_input(tmp_path, capsys, args, message):
    root = sections_project(tmp_path)
    rc = main(["eval", "--root", str(root), "--no-history", *args])
    assert rc == 2 and message in capsys.readouterr().err


def test_a_chunking_made_in_python_is_checked_against_the_corpus(tmp_path):
    root = sections_project(tmp_path)
    p = project(root)
    bad = Chunking("mine", [ChunkRange("c", Place("kestrel.md", 0, 10**6))], "file")
    with pytest.raises(InvalidInput, match="not a range of a corpus document"):
        run_eval(p, chunks=bad)


# -- baselines across chunkings ----------------------------------------------------------------------


def test_a_baseline_on_another_chunking_compares_characters_never_chunks(tmp_path, capsys):
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "win.jsonl", windows(root))
    rc, _, _ = eval_json(root, capsys, "--out", str(tmp_path / "base.json"))
    assert rc == 0
    rc, report, _ = eval_json(root, capsys, "--chunks", str(chunk_file), "--baseline", str(tmp_path / "base.json"))
    c = report["comparison"]
    assert rc == 0 and c["comparable"] is False and c["deltas"] is None
    assert "different chunking" in c["reason"] and "character metrics are compared" in c["reason"]
    assert {"chunking.digest", "chunking.name"} <= {d["field"] for d in c["fingerprint_differences"]}
    d = c["chars_deltas"]["recall@5"]
    assert d["n"] == 18 and d["current"] == report["aggregate"]["chars"]["recall@5"]["value"]
    rc, _, err = eval_json(root, capsys, "--chunks", str(chunk_file), "--baseline", str(tmp_path / "base.json"),
                           "--fail-on-regression")
    assert rc == 2 and "cannot gate" in err
    # the same chunking again: chunk-level deltas and the gate are back
    rc, _, _ = eval_json(root, capsys, "--chunks", str(chunk_file), "--out", str(tmp_path / "win.json"))
    rc, report, _ = eval_json(root, capsys, "--chunks", str(chunk_file), "--baseline", str(tmp_path / "win.json"),
                              "--fail-on-regression")
    assert rc == 0 and report["comparison"]["comparable"] is True
    assert report["comparison"]["chars_deltas"]["recall@5"]["value"] == 0.0


def test_history_rows_carry_the_chunking(tmp_path, capsys):
    import duckdb
    root = sections_project(tmp_path)
    chunk_file = write_jsonl(tmp_path / "sections.jsonl", section_chunks(root))
    assert main(["eval", "--root", str(root), "--chunks", str(chunk_file), "--budget", "300", "--format",
                 "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    con = duckdb.connect(str(root / ".labeller" / "runs.duckdb"))
    assert con.execute("SELECT chunking_name, chunking_digest FROM runs").fetchall() == [
        ("sections", report["chunking"]["digest"])]
    rows = {(m, k, b): v for m, k, b, v in con.execute("SELECT metric, k, budget, value FROM char_metrics").fetchall()}
    assert rows[("recall", 5, None)] == report["aggregate"]["chars"]["recall@5"]["value"]
    assert rows[("recall", None, 300)] == report["aggregate"]["chars"]["recall@budget=300"]["value"]
    con.close()


# -- qrels for a chunking ----------------------------------------------------------------------------


def test_export_writes_the_qrels_and_corpus_of_a_chunk_file(tmp_path, capsys):
    root = sections_project(tmp_path)
    rows = windows(root)
    chunk_file = write_jsonl(tmp_path / "win.jsonl", rows)
    qrels = tmp_path / "win.qrels"
    assert main(["export", "trec-qrels", "--root", str(root), "--chunks", str(chunk_file), "--out", str(qrels)]) == 0
    got: dict[str, set[str]] = {}
    for line in qrels.read_text().splitlines():
        qid, _, cid, rel = line.split()
        got.setdefault(qid, set()).add(cid)
    # by hand: a window is relevant when it overlaps the section's span (any_overlap, the build rule)
    p = project(root)
    from labeller.core.build import build
    spans = {r.question.id: r.spans for r in build(p, p.load_questions().questions).records}
    expected = {qid: {r["id"] for r in rows for s in sp if r["doc"] == s.doc_id and r["start"] < s.end
                      and s.start < r["end"]} for qid, sp in spans.items()}
    assert got == expected and all(len(v) >= 2 for v in got.values())  # 50% overlap: every span in 2+ windows
    out = tmp_path / "beir"
    assert main(["export", "beir", "--root", str(root), "--chunks", str(chunk_file), "--out", str(out)]) == 0
    corpus_ids = [json.loads(line)["_id"] for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert sorted(corpus_ids) == sorted(r["id"] for r in rows)
    beir_qrels = {tuple(line.split("\t")[:2]) for line in (out / "qrels" / "test.tsv").read_text().splitlines()[1:]}
    assert beir_qrels == {(q, c) for q, cs in expected.items() for c in cs}
    capsys.readouterr()
    rc = main(["export", "trec-qrels", "--root", str(root), "--chunks", str(tmp_path / "absent.jsonl")])
    assert rc == 2 and "chunk file not found" in capsys.readouterr().err


def test_a_foreign_chunking_agrees_with_trec_eval_on_its_exported_qrels(tmp_path, capsys):
    """Overlapping windows, a random run full of ties: success@k, MRR@k and nDCG@k per query
    equal trec_eval's (pytrec_eval through ir_measures) on the qrels ``export --chunks`` writes."""
    import ir_measures
    from ir_measures import RR, Qrel, ScoredDoc, Success, nDCG

    pytrec = ir_measures.providers.registry["pytrec_eval"]
    root = sections_project(tmp_path)
    rows = windows(root)
    chunk_file = write_jsonl(tmp_path / "win.jsonl", rows)
    qrels_path = tmp_path / "win.qrels"
    assert main(["export", "trec-qrels", "--root", str(root), "--chunks", str(chunk_file), "--out",
                 str(qrels_path)]) == 0
    capsys.readouterr()
    qrels = [Qrel(q, c, int(r)) for q, _, c, r in (line.split() for line in qrels_path.read_text().splitlines())]
    rng = random.Random(3)
    ids = [r["id"] for r in rows]
    qids = sorted({q.query_id for q in qrels})
    by_q = {q: [c.doc_id for c in qrels if c.query_id == q] for q in qids}
    run = []
    for q in qids:
        picked = rng.sample(ids, 12) + rng.sample(by_q[q], 1)
        run += [ScoredDoc(q, cid, float(rng.choice((1, 2, 3)))) for cid in dict.fromkeys(picked)]
    run_path = tmp_path / "r.run"
    run_path.write_text("".join(f"{s.query_id} Q0 {s.doc_id} 0 {s.score} t\n" for s in run))
    rc, report, err = eval_json(root, capsys, "--chunks", str(chunk_file), "--run", str(run_path), "--k", "1,3,10")
    assert rc == 0, err
    rows_by_q = {r["query_id"]: r for r in report["queries"]}
    checked = 0
    for q in qids:
        qq = [x for x in qrels if x.query_id == q]
        rr = [x for x in run if x.query_id == q]
        for k in (1, 3, 10):
            ref = {str(m.measure): m.value for m in pytrec.iter_calc([Success @ k, nDCG @ k], qq, rr)}
            cut = sorted(rr, key=lambda s: (-s.score, [-ord(ch) for ch in s.doc_id] + [1]))[:k]
            rr_value = [m.value for m in pytrec.iter_calc([RR], qq, cut)]
            got = rows_by_q[q]["chunk"]
            assert got[f"success@{k}"] == pytest.approx(ref[f"Success@{k}"]), (q, k)
            assert got[f"ndcg@{k}"] == pytest.approx(ref[f"nDCG@{k}"], abs=1e-6), (q, k)
            assert got[f"mrr@{k}"] == pytest.approx(rr_value[0] if rr_value else 0.0, abs=1e-6), (q, k)
            checked += 1
    assert checked == 18 * 3


def test_a_chunk_file_written_by_labeller_chunks_reads_back_as_that_chunking(tmp_path, capsys):
    """``labeller chunks --out`` (any registered chunker) and ``eval --chunks`` meet: same ranges,
    same digest as the chunker's own chunks, and the eval scores them."""
    from labeller.core.chunkers import chunk_corpus, get_chunker
    from labeller.core.chunkfile import read_chunk_file

    root = sections_project(tmp_path)
    out = tmp_path / "fixed.jsonl"
    assert main(["chunks", "--root", str(root), "--chunker", "fixed-chars-v1:size=50,overlap=25",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    p = project(root)
    chunker = get_chunker("fixed-chars-v1:size=50,overlap=25")
    own = Chunking.of_chunks("fixed", [c for cs in chunk_corpus(p.corpus, chunker).values() for c in cs])
    read = read_chunk_file(out, p.corpus, max_bytes=10**7, max_chunks=10**5)
    assert read.ranges == own.ranges and read.digest == own.digest
    rc, report, err = eval_json(root, capsys, "--chunks", str(out))
    assert rc == 0, err
    assert report["chunking"]["digest"] == own.digest and report["chunking"]["n_chunks"] == own.n_chunks
