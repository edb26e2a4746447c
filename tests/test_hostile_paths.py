"""A repository cannot point labeller outside itself (issue 23, points 1-2 and disk full).

``labeller build --check`` runs in CI on forks' pull requests, so every file of the project
(labeller.toml, questions.jsonl, the corpus, committed symlinks) is written by an attacker.
Each case below was reproduced before the fix: a corpus outside the project printed a
"nearest passage" from a secret; outputs went through committed symlinks, replaced FIFOs,
or overwrote the project's own inputs; a read-only questions file was replaced; a full
disk named no file. Every case must now end in a bounded exit 2 naming the path.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest

from labeller.app.session.session import AuthoringSession
from labeller.cli import main
from labeller.errors import InvalidInput
from labeller.layout import project_tree
from tests.conftest import write_project

SECRET = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
DOC = "# Retention\n\nSearch logs are kept for nine days.\n"
QUESTION = {"id": "q1", "query": "how long are logs kept?", "expected_answer": "nine days",
            "locators": [{"doc": "a.md", "quote": "kept for nine days"}]}
# a near miss: quoted from nowhere, so the build suggests the nearest passage of the corpus
NEAR_MISS = {"id": "q1", "query": "what is the key?", "expected_answer": "",
             "locators": [{"quote": "aws secret access key wJalrXUtnFEMI"}]}


def cli(capsys, *args) -> tuple[int, str]:
    """``labeller ARGS`` in-process: (exit code, stdout and stderr together)."""
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out + err


@pytest.fixture
def secrets_dir(tmp_path) -> Path:
    """A folder of the CI machine outside the project, holding a credentials file."""
    folder = tmp_path / "home" / ".aws"
    folder.mkdir(parents=True)
    (folder / "credentials.md").write_text(SECRET, encoding="utf-8")
    return folder


def project(tmp_path, questions=(QUESTION,), toml: str | None = None) -> Path:
    return write_project(tmp_path / "proj", {"a.md": DOC}, list(questions), toml)


def assert_refused(rc: int, shown: str, *names: str) -> None:
    assert rc == 2, shown
    for name in names:
        assert name in shown, shown


# -- 1. configured paths stay inside the project's tree ----------------------------------------

@pytest.mark.parametrize("how", ["absolute", "dotdot"])
def test_a_corpus_outside_the_project_is_refused_and_nothing_of_it_is_printed(tmp_path, capsys, secrets_dir, how):
    value = str(secrets_dir) if how == "absolute" else "../home/.aws"
    root = project(tmp_path, [NEAR_MISS], toml=f'[corpus]\nroot = "{value}"\n')
    rc, shown = cli(capsys, "build", "--check", "--root", root)
    assert_refused(rc, shown, "[corpus] root", "labeller.toml", "outside the project's tree")
    assert "K7MDENG" not in shown  # the part of the secret the quote does not hold


def test_a_symlink_along_the_corpus_path_that_leaves_the_tree_is_refused(tmp_path, capsys, secrets_dir):
    root = project(tmp_path, [NEAR_MISS], toml='[corpus]\nroot = "docs/aws"\n')
    (root / "docs").symlink_to(secrets_dir.parent)  # committed: docs -> ~ ; docs/aws is not itself a link
    os.rename(secrets_dir, secrets_dir.parent / "aws")
    rc, shown = cli(capsys, "build", "--check", "--root", root)
    assert_refused(rc, shown, "[corpus] root", "outside the project's tree")
    assert "K7MDENG" not in shown  # the part of the secret the quote does not hold


def test_the_flags_are_confined_too_and_named_as_flags(tmp_path, capsys, secrets_dir):
    root = project(tmp_path, [NEAR_MISS])
    rc, shown = cli(capsys, "build", "--check", "--root", root, "--corpus", "../home/.aws")
    assert_refused(rc, shown, "flag --corpus", "outside the project's tree")
    assert "K7MDENG" not in shown  # the part of the secret the quote does not hold
    outside = tmp_path / "out"
    rc, shown = cli(capsys, "build", "--root", root, "--out", outside)
    assert_refused(rc, shown, "flag --out")
    assert not outside.exists()


@pytest.mark.parametrize("key, value", [("[golden] out", '[golden]\nout = "../written"\n'),
                                        ("[golden] questions", '[golden]\nquestions = "../written/q.jsonl"\n'),
                                        ("[eval] history", '[eval]\nhistory = "../written/runs.duckdb"\n')])
def test_configured_outputs_outside_the_tree_are_refused_before_any_write(tmp_path, capsys, key, value):
    root = project(tmp_path, toml=value)
    (tmp_path / "written").mkdir()
    (tmp_path / "written" / "q.jsonl").write_text(json.dumps(QUESTION) + "\n", encoding="utf-8")
    before = sorted(p.name for p in (tmp_path / "written").iterdir())
    for argv in (["build"], ["eval", "--format", "json"]):
        rc, shown = cli(capsys, *argv, "--root", root)
        assert_refused(rc, shown, key, "labeller.toml")
    assert sorted(p.name for p in (tmp_path / "written").iterdir()) == before


def test_a_committed_state_dir_symlink_out_of_the_tree_is_refused(tmp_path, capsys):
    root = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".labeller").symlink_to(elsewhere)
    rc, shown = cli(capsys, "eval", "--root", root)
    assert_refused(rc, shown, "[eval] history (default)", "outside the project's tree")
    assert list(elsewhere.iterdir()) == []
    with pytest.raises(InvalidInput, match="history"):
        AuthoringSession.open(root)


def test_a_monorepo_may_reach_a_sibling_folder_of_its_git_work_tree(tmp_path, capsys):
    repo = tmp_path / "repo"
    root = write_project(repo / "labels", {}, [QUESTION], toml='[corpus]\nroot = "../docs"\n')
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text(DOC, encoding="utf-8")
    rc, shown = cli(capsys, "build", "--root", root)
    assert_refused(rc, shown, "[corpus] root")  # no .git: the tree is the project root
    (repo / ".git").mkdir()  # found by looking, never by running git
    assert project_tree(root) == repo.resolve()
    rc, shown = cli(capsys, "build", "--root", root)
    assert rc == 0, shown
    (repo / ".git").rmdir()
    (repo / ".git").write_text("gitdir: /somewhere/else\n", encoding="utf-8")  # a worktree's .git is a file
    assert project_tree(root) == repo.resolve()


def test_allow_outside_is_a_command_line_choice_never_a_file_one(tmp_path, capsys, secrets_dir):
    root = project(tmp_path, toml='[corpus]\nroot = "../home/.aws"\n')
    rc, shown = cli(capsys, "config", "--show", "--root", root, "--allow-outside")
    assert rc == 0, shown
    for argv in (["build", "--check"], ["eval"], ["runs"], ["config", "--show"], ["leaks"]):
        rc, shown = cli(capsys, *argv, "--root", root)
        assert_refused(rc, shown, "[corpus] root")
    assert AuthoringSession.open(root, allow_outside=True).config.corpus == root / "../home/.aws"
    with pytest.raises(InvalidInput, match="outside the project's tree"):
        AuthoringSession.open(root)
    rc, shown = cli(capsys, "config", "--show", "--root", project(tmp_path / "b", toml="[corpus]\nallow_outside = true\n"))
    assert_refused(rc, shown, "unknown key 'allow_outside'")


# -- 2. outputs are written safely -------------------------------------------------------------

@pytest.mark.parametrize("where, reason", [("inside", "is a symlink"), ("outside", "outside the project's tree")])
def test_a_committed_symlinked_output_folder_is_not_written_through(tmp_path, capsys, where, reason):
    root = project(tmp_path, toml='[golden]\nout = "built"\n')
    target = root / "inner" if where == "inside" else tmp_path / "elsewhere"
    target.mkdir()
    (root / "built").symlink_to(target)  # even inside the tree, a link an output is not written through
    rc, shown = cli(capsys, "build", "--root", root)
    assert_refused(rc, shown, reason, "built")
    assert list(target.iterdir()) == []


def test_a_state_dir_symlink_inside_the_tree_is_refused_before_the_app_starts(tmp_path, capsys):
    root = project(tmp_path)
    (root / "inner").mkdir()
    (root / ".labeller").symlink_to("inner")
    with pytest.raises(InvalidInput, match="is a symlink"):
        AuthoringSession.open(root)
    rc, shown = cli(capsys, "eval", "--root", root)
    assert_refused(rc, shown, ".labeller", "is a symlink")
    assert list((root / "inner").iterdir()) == []


def test_a_fifo_as_out_stays_a_fifo(tmp_path, capsys):
    root = project(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for argv in (["chunks", "--out", fifo], ["eval", "--write-run", fifo], ["eval", "--out", fifo],
                 ["export", "trec-qrels", "--out", fifo]):
        rc, shown = cli(capsys, *argv, "--root", root)
        assert_refused(rc, shown, "is a FIFO", str(fifo))
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_as_out_is_neither_followed_nor_replaced(tmp_path, capsys):
    root = project(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    link = tmp_path / "report.json"
    link.symlink_to(victim)
    for argv in (["chunks", "--out", link], ["eval", "--out", link]):
        rc, shown = cli(capsys, *argv, "--root", root)
        assert_refused(rc, shown, "is a symlink")
        assert link.is_symlink() and victim.read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize("target, kind", [("golden/questions.jsonl", "the questions file"),
                                          ("labeller.toml", "labeller.toml"),
                                          ("corpus/a.md", "a corpus document"),
                                          ("corpus/new/report.md", "a corpus document"),
                                          ("golden/reviews.jsonl", "the review log")])
def test_an_output_never_overwrites_an_input_of_the_project(tmp_path, capsys, target, kind):
    root = project(tmp_path, toml="[build]\nmax_chars = 1800\n")
    (root / "golden" / "reviews.jsonl").write_text("", encoding="utf-8")
    path = root / target
    before = path.read_bytes() if path.exists() else None
    for argv in (["eval", "--write-run", path], ["eval", "--out", path], ["chunks", "--out", path],
                 ["export", "trec-qrels", "--out", path]):
        rc, shown = cli(capsys, *argv, "--root", root)
        assert_refused(rc, shown, kind, "one of the project's inputs")
        assert (path.read_bytes() if path.exists() else None) == before
    (root / "labeller.toml").write_text(f'[eval]\nhistory = "{target}"\n', encoding="utf-8")
    before = path.read_bytes() if path.exists() else None
    for argv in (["eval"], ["runs"]):  # DuckDB would make an empty file a database
        rc, shown = cli(capsys, *argv, "--root", root)
        assert_refused(rc, shown, "[eval] history", kind)
        assert (path.read_bytes() if path.exists() else None) == before


def test_a_read_only_questions_file_is_replaced_only_with_force(tmp_path, capsys):
    root = project(tmp_path)
    incoming = tmp_path / "in.jsonl"
    incoming.write_text(json.dumps({**QUESTION, "id": "q2", "query": "for how long are logs kept?"}) + "\n",
                        encoding="utf-8")
    questions = root / "golden" / "questions.jsonl"
    questions.chmod(0o444)
    before = questions.read_bytes()
    rc, shown = cli(capsys, "import", "jsonl", incoming, "--root", root)
    assert_refused(rc, shown, "read-only", "--force")
    assert questions.read_bytes() == before
    rc, shown = cli(capsys, "import", "jsonl", incoming, "--root", root, "--force")
    assert rc == 0, shown
    assert b'"q2"' in questions.read_bytes()


def test_the_app_does_not_save_over_a_read_only_questions_file(tmp_path):
    root = project(tmp_path)
    questions = root / "golden" / "questions.jsonl"
    session = AuthoringSession.open(root)
    session.prepare()
    session.update("q1", query="how long are search logs kept?")
    questions.chmod(0o444)
    outcome = session.save_questions()
    assert not outcome.written
    assert "read-only" in outcome.message()
    assert b"search logs" not in questions.read_bytes()


# -- 3. disk full names the path ---------------------------------------------------------------

def test_disk_full_names_the_file_and_leaves_no_temp_file(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    rc, shown = cli(capsys, "build", "--root", root)
    assert_refused(rc, shown, str(root / "golden" / "golden-set.v1.jsonl"), os.strerror(errno.ENOSPC))
    assert sorted(p.name for p in (root / "golden").iterdir()) == ["questions.jsonl"]


def test_disk_full_on_a_review_append_names_the_log(tmp_path, monkeypatch):
    from labeller.review import log

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(log, "write_all", full)
    path = tmp_path / "reviews.jsonl"
    entry = log.ReviewEntry.from_json({"record_id": "q1", "decision": "accept", "reviewer": "ann", "comment": "",
                                       "record_digest": "0" * 64, "timestamp": "2026-01-01T00:00:00Z"})
    with pytest.raises(OSError) as exc:
        log.append_review(path, entry)
    assert exc.value.errno == errno.ENOSPC and exc.value.filename == str(path)


def test_the_app_rebuild_says_why_it_did_not_write_through_a_symlinked_output_folder(tmp_path):
    root = project(tmp_path, toml='[golden]\nout = "built"\n')
    (root / "inner").mkdir()
    session = AuthoringSession.open(root)
    session.prepare()
    session.update("q1", query="how long are search logs kept?")
    (root / "built").symlink_to("inner")  # appears after the start: checked at the write
    outcome = session.save_questions()
    assert outcome.written
    session.rebuild(outcome)
    assert not outcome.artifact_written
    assert "is a symlink" in outcome.message()
    assert list((root / "inner").iterdir()) == []


def test_annotate_refuses_a_symlinked_annotations_folder_before_its_app_starts(tmp_path, capsys, monkeypatch):
    from labeller.app.review_app import ScreenApp

    def started(self, *args, **kwargs):
        raise AssertionError("the annotation app started over a symlinked folder")

    monkeypatch.setattr(ScreenApp, "run", started)
    root = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"  # outside the tree: only the folder is a link, not a configured path
    elsewhere.mkdir()
    (root / "golden" / "annotations").symlink_to(elsewhere)
    rc, shown = cli(capsys, "annotate", "--as", "bob", "--root", root)
    assert_refused(rc, shown, "annotations", "is a symlink")
    assert list(elsewhere.iterdir()) == []
