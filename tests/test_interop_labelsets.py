"""Label sets as teams save them (issue 25): ragas CSV (current and 0.1 columns, hop markers,
front matter in a context), LlamaIndex's LabelledRagDataset, idempotent re-import, the
wrong-container error, qrels over a pipeline's chunk ids, and the nested LlamaIndex node id
(issue 23).

The sets in tests/fixtures/labelsets were written by the libraries' own writers (pandas'
``to_csv`` of ragas' rows, LlamaIndex's ``save_json`` layout; see generate.py there), over the
small handbook corpus beside them.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import write_project
from helpers_interop import cli, cli_json, questions_of
from labeller.config import load_config
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.interop import all_formats
from labeller.interop.format import Direction
from labeller.interop.plan import plan_import

FIXTURES = Path(__file__).parent / "fixtures" / "labelsets"
CORPUS = {p.relative_to(FIXTURES / "corpus").as_posix(): p.read_text(encoding="utf-8")
          for p in sorted((FIXTURES / "corpus").rglob("*.md"))}


def project(tmp_path: Path, name: str = "p") -> Path:
    return write_project(tmp_path / name, CORPUS)


def fixture(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copyfile(FIXTURES / name, target)
    return target


def spans(capsys, root: Path) -> dict[str, list[tuple[str, str]]]:
    """Each record's built spans as (doc, text)."""
    assert cli(capsys, "build", "--root", root)[0] == 0
    lines = (root / "golden/golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    out = {}
    for rec in map(json.loads, lines):
        out[rec["query_id"]] = [(s["doc_id"], CORPUS[s["doc_id"]][s["char_start"]:s["char_end"]])
                                for s in rec["answer_spans"]]
    return out


def test_ragas_csv_as_to_pandas_to_csv_writes_it(tmp_path, capsys):
    root = project(tmp_path)
    rc, report = cli_json(capsys, "import", "ragas", fixture(tmp_path, "ragas_testset.csv"), "--root", root)
    assert rc == 0 and len(report["added"]) == 3 and not report["kept_out"]
    recs = {r["query"]: r for r in questions_of(root)}
    first = recs["What do new starters get on their first day?"]
    assert first["expected_answer"] == "A laptop, and a buddy who shows them around."
    assert first["tags"] == ["source:ragas", "synthesizer:single_hop_specifc_query_synthesizer"]
    assert "metadata" not in first  # pandas' index column is no column of the set
    multi = recs["How long until a new starter's accounts exist, and who approves a 600 euro claim?"]
    assert multi["hop"] == "multi"
    assert 'why "seven"' in next(q for q in recs if "receipts" in q)
    built = spans(capsys, root)
    assert built[multi["id"]] == [
        ("handbook/onboarding.md", "Accounts are created by the IT desk within two working days."),
        ("handbook/expenses.md", "Claims over 500 euros need the manager's written approval.")]
    # the context opened with the document's front matter: placed on the body, front matter no part of it
    (doc, text), = built[first["id"]]
    assert doc == "handbook/onboarding.md" and text.startswith("# Onboarding") and "title:" not in text
    assert any("front matter" in n for n in report["notes"])


def test_deepeval_context_with_front_matter_is_placed_on_the_body_of_its_source_file(tmp_path, capsys):
    root = project(tmp_path)
    body = "# Onboarding\n\nNew starters get a laptop on their first day, and the team's buddy shows them around."
    goldens = tmp_path / "goldens.json"
    goldens.write_text(json.dumps([{"input": "What do new starters get?", "source_file": "docs/handbook/onboarding.md",
                                    "context": ["---\ntitle: Onboarding\nowner: people-team\n---\n" + body]},
                                   {"input": "Is a lookalike front matter cut?",  # not the document's own: kept
                                    "context": ["---\ntitle: Elsewhere\n---\n# Onboarding"]}]), encoding="utf-8")
    rc, report = cli_json(capsys, "import", "deepeval", goldens, "--root", root)
    assert rc == 1 and len(report["added"]) == 1 and report["kept_out"][0]["kind"] == "not_found"
    assert any("1 context(s) began with their document's front matter" in n for n in report["notes"])
    assert spans(capsys, root)[report["added"][0]] == [("handbook/onboarding.md", body)]


def test_front_matter_a_loader_rendered_yaml_and_all_is_cut_line_by_line_by_its_words(tmp_path, capsys):
    """A rendering loader writes ``tags: [people, first-day]`` as ``tags: people, first-day``:
    the lines still match the document's front matter word for word, so the body is placed;
    a context whose lines differ in a word is not cut (and its front matter is refused)."""
    root = project(tmp_path)
    body = "On the first morning a new starter collects a badge from reception and meets the office manager."
    (root / "corpus/handbook/first-day.md").write_text(
        f'---\ntitle: "First day"\ntags: [people, first-day]\n---\n\n{body}\n', encoding="utf-8")
    goldens = tmp_path / "goldens.json"
    goldens.write_text(json.dumps([
        {"input": "What do new starters get on day one?", "context": [f"title: First day\ntags: people, first-day\n\n{body}"]},
        {"input": "A lookalike?", "context": [f"title: First day\ntags: people, second-day\n\n{body}"]}]),
        encoding="utf-8")
    rc, report = cli_json(capsys, "import", "deepeval", goldens, "--root", root)
    assert len(report["added"]) == 1 and [k["kind"] for k in report["kept_out"]] == ["front_matter"]
    assert any("1 context(s) began with their document's front matter" in n for n in report["notes"])
    assert cli(capsys, "build", "--root", root)[0] == 0
    built = [json.loads(line) for line in (root / "golden/golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()]
    span, = next(r["answer_spans"] for r in built if r["query_id"] == report["added"][0])
    text = (root / "corpus/handbook/first-day.md").read_text(encoding="utf-8")
    assert (span["doc_id"], text[span["char_start"]:span["char_end"]]) == ("handbook/first-day.md", body)


def test_ragas_evaluation_dataset_csv_and_jsonl_written_by_ragas_read_alike(tmp_path, capsys):
    written = []
    for name in ("ragas_evaluation_dataset.csv", "ragas_evaluation_dataset.jsonl"):
        root = project(tmp_path, "p-" + name.rsplit(".", 1)[1])
        rc, report = cli_json(capsys, "import", "ragas", fixture(tmp_path, name), "--root", root)
        assert rc == 0 and len(report["added"]) == 3
        written.append((root / "golden/questions.jsonl").read_bytes())
    assert written[0] == written[1]
    assert [r.get("hop", "single") for r in questions_of(root)] == ["single", "multi", "single"]


def test_ragas_0_1_columns_are_mapped_and_extra_columns_kept_as_metadata(tmp_path, capsys):
    root = project(tmp_path)
    rc, report = cli_json(capsys, "import", "ragas", fixture(tmp_path, "ragas_0.1_testset.csv"), "--root", root)
    assert rc == 0 and len(report["added"]) == 2
    rec = next(r for r in questions_of(root) if r["query"] == "Who approves claims over 500 euros?")
    assert rec["expected_answer"] == "The manager, in writing."
    assert rec["metadata"] == {"evolution_type": "simple", "episode_done": "True",
                               "metadata": [{"source": "handbook/expenses.md", "file_name": "expenses.md"}]}
    assert spans(capsys, root)[rec["id"]] == [("handbook/expenses.md",
                                               "Claims over 500 euros need the manager's written approval.")]


def test_ragas_json_list_samples_object_and_testset_dump_read_alike(tmp_path, capsys):
    row = {"user_input": "Who approves claims over 500 euros?",
           "reference_contexts": ["Claims over 500 euros need the manager's written approval."],
           "reference": "The manager.", "synthesizer_name": "single_hop_specifc_query_synthesizer"}
    dumped = {"eval_sample": {k: v for k, v in row.items() if k != "synthesizer_name"},
              "synthesizer_name": row["synthesizer_name"]}
    written = []
    for i, data in enumerate(([row], {"samples": [row]}, {"samples": [dumped]})):
        root = project(tmp_path, f"p{i}")
        path = tmp_path / f"set{i}.json"
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        assert cli_json(capsys, "import", "ragas", path, "--root", root)[0] == 0
        written.append((root / "golden/questions.jsonl").read_bytes())
    assert written[0] == written[1] == written[2]


def test_the_same_import_twice_leaves_the_file_byte_identical(tmp_path, capsys):
    for name in ("ragas_testset.csv", "llamaindex_rag_dataset.json"):
        fmt = "ragas" if name.endswith(".csv") else "llamaindex"
        root = project(tmp_path, fmt)
        path = fixture(tmp_path, name)
        assert cli(capsys, "import", fmt, path, "--root", root)[0] == 0
        before = (root / "golden/questions.jsonl").read_bytes()
        mtime = (root / "golden/questions.jsonl").stat().st_mtime_ns
        rc, report = cli_json(capsys, "import", fmt, path, "--root", root)
        assert rc == 0 and report["added"] == [] and report["replaced"] == [] and report["written"] is None
        assert len(report["unchanged"]) == report["read"]
        assert (root / "golden/questions.jsonl").read_bytes() == before
        assert (root / "golden/questions.jsonl").stat().st_mtime_ns == mtime  # not even rewritten
    rc, out, _ = cli(capsys, "import", "ragas", tmp_path / "ragas_testset.csv", "--root", tmp_path / "ragas")
    assert rc == 0 and "3 unchanged" in out


def test_a_different_record_under_an_existing_id_is_refused_unless_replace(tmp_path, capsys):
    root = project(tmp_path)
    path = fixture(tmp_path, "ragas_testset.csv")
    assert cli(capsys, "import", "ragas", path, "--root", root)[0] == 0
    path.write_text(path.read_text(encoding="utf-8").replace("A laptop, and a buddy", "A laptop and a buddy"),
                    encoding="utf-8")
    before = (root / "golden/questions.jsonl").read_bytes()
    rc, out, err = cli(capsys, "import", "ragas", path, "--root", root)
    assert rc == 2 and "1 imported id(s) already exist with a different record" in err
    assert (root / "golden/questions.jsonl").read_bytes() == before
    rc, report = cli_json(capsys, "import", "ragas", path, "--root", root, "--replace")
    assert rc == 0 and len(report["replaced"]) == 1 and len(report["unchanged"]) == 2
    assert any(r["expected_answer"].startswith("A laptop and a buddy") for r in questions_of(root))


def test_a_file_of_the_wrong_kind_says_what_it_is_and_which_format_reads_it(tmp_path, capsys):
    root = project(tmp_path)
    rc, _, err = cli(capsys, "import", "ragas", fixture(tmp_path, "llamaindex_rag_dataset.json"), "--root", root)
    assert rc == 2
    assert "this is a JSON object with the keys 'examples'" in err
    assert "did you mean `labeller import llamaindex`" in err
    rc, _, err = cli(capsys, "import", "llamaindex", fixture(tmp_path, "ragas_testset.csv"), "--root", root)
    assert rc == 2
    assert "this is CSV with the columns '', 'user_input', 'reference_contexts'" in err
    assert "did you mean `labeller import ragas`" in err
    rc, _, err = cli(capsys, "import", "deepeval", fixture(tmp_path, "ragas_0.1_testset.csv"), "--root", root)
    assert rc == 2 and "this is CSV" in err and "`labeller import ragas`" in err
    for fmt in ("label-studio", "pages-json"):  # every JSON importer sniffs alike
        rc, _, err = cli(capsys, "import", fmt, tmp_path / "llamaindex_rag_dataset.json", "--root", root)
        assert rc == 2 and "this is a JSON object with the keys 'examples'" in err
        assert "`labeller import llamaindex`" in err
    for fmt in ("yaml", "jsonl"):  # and the formats read by their own parsers
        rc, _, err = cli(capsys, "import", fmt, tmp_path / "ragas_testset.csv", "--root", root)
        assert rc == 2 and "this is CSV with the columns" in err and "`labeller import ragas`" in err
        rc, _, err = cli(capsys, "import", fmt, tmp_path / "llamaindex_rag_dataset.json", "--root", root)
        assert rc == 2 and "this is a JSON object with the keys 'examples'" in err
    table = tmp_path / "table.csv"
    table.write_text("a,b\n1,2\n", encoding="utf-8")
    rc, _, err = cli(capsys, "import", "ragas", table, "--root", root)
    assert rc == 2 and "this is CSV with the columns 'a', 'b'; `ragas` reads CSV" in err


def test_a_csv_cell_is_read_as_a_literal_never_run(tmp_path, capsys):
    root = project(tmp_path)
    planted = tmp_path / "planted"
    bad = tmp_path / "bad.csv"
    bad.write_text(f"user_input,reference_contexts\nq?,\"[__import__('os').system('touch {planted}')]\"\n",
                   encoding="utf-8")
    rc, _, err = cli(capsys, "import", "ragas", bad, "--root", root)
    assert rc == 2 and "bad.csv:2" in err and "reference_contexts is neither a JSON nor a Python literal" in err
    assert not planted.exists()
    for cell, reason in (("[" * 5000 + "]" * 5000, "neither a JSON nor a Python literal"),  # past the parsers' nesting
                         ("('a tuple',)", "must be a list, not"), ("[1e9999]", "must be a list of strings")):
        bad.write_text("user_input,reference_contexts\nq?,\"" + cell + "\"\n", encoding="utf-8")
        rc, _, err = cli(capsys, "import", "ragas", bad, "--root", root)
        assert rc == 2 and reason in err, (cell[:20], err)


def test_llamaindex_labelled_rag_dataset_reads_and_exports_back(tmp_path, capsys):
    root = project(tmp_path)
    rc, report = cli_json(capsys, "import", "llamaindex", fixture(tmp_path, "llamaindex_rag_dataset.json"),
                          "--root", root)
    assert rc == 0 and len(report["added"]) == 2
    recs = {r["query"]: r for r in questions_of(root)}
    claims = recs["Who approves claims over 500 euros?"]
    assert claims["id"].startswith("llamaindex-") and claims["expected_answer"] == "The manager, in writing."
    assert claims["metadata"]["query_by"] == {"model_name": "gpt-4o", "type": "ai"}
    built = spans(capsys, root)
    out = tmp_path / "rag.json"
    assert cli(capsys, "export", "llamaindex", "--dataset", "rag", "--root", root, "--out", out)[0] == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert [set(ex) for ex in exported["examples"]] == [
        {"query", "query_by", "reference_contexts", "reference_answer", "reference_answer_by"}] * 2
    assert exported["examples"][0]["query_by"] == {"model_name": "gpt-4o", "type": "ai"}
    again = project(tmp_path, "again")
    assert cli_json(capsys, "import", "llamaindex", out, "--root", again)[0] == 0
    assert spans(capsys, again) == built
    assert (again / "golden/questions.jsonl").read_bytes() == (root / "golden/questions.jsonl").read_bytes()


def test_ragas_export_reads_back_to_the_same_records_hops_and_metadata(tmp_path, capsys):
    root = project(tmp_path)
    for name in ("ragas_testset.csv", "ragas_0.1_testset.csv"):
        assert cli(capsys, "import", "ragas", fixture(tmp_path, name), "--root", root)[0] == 0
    out = tmp_path / "export.jsonl"
    assert cli(capsys, "export", "ragas", "--root", root, "--out", out)[0] == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    multi = next(r for r in rows if r["synthesizer_name"] == "multi_hop_specific_query_synthesizer")
    assert [c.split("\n\n")[0] for c in multi["reference_contexts"]] == ["<1-hop>", "<2-hop>"]
    again = project(tmp_path, "again")
    assert cli(capsys, "import", "ragas", out, "--root", again)[0] == 0
    assert (again / "golden/questions.jsonl").read_bytes() == (root / "golden/questions.jsonl").read_bytes()
    rc, report = cli_json(capsys, "import", "ragas", out, "--root", root)  # and into the original: a no-op
    assert rc == 0 and len(report["unchanged"]) == 5 and report["written"] is None


def test_llamaindex_nested_node_id_is_refused_naming_the_record(tmp_path, capsys):
    root = project(tmp_path)
    path = tmp_path / "ds.json"
    path.write_text(json.dumps({"queries": {"q1": "Who approves claims?"}, "corpus": {"n1": "text"},
                                "relevant_docs": {"q1": [["n1"]]}, "mode": "text"}), encoding="utf-8")
    rc, _, err = cli(capsys, "import", "llamaindex", path, "--root", root)
    assert rc == 2 and "ds.json" in err and "q1" in err and "must be a list of node ids" in err


def test_trec_qrels_over_a_pipelines_chunk_ids_become_span_labels(tmp_path, capsys):
    root = project(tmp_path)
    expenses = CORPUS["handbook/expenses.md"]
    chunks = tmp_path / "chunks.jsonl"
    claims = "Claims over 500 euros need the manager's written approval."
    chunks.write_text("".join(json.dumps(c) + "\n" for c in [
        {"id": "pipe-1", "doc": "handbook/expenses.md", "text": "# Expenses\n\n" + claims},
        {"id": "pipe-2", "doc": "handbook/onboarding.md", "text": "Accounts are created by the IT desk"},
        {"id": "pipe-3", "doc": "handbook/expenses.md", "start": expenses.index("Receipts"), "end": len(expenses)},
    ]), encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("t1 0 pipe-1 1\nt2 0 pipe-2 1\nt2 0 pipe-3 2\nt3 0 pipe-3 0\n", encoding="utf-8")
    topics = tmp_path / "topics.tsv"
    topics.write_text("t1\tWho approves claims?\nt2\tAccounts and receipts?\nt3\tWhat is unrelated?\n",
                      encoding="utf-8")
    rc, report = cli_json(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--chunks", chunks,
                          "--root", root)
    assert rc == 0 and report["added"] == ["t1", "t2", "t3"]
    built = spans(capsys, root)
    assert built["t1"] == [("handbook/expenses.md", "# Expenses\n\n" + claims)]
    assert built["t2"] == [("handbook/onboarding.md", "Accounts are created by the IT desk"),
                           ("handbook/expenses.md", "Receipts are kept for seven years, as the auditors require.")]
    assert built["t3"] == []  # judged only non-relevant: a negative
    rc, report = cli_json(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--root", project(tmp_path, "b"))
    assert rc == 1 and {k["kind"] for k in report["kept_out"]} == {"unknown_id"}  # without the chunk file


def test_a_judged_chunk_the_chunk_file_cannot_place_is_kept_out_with_its_reason(tmp_path, capsys):
    root = project(tmp_path)
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text("".join(json.dumps(c) + "\n" for c in [
        {"id": "pipe-1", "doc": "handbook/onboarding.md", "text": "Accounts are created by the IT desk"},
        {"id": "pipe-2", "doc": "handbook/onboarding.md", "text": "| --- | --- | [...] |"},
    ]), encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("t1 0 pipe-1 1\nt2 0 pipe-2 1\n", encoding="utf-8")
    topics = tmp_path / "topics.tsv"
    topics.write_text("t1\tWho creates accounts?\nt2\tWhat is in the table?\n", encoding="utf-8")
    rc, report = cli_json(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--chunks", chunks,
                          "--root", root)
    assert rc == 1 and report["added"] == ["t1"]
    (kept,) = report["kept_out"]
    assert kept["kind"] == "unplaced_chunk" and "chunk 'pipe-2'" in kept["message"] and "(line 2)" in kept["message"]


def test_beir_qrels_take_the_chunk_file_too(tmp_path, capsys):
    root = project(tmp_path)
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "b1", "text": "Who approves claims?"}) + "\n",
                                          encoding="utf-8")
    (folder / "corpus.jsonl").write_text("", encoding="utf-8")
    (folder / "qrels/test.tsv").write_text("query-id\tcorpus-id\tscore\nb1\tpipe-1\t1\n", encoding="utf-8")
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(json.dumps({"id": "pipe-1", "text": "Claims over 500 euros need the manager's written "
                                  "approval."}) + "\n", encoding="utf-8")
    rc, report = cli_json(capsys, "import", "beir", folder, "--chunks", chunks, "--root", root)
    assert rc == 0 and report["added"] == ["b1"]
    assert spans(capsys, root)["b1"] == [("handbook/expenses.md",
                                          "Claims over 500 euros need the manager's written approval.")]


CELLS = (st.text(max_size=12) | st.sampled_from(["", "[]", "['a']", '["a", 1]', "[[", "{'k': [1, 2]}", "True", "nan",
                                                  "['<2-hop>\\n\\nClaims over 500 euros need the manager\\'s "
                                                  "written approval.']", "('t',)", "[1e9999]", "{1: 2}"])
         .map(lambda c: c.replace("\x00", "")))  # NUL: no CSV writer emits it
COLUMNS = st.lists(st.sampled_from(["", "user_input", "question", "reference_contexts", "contexts", "reference",
                                    "ground_truth", "ground_truths", "synthesizer_name", "evolution_type", "metadata",
                                    "response"]), min_size=1, max_size=6, unique=True)


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory):
    return Project(load_config(write_project(tmp_path_factory.mktemp("fuzz"), CORPUS)))


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(COLUMNS, st.data())
def test_any_ragas_csv_gives_candidates_or_invalid_input(tmp_path, fuzz_project, columns, data):
    """Whatever cells a ragas CSV holds, reading it gives candidates or a documented
    InvalidInput naming the file; never a crash, never code run."""
    rows = data.draw(st.lists(st.lists(CELLS, min_size=len(columns), max_size=len(columns)), max_size=4))
    out = io.StringIO()
    csv.writer(out).writerows([columns, *rows])
    path = tmp_path / "fuzz.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    try:
        incoming = all_formats()["ragas"].read(path, fuzz_project, all_formats()["ragas"].defaults(Direction.IMPORT))
        plan_import(fuzz_project, incoming, str(path))
    except InvalidInput as exc:
        assert str(path) in str(exc) or exc.path == str(path)
