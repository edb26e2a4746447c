"""``labeller app`` (and bare ``labeller``): refusals happen before the UI starts."""

from __future__ import annotations

from labeller.cli import main

from helpers_app import write_small_project


def test_bad_questions_file_exits_2_before_the_ui(tmp_path, capsys):
    root = write_small_project(tmp_path / "proj")
    (root / "golden" / "questions.jsonl").write_text('{"id": "q1", "query": "x"}\n', encoding="utf-8")
    assert main(["app", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "questions.jsonl:1" in err and "q1" in err


def test_bare_labeller_opens_the_app_command(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no project here
    assert main([]) == 2  # `labeller` alone is `labeller app` on the current folder
    assert "not found" in capsys.readouterr().err


def test_unsafe_corpus_exits_2_before_the_ui(tmp_path, capsys):
    root = write_small_project(tmp_path / "proj")
    (root / "corpus" / "link.md").symlink_to(root / "corpus" / "ops" / "oncall.md")
    assert main(["app", "--root", str(root)]) == 2
    assert "symlink" in capsys.readouterr().err
