"""Pictures at 80×24, the first-class size (issue 27), of every screen but the editor (whose
layout ``tests/test_app_layout.py`` pictures at three sizes): eval (its tables, the per-query
table scrolled into view, a drill-down, a leak report, the chunkers tab before and after a
comparison), coverage, broken labels, review (and a record whose long fields wrap), the
record editor, blind annotation, adjudication, the save-conflict dialog and the small dialogs. Each picture was looked at: nothing cut that matters, the focused widget
visible.

Regenerate after a deliberate change with ``pytest tests/test_app_snapshots_80.py
--snapshot-update`` and look at the report before committing the new SVGs.
"""

from __future__ import annotations

import pytest

from helpers_app import make_app, settle, write_small_project
from helpers_review import make_project as make_review_project
from labeller.app.session.session import AuthoringSession

SIZE = (80, 24)

# a note that quotes two golden queries: the leak report has a finding to open
LEAK_NOTE = """\
# Eval notes: How do I rotate the API key?

We keep asking how fast must on-call answer a page? and it keeps ranking first.
"""


@pytest.fixture
def project(tmp_path):
    return write_small_project(tmp_path / "proj")


async def steady(pilot) -> None:
    await settle(pilot)
    pilot.app.clear_notifications()  # "eval finished in 0.3 s": a picture must not hold a duration
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # a blinking cursor would make the picture depend on the clock
    await pilot.pause()


def snap(snap_compare, app, steps=None):
    async def run_before(pilot):
        await settle(pilot)
        if steps is not None:
            await steps(pilot)
        await steady(pilot)

    return snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def run_eval(pilot) -> None:
    await pilot.press("f6")
    await settle(pilot)
    await pilot.press("ctrl+r")
    await settle(pilot)


def test_eval_80(snap_compare, project):
    assert snap(snap_compare, make_app(project), run_eval)


def test_eval_queries_80(snap_compare, project):
    async def steps(pilot):
        await run_eval(pilot)
        pilot.app.screen.query_one("#eval-queries").focus()  # the screen scrolls it into view

    assert snap(snap_compare, make_app(project), steps)


def test_eval_drill_down_80(snap_compare, project):
    async def steps(pilot):
        await run_eval(pilot)
        queries = pilot.app.screen.query_one("#eval-queries")
        queries.focus()
        queries.move_cursor(row=0)
        await pilot.press("enter")

    assert snap(snap_compare, make_app(project), steps)


def test_eval_leak_80(snap_compare, project):
    (project / "corpus" / "notes" / "eval-notes.md").write_text(LEAK_NOTE, encoding="utf-8")

    async def steps(pilot):
        await run_eval(pilot)
        pilot.app.screen.query_one("#eval-tabs").active = "tab-leaks"
        pilot.app.screen.query_one("#eval-leaks").focus()
        await settle(pilot)
        await pilot.press("enter")

    assert snap(snap_compare, make_app(project), steps)


def test_eval_chunkers_80(snap_compare, project):
    async def steps(pilot):
        await run_eval(pilot)
        pilot.app.screen.query_one("#eval-tabs").active = "tab-chunkers"

    assert snap(snap_compare, make_app(project), steps)


def test_eval_chunkers_compared_80(snap_compare, project):
    """Three chunkings compared, the comparison table focused: as wide as the screen, scrolling sideways."""
    async def steps(pilot):
        await run_eval(pilot)
        screen = pilot.app.screen
        screen.query_one("#eval-tabs").active = "tab-chunkers"
        await settle(pilot)
        view = screen.query_one("#chunkers")
        choice = view.query_one("#chunkers-choice")
        for spec in [option.value for option in choice.options][1:3]:
            choice.select(spec)
        view.run_comparison()
        await settle(pilot)
        view.query_one("#chunkers-table").focus()

    assert snap(snap_compare, make_app(project), steps)


def test_coverage_80(snap_compare, project):
    async def steps(pilot):
        await pilot.press("f4")

    assert snap(snap_compare, make_app(project), steps)


def test_broken_labels_80(snap_compare, project):
    session = AuthoringSession.open(project)
    session.prepare()
    session.rebuild(session.save_questions())
    doc = project / "corpus" / "guide" / "rotate.md"
    doc.write_text(doc.read_text().replace("issue a new API key", "issue a fresh API key"), encoding="utf-8")

    async def steps(pilot):
        await pilot.press("f5")

    assert snap(snap_compare, make_app(project), steps)


def test_broken_labels_moves_80(snap_compare, tmp_path, capsys):
    from helpers_moves import reorganised

    root = reorganised(tmp_path, capsys)

    async def steps(pilot):
        await pilot.press("f5")

    assert snap(snap_compare, make_app(root), steps)


def test_delete_dialog_80(snap_compare, project):
    async def steps(pilot):
        await pilot.press("delete")

    assert snap(snap_compare, make_app(project), steps)


def test_restore_dialog_80(snap_compare, project):
    AuthoringSession.open(project).update("q002", query="How quickly are pages answered?")  # left in the journal
    assert snap(snap_compare, make_app(project))


def test_reviewer_dialog_80(snap_compare, project, monkeypatch):
    monkeypatch.delenv("LABELLER_REVIEWER", raising=False)
    monkeypatch.setattr("labeller.app.screens.review.login_name", lambda: "alice")

    async def steps(pilot):
        await pilot.press("f7")

    assert snap(snap_compare, make_app(project), steps)


def test_review_80(snap_compare, project, monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "alice")

    async def steps(pilot):
        await pilot.press("f7")

    assert snap(snap_compare, make_app(project), steps)


def test_review_long_fields_80(snap_compare, tmp_path):
    """A query and a quoted line too long for one line: each wraps under its own first column."""
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.review import ReviewScreen
    from test_app_review_narrow import long_record_project

    review = long_record_project(tmp_path / "proj")
    assert snap(snap_compare, ScreenApp(lambda: ReviewScreen(review, ["q1"], "alice")))


def test_record_editor_80(snap_compare, tmp_path):
    """``labeller review``'s own editor (the app's review opens the live editor instead)."""
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.review import ReviewScreen

    review = make_review_project(tmp_path / "proj")

    async def steps(pilot):
        await pilot.press("e")

    assert snap(snap_compare, ScreenApp(lambda: ReviewScreen(review, ["q1", "q2"], "alice")), steps)


def test_conflict_80(snap_compare, project):
    qpath = project / "golden" / "questions.jsonl"

    async def steps(pilot):
        pilot.app.session.update("q002", query="How quickly must on-call answer?")
        other = AuthoringSession.open(project)
        other.prepare()
        other.update("q002", query="Within what time are pages answered?")
        assert other.save_questions().written
        assert qpath.read_text(encoding="utf-8")
        await pilot.press("ctrl+s")

    assert snap(snap_compare, make_app(project), steps)


def test_annotate_80(snap_compare, tmp_path):
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.annotate import AnnotateScreen

    review = make_review_project(tmp_path / "proj")
    assert snap(snap_compare, ScreenApp(lambda: AnnotateScreen(review, ["q1", "q2"], "bob")))


def test_adjudicate_80(snap_compare, tmp_path):
    from labeller.app.review_app import ScreenApp
    from labeller.app.screens.adjudicate import AdjudicateScreen
    from test_review_agreement import BOB, write_annotations

    review = make_review_project(tmp_path / "proj")
    write_annotations(review, "bob", BOB)
    assert snap(snap_compare, ScreenApp(lambda: AdjudicateScreen(review, "bob", "carol", ["q2", "q3", "q1"])))
