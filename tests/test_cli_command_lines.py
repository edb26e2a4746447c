"""A message that tells the reader to run a command never wraps inside the command (issue
38.12: ``build --check``'s drift message printed "`labeller" at the end of one line and
"build`" on the next at 80 columns). The command stands on a line of its own, whatever the
terminal's width; the sentence around it wraps between its own words."""

from __future__ import annotations

import json

import pytest

from conftest import q, write_project
from labeller.cli import main

DOC = "# Guide\n\nThe alpha paragraph explains retention of nine days.\n"
WIDTHS = (40, 60, 80, 120)


def drifted(root):
    write_project(root, {"a.md": DOC}, [q("r1", {"quote": "retention of nine days"})])
    assert main(["build", "--root", str(root)]) == 0
    questions = root / "golden" / "questions.jsonl"
    record = json.loads(questions.read_text(encoding="utf-8"))
    record["query"] = "how long is anything retained?"  # edited, not rebuilt: the committed set drifted
    questions.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_drift_message_keeps_its_command_on_a_line_of_its_own(tmp_path, capsys, monkeypatch, columns):
    root = drifted(tmp_path / "p")
    monkeypatch.setenv("COLUMNS", str(columns))  # Rich reads the terminal's width from it
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("drift:")
    assert "    labeller build" in lines, lines
    assert all(len(line) <= columns for line in lines[:lines.index("    labeller build")]), "the sentence wraps"


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_not_reviewed_message_keeps_its_command_whole(tmp_path, capsys, monkeypatch, columns):
    root = tmp_path / "p"
    write_project(root, {"a.md": DOC}, [q("r1", {"quote": "retention of nine days"})])
    assert main(["build", "--root", str(root)]) == 0
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check", "--require-reviewed"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert any(line.startswith("not reviewed:") for line in lines)
    assert "    labeller review" in lines, lines


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_moves_message_keeps_its_command_whole(tmp_path, capsys, monkeypatch, columns):
    """``labeller repair --moves`` was inside the sentence ("(`labeller" / "repair --moves`
    applies them)" at 80 columns, on a Poetry reorganisation of 117 moved labels)."""
    root = tmp_path / "p"
    write_project(root, {"a.md": DOC}, [q("r1", {"doc": "a.md", "quote": "retention of nine days"})])
    (root / "corpus" / "a.md").rename(root / "corpus" / "b.md")
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main(["build", "--root", str(root), "--check"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert any(line.startswith("moved:") for line in lines), lines
    assert any("a.md → b.md" in line for line in lines), lines
    assert "    labeller repair --moves" in lines, lines


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_repair_summary_keeps_its_rebuild_command_whole(tmp_path, capsys, monkeypatch, columns):
    """``repair`` ended with "…; run `labeller build`", the command inside the sentence."""
    root = tmp_path / "p"
    write_project(root, {"a.md": DOC}, [q("r1", {"doc": "a.md", "quote": "retention of nine days"})])
    assert main(["build", "--root", str(root)]) == 0
    (root / "corpus" / "a.md").rename(root / "corpus" / "b.md")
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main(["repair", "--moves", "--root", str(root)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert any(line.startswith("wrote golden/questions.jsonl") for line in lines), lines
    assert "    labeller build" in lines, lines


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_empty_run_history_keeps_its_command_whole(tmp_path, capsys, monkeypatch, columns):
    root = tmp_path / "p"
    write_project(root, {"a.md": DOC}, [q("r1", {"quote": "retention of nine days"})])
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main(["runs", "--root", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("no runs recorded yet"), lines
    assert "    labeller eval" in lines, lines
