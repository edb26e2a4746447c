"""``labeller app`` (and bare ``labeller``): refusals are a message and exit code 2, not a crash in the UI."""

from __future__ import annotations

from labeller.cli import main

from helpers_app import settle, write_small_project


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


def test_unsafe_corpus_exits_2_with_the_reason(tmp_path, capsys, monkeypatch):
    """The corpus is read while the question list shows (tests/test_app_loading.py): one
    refused there ends the app, and ``labeller app`` reports it like any refusal."""
    from textual.app import App

    from labeller.app.app import LabellerApp

    async def until_idle(pilot):
        await settle(pilot)
        pilot.app.exit()  # only reached when the refusal did not end the app: the asserts say so

    monkeypatch.setattr(LabellerApp, "run", lambda self: App.run(self, headless=True, auto_pilot=until_idle))
    root = write_small_project(tmp_path / "proj")
    (root / "corpus" / "link.md").symlink_to(root / "corpus" / "ops" / "oncall.md")
    assert main(["app", "--root", str(root)]) == 2
    assert "symlink" in capsys.readouterr().err
