"""Import semantics: never guess, count what is kept out, merge atomically, refuse collisions."""

from __future__ import annotations

import json
import os
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import q
from helpers_interop import DOCS, QUESTIONS, UNCOVERABLE, cli, cli_json, make, questions_of


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


YAML_MIXED = """\
queries:
  - id: good-doc
    query: how long are backups kept?
    expected:
      - path: ops/backup.md
  - id: good-section
    query: how do I install on linux?
    expected:
      - path: guide/install.md
        heading: Linux
  - id: missing
    query: where is the handbook?
    expected:
      - path: handbook.md
  - id: preamble
    query: what is in the preamble?
    expected:
      - path: notes/preamble.md
  - id: two-tops
    query: what is in the second section?
    expected:
      - path: notes/two-tops.md
  - id: no-heading
    query: is there a mac section?
    expected:
      - path: guide/install.md
        heading: macOS
  - id: negative
    query: what is the airspeed of a swallow?
    expected: []
"""


def test_unresolvable_labels_keep_their_record_out_with_counts(tmp_path, capsys):
    root = make(tmp_path / "p", {**DOCS, **UNCOVERABLE}, questions=[])
    rc, report = cli_json(capsys, "import", "yaml", write(tmp_path / "g.yaml", YAML_MIXED), "--root", root)
    assert rc == 1  # some records were kept out
    assert report["added"] == ["good-doc", "good-section", "preamble", "two-tops", "negative"]
    assert report["kept_out_counts"] == {"not_found": 1, "unknown_doc": 1}
    kept = {k["id"]: k for k in report["kept_out"]}
    assert kept["missing"]["kind"] == "unknown_doc" and "handbook.md" in kept["missing"]["message"]
    assert kept["missing"]["where"].endswith("g.yaml:11")
    assert kept["no-heading"]["kind"] == "not_found"
    recs = {r["id"]: r for r in questions_of(root)}
    assert list(recs) == ["good-doc", "good-section", "preamble", "two-tops", "negative"]
    # a document no single section covers is still one label: the document locator (SPEC 2.1)
    assert recs["preamble"]["locators"] == [{"doc": "notes/preamble.md"}]
    assert recs["two-tops"]["locators"] == [{"doc": "notes/two-tops.md"}]
    assert cli(capsys, "build", "--root", root)[0] == 0  # what was merged builds


def test_text_report_lists_and_counts_kept_out_records(tmp_path, capsys):
    root = make(tmp_path / "p", {**DOCS, **UNCOVERABLE}, questions=[])
    rc, out, err = cli(capsys, "import", "yaml", write(tmp_path / "g.yaml", YAML_MIXED), "--root", root)
    assert rc == 1
    assert "imported 5: 5 new, 0 replaced" in out and "wrote" in out
    assert "kept out: 2 record(s)" in err and "not_found 1" in err and "unknown_doc 1" in err


def test_id_collisions_are_refused_unless_replace(tmp_path, capsys):
    root = make(tmp_path / "p")
    before = (root / "golden/questions.jsonl").read_bytes()
    incoming = write(tmp_path / "in.jsonl", json.dumps(q("q2", {"quote": "Restores need a ticket"},
                                                         query="who approves restores?")) + "\n")
    rc, out, err = cli(capsys, "import", "jsonl", incoming, "--root", root)
    assert rc == 2 and "--replace" in err and "q2" in err
    assert (root / "golden/questions.jsonl").read_bytes() == before
    rc, report = cli_json(capsys, "import", "jsonl", incoming, "--root", root, "--replace")
    assert rc == 0 and report["replaced"] == ["q2"] and report["added"] == []
    lines = (root / "golden/questions.jsonl").read_text().splitlines()
    assert lines[0].startswith("// authored by hand")  # comments survive
    assert json.loads(lines[2])["query"] == "who approves restores?"  # q2 keeps its line
    assert [r["id"] for r in questions_of(root)] == [f"q{i}" for i in range(1, 8)]


def test_new_records_append_after_existing_ones(tmp_path, capsys):
    root = make(tmp_path / "p")
    incoming = write(tmp_path / "in.json", json.dumps([{"id": "p1", "query": "restores?",
                                                        "expected_pages": ["ops/backup.md"]}]))
    assert cli(capsys, "import", "pages-json", incoming, "--root", root)[0] == 0
    assert [r["id"] for r in questions_of(root)] == [f"q{i}" for i in range(1, 8)] + ["p1"]


def test_dry_run_writes_nothing(tmp_path, capsys):
    root = make(tmp_path / "p", questions=[])
    path = root / "golden/questions.jsonl"
    path.unlink()
    rc, report = cli_json(capsys, "import", "yaml", write(tmp_path / "g.yaml", YAML_MIXED), "--root", root,
                          "--dry-run")
    assert report["dry_run"] is True and report["written"] is None and len(report["added"]) == 3
    assert not path.exists()


def test_a_query_equal_to_an_existing_one_is_refused(tmp_path, capsys):
    root = make(tmp_path / "p")
    incoming = write(tmp_path / "in.json", json.dumps([{"id": "new", "query": "  question q1? ",
                                                        "expected_pages": ["faq.md"]}]))
    rc, out, err = cli(capsys, "import", "pages-json", incoming, "--root", root)
    assert rc == 2 and "same query" in err and "nothing was written" in err


def test_merge_keeps_the_questions_file_permissions(tmp_path, capsys):
    root = make(tmp_path / "p")
    path = root / "golden/questions.jsonl"
    os.chmod(path, 0o640)
    incoming = write(tmp_path / "in.json", json.dumps([{"id": "p1", "query": "restores?",
                                                        "expected_pages": ["ops/backup.md"]}]))
    assert cli(capsys, "import", "pages-json", incoming, "--root", root)[0] == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    # a new file gets what open() would give it, not mkstemp's private 0600
    umask = os.umask(0o022)
    os.umask(umask)
    assert cli(capsys, "export", "jsonl", "--root", root, "--out", tmp_path / "new.jsonl")[0] == 0
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o666 & ~umask


def test_pages_json_rules(tmp_path, capsys):
    root = make(tmp_path / "p", questions=[])
    data = {"schema": "someone.else.v3", "queries": [
        {"id": "a", "query": "backups?", "expected_pages": ["ops/backup.md", "faq.md"], "category": "ops"},
        {"id": "b", "query": "later", "expected_pages": ["faq.md"], "skip_reason": "needs review"},
        {"id": "c", "query": "nothing here", "expected_pages": []}]}
    rc, report = cli_json(capsys, "import", "pages-json", write(tmp_path / "p.json", json.dumps(data)),
                          "--root", root)
    assert rc == 1 and report["kept_out_counts"] == {"skipped": 1}
    assert "needs review" in report["kept_out"][0]["message"]
    assert "schema: someone.else.v3" in report["notes"]
    a, c = questions_of(root)
    assert a["tags"] == ["ops"] and [loc["doc"] for loc in a["locators"]] == ["ops/backup.md", "faq.md"]
    assert c["unanswerable"] is True and c["locators"] == []


MALFORMED = [
    ("pages-json", '[{"id": "a", "query": "q", "expected_pages": ["faq.md", "faq.md"]}]', "listed twice"),
    ("pages-json", '[{"id": "a", "query": "q", "expected_pages": [], "colour": "red"}]', "unknown key"),
    ("pages-json", '[{"id": "a", "id": "b", "query": "q", "expected_pages": []}]', "duplicate key"),
    ("pages-json", '{"queries": [], "extra": 1}', "unknown key"),
    ("pages-json", '[{"id": 7, "query": "q", "expected_pages": []}]', "must be a string"),
    ("pages-json", '[{"id": "a", "query": "q", "expected_pages": "faq.md"}]', "must be a list"),
    ("pages-json", "[" * 50_000, "nested too deeply"),
    ("pages-json", '[{"id": "a", "query": "q", "expected_pages": []}, {"id": "a", "query": "r", '
                   '"expected_pages": []}]', "duplicate id"),
    ("yaml", "queries:\n  - id: a\n    query: q\n    expected: []\n    colour: red\n", "unknown key"),
    ("yaml", "queries:\n  - id: a\n    query: q\n    expected:\n      - path: faq.md\n        heading_: X\n",
     "unknown key"),
    ("yaml", "other: 1\n", "unknown key"),
    ("yaml", "queries:\n  - id: 12\n    query: q\n    expected: []\n", "must be a string"),
    ("yaml", "queries:\n  - id: a\n    id: b\n    query: q\n    expected: []\n", "duplicate key"),
    ("yaml", "x: &a [1]\nqueries: *a\n", "alias"),
    ("yaml", "queries:\n  - id: a\n    query: q\n    expected:\n      - path: faq.md\n      - path: faq.md\n",
     "listed twice"),
    ("yaml", "queries: [\n", "malformed YAML"),
    ("yaml", "queries: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
]


@pytest.mark.parametrize("fmt, text, message", MALFORMED,
                         ids=[f"{fmt}-{message.replace(' ', '-')}-{i}" for i, (fmt, _, message) in enumerate(MALFORMED)])
def test_malformed_files_import_nothing(tmp_path, capsys, fmt, text, message):
    root = make(tmp_path / "p")
    before = (root / "golden/questions.jsonl").read_bytes()
    rc, out, err = cli(capsys, "import", fmt, write(tmp_path / "in.file", text), "--root", root)
    assert rc == 2 and message in err, err
    assert (root / "golden/questions.jsonl").read_bytes() == before


def chunk_ids(root):
    from labeller.config import load_config
    from labeller.core.project import Project

    return Project(load_config(root)).all_chunks


def test_trec_import_rules(tmp_path, capsys):
    root = make(tmp_path / "p", questions=[])
    chunks = chunk_ids(root)
    backup = next(c for c in chunks if "nine days" in c.text)
    qrels = write(tmp_path / "qrels.txt", f"a 0 {backup.chunk_id} 2\nb 0 {backup.chunk_id} 0\n"
                                          f"c 0 {'0' * 64} 1\nd 0 faq.md 1\nz 0 faq.md 1\n")
    topics = write(tmp_path / "topics.tsv", "a\tgraded relevance counts as relevant\nb\tjudged non-relevant only\n"
                                            "c\tunknown chunk id\nd\ta document path\ne\tnever judged\n")
    rc, report = cli_json(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--root", root)
    assert rc == 1
    assert report["added"] == ["a", "b", "d"]
    assert report["kept_out_counts"] == {"no_query": 1, "unknown_id": 1}
    assert "1 query(ies)" in report["notes"][0]
    recs = {r["id"]: r for r in questions_of(root)}
    assert recs["a"]["locators"] == [{"doc": "ops/backup.md", "quote": backup.text.strip(), "exact": True}]
    assert recs["b"]["unanswerable"] is True
    assert recs["d"]["locators"] == [{"doc": "faq.md"}]


@pytest.mark.parametrize("qrels, topics, message", [
    ("a 0 x\n", "a\tq\n", "expected 4 fields"),
    ("a 0 x one\n", "a\tq\n", "not an integer"),
    ("a 0 x 1\na 0 x 1\n", "a\tq\n", "twice"),
    ("a 0 x 1\n", "a q\n", "query-id<TAB>query"),
    ("a 0 x 1\n", "a\tq\na\tr\n", "appears twice"),
])
def test_trec_malformed_files(tmp_path, capsys, qrels, topics, message):
    root = make(tmp_path / "p", questions=[])
    rc, out, err = cli(capsys, "import", "trec-qrels", write(tmp_path / "q.txt", qrels), "--queries",
                       write(tmp_path / "t.tsv", topics), "--root", root)
    assert rc == 2 and message in err


def test_trec_needs_query_text_and_options_belong_to_their_format(tmp_path, capsys):
    root = make(tmp_path / "p", questions=[])
    rc, out, err = cli(capsys, "import", "trec-qrels", write(tmp_path / "q.txt", "a 0 x 1\n"), "--root", root)
    assert rc == 2 and "--queries" in err
    rc, out, err = cli(capsys, "import", "yaml", write(tmp_path / "g.yaml", "queries: []\n"), "--queries", "x",
                       "--root", root)
    assert rc == 2 and "trec-qrels format only" in err


def beir_folder(tmp_path, queries, qrels: dict[str, str]):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    write(folder / "queries.jsonl", "".join(json.dumps(x) + "\n" for x in queries))
    for name, text in qrels.items():
        write(folder / "qrels" / name, text)
    return folder


def test_beir_import_splits_conflicts_and_header(tmp_path, capsys):
    root = make(tmp_path / "p", questions=[])
    header = "query-id\tcorpus-id\tscore\n"
    folder = beir_folder(tmp_path, [{"_id": "a", "text": "backups?"}, {"_id": "b", "text": "faq?"},
                                    {"_id": "c", "text": "both?"}, {"_id": "t", "text": "training"}],
                         {"dev.tsv": header + "a\tops/backup.md\t1\nc\tfaq.md\t1\n",
                          "test.tsv": header + "b\tfaq.md\t1\nc\tfaq.md\t1\n",
                          "train.tsv": header + "t\tfaq.md\t1\n"})
    rc, report = cli_json(capsys, "import", "beir", folder, "--root", root)
    assert rc == 1 and report["kept_out_counts"] == {"split_conflict": 1}
    recs = {r["id"]: r for r in questions_of(root)}
    assert recs["a"]["split"] == "dev" and recs["b"]["split"] == "test" and "split" not in recs["t"]
    assert any("'train' is not a labeller split" in n for n in report["notes"])
    other = make(tmp_path / "o", questions=[])
    rc, report = cli_json(capsys, "import", "beir", folder, "--split", "test", "--root", other)
    assert rc == 0 and report["added"] == ["b", "c"]
    write(folder / "qrels/test.tsv", "b\tfaq.md\t1\n")
    rc, out, err = cli(capsys, "import", "beir", folder, "--root", make(tmp_path / "x", questions=[]))
    assert rc == 2 and "header" in err


def test_duplicate_chunk_ids_cannot_be_imported(tmp_path, capsys):
    """Two chunks of one document with identical text share an id; one span cannot name them apart."""
    docs = {"d.md": "# A\n## FAQ\n\nsame body\n\n## FAQ\n\nsame body\n"}
    root = make(tmp_path / "p", docs, questions=[])
    dup = chunk_ids(root)[0].chunk_id
    rc, report = cli_json(capsys, "import", "trec-qrels", write(tmp_path / "q.txt", f"a 0 {dup} 1\n"), "--queries",
                          write(tmp_path / "t.tsv", "a\tq\n"), "--root", root)
    assert rc == 1 and report["kept_out_counts"] == {"duplicate_chunk_id": 1}


def test_beir_export_folder_must_be_its_own(tmp_path, capsys):
    root = make(tmp_path / "p")
    out = tmp_path / "out"
    assert cli(capsys, "export", "beir", "--root", root, "--out", out)[0] == 0
    # a split that no longer has records is removed on the next export, not left to mislead
    lines = (root / "golden/questions.jsonl").read_text().splitlines()
    write(root / "golden/questions.jsonl", "\n".join(line for line in lines if '"holdout"' not in line) + "\n")
    assert cli(capsys, "export", "beir", "--root", root, "--out", out)[0] == 0
    assert not (out / "qrels/holdout.tsv").exists()
    write(out / "notes.txt", "mine")
    rc, _, err = cli(capsys, "export", "beir", "--root", root, "--out", out)
    assert rc == 2 and "notes.txt" in err
    assert cli(capsys, "export", "beir", "--root", root)[0] == 2  # a folder format needs --out


def test_questions_fixture_is_importable_as_jsonl(tmp_path, capsys):
    """The lab format is ours: the fixture's own questions file imports unchanged."""
    a = make(tmp_path / "a")
    b = make(tmp_path / "b", questions=[])
    rc, report = cli_json(capsys, "import", "jsonl", a / "golden/questions.jsonl", "--root", b)
    assert rc == 0 and len(report["added"]) == len([x for x in QUESTIONS if not isinstance(x, str)])


def test_whole_document_labels_under_a_strict_hit_rule(tmp_path, capsys):
    """A section span starts on its heading line, which no chunk holds, so under span_containment
    no chunk contains it: the record is kept out as no_hit, never silently narrowed."""
    root = make(tmp_path / "p", questions=[], toml='[build]\nhit_rule = "span_containment"\n')
    data = [{"id": "one-chunk", "query": "backups?", "expected_pages": ["ops/backup.md"]},
            {"id": "many-chunks", "query": "install?", "expected_pages": ["guide/install.md"]}]
    rc, report = cli_json(capsys, "import", "pages-json", write(tmp_path / "p.json", json.dumps(data)),
                          "--root", root)
    assert rc == 1 and report["added"] == [] and report["kept_out_counts"] == {"no_hit": 2}
    (root / "labeller.toml").unlink()  # the default any_overlap
    rc, report = cli_json(capsys, "import", "pages-json", tmp_path / "p.json", "--root", root)
    assert rc == 0 and report["added"] == ["one-chunk", "many-chunks"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    | st.sampled_from(["faq.md", "../x.md", "/abs", "id", "query", "expected", "path", "heading"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["id", "query", "expected", "expected_pages", "path", "heading", "category", "queries",
                         "schema", "skip_reason", "x"]), inner, max_size=5),
    max_leaves=20)


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["yaml", "pages-json"]), JSON_VALUES, st.booleans(), st.text(max_size=30))
def test_foreign_files_raise_only_invalid_input(tmp_path, fmt, value, as_yaml, noise):
    """Whatever the file holds, reading it gives candidates or a documented InvalidInput."""
    import yaml as pyyaml

    from labeller.config import load_config
    from labeller.core.project import Project
    from labeller.errors import InvalidInput
    from labeller.interop import all_formats
    from labeller.interop.format import Direction

    text = pyyaml.safe_dump(value) if as_yaml else json.dumps(value)
    path = tmp_path / "fuzz.in"
    for content in (text, noise, text + noise):
        path.write_text(content, encoding="utf-8")
        try:
            all_formats()[fmt].read(path, Project(load_config(tmp_path)), all_formats()[fmt].defaults(Direction.IMPORT))
        except InvalidInput:
            pass
