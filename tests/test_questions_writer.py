"""The one writer of questions.jsonl: the minimal edit, checked as the loader checks, atomic;
every line the edit does not touch stays byte for byte what it was."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.config import Limits
from labeller.core.models import Question
from labeller.core.questions import load_questions, parse_questions, prepare_questions, write_questions
from labeller.errors import InvalidInput


def rec(rid: str, query: str | None = None, quote: str = "Rotate") -> dict:
    return {"id": rid, "query": query or f"question {rid}?", "expected_answer": "",
            "locators": [{"doc": "ops.md", "quote": quote}]}


def question(rid: str, query: str | None = None, quote: str = "Rotate") -> Question:
    return Question.model_validate(rec(rid, query, quote))


# Hand-written bytes a re-serialising writer would change: a BOM, CRLF endings, odd spacing and
# key order, a comment, a blank line, and no newline at the end.
ORIGINAL = ("\ufeff// hand-written; keep me\r\n"
            '{ "query": "question q1?",  "id": "q1", "expected_answer": "", "locators": [{"doc": "ops.md", '
            '"quote": "Rotate"}] }\r\n'
            "\r\n"
            + json.dumps(rec("q2"), indent=None, separators=(",", ":")) + "\n"
            + json.dumps(rec("q3")) + "  ").encode("utf-8")


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "questions.jsonl"
    p.write_bytes(ORIGINAL)
    return p


def lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def test_changing_one_record_rewrites_only_its_line(path):
    qf = load_questions(path)
    written = write_questions(qf, changed=[question("q2", "a better question?")])
    before, after = lines(ORIGINAL), lines(path.read_bytes())
    assert len(before) == len(after)
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert changed == [3]
    assert json.loads(after[3])["query"] == "a better question?" and after[3].endswith(b"\n")
    assert written.source_sha256 == load_questions(path).source_sha256


def test_a_changed_record_equal_to_the_file_keeps_its_bytes(path):
    qf = load_questions(path)
    write_questions(qf, changed=[question("q1")])  # same record, different spelling on disk
    assert path.read_bytes() == ORIGINAL


def test_delete_and_add_touch_nothing_else(path):
    qf = load_questions(path)
    write_questions(qf, deleted=["q1"], added=[question("q4")])
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf// hand-written; keep me\r\n\r\n")  # q1's line (and only it) is gone
    assert lines(ORIGINAL)[3] in lines(data)
    q3_then_q4 = (json.dumps(rec("q3")) + "  \n" + json.dumps(question("q4").as_json(), ensure_ascii=False))
    assert data.decode("utf-8").endswith(q3_then_q4 + "\n")  # the unterminated last line got its newline
    assert [q.id for q in load_questions(path).questions] == ["q2", "q3", "q4"]


def test_an_edit_the_loader_would_refuse_writes_nothing(path):
    qf = load_questions(path)
    with pytest.raises(InvalidInput, match="same query as record 'q1'.*nothing was written"):
        write_questions(qf, added=[question("q9", "question q1?")])
    with pytest.raises(InvalidInput, match="over the bound of 600"):
        write_questions(qf, added=[question("q9", "x" * 400)], limits=Limits(max_file_bytes=600))
    with pytest.raises(InvalidInput, match="not in the questions file"):
        write_questions(qf, changed=[question("q7")])
    with pytest.raises(InvalidInput, match="already in the questions file"):
        write_questions(qf, added=[question("q2", "new text?")])
    assert path.read_bytes() == ORIGINAL


def test_prepare_is_the_same_edit_without_the_write(path):
    qf = load_questions(path)
    prepared = prepare_questions(qf, added=[question("q4")])
    assert path.read_bytes() == ORIGINAL
    write_questions(qf, added=[question("q4")])
    assert path.read_bytes() == b"\xef\xbb\xbf" + prepared.render().encode("utf-8")


def test_a_save_over_a_file_changed_on_disk_can_be_refused(path):
    qf = load_questions(path)
    path.write_bytes(ORIGINAL + b"\n")
    with pytest.raises(InvalidInput, match="changed on disk"):
        write_questions(qf, changed=[question("q2", "mine?")], check_unchanged_on_disk=True)
    assert path.read_bytes() == ORIGINAL + b"\n"


# -- by property: any file, any edit ------------------------------------------------------------

_SPELLINGS = [lambda r: json.dumps(r), lambda r: json.dumps(r, separators=(",", ":")),
              lambda r: " " + json.dumps(dict(reversed(list(r.items())))) + "\t",
              lambda r: json.dumps(r, ensure_ascii=False)]


@st.composite
def files_and_edits(draw):
    n = draw(st.integers(1, 8))
    ids = [f"q{i}" for i in range(n)]
    lines = []
    for rid in ids:
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "// a comment", "   ", "// ünïcode ✓"])))
        lines.append(draw(st.sampled_from(_SPELLINGS))(rec(rid, f"what about {rid} ✓?")))
    eols = [draw(st.sampled_from(["\n", "\r\n"])) for _ in lines]
    last = draw(st.sampled_from(["\n", "\r\n", ""]))
    text = "".join(line + eol for line, eol in zip(lines, eols))[: -len(eols[-1])] + last
    changed = draw(st.lists(st.sampled_from(ids), unique=True))
    deleted = draw(st.lists(st.sampled_from([i for i in ids if i not in changed] or ["-"]), unique=True))
    deleted = [d for d in deleted if d != "-"]
    added = draw(st.integers(0, 3))
    return text, changed, deleted, added


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(files_and_edits())
def test_any_edit_changes_exactly_the_edited_lines(tmp_path_factory, case):
    text, changed, deleted, n_added = case
    path = tmp_path_factory.mktemp("w") / "questions.jsonl"
    path.write_bytes(text.encode("utf-8"))
    qf = load_questions(path)
    edits = {rid: question(rid, f"rewritten {rid}?") for rid in changed}
    new = [question(f"n{i}", f"new {i}?") for i in range(n_added)]
    write_questions(qf, changed=list(edits.values()), added=new, deleted=deleted)
    after = path.read_bytes().decode("utf-8")
    # what the file says is exactly the edit ...
    expect = [edits.get(q.id, q) for q in qf.questions if q.id not in deleted] + new
    assert parse_questions(after).questions == expect
    # ... and every line of the old file that held no edited record is still there, byte for byte, in order
    touched = {qf.line_of(rid) for rid in [*changed, *deleted]}
    kept = [line for n, line in enumerate(text.splitlines(keepends=True), 1) if n not in touched]
    body = after.splitlines(keepends=True)
    it = iter(body)
    for line in kept:
        if line.endswith("\n") or not new:
            assert any(b == line for b in it), (line, body)
        else:  # the unterminated last line gained the newline the appended records need
            assert any(b == line + "\n" for b in it), (line, body)


def test_a_restored_record_returns_to_its_place(tmp_path):
    """Undoing a delete after a save gives back a record that is new to the file: with
    ``after`` it goes back where it was, so the file keeps the order the author sees (and the
    artifact, built in that order, matches the file)."""
    from labeller.core.questions import load_questions, write_questions

    path = tmp_path / "questions.jsonl"
    recs = [{"id": f"q{i}", "query": f"question {i}?", "expected_answer": "a",
             "locators": [{"quote": f"word{i}"}]} for i in range(1, 5)]
    path.write_text("// header\n" + "".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    qf = load_questions(path)
    q2, q3 = qf.questions[1], qf.questions[2]
    without = write_questions(qf, deleted=["q2", "q3"])
    back = write_questions(without, added=[q2, q3], after={"q2": "q1", "q3": "q2"})
    assert path.read_text(encoding="utf-8") == "// header\n" + "".join(json.dumps(r) + "\n" for r in recs)
    assert [q.id for q in back.questions] == ["q1", "q2", "q3", "q4"]
    plain = write_questions(without, added=[q2])  # no anchor: appended, as before
    assert [q.id for q in plain.questions] == ["q1", "q4", "q2"]


def test_a_changed_record_keeps_its_line_s_key_order(tmp_path):
    """A repair changes a locator's ``doc``: the diff a reviewer reads must be that value, not the
    record's fields reordered into the model's order (a line written by hand, by an older
    labeller or another tool). Keys the line lacks come after its own, in the model's order."""
    path = tmp_path / "questions.jsonl"
    line = {"query": "where is it?", "id": "q1", "expected_answer": "", "split": "dev",
            "locators": [{"quote": "Rotate", "doc": "guides/ops.md"}, {"quote": "Drain", "doc": "ops.md"}],
            "hop": "multi"}
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n" + json.dumps(rec("q2")) + "\n", encoding="utf-8")
    qf = load_questions(path)
    (q1, _) = qf.questions
    moved = q1.model_copy(update={"locators": [q1.locators[0].model_copy(update={"doc": "how-to/ops.md"}),
                                               q1.locators[1]]})
    write_questions(qf, changed=[moved])
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == json.dumps(line).replace('"guides/ops.md"', '"how-to/ops.md"')
    tagged = moved.model_copy(update={"tags": ["ops"], "locators": [*moved.locators, q1.locators[1].model_copy(
        update={"quote": "Cordon", "prefix": "then "})]})
    write_questions(load_questions(path), changed=[tagged])
    out = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert list(out) == ["query", "id", "expected_answer", "split", "locators", "hop", "tags"]
    assert [list(loc) for loc in out["locators"]] == [["quote", "doc"], ["quote", "doc"], ["doc", "quote", "prefix"]]
