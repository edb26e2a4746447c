"""``labeller repair --interactive`` offers each locator it left its suggestions, numbered best
first (``core.repair.offered``: the app's list), so a person at the prompt picks what repair
leaves for a person; Enter leaves it. A pick is resolved again before it is written."""

from __future__ import annotations

import io
import subprocess

import pytest

from helpers_interop import cli, cli_json, questions_of
from helpers_moves import edited_project, reorganised
from labeller.config import load_config
from labeller.review.log import read_review_log

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")

QUOTE = "The cache lives under the XDG folder on Linux."
EDITED = "The cache lives, unless an environment variable names another, under the XDG folder on Linux."
LOOK_ALIKE = "The cache lives under the XDG folder on BSD."
BEFORE = f"# Cache\n\n{QUOTE} It is safe to delete.\n\n## Other systems\n\nSee the notes.\n"
AFTER = f"# Cache\n\n{EDITED} It is safe to delete.\n\n## Other systems\n\nSee the notes.\n\n{LOOK_ALIKE}\n"
NOTHING_AUTOMATIC = ("--min-kept", "100", "--min-score", "100")  # so repair applies nothing on its own


@pytest.fixture
def root(tmp_path, capsys, monkeypatch):
    return edited_project(tmp_path, capsys, monkeypatch, BEFORE, AFTER, QUOTE)[0]


def options(err: str) -> dict[int, str]:
    return {int(line.split(")")[0]): line.split(") ", 1)[1] for line in (s.strip() for s in err.splitlines())
            if line[:1].isdigit() and ") " in line}


def test_a_locator_left_is_offered_its_suggestions_and_the_one_picked_is_written(root, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    rc, _, err = cli(capsys, "repair", "--interactive", "--dry-run", *NOTHING_AUTOMATIC, "--root", root)
    offered = options(err)
    assert rc == 1 and "pick 1-" in err and "locator 1 (not_found) left: " in err
    assert offered[1].startswith("where it stood") and EDITED[:40] in offered[1]  # the app's order: where it stood
    assert any(LOOK_ALIKE[:30] in text for text in offered.values())
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    rc, _, err = cli(capsys, "repair", "--interactive", *NOTHING_AUTOMATIC, "--root", root)
    assert rc == 0, err
    assert "applied 1 fix(es) to 1 record(s)" in err
    (record,) = questions_of(root)
    assert record["locators"][0]["quote"] == EDITED
    (entry,) = read_review_log(load_config(root).layout.review_log).entries
    assert entry.record_id == "r-1" and entry.decision == "edit" and "where it stood" in entry.comment
    assert cli(capsys, "build", "--root", root)[0] == 0


def test_enter_or_anything_but_a_listed_number_leaves_it(root, capsys, monkeypatch):
    before = (root / "golden/questions.jsonl").read_bytes()
    for answer in ("\n", "0\n", "99\n", "first\n"):
        monkeypatch.setattr("sys.stdin", io.StringIO(answer))
        rc, _, err = cli(capsys, "repair", "--interactive", *NOTHING_AUTOMATIC, "--root", root)
        assert rc == 1 and "pick 1-" in err and "left 1 refused locator(s)" in err
        assert (root / "golden/questions.jsonl").read_bytes() == before


def test_moves_only_offers_moves(root, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    rc, _, err = cli(capsys, "repair", "--moves", "--interactive", "--root", root)
    assert rc == 1 and "pick 1-" not in err  # an edited quote has no move: --moves changes no quote


def test_a_quote_verbatim_in_several_documents_is_offered_a_move_to_each(tmp_path, capsys, monkeypatch):
    """SPEC §13 refuses it (ambiguous) and ``repair`` applies no move; a person picks the
    document: ``notes.md`` was deleted, its sentence is now in ``faq.md`` and ``guide.md``."""
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    root = reorganised(tmp_path, capsys)
    monkeypatch.setattr("sys.stdin", io.StringIO("y\ny\ny\n2\n"))  # the three plain moves, then r-note's pick
    rc, _, err = cli(capsys, "repair", "--moves", "--interactive", "--root", root)
    note = err[err.index("r-note: "):]
    assert options(note) == {1: "moved notes.md → faq.md", 2: "moved notes.md → guide.md"}
    assert rc == 1 and "applied 4 fix(es) to 4 record(s): 4 moved" in err  # r-sleep and r-run are left
    locators = {r["id"]: r["locators"][0] for r in questions_of(root)}
    assert locators["r-note"] == {"doc": "guide.md", "quote": "A shared note about limits."}
    rc, report = cli_json(capsys, "repair", "--moves", "--dry-run", "--root", root)
    assert [x["id"] for x in report["left"]] == ["r-sleep", "r-run"]  # r-note: repaired by the pick


def test_the_end_of_input_leaves_every_locator_not_yet_offered(tmp_path, capsys, monkeypatch):
    """Each offer costs a plan of its record; once the input has ended nothing more is picked,
    so nothing more is offered (a bot that passed --interactive by mistake does not wait)."""
    from conftest import q, write_project
    from helpers_moves import commit_all

    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    other = QUOTE.replace("cache", "log")
    root = write_project(tmp_path / "proj", {"a.md": BEFORE, "b.md": BEFORE.replace("cache", "log")},
                         [q("r-1", {"doc": "a.md", "quote": QUOTE}), q("r-2", {"doc": "b.md", "quote": other})])
    assert cli(capsys, "build", "--root", root)[0] == 0
    commit_all(root, "built")
    (root / "corpus/a.md").write_text(AFTER, encoding="utf-8")
    (root / "corpus/b.md").write_text(AFTER.replace("cache", "log"), encoding="utf-8")
    commit_all(root, "edited")
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))  # r-1 left by Enter, then the input ends at r-2
    rc, _, err = cli(capsys, "repair", "--interactive", *NOTHING_AUTOMATIC, "--root", root)
    assert rc == 1 and err.count("pick 1-") == 2 and "left 2 refused locator(s)" in err
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    rc, _, err = cli(capsys, "repair", "--interactive", *NOTHING_AUTOMATIC, "--root", root)
    assert rc == 1 and err.count("pick 1-") == 1 and "left 2 refused locator(s)" in err


def test_a_quote_its_new_page_holds_twice_is_offered_each_occurrence_pinned(tmp_path, capsys, monkeypatch):
    """Without the committed build ``repair --moves`` cannot tell which copy the label's is (here:
    no git), and SPEC §13 refuses it; a person is offered each occurrence pinned by its shortest
    context, the quote unchanged, and the one picked is where the label now points."""
    import json

    from conftest import q, write_project
    from helpers_moves import AUTHORS, MANIFEST, MANIFEST_NOW

    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    root = write_project(tmp_path / "proj", {"docs/manifest.md": MANIFEST},
                         [q("r-authors", {"doc": "docs/manifest.md", "quote": AUTHORS})])
    assert cli(capsys, "build", "--root", root)[0] == 0
    (root / "corpus/docs/manifest.md").unlink()
    (root / "corpus/manifest.md").write_text(MANIFEST_NOW, encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO("2\n"))
    rc, _, err = cli(capsys, "repair", "--moves", "--interactive", "--root", root)
    offered = options(err[err.index("r-authors: "):])
    assert sorted(offered) == [1, 2]
    assert all(text.startswith("moved docs/manifest.md → manifest.md, the occurrence at manifest.md:")
               for text in offered.values())
    assert rc == 0, err
    (record,) = questions_of(root)
    loc = record["locators"][0]
    assert (loc["doc"], loc["quote"]) == ("manifest.md", AUTHORS) and ("prefix" in loc or "suffix" in loc)
    assert cli(capsys, "build", "--root", root)[0] == 0
    (built,) = [json.loads(line) for line in (root / "golden/golden-set.v1.jsonl").read_text().splitlines()]
    assert built["answer_spans"][0]["char_start"] > MANIFEST_NOW.index("## The tool table")  # the second copy


def test_a_move_to_one_occurrence_is_kept_by_the_app_s_journal_as_it_was_offered():
    from labeller.core.fixes import MOVED, Fix
    from labeller.core.models import Locator

    old = Locator(doc="docs/manifest.md", quote="a list of authors")
    fix = Fix("r-1", 0, MOVED, old, Locator(doc="manifest.md", quote="a list of authors", suffix=" author. Authors"),
              occurrence="manifest.md:14:9")
    assert fix.as_json()["occurrence"] == "manifest.md:14:9" and Fix.from_json(fix.as_json()) == fix
    assert fix.describe().startswith("moved docs/manifest.md → manifest.md, the occurrence at manifest.md:14:9: ")
