"""Export then import gives the same labels, for every format, over what the format can hold.

- jsonl: everything (records are labeller's own).
- yaml, pages-json: documents and sections (pages-json: documents, plus one category); the
  import of an export exports byte-identically, and each record names the same documents.
- beir, trec-qrels: answer-bearing chunk ids per query (beir also carries every other field
  in its metadata; trec holds no negatives).
"""

from __future__ import annotations

import json

import yaml

from helpers_interop import artifact, cli, cli_json, make, questions_of
from labeller.cli import main


def fresh(tmp_path, name="b"):
    """A second project over the same corpus with an empty golden set."""
    return make(tmp_path / name, questions=[])


def build_ok(root):
    assert main(["build", "--root", str(root)]) == 0
    return {r["query_id"]: r for r in artifact(root)}


def docs_of(record):
    return {s["doc_id"] for s in record["answer_spans"]}


def test_jsonl_round_trip_is_lossless(tmp_path, capsys):
    a = make(tmp_path / "a")
    out = tmp_path / "export.jsonl"
    assert cli(capsys, "export", "jsonl", "--root", a, "--out", out)[0] == 0
    b = fresh(tmp_path)
    rc, report = cli_json(capsys, "import", "jsonl", out, "--root", b)
    assert rc == 0 and report["added"] == ["q1", "q2", "q3", "q4", "q5", "q6", "q7"] and report["kept_out"] == []
    assert questions_of(b) == questions_of(a)
    assert (build_ok(a), (a / "golden/golden-set.v1.jsonl").read_bytes()) == \
        (build_ok(b), (b / "golden/golden-set.v1.jsonl").read_bytes())


def test_yaml_round_trip_over_documents_and_sections(tmp_path, capsys):
    a = make(tmp_path / "a")
    first = tmp_path / "first.yaml"
    assert cli(capsys, "export", "yaml", "--root", a, "--out", first)[0] == 0
    data = yaml.safe_load(first.read_text())
    expected = {item["id"]: item["expected"] for item in data["queries"]}
    assert expected["q3"] == [{"path": "guide/install.md", "heading": "Linux"}]  # a section stays a section
    assert expected["q1"] == [{"path": "ops/backup.md"}]  # a quote widens to its document
    assert expected["q4"] == [{"path": "guide/install.md"}, {"path": "faq.md"}]
    assert expected["q7"] == [{"path": "faq.md"}]  # a section that is the whole document is the document
    assert expected["q6"] == []  # a negative
    b = fresh(tmp_path)
    rc, report = cli_json(capsys, "import", "yaml", first, "--root", b)
    assert rc == 0 and len(report["added"]) == 7
    imported = {r["id"]: r for r in questions_of(b)}
    assert imported["q1"]["locators"] == [{"doc": "ops/backup.md"}]
    assert imported["q3"]["locators"] == [{"doc": "guide/install.md", "heading": "Linux"}]
    assert imported["q6"]["unanswerable"] is True
    second = tmp_path / "second.yaml"
    assert cli(capsys, "export", "yaml", "--root", b, "--out", second)[0] == 0
    assert second.read_bytes() == first.read_bytes()
    ra, rb = build_ok(a), build_ok(b)
    assert {k: docs_of(v) for k, v in ra.items()} == {k: docs_of(v) for k, v in rb.items()}


def test_whole_document_label_covers_every_chunk_of_its_document(tmp_path, capsys):
    """The honest rule: a document label becomes one span holding all the document's chunks."""
    a = make(tmp_path / "a")
    first = tmp_path / "first.yaml"
    cli(capsys, "export", "yaml", "--root", a, "--out", first)
    b = fresh(tmp_path)
    cli(capsys, "import", "yaml", first, "--root", b)
    built = build_ok(b)
    manifest_chunks = {}
    from labeller.config import load_config
    from labeller.core.project import Project

    project = Project(load_config(b))
    for c in project.all_chunks:
        manifest_chunks.setdefault(c.doc_id, set()).add(c.chunk_id)
    front_matter_only = {c.chunk_id for c in project.all_chunks if c.text.startswith("title:")}
    assert set(built["q1"]["answer_bearing_chunk_ids"]) == manifest_chunks["ops/backup.md"]
    assert set(built["q7"]["answer_bearing_chunk_ids"]) == manifest_chunks["faq.md"]
    install = set(built["q4"]["answer_bearing_chunk_ids"]) - manifest_chunks["faq.md"]
    assert install == manifest_chunks["guide/install.md"] - front_matter_only


def test_pages_json_round_trip_over_documents(tmp_path, capsys):
    a = make(tmp_path / "a")
    first = tmp_path / "first.json"
    assert cli(capsys, "export", "pages-json", "--root", a, "--out", first)[0] == 0
    data = json.loads(first.read_text())
    assert set(data) == {"schema", "queries"}
    items = {item["id"]: item for item in data["queries"]}
    assert items["q1"] == {"id": "q1", "query": "question q1?", "expected_pages": ["ops/backup.md"],
                           "category": "ops"}
    assert items["q6"]["expected_pages"] == [] and items["q6"]["category"] == "negative"
    assert "category" not in items["q2"]
    b = fresh(tmp_path)
    assert cli(capsys, "import", "pages-json", first, "--root", b)[0] == 0
    imported = {r["id"]: r for r in questions_of(b)}
    assert imported["q1"]["tags"] == ["ops"] and imported["q6"]["unanswerable"] is True
    second = tmp_path / "second.json"
    cli(capsys, "export", "pages-json", "--root", b, "--out", second)
    assert second.read_bytes() == first.read_bytes()
    # the bare-list form is the same file without its wrapper
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(data["queries"]))
    c = fresh(tmp_path, "c")
    assert cli(capsys, "import", "pages-json", bare, "--root", c)[0] == 0
    assert questions_of(c) == questions_of(b)


def test_beir_round_trip_keeps_answer_bearing_chunks_and_every_field(tmp_path, capsys):
    a = make(tmp_path / "a")
    first = tmp_path / "beir1"
    assert cli(capsys, "export", "beir", "--root", a, "--out", first)[0] == 0
    assert sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file()) == \
        ["corpus.jsonl", "qrels/dev.tsv", "qrels/holdout.tsv", "qrels/test.tsv", "queries.jsonl"]
    assert (first / "qrels/dev.tsv").read_text().splitlines()[0] == "query-id\tcorpus-id\tscore"
    corpus = [json.loads(line) for line in (first / "corpus.jsonl").read_text().splitlines()]
    assert all(set(d) == {"_id", "title", "text", "metadata"} for d in corpus)
    b = fresh(tmp_path)
    rc, report = cli_json(capsys, "import", "beir", first, "--root", b)
    assert rc == 0 and len(report["added"]) == 7
    ra, rb = build_ok(a), build_ok(b)
    assert {k: v["answer_bearing_chunk_ids"] for k, v in ra.items()} == \
        {k: v["answer_bearing_chunk_ids"] for k, v in rb.items()}
    for key in ("expected_answer", "tags", "split", "hop", "unanswerable", "query"):
        assert {k: v.get(key) for k, v in ra.items()} == {k: v.get(key) for k, v in rb.items()}, key
    # chunk-level labels are exact quotes of the chunk, so the span is the chunk's text
    q2 = next(r for r in questions_of(b) if r["id"] == "q2")
    assert q2["locators"] == [{"doc": "guide/install.md", "exact": True,
                               "quote": "| step | action |\n|---|---|\n| 1 | run the installer |\n| 2 | reboot twice |"}]
    second = tmp_path / "beir2"
    cli(capsys, "export", "beir", "--root", b, "--out", second)
    for path in first.rglob("*.*"):
        assert (second / path.relative_to(first)).read_bytes() == path.read_bytes(), path


def test_trec_round_trip_keeps_answer_bearing_chunks(tmp_path, capsys):
    a = make(tmp_path / "a")
    qrels, topics = tmp_path / "qrels.txt", tmp_path / "topics.tsv"
    assert cli(capsys, "export", "trec-qrels", "--root", a, "--out", qrels, "--queries-out", topics)[0] == 0
    lines = qrels.read_text().splitlines()
    assert all(len(line.split()) == 4 and line.split()[1] == "0" and line.split()[3] == "1" for line in lines)
    assert topics.read_text().splitlines()[0] == "q1\tquestion q1?"
    b = fresh(tmp_path)
    rc, report = cli_json(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--root", b)
    assert rc == 0 and report["added"] == ["q1", "q2", "q3", "q4", "q5", "q7"]  # q6, a negative, has no qrels
    assert any("no judgments" in n for n in report["notes"])
    ra, rb = build_ok(a), build_ok(b)
    assert {k: v["answer_bearing_chunk_ids"] for k, v in ra.items() if k != "q6"} == \
        {k: v["answer_bearing_chunk_ids"] for k, v in rb.items()}
    again = tmp_path / "qrels2.txt"
    cli(capsys, "export", "trec-qrels", "--root", b, "--out", again)
    assert again.read_bytes() == qrels.read_bytes()


def test_trec_qrels_agree_with_ir_measures(tmp_path, capsys):
    """The exported qrels parse as TREC qrels in ir_measures, one relevant row per chunk id."""
    import ir_measures

    a = make(tmp_path / "a")
    qrels = tmp_path / "qrels.txt"
    cli(capsys, "export", "trec-qrels", "--root", a, "--out", qrels)
    parsed = {(r.query_id, r.doc_id, r.relevance) for r in ir_measures.read_trec_qrels(str(qrels))}
    expected = {(r["query_id"], cid, 1) for r in (build_ok(a).values()) for cid in r["answer_bearing_chunk_ids"]}
    assert parsed == expected


def test_export_to_stdout_and_the_summary_to_stderr(tmp_path, capsys):
    a = make(tmp_path / "a")
    rc, out, err = cli(capsys, "export", "jsonl", "--root", a)
    assert rc == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [f"q{i}" for i in range(1, 8)]
    assert "exported 7 record(s)" in err
    rc, out, err = cli(capsys, "export", "trec-qrels", "--root", a, "--format", "json")
    assert json.loads(err)["written"] == ["-"] and len(out.splitlines()) >= 6


def test_export_derives_from_a_clean_build_only(tmp_path, capsys):
    a = make(tmp_path / "a", questions=[{"id": "x", "query": "q?", "expected_answer": "",
                                         "locators": [{"quote": "no such words"}]}])
    rc, out, err = cli(capsys, "export", "yaml", "--root", a, "--out", tmp_path / "x.yaml")
    assert rc == 1 and "not_found" in err and not (tmp_path / "x.yaml").exists()



def test_yaml_round_trip_keeps_awkward_ids_and_queries_as_strings(tmp_path, capsys):
    """Ids and queries YAML would read as numbers, booleans or nulls, or that hold escapes and
    line separators, come back as the same strings."""
    awkward = [("007", "yes"), ("null", "key: value # not a comment"), ("1.5", "  padded\x1b[31m\u2028line  "),
               ("on", "~")]
    a = make(tmp_path / "a", questions=[
        {"id": i, "query": text, "expected_answer": "", "locators": [{"doc": "faq.md", "heading": "Tides"}]}
        for i, text in awkward])
    out = tmp_path / "a.yaml"
    assert cli(capsys, "export", "yaml", "--root", a, "--out", out)[0] == 0
    assert b"\x1b" not in out.read_bytes()  # escaped in the file, not raw
    b = fresh(tmp_path)
    assert cli(capsys, "import", "yaml", out, "--root", b)[0] == 0
    assert [(r["id"], r["query"]) for r in questions_of(b)] == awkward
