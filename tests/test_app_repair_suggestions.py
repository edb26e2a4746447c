"""The author screen's suggestions for a refused quote are ``labeller repair``'s (issue 35.3): the
passage where the quote stood at the last build comes first when ``repair`` applies it, with its
kind, score and the old and new text; accepting it writes the line ``repair`` writes, and the
record is logged as edited (changed since review)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from helpers_app import on_refused_record, run_async, settle
from helpers_interop import cli, cli_json
from helpers_moves import edited_project
from labeller.app.app import LabellerApp
from labeller.app.session.session import AuthoringSession
from labeller.app.widgets.document_view import DocumentView
from labeller.app.widgets.preview import PreviewPanel
from labeller.commands.committed_corpus import last_build
from labeller.core.models import Question
from labeller.core.questions import load_questions
from labeller.review.log import read_review_log

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")

# The labelled sentence edited in place (words inserted), and a look-alike added elsewhere: the
# build's nearest passages rank the look-alike first; repair follows the quote to where it stood.
QUOTE = "The cache lives under the XDG folder on Linux."
BEFORE = f"# Cache\n\n{QUOTE} It is safe to delete.\n\n## Other systems\n\nSee the notes.\n"
EDITED = "The cache lives, unless an environment variable names another, under the XDG folder on Linux."
LOOK_ALIKE = "The cache lives under the XDG folder on BSD."
AFTER = f"# Cache\n\n{EDITED} It is safe to delete.\n\n## Other systems\n\nSee the notes.\n\n{LOOK_ALIKE}\n"


def status_text(app) -> str:
    return str(app.screen.query_one("#preview-status").visual)


@run_async
async def test_the_first_suggestion_is_what_repair_applies_and_accepting_it_writes_repairs_line(
        tmp_path, capsys, monkeypatch):
    root, error = edited_project(tmp_path, capsys, monkeypatch, BEFORE, AFTER, QUOTE)
    assert error["suggestions"][0]["quote"] == LOOK_ALIKE  # the build's own first nearest passage: the trap
    twin = tmp_path / "twin"
    shutil.copytree(root, twin, symlinks=True)
    rc, dry = cli_json(capsys, "repair", "--dry-run", "--root", twin)
    assert rc == 0, dry["left"]
    (fix,) = dry["applied"]
    assert fix["at_old_place"] and fix["new"]["quote"] == EDITED
    rc, _, err = cli(capsys, "repair", "--root", twin)
    assert rc == 0, err

    async with on_refused_record(root) as (app, pilot):
        screen = app.screen
        offers = screen.preview.offered
        assert offers is not None and offers.applied is not None
        first = offers.fixes[0]
        assert (first.index, first.new.as_json(), first.score) == (fix["locator_index"], fix["new"], fix["score"])
        assert first.at_old_place
        panel = screen.query_one(PreviewPanel)
        assert panel._suggestions[0] == {"fix": first}  # the list's first row
        assert [f.new.quote for f in offers.fixes].index(LOOK_ALIKE) > 0  # offered, below
        text = status_text(app)
        assert "`labeller repair` would apply 1" in text
        shown = str(panel.query_one("#preview-suggestions").get_option_at_index(0).prompt.laid_out(200))
        assert "where it stood" in shown and f"({fix['score']})" in shown
        assert QUOTE in shown and EDITED in shown  # the old text and the new
        screen.query_one(DocumentView).focus()
        await pilot.press("1")
        await settle(pilot)
        assert screen.preview.status == "resolved"
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert (root / "golden/questions.jsonl").read_bytes() == (twin / "golden/questions.jsonl").read_bytes()
    mine, theirs = (read_review_log(r / "golden/reviews.jsonl") for r in (root, twin))
    (entry,) = mine.entries
    assert (entry.decision, entry.record_digest) == ("edit", theirs.entries[0].record_digest)  # the version before
    saved = load_questions(root / "golden/questions.jsonl").questions
    assert mine.status(saved[0]) == "needs_rereview"


def test_offered_orders_as_repair_and_hides_passages_far_below_the_first(tmp_path, capsys, monkeypatch):
    """``core.repair.offered`` alone: repair's fix first, a scored suggestion more than
    ``MAX_SCORE_GAP`` below it left out."""
    from labeller.config import load_config
    from labeller.core.build import build
    from labeller.core.project import Project
    from labeller.core.repair import offered
    from labeller.core.suggest import MAX_SCORE_GAP

    root, _ = edited_project(tmp_path, capsys, monkeypatch, BEFORE, AFTER, QUOTE)
    project = Project(load_config(root))
    (rec,) = build(project, project.load_questions().questions).records
    question: Question = rec.question
    (refusal,) = rec.refusals
    without = offered(project, question, refusal)  # no last build: the build's nearest passages decide
    assert without.applied is without.fixes[0] and without.fixes[0].new.quote == LOOK_ALIKE  # repair's, too
    assert all(not f.at_old_place for f in without.fixes)
    offers = offered(project, question, refusal, last_build=last_build(project))
    assert offers.applied is offers.fixes[0] and offers.fixes[0].new.quote == EDITED
    top = offers.fixes[0].score
    assert all(f.score >= top - MAX_SCORE_GAP for f in offers.fixes)
    assert len({f.new for f in offers.fixes}) == len(offers.fixes)


@run_async
async def test_the_broken_label_view_lists_the_same_suggestions(tmp_path, capsys, monkeypatch):
    """F5's detail of the highlighted record: repair's ranking too, the passage where the quote
    stood first, said to be what repair applies."""
    root, _ = edited_project(tmp_path, capsys, monkeypatch, BEFORE, AFTER, QUOTE)
    lines = await broken_detail(root)
    first = next(i for i, line in enumerate(lines) if line.startswith(("where it stood", "nearest passage")))
    assert lines[first].startswith("where it stood (") and EDITED in lines[first]
    assert any(line.startswith("nearest passage (") and LOOK_ALIKE in line for line in lines[first + 1:])
    assert "`labeller repair` would apply the first" in lines


async def broken_detail(root) -> list[str]:
    """The lines of F5's detail of the first broken record, as the app shows them."""
    app = LabellerApp(AuthoringSession.open(root, last_build_reader=last_build), watch_corpus=False)
    async with app.run_test(size=(150, 45)) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        detail = str(app.screen.query_one("#broken-detail").visual)
    return [line.strip() for line in detail.splitlines()]


GREW_FROM = "that takes a string and returns the first"
GREW_TO = "that takes a string of words separated by spaces and returns the first"


def test_a_nearest_passage_far_below_where_the_quote_stood_is_not_offered(tmp_path, capsys, monkeypatch):
    """An answer that grew words: where it stood keeps all of the quote (100), the build's nearest
    passage scores under 80, more than ``MAX_SCORE_GAP`` below: only the first is offered."""
    from labeller.config import load_config
    from labeller.core.build import build
    from labeller.core.project import Project
    from labeller.core.repair import offered
    from labeller.core.suggest import MAX_SCORE_GAP

    before = f"# Slices\n\nHere is a problem: write a function {GREW_FROM} word.\n\nThe end.\n"
    root, error = edited_project(tmp_path, capsys, monkeypatch, before, before.replace(GREW_FROM, GREW_TO), GREW_FROM)
    best_nearest = max(s["score"] for s in error["suggestions"])
    project = Project(load_config(root))
    (rec,) = build(project, project.load_questions().questions).records
    (refusal,) = rec.refusals
    without = offered(project, rec.question, refusal)
    assert without.applied is None and without.fixes and without.fixes[0].score == best_nearest
    offers = offered(project, rec.question, refusal, last_build=last_build(project))
    (fix,) = offers.fixes
    assert offers.applied is fix and fix.at_old_place and fix.score == 100.0 and fix.new.quote == GREW_TO
    assert best_nearest < 100.0 - MAX_SCORE_GAP  # what the rule left out


def test_an_accepted_repair_survives_a_crash_and_is_still_logged_as_an_edit(tmp_path, capsys, monkeypatch):
    """The journal keeps the fixes an author accepted with the drafts: after a crash the
    restored record, saved, gets the same ``edit`` entry in the review log as without one."""
    root, _ = edited_project(tmp_path, capsys, monkeypatch, BEFORE, AFTER, QUOTE)
    twin = tmp_path / "twin"
    shutil.copytree(root, twin, symlinks=True)
    rc, _, err = cli(capsys, "repair", "--root", twin)
    assert rc == 0, err

    crashed = AuthoringSession.open(root, last_build_reader=last_build)
    crashed.store(crashed.compute(crashed.snapshot()))
    [(offers, _)] = crashed.record_offers("r-1")
    assert offers is not None and offers.applied is not None
    crashed.accept_fix("r-1", offers.applied.index, offers.applied)
    entry = crashed.journal.read()  # what a crash leaves: the journal, nothing saved
    assert entry is not None and [f.as_json() for f in entry.repairs] == [offers.applied.as_json()]
    assert not (root / "golden/reviews.jsonl").exists()

    session = AuthoringSession.open(root, last_build_reader=last_build)
    assert session.restore(session.journal.read()) == ["r-1"]
    assert session.journal.read().repairs == entry.repairs  # kept across the restore's own journal writes
    session.store(session.compute(session.snapshot()))  # the corpus read, as the app's start does
    out = session.save_questions()
    assert out.repaired == ["r-1"], out.message()
    assert (root / "golden/questions.jsonl").read_bytes() == (twin / "golden/questions.jsonl").read_bytes()
    mine, theirs = (read_review_log(r / "golden/reviews.jsonl") for r in (root, twin))
    (entry_mine,), (entry_theirs,) = mine.entries, theirs.entries
    assert (entry_mine.decision, entry_mine.record_digest) == ("edit", entry_theirs.record_digest)


@pytest.mark.parametrize("bad", [
    "not a list", [1], [{"id": "r-1"}], [{"id": "r-1", "locator_index": -1, "kind": "nearest", "old": {"quote": "a"},
                                         "new": {"quote": "b"}}],
    [{"id": "r-1", "locator_index": 0, "kind": "nearest", "score": 101, "old": {"quote": "a"},
      "new": {"quote": "b"}}],
    [{"id": "r-1", "locator_index": 0, "kind": "moved", "old": {"quote": "a"}, "new": {"quote": "b", "x": 1}}],
    [{"id": "r-1", "locator_index": 0, "kind": "moved", "old": {"quote": "a"}, "new": {"quote": "a"}, "occurrence": 5}],
    [{"id": "r-1", "locator_index": 0, "kind": "moved", "old": {"quote": "a"}, "new": {"quote": "a"},
      "occurrence": "a.md:1:1" * 1000}],
])
def test_a_journal_with_a_malformed_repairs_list_is_set_aside_not_applied(tmp_path, bad):
    import json

    from labeller.app.journal import Journal, JournalError

    path = tmp_path / "journal.json"
    path.write_text(json.dumps({"format": "labeller-journal-v1", "questions": "q", "base_sha256": None,
                                "drafts": [], "deleted": [], "repairs": bad}))
    with pytest.raises(JournalError, match="malformed repairs list"):
        Journal(path).read()


# A new section repeats the labelled sentence word for word: the build refuses the quote as
# ambiguous, and repair pins it where it stood (tests/test_repair_repeats.py).
INTRO = "The tool reads its settings from the project file and then from the environment of the shell."
REPEATED = "By default the tool installs your package every time you run it."
PAGE = f"# Install\n\n{INTRO}\n\n{REPEATED}\n\nEvery command prints what it did.\n"
PAGE_REPEATED = PAGE + f"\n# Sync\n\nA newer command keeps the environment in step with the lock file.\n\n{REPEATED}\n"


@run_async
async def test_the_broken_label_view_offers_the_occurrence_where_an_ambiguous_quote_stood(tmp_path, capsys,
                                                                                         monkeypatch):
    quote = "installs your package every time you run it"
    root, error = edited_project(tmp_path, capsys, monkeypatch, PAGE, PAGE_REPEATED, quote)
    assert error["kind"] == "ambiguous"
    lines = await broken_detail(root)
    first = next(i for i, line in enumerate(lines) if line.startswith("where it stood"))
    assert "(100.0): page.md:5:" in lines[first] and quote in lines[first]  # the install section's, not line 13
    assert "`labeller repair` would apply the first" in lines


@run_async
async def test_the_author_screen_lists_where_an_ambiguous_quote_stood_first_not_the_page_s_first_copy(
        tmp_path, capsys, monkeypatch):
    """The status line says `labeller repair` would apply the first suggestion; for a quote its own
    page now holds twice, the first row must be that one (where it stood), not the page's first
    copy: here a new section above the old one repeats the sentence, so the copies' order and the
    repair disagree. The copy repair pins is listed once; the other stays an occurrence to pick."""
    quote = "installs your package every time you run it"
    new_section = f"# Sync\n\nA newer command keeps the environment in step with the lock file.\n\n{REPEATED}\n\n"
    root, error = edited_project(tmp_path, capsys, monkeypatch, PAGE, new_section + PAGE, quote)
    assert error["kind"] == "ambiguous"
    async with on_refused_record(root) as (app, pilot):
        screen = app.screen
        panel = screen.query_one(PreviewPanel)
        assert "`labeller repair` would apply 1" in status_text(app)
        first = panel._suggestions[0]["fix"]
        assert first.at_old_place
        shown = str(panel.query_one("#preview-suggestions").get_option_at_index(0).prompt.laid_out(200))
        assert shown.startswith("1 where it stood (100.0) page.md:")
        stood = (new_section + PAGE).index(quote, len(new_section))
        occurrences = [row for row in panel._suggestions[1:] if "char_start" in row]
        assert [row["char_start"] for row in occurrences] == [new_section.index(quote)]  # the other copy, once
        screen.query_one(DocumentView).focus()
        await pilot.press("1")
        await settle(pilot)
        (span,) = app.session.result("r-1").spans
        assert span.start <= stood < span.end  # the install section's copy, where the label stood
