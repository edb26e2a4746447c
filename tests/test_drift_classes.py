"""``build --check``'s drift classes (SPEC §13, issue 35 point 4): a record whose answer text
changed is told apart from one whose offsets or chunk ids merely moved, the committed text
being found in git by the manifest's per-document sha256."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import q, write_project
from labeller.cli import main

DOC = ("# Guide\n\nThe opening paragraph says hello.\n\n"
       "The alpha paragraph explains retention of nine days.\n\nBeta keeps the lighthouse keeper.\n")
RECORDS = [q("r1", {"quote": "retention of nine days"}), q("r2", {"quote": "lighthouse keeper"})]
INSERTED = DOC.replace("# Guide\n\n", "# Guide\n\nA paragraph inserted above every label.\n\n")
REWORDED = DOC.replace("The alpha paragraph explains", "The alpha paragraph no longer explains")

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


def committed_project(root: Path, *, with_git: bool = True) -> Path:
    """The example built and, ``with_git``, committed with its corpus."""
    write_project(root, {"a.md": DOC}, RECORDS)
    assert main(["build", "--root", str(root)]) == 0
    if with_git:
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "build")
    return root


def check_json(root: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check", "--format", "json"]) == 1
    return json.loads(capsys.readouterr().out)["drift"]


def test_a_paragraph_inserted_above_moves_offsets_and_changes_no_answer_text(tmp_path, capsys):
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(INSERTED)
    drift = check_json(root, capsys)
    assert drift["records_changed"] == ["r1", "r2"]  # the existing field, as it was
    assert drift["answer_text_changed"] == [] and drift["answer_text_not_comparable"] == []
    assert drift["derived_only"] == ["r1", "r2"]
    assert drift["class_counts"] == {"answer_text_changed": 0, "answer_text_not_comparable": 0, "edited_only": 0,
                                     "derived_only": 2}


def test_an_edit_to_a_labelled_paragraph_outside_its_quote_is_answer_text_changed(tmp_path, capsys):
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(REWORDED)
    drift = check_json(root, capsys)
    assert drift["answer_text_changed"] == ["r1"]  # its quote still resolves; its paragraph says otherwise
    assert drift["derived_only"] == ["r2"]  # only shifted by the longer sentence above it


def test_the_committed_text_is_found_at_the_revision_that_committed_the_manifest(tmp_path, capsys):
    """A pull request that edited the corpus and did not rebuild: HEAD holds the new text, the
    commit before (the last to commit the manifest) the one the artifact was built from."""
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(INSERTED)
    git(root, "commit", "-q", "-am", "corpus edit without a rebuild")
    drift = check_json(root, capsys)
    assert drift["derived_only"] == ["r1", "r2"] and drift["answer_text_not_comparable"] == []


def test_without_git_a_changed_document_is_not_comparable_and_an_unchanged_one_is(tmp_path, capsys):
    root = committed_project(tmp_path / "p", with_git=False)
    (root / "corpus" / "b.md").write_text("# Other\n\nUnrelated.\n")  # a.md unchanged: its text is the current one
    lines = (root / "golden" / "questions.jsonl").read_text().replace("question r2?", "who keeps the light?")
    (root / "golden" / "questions.jsonl").write_text(lines)
    drift = check_json(root, capsys)
    assert drift["edited_only"] == ["r2"] and drift["answer_text_changed"] == []
    (root / "corpus" / "a.md").write_text(INSERTED)
    drift = check_json(root, capsys)
    assert drift["answer_text_not_comparable"] == ["r1", "r2"] and drift["derived_only"] == []


def test_a_wrong_text_at_head_is_never_taken_for_the_committed_one(tmp_path, capsys):
    """HEAD's a.md is not the text the manifest pins (the working tree's build was never
    committed): the sha256 check refuses it, and the records are not comparable rather than
    compared with the wrong words."""
    root = write_project(tmp_path / "p", {"a.md": REWORDED}, RECORDS)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "corpus only")
    (root / "corpus" / "a.md").write_text(DOC)
    assert main(["build", "--root", str(root)]) == 0  # built from DOC, never committed
    (root / "corpus" / "a.md").write_text(INSERTED)
    drift = check_json(root, capsys)
    assert drift["answer_text_not_comparable"] == ["r1", "r2"]


def test_a_planted_span_past_its_document_is_not_comparable_not_a_crash(tmp_path, capsys):
    root = committed_project(tmp_path / "p", with_git=False)
    artifact = root / "golden" / "golden-set.v1.jsonl"
    artifact.write_text(re.sub(r'"char_end": \d+', '"char_end": 99999999', artifact.read_text(), count=1))
    drift = check_json(root, capsys)
    assert drift["answer_text_not_comparable"] == ["r1"]


def test_text_and_markdown_lead_with_the_records_to_re_read(tmp_path, capsys):
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(REWORDED)
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check"]) == 1
    err = capsys.readouterr().err
    assert re.search(r"answer text changed: 1 record\(s\) to re-read: r1\n", err)
    assert err.index("answer text changed") < err.index("derived only: 1 record(s)")
    assert main(["build", "--root", str(root), "--check", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    body = out.split("\n\n", 2)[2]  # after the title and the one-line verdict
    assert body.startswith("**Re-read 1 record(s)**: their answer text changed: r1. 1 derived only")


def test_span_text_compared_is_bounded_past_it_records_are_not_comparable(tmp_path, capsys, monkeypatch):
    """A committed artifact comes with the pull request: its spans could ask for terabytes of
    text to fold. Past ``MAX_COMPARED_CHARS`` the later records are not comparable."""
    from labeller.core import drift_classes

    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(INSERTED)
    r1_chars = len("The alpha paragraph explains retention of nine days.\n")
    monkeypatch.setattr(drift_classes, "MAX_COMPARED_CHARS", 2 * r1_chars)  # r1's old and new span, no more
    drift = check_json(root, capsys)
    assert drift["derived_only"] == ["r1"] and drift["answer_text_not_comparable"] == ["r2"]


# Drift beside refusals (own-issue candidate 19): one broken label must not hide the answer
# texts a change rewrote elsewhere; the labels that still resolve are compared anyway.
BROKEN_R2 = "lighthouse keeper", "lamp keeper"


def refused_check(root: Path, capsys, fmt: str) -> str:
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check", "--format", fmt]) == 1
    captured = capsys.readouterr()
    return captured.out if fmt != "text" else captured.err


def test_a_broken_label_does_not_hide_an_answer_text_changed_beside_it(tmp_path, capsys):
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(REWORDED.replace(*BROKEN_R2))
    report = json.loads(refused_check(root, capsys, "json"))
    assert [e["id"] for e in report["errors"]] == ["r2"] and "drift" not in report
    beside = report["drift_beside_refusals"]
    assert beside["answer_text_changed"] == ["r1"] and beside["derived_only"] == []
    assert beside["class_counts"] == {"answer_text_changed": 1, "answer_text_not_comparable": 0, "edited_only": 0,
                                      "derived_only": 0}
    err = refused_check(root, capsys, "text")
    assert "build refused: 1 label error(s); the check fails until they are fixed\n" in err
    assert re.search(r"beside the refusals, in the labels that still resolve:\n"
                     r"  answer text changed: 1 record\(s\) to re-read: r1\n", err)
    comment = refused_check(root, capsys, "markdown")
    assert comment.index("| r2 | not\\_found |") < comment.index(
        "Among the labels that still resolve: **Re-read 1 record(s)**: their answer text changed: r1.")


def test_beside_refusals_a_shifted_label_is_derived_only_and_refused_or_new_ones_are_not_compared(tmp_path, capsys):
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(INSERTED.replace(*BROKEN_R2))
    questions = root / "golden" / "questions.jsonl"
    questions.write_text(questions.read_text() + json.dumps(q("r3", {"quote": "opening paragraph"})) + "\n")
    beside = json.loads(refused_check(root, capsys, "json"))["drift_beside_refusals"]
    assert beside["derived_only"] == ["r1"]  # r2 refused (no span), r3 new (nothing committed)
    assert beside["answer_text_changed"] == [] and beside["answer_text_not_comparable"] == []
    err = refused_check(root, capsys, "text")
    assert "beside the refusals, no answer text changed in the labels that resolve:\n  derived only: 1 " \
           "record(s)" in err
    comment = refused_check(root, capsys, "markdown")
    assert "Among the labels that still resolve: **No answer text changed.** 1 derived only" in comment


def test_beside_refusals_without_git_a_changed_document_is_to_re_read(tmp_path, capsys):
    root = committed_project(tmp_path / "p", with_git=False)
    (root / "corpus" / "a.md").write_text(INSERTED.replace(*BROKEN_R2))
    beside = json.loads(refused_check(root, capsys, "json"))["drift_beside_refusals"]
    assert beside["answer_text_not_comparable"] == ["r1"]


def test_a_refused_plain_build_or_one_without_a_committed_artifact_compares_nothing(tmp_path, capsys):
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(REWORDED.replace(*BROKEN_R2))
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--format", "json"]) == 1
    assert "drift_beside_refusals" not in json.loads(capsys.readouterr().out)  # nothing committed is compared
    assert main(["build", "--root", str(root)]) == 1
    assert "nothing was written" in capsys.readouterr().err
    (root / "golden" / "golden-set.v1.jsonl").unlink()
    assert json.loads(refused_check(root, capsys, "json"))["drift_beside_refusals"]["class_counts"] == {
        "answer_text_changed": 0, "answer_text_not_comparable": 0, "edited_only": 0, "derived_only": 0}
    assert "beside the refusals" not in refused_check(root, capsys, "text")


def test_a_committed_artifact_refused_as_input_leaves_the_refusals_reported(tmp_path, capsys, monkeypatch):
    """A planted artifact of more lines than a golden set can have is refused before it is
    parsed (exit 2 on a clean check); beside refusals, the refusals still come first and the
    comparison says why it did not happen."""
    from labeller.core import check

    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(REWORDED.replace(*BROKEN_R2))
    monkeypatch.setattr(check, "MAX_RECORDS", 3)
    (root / "golden" / "golden-set.v1.jsonl").write_text("\n" * 40)
    report = json.loads(refused_check(root, capsys, "json"))
    assert [e["id"] for e in report["errors"]] == ["r2"]
    assert "committed golden-set artifact has 40 lines" in report["drift_beside_refusals"]["not_compared"]
    err = refused_check(root, capsys, "text")
    assert "not_found record r2" in err and "the labels that still resolve were not compared: " in err
    assert "were not compared: " in refused_check(root, capsys, "markdown")


def test_beside_refusals_require_reviewed_lists_the_records_not_reviewed(tmp_path, capsys):
    root = committed_project(tmp_path / "p")
    (root / "corpus" / "a.md").write_text(REWORDED.replace(*BROKEN_R2))
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check", "--require-reviewed", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["not_reviewed"] == {"r1": "unreviewed", "r2": "unreviewed"} and report["stale_judgments"] == []
    assert main(["build", "--root", str(root), "--check", "--require-reviewed", "--format", "markdown"]) == 1
    assert "2 record(s) not reviewed as they stand" in capsys.readouterr().out
    assert main(["build", "--root", str(root), "--check", "--require-reviewed"]) == 1
    assert "not reviewed: 2 record(s)" in capsys.readouterr().err
    assert main(["build", "--root", str(root), "--check", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["not_reviewed"] == {}  # asked for only with --require-reviewed
