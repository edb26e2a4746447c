"""``labeller build`` / ``build --check`` end to end through the CLI entry point."""

import json

import pytest

from conftest import q, write_project
from labeller.cli import main

DOCS = {
    "guide/a.md": "---\ntitle: Guide A\n---\n# Alpha\n\nThe alpha paragraph explains retention of nine days.\n\n"
                  "| key | value |\n|---|---|\n| limit | 64 locators |\n\n- one item here\n- two item here\n",
    "b.md": "# Beta\n\nBeta keeps a separate fact about the lighthouse keeper.\n\nAnother para on tides.\n",
}
QUESTIONS = [
    "// a comment that must survive",
    q("r1", {"quote": "retention of nine days"}, tags=["ops"], split="dev"),
    q("r2", {"doc": "guide/a.md", "quote": "64 locators"}, split="test"),
    q("r3", {"quote": "two item"}, {"doc": "b.md", "quote": "lighthouse keeper"}, hop="multi"),
    q("r4", unanswerable=True, query="what is the airspeed of a swallow?"),
]


@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path / "p", DOCS, QUESTIONS)


def run(root, *args):
    return main(["build", "--root", str(root), *args])


def test_build_writes_sorted_byte_identical_artifacts(project, capsys):
    assert run(project) == 0
    art = (project / "golden/golden-set.v1.jsonl").read_bytes()
    man = (project / "golden/golden-set.v1.manifest.json").read_bytes()
    assert run(project) == 0
    assert (project / "golden/golden-set.v1.jsonl").read_bytes() == art
    assert (project / "golden/golden-set.v1.manifest.json").read_bytes() == man
    records = [json.loads(line) for line in art.decode().splitlines()]
    assert [r["query_id"] for r in records] == ["r1", "r2", "r3", "r4"]
    r1 = records[0]
    assert list(r1) == sorted(r1)
    assert set(r1) == {"answer_bearing_chunk_ids", "answer_spans", "canonical_version", "chunker_version",
                       "expected_answer", "hop", "query", "query_id", "span_union_coverage", "tags", "split"}
    assert r1["answer_spans"][0]["block"] == "paragraph"
    assert records[1]["answer_spans"][0]["block"] == "table_row"
    assert len(records[2]["answer_spans"]) == 2 and records[2]["hop"] == "multi"
    assert records[3]["unanswerable"] is True and records[3]["answer_bearing_chunk_ids"] == []
    manifest = json.loads(man)
    assert manifest["n_records"] == 4 and manifest["n_docs"] == 2
    assert man.endswith(b"\n") and man.decode() == json.dumps(manifest, indent=2, sort_keys=True,
                                                              ensure_ascii=False) + "\n"
    assert run(project, "--check") == 0


def test_check_fails_on_truncated_artifact(project, capsys):
    assert run(project) == 0
    art = project / "golden/golden-set.v1.jsonl"
    art.write_bytes(art.read_bytes()[:-40])
    assert run(project, "--check") == 1
    err = capsys.readouterr().err
    assert "drift" in err and "r4" in err


def test_check_fails_when_a_labelled_paragraph_is_edited(project, capsys):
    assert run(project) == 0
    doc = project / "corpus/b.md"
    doc.write_text(doc.read_text().replace("separate fact", "different fact"))
    assert run(project, "--check") == 1
    err = capsys.readouterr().err
    assert "r3" in err and "b.md" in err


def test_check_fails_when_the_label_rots(project, capsys):
    assert run(project) == 0
    doc = project / "corpus/b.md"
    doc.write_text(doc.read_text().replace("lighthouse keeper", "harbour master"))
    assert run(project, "--check") == 1
    assert "not_found" in capsys.readouterr().err


def test_check_fails_on_a_changed_rule_setting(project, capsys):
    assert run(project) == 0
    (project / "labeller.toml").write_text("[build]\nmax_chars = 900\n")
    assert run(project, "--check") == 1
    assert "max_chars" in capsys.readouterr().err
    assert run(project, "--check", "--hit-rule", "coverage>=0.5") == 1


def test_refused_build_writes_nothing_and_reports_json(tmp_path, capsys):
    root = write_project(tmp_path / "p", DOCS, [
        q("a", {"quote": "item here"}),
        q("b", {"quote": "no such words anywhere"}),
        q("c", {"doc": "missing.md", "quote": "x"}),
        q("d", {"quote": "Guide A"}),
        q("e", {"quote": "retention"}, {"quote": "nine days"}, hop="multi"),
    ])
    assert main(["build", "--root", str(root), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    kinds = {e["id"]: e["kind"] for e in report["errors"]}
    assert kinds == {"a": "ambiguous", "b": "not_found", "c": "unknown_doc", "d": "front_matter",
                     "e": "duplicate_span"}
    amb = next(e for e in report["errors"] if e["id"] == "a")
    assert len(amb["occurrences"]) == 2 and all(o["extension"] for o in amb["occurrences"])
    assert "suggestions" in next(e for e in report["errors"] if e["id"] == "b")
    assert not (root / "golden/golden-set.v1.jsonl").exists()


@pytest.mark.parametrize("line, message", [
    ('{"id": "x", "query": "q?", "expected_answer": "a", "locators": [{"quote": "alpha"}], "colour": 1}',
     "colour"),
    ('{"id": "x", "query": "q?", "expected_answer": "a", "locators": [{"quote": "alpha"}]', "malformed JSON"),
    ('{"id": "x", "query": "q?", "expected_answer": "a", "locators": []}', "at least one locator"),
    ('{"id": "x", "query": "q?", "expected_answer": "a", "locators": [{"quote": "a"}], "hop": "multi"}',
     "two locators"),
    ('{"id": "x", "query": "q?", "expected_answer": "a", "locators": [{"quote": "a"}], "unanswerable": true}',
     "no locators"),
    ('{"id": "x", "query": "q?", "expected_answer": "a", "locators": [{"quote": "  "}]}', "empty"),
    ('{"id": "x", "query": "q?", "expected_answer": "a", "locators": [{"heading": "Alpha"}]}', "needs doc"),
])
def test_invalid_records_exit_2_with_line_number(tmp_path, capsys, line, message):
    root = write_project(tmp_path / "p", DOCS, ["// header", line])
    assert main(["build", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "questions.jsonl:2" in err and message in err


def test_duplicate_ids_and_queries_are_refused(tmp_path, capsys):
    root = write_project(tmp_path / "p", DOCS, [q("a", {"quote": "alpha"}), q("a", {"quote": "tides"}),
                                                q("b", {"quote": "tides"}, query=" question a? ")])
    assert main(["build", "--root", str(root), "--format", "json"]) == 2
    out = json.loads(capsys.readouterr().out)
    messages = [e["message"] for e in out["errors"]]
    assert any("duplicate id" in m for m in messages) and any("same query" in m for m in messages)
    assert all(e["kind"] == "invalid" for e in out["errors"])


def test_relative_doc_paths_only(tmp_path, capsys):
    root = write_project(tmp_path / "p", DOCS, [q("a", {"doc": "../b.md", "quote": "tides"})])
    assert main(["build", "--root", str(root), "--format", "json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["errors"][0]["kind"] == "invalid"


def test_duplicate_embed_texts_label_correctly(tmp_path):
    doc = "# A\n## FAQ\n\nsame body\n\n## FAQ\n\nsame body\n"
    root = write_project(tmp_path / "p", {"d.md": doc}, [q("a", {"quote": "same body ## FAQ same body"})])
    assert main(["build", "--root", str(root)]) == 0
    rec = json.loads((root / "golden/golden-set.v1.jsonl").read_text())
    assert len(rec["answer_bearing_chunk_ids"]) == 1
    manifest = json.loads((root / "golden/golden-set.v1.manifest.json").read_text())
    assert manifest["n_chunks"] == 2
    # the span covers both bodies and the heading line between them, which no chunk holds
    span = rec["answer_spans"][0]
    assert span["char_end"] - span["char_start"] == len("same body\n\n## FAQ\n\nsame body\n")
    assert rec["span_union_coverage"] == [round(20 / 29, 4)]


def test_schema_and_new(tmp_path, capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["additionalProperties"] is False and "locators" in schema["required"]
    target = tmp_path / "fresh"
    assert main(["new", str(target)]) == 0
    assert main(["build", "--root", str(target)]) == 0
    assert main(["new", str(target)]) == 2


def test_check_fails_on_a_changed_rule_version(project, capsys):
    assert run(project) == 0
    manifest = project / "golden/golden-set.v1.manifest.json"
    data = json.loads(manifest.read_text())
    data["expansion_version"] = "blocks-v0"  # as if built by an older rule
    manifest.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    assert run(project, "--check") == 1
    assert "expansion_version" in capsys.readouterr().err
