"""Review mode is reachable from the authoring app (F7) and its decisions reach the log."""

from __future__ import annotations

from helpers_app import make_app, open_record, run_async, settle, small, type_into  # noqa: F401 (small: a fixture)
from labeller.app.screens.review import ReviewScreen
from labeller.review.log import read_review_log

SIZE = (150, 45)


@run_async
async def test_f7_opens_review_and_accept_is_logged(small, monkeypatch):
    monkeypatch.setenv("LABELLER_REVIEWER", "tester")
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        first = app.screen.record_ids[0]
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert not isinstance(app.screen, ReviewScreen)
    log = read_review_log(small / "golden" / "reviews.jsonl")
    questions = app.session.project.load_questions().questions
    assert log.statuses(questions)[first] == "reviewed"


@run_async
async def test_review_waits_for_unsaved_edits(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q002")
        await type_into(pilot, "#form-query", "An unsaved rewording of the query?")
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        assert not isinstance(app.screen, ReviewScreen)


@run_async
async def test_question_list_shows_review_status(small, monkeypatch):
    from labeller.app.widgets.question_list import QuestionTable

    monkeypatch.setenv("LABELLER_REVIEWER", "tester")
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(QuestionTable)
        assert table.get_cell("q001", "review") == "unreviewed"
        await pilot.press("f7")
        await settle(pilot)
        first = app.screen.record_ids[0]
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        table = app.screen.query_one(QuestionTable)
        assert table.get_cell(first, "review") == "reviewed"
