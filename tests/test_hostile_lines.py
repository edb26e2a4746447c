"""Line-oriented label files cost memory and time by their records, not by their blank lines.

A fork may raise ``[limits] max_file_bytes`` and commit a questions.jsonl of newlines: 8 MB of
them made ``build --check`` take 46 s and 2.5 GB (at the 256 MiB ceiling, an out-of-memory
kill). Files whose lines are records are refused over ``Limits.max_lines`` lines before a
line is parsed; TSV, qrels and chunk files skip blank lines without keeping them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import q, write_project
from helpers_interop import cli
from labeller.config import Limits, load_config
from labeller.core.chunkfile import parse_chunk_file
from labeller.core.corpus import Corpus
from labeller.core.project import Project
from labeller.core.questions import load_questions, parse_questions
from labeller.errors import InvalidInput
from labeller.io import nonblank_lines
from labeller.review.annotations import load_annotations

DOC = "# Ops\n\nRotate the API key every ninety days.\n"
GOOD = q("q1", {"doc": "ops.md", "quote": "Rotate the API key"})
TOML = "[limits]\nmax_records = 1\n"
BOUND = Limits(max_records=1).max_lines


@pytest.fixture
def root(tmp_path):
    return write_project(tmp_path / "p", {"ops.md": DOC}, [GOOD], TOML)


def _line_then_blanks(line: str, blanks: int) -> str:
    return line + "\n" + "\n" * blanks


def test_a_questions_file_of_newlines_is_refused_before_it_is_parsed(root, capsys):
    path = root / "golden/questions.jsonl"
    path.write_text(_line_then_blanks(json.dumps(GOOD), BOUND - 1))  # at the bound: read
    assert cli(capsys, "build", "--check", "--root", root)[0] in (0, 1)
    path.write_text(_line_then_blanks(json.dumps(GOOD), BOUND))
    rc, out, err = cli(capsys, "build", "--check", "--root", root)
    assert rc == 2 and out == ""
    assert (f"{path}:{BOUND + 1}: questions file has {BOUND + 1:,} lines, over the bound of {BOUND:,} "
            "(raise [limits] max_records)") in err


def test_a_run_of_comment_and_blank_lines_is_one_entry_and_kept_byte_for_byte():
    text = ("// header\r\n\n   \n" + json.dumps(GOOD) + "\n\n\n// between\n"
            + json.dumps(q("q2", {"doc": "ops.md", "quote": "ninety days"})) + "\n\n")
    qf = parse_questions(text)
    assert [e.line for e in qf.entries] == [1, 4, 5, 8, 9]  # 9 lines: 2 records, 3 runs
    assert qf.render() == text
    edited = qf.edited(deleted=["q1"])
    assert edited.render() == "// header\r\n\n   \n\n\n// between\n" + text.split("// between\n")[1]


def test_an_annotation_file_of_newlines_is_refused(root):
    project = Project(load_config(root))
    path = project.layout.annotation("bob")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_line_then_blanks(json.dumps({"record_id": "q1", "locators": []}), BOUND))
    with pytest.raises(InvalidInput, match=f"annotation file has {BOUND + 1:,} lines, over the bound") as err:
        load_annotations(project.config, "bob")
    assert err.value.path == str(path) and err.value.line == BOUND + 1 and err.value.exit_code == 2


def test_a_beir_queries_file_of_newlines_is_refused(root, capsys, tmp_path):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "queries.jsonl").write_text(_line_then_blanks(json.dumps({"_id": "q1", "text": "rotate?"}), BOUND))
    (folder / "qrels/test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tops.md\t1\n")
    rc, out, err = cli(capsys, "import", "beir", folder, "--root", root)
    assert rc == 2 and f"{folder / 'queries.jsonl'}:{BOUND + 1}: BEIR queries file has" in err
    assert "raise [limits] max_records in labeller.toml" in err


@pytest.mark.parametrize("fmt, line, what", [
    ("doccano", {"text": "rotate?", "label": []}, "doccano"),
    ("deepeval", {"input": "rotate?"}, "DeepEval goldens"),
    ("ragas", {"user_input": "rotate?"}, "ragas test set"),
])
def test_a_jsonl_import_of_newlines_is_refused(root, capsys, tmp_path, fmt, line, what):
    path = tmp_path / "in.jsonl"
    path.write_text(_line_then_blanks(json.dumps(line), BOUND))
    rc, out, err = cli(capsys, "import", fmt, path, "--root", root)
    assert rc == 2 and f"{path}:{BOUND + 1}: {what} file has {BOUND + 1:,} lines, over the bound" in err


def test_a_chunk_file_over_its_bound_names_the_first_chunk_over_and_keeps_no_more():
    from labeller.core.corpus import make_document
    corpus = Corpus.from_documents([make_document("ops.md", DOC)])
    chunk = json.dumps({"id": "c", "doc": "ops.md", "start": 0, "end": 5})
    with pytest.raises(InvalidInput, match=r"more than 2 chunks, over the bound of 2") as err:
        parse_chunk_file(f"{chunk}\n\n{chunk}\n\n\n{chunk}\n{chunk}\n", corpus, path="c.jsonl", max_chunks=2)
    assert err.value.line == 6


@given(st.text(alphabet="\n\r \t\u00a0\u2028\x0bab", max_size=40))
def test_nonblank_lines_are_the_numbered_lines_split_keeps_that_are_not_all_space(text):
    assert list(nonblank_lines(text)) == [(n, raw) for n, raw in enumerate(text.split("\n"), 1) if raw.strip()]


def test_qrels_and_topics_errors_name_their_line_after_blank_lines(root, capsys, tmp_path):
    """The streamed TSV readers number lines as before: blank lines count, CRLF is kept out."""
    topics, qrels = tmp_path / "topics.tsv", tmp_path / "qrels.txt"
    topics.write_text("\r\n\nq1\trotate?\r\n\n  \nbroken\n")
    qrels.write_text("q1 0 ops.md 1\n")
    rc, _, err = cli(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--root", root)
    assert rc == 2 and f"{topics}:6: expected 'query-id<TAB>query text'" in err
    topics.write_text("q1\trotate?\n")
    qrels.write_text("\n\nq1 0 ops.md 1\n\t\nq1 0\n")
    rc, _, err = cli(capsys, "import", "trec-qrels", qrels, "--queries", topics, "--root", root)
    assert rc == 2 and f"{qrels}:5: expected 4 fields" in err
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "rotate?"}) + "\n")
    (folder / "qrels/test.tsv").write_text("\nquery-id\tcorpus-id\tscore\n")  # the header must be line 1
    rc, _, err = cli(capsys, "import", "beir", folder, "--root", root)
    assert rc == 2 and f"{folder / 'qrels/test.tsv'}:1: the first line must be the header" in err
    (folder / "qrels/test.tsv").write_text("query-id\tcorpus-id\tscore\r\n\r\nq1\tops.md\t1\r\n\n\nq1\tops.md\n")
    rc, _, err = cli(capsys, "import", "beir", folder, "--root", root)
    assert rc == 2 and f"{folder / 'qrels/test.tsv'}:6: expected 3 tab-separated fields, found 2" in err


def test_a_questions_file_within_the_bound_loads_as_before(root):
    path = root / "golden/questions.jsonl"
    text = "// c\n\n" + json.dumps(GOOD) + "\n\n"
    path.write_text(text)
    qf = load_questions(path, Limits(max_records=1))
    assert [x.id for x in qf.questions] == ["q1"] and qf.render() == text


def test_a_committed_artifact_of_newlines_is_refused_before_it_is_parsed(root, capsys, monkeypatch):
    """8 MB of newlines as golden-set.v1.jsonl took build --check 27 s (a line at a time, each
    a problem to parse); the 512 MiB bound on a committed file allowed 64 times that."""
    from labeller.app.session.stale import CommittedState
    from labeller.core import check
    monkeypatch.setattr(check, "MAX_RECORDS", 3)
    assert cli(capsys, "build", "--root", root)[0] == 0
    artifact = root / "golden/golden-set.v1.jsonl"
    artifact.write_text("\n" * 3)  # at the bound: read, and drift
    assert cli(capsys, "build", "--check", "--root", root)[0] == 1
    artifact.write_text("\n" * 4)
    rc, out, err = cli(capsys, "build", "--check", "--root", root)
    assert rc == 2 and f"{artifact}:4: committed golden-set artifact has 4 lines, over the bound of 3" in err
    project = Project(load_config(root))
    assert CommittedState.read(project.config, project) == CommittedState()  # the app: no stale marks, no crash


def test_a_review_log_of_newlines_is_refused_before_it_is_parsed(root, monkeypatch):
    """8 MB of newlines as reviews.jsonl took build --check 31 s for its summary's counts; the
    64 MiB bound allowed eight times that."""
    from labeller.review import log
    monkeypatch.setattr(log, "MAX_LOG_LINES", 3)
    path = root / "golden/reviews.jsonl"
    path.write_text("\n" * 3)
    assert log.read_review_log(path).entries == []
    path.write_text("\n" * 4)
    with pytest.raises(InvalidInput, match="review log has 4 lines, over the bound of 3") as err:
        log.read_review_log(path)
    assert err.value.path == str(path) and err.value.line == 4


def test_a_merged_side_of_newlines_is_refused_before_it_is_parsed(monkeypatch):
    """The merge driver reads three sides of up to 64 MiB: of newlines, that was 200 million
    line objects. A side is bounded by the longest questions.jsonl a labeller.toml allows."""
    from labeller.core import merge3
    monkeypatch.setattr(merge3, "MAX_SIDE_LINES", 3)
    record = (json.dumps(GOOD) + "\n").encode()
    merged = merge3.merge_bytes(record, record + b"\n\n", record, ("base", "ours", "theirs"))
    assert merged.text == record.decode() + "\n\n"  # at the bound: merged
    with pytest.raises(InvalidInput, match="merged file has 4 lines, over the bound of 3") as err:
        merge3.merge_bytes(record, record + b"\n\n\n", record, ("base", "ours", "theirs"))
    assert err.value.path == "ours" and err.value.line == 4
