"""One guarded JSON/JSONL reader: every file labeller reads as JSON refuses a nesting bomb,
a duplicate key and bad UTF-8 by file and line, and never raises RecursionError.

Every hostile file is built in the test (no committed binaries).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import q, write_project
from labeller.app.journal import Journal
from labeller.cli import main
from labeller.config import load_config
from labeller.core.build import build
from labeller.core.check import check
from labeller.core.project import Project
from labeller.core.questions import load_questions
from labeller.errors import InvalidInput
from labeller.eval.report import read_report
from labeller.interop import FORMATS
from labeller.io import MAX_JSON_DEPTH, parse_json, parse_jsonl
from labeller.review.annotations import load_annotations
from labeller.review.log import new_entry, read_review_log

BOMB = "[" * 100_000
DOC = "# Ops\n\nRotate the API key every ninety days.\n\n## Backups\n\nBackups run nightly.\n"
GOOD_Q = q("q1", {"doc": "ops.md", "quote": "Rotate the API key"})


@pytest.fixture
def project(tmp_path) -> Project:
    root = write_project(tmp_path / "p", {"ops.md": DOC}, [GOOD_Q])
    return Project(load_config(root))


def _line_one_then(hostile: str, first: dict | str) -> str:
    first = first if isinstance(first, str) else json.dumps(first)
    return f"{first}\n{hostile}\n"


def _review_line(project: Project) -> str:
    question = project.load_questions().questions[0]
    return json.dumps(new_entry(question, "alice", "accept").as_json())


def read_questions(project: Project, hostile: str) -> Path:
    path = project.config.questions
    path.write_text(_line_one_then(hostile, GOOD_Q), encoding="utf-8")
    load_questions(path, project.config.limits)
    return path


def read_reviews(project: Project, hostile: str) -> Path:
    path = project.layout.review_log
    path.write_text(_line_one_then(hostile, _review_line(project)), encoding="utf-8")
    read_review_log(path)
    return path


def read_annotations(project: Project, hostile: str) -> Path:
    path = project.layout.annotation("bob")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_line_one_then(hostile, {"record_id": "q1", "locators": []}), encoding="utf-8")
    load_annotations(project.config, "bob")
    return path


def import_jsonl(project: Project, hostile: str) -> Path:
    path = project.config.root / "in.jsonl"
    path.write_text(_line_one_then(hostile, GOOD_Q), encoding="utf-8")
    FORMATS.load("jsonl").read(path, project, SimpleNamespace())
    return path


def import_beir(project: Project, hostile: str) -> Path:
    folder = project.config.root / "beir"
    (folder / "qrels").mkdir(parents=True)
    path = folder / "queries.jsonl"
    path.write_text(_line_one_then(hostile, {"_id": "a", "text": "why?"}), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n", encoding="utf-8")
    FORMATS.load("beir").read(folder, project, SimpleNamespace(split=None))
    return path


def import_pages_json(project: Project, hostile: str) -> Path:
    path = project.config.root / "pages.json"
    path.write_text("[\n" + hostile + "\n]\n", encoding="utf-8")
    FORMATS.load("pages-json").read(path, project, SimpleNamespace())
    return path


def baseline_report(project: Project, hostile: str) -> Path:
    path = project.config.root / "baseline.json"
    path.write_text('{"schema":\n' + hostile + "\n}\n", encoding="utf-8")
    read_report(path)
    return path


def app_journal(project: Project, hostile: str) -> Path:
    path = project.layout.journal
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"format":\n' + hostile + "\n}\n", encoding="utf-8")
    Journal(path).read()  # JournalError is an InvalidInput: the app sets the journal aside and says why
    return path


READERS = [read_questions, read_reviews, read_annotations, import_jsonl, import_beir, import_pages_json,
           baseline_report, app_journal]
# Not here: the committed artifact/manifest, whose damage is drift (exit 1) — tested below.


def _where(exc: InvalidInput) -> list[tuple[str | None, int | None, str]]:
    """Every (path, line, message) an error names, in its details or itself."""
    found = [(d.get("path"), d.get("line"), d["message"]) for d in exc.details]
    return found or [(exc.path, exc.line, exc.reason)]


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.__name__)
def test_a_nesting_bomb_is_refused_by_file_and_line(project, reader):
    with pytest.raises(InvalidInput) as caught:  # a RecursionError would fail the test
        reader(project, BOMB)
    [(path, line, message)] = _where(caught.value)
    assert Path(path).name in {"questions.jsonl", "reviews.jsonl", "bob.jsonl", "in.jsonl", "queries.jsonl",
                               "pages.json", "baseline.json", "journal.json"}
    assert line == 2 and "nested too deeply" in message


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.__name__)
def test_a_duplicate_key_is_refused_by_file_and_line(project, reader):
    dup = '{"id": "q2", "id": "q3", "_id": "x", "_id": "y", "record_id": "a", "record_id": "b"}'
    with pytest.raises(InvalidInput) as caught:
        reader(project, dup)
    found = _where(caught.value)
    assert any("duplicate key" in m for _, _, m in found), found
    assert all(line in (2, None) for _, line, _ in found)


@pytest.mark.parametrize("reader", [read_questions, read_annotations, import_jsonl, import_beir],
                         ids=lambda r: r.__name__)
def test_bad_utf8_is_named_with_its_byte_offset(project, reader, monkeypatch):
    real = Path.write_text

    def write_with_bad_byte(self, text, *a, **k):  # the reader's file gets one undecodable byte on line 2
        first, _, rest = text.partition("\n")
        self.write_bytes(first.encode() + b"\n\xff" + rest.encode())
        return 0

    monkeypatch.setattr(Path, "write_text", write_with_bad_byte)
    try:
        with pytest.raises(InvalidInput) as caught:
            reader(project, "{}")
    finally:
        monkeypatch.setattr(Path, "write_text", real)
    found = _where(caught.value)
    assert any("not valid UTF-8 at byte" in m for _, _, m in found), found


def test_review_summary_and_require_reviewed_exit_2_on_a_hostile_review_log(project, capsys):
    root = str(project.config.root)
    assert main(["build", "--root", root]) == 0
    log = project.layout.review_log
    log.write_text(_line_one_then(BOMB, _review_line(project)), encoding="utf-8")
    capsys.readouterr()
    for argv in (["review", "--summary"], ["build", "--check", "--require-reviewed"]):
        assert main([*argv, "--root", root]) == 2, argv
        err = capsys.readouterr().err
        assert f"{log}:2" in err and "nested too deeply" in err and "Traceback" not in err


def test_a_torn_or_malformed_review_line_is_still_only_a_warning(project, capsys):
    log = project.layout.review_log
    log.write_text(_line_one_then('{"record_id": "q1", "rev', _review_line(project)) + '{"torn', encoding="utf-8")
    got = read_review_log(log)
    assert [p.line for p in got.problems] == [2, 3] and len(got.entries) == 1


@pytest.mark.parametrize("which", ["artifact", "manifest"])
def test_a_hostile_committed_artifact_or_manifest_is_drift_not_a_crash(project, which):
    result = build(project, project.load_questions().questions)
    lay = project.layout
    lay.out.mkdir(parents=True, exist_ok=True)
    lay.artifact.write_bytes(result.artifact_bytes() + (BOMB + "\n").encode() if which == "artifact"
                             else result.artifact_bytes())
    lay.manifest.write_text(BOMB if which == "manifest" else result.manifest_bytes().decode(), encoding="utf-8")
    drift = check(result, lay.artifact, lay.manifest)
    assert not drift.ok
    wanted = "artifact line 2 is not a valid record" if which == "artifact" else "manifest is not valid JSON"
    assert any(wanted in p for p in drift.problems), drift.problems


# -- the reader itself ---------------------------------------------------------------------------


def test_depth_is_counted_outside_strings_only_and_the_bound_is_exact():
    assert parse_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    with pytest.raises(InvalidInput, match="nested too deeply"):
        parse_json("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "f.json", 7)
    assert parse_json(json.dumps({"quote": "[" * 500 + '\\"{' * 50})) == {"quote": "[" * 500 + '\\"{' * 50}
    # an escaped backslash ends its string: the brackets after it are structure again
    deep = json.dumps(["\\"])[:-1] + ", " + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "]"
    with pytest.raises(InvalidInput, match="nested too deeply"):
        parse_json(deep)


def test_lines_keep_their_endings_comments_only_where_allowed_and_a_bom_is_dropped():
    text = '\ufeff{"a": 1}\r\n// note\n\n{"b": 2}'
    lines = parse_jsonl(text, "x.jsonl", comments=True)
    assert [(j.line, j.raw, j.eol, j.skipped) for j in lines] == [
        (1, '{"a": 1}', "\r\n", False), (2, "// note", "\n", True), (3, "", "\n", True), (4, '{"b": 2}', "", False)]
    assert not lines[-1].terminated and lines[0].value == {"a": 1}
    strict = parse_jsonl(text, "x.jsonl")
    assert strict[1].error is not None and not strict[1].skipped


def test_huge_numbers_are_an_error_not_a_traceback():
    [line] = parse_jsonl(b'{"n": ' + b"9" * 5000 + b"}\n", "n.jsonl")
    assert line.error is not None and line.hostile and "digits" in line.error


def test_a_bad_byte_names_its_offset_in_the_file():
    lines = parse_jsonl(b'{"a": 1}\n{"b": "\xc3"}\n', "u.jsonl")
    assert lines[0].error is None and lines[1].error == "not valid UTF-8 at byte 16"


@pytest.mark.parametrize("which", ["artifact", "manifest"])
@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_a_committed_file_that_is_not_a_regular_file_is_refused_not_followed(project, which, kind, tmp_path):
    import os

    result = build(project, project.load_questions().questions)
    lay = project.layout
    lay.out.mkdir(parents=True, exist_ok=True)
    lay.artifact.write_bytes(result.artifact_bytes())
    lay.manifest.write_bytes(result.manifest_bytes())
    target = lay.artifact if which == "artifact" else lay.manifest
    target.unlink()
    if kind == "symlink":
        target.symlink_to("/dev/zero")
    else:
        os.mkfifo(target)  # reading it would block forever
    with pytest.raises(InvalidInput, match="symlink" if kind == "symlink" else "not a regular file"):
        check(result, lay.artifact, lay.manifest)
