"""Issue 38's fifth rule: review in place. From review, ``e`` edits the record in the live
editor; ctrl+s saves it and comes back to that record in the same queue (not the queue's
first flagged record), where ``a`` accepts it as edited."""

from __future__ import annotations

import pytest

from helpers_app import make_app, run_async, settle, small, type_into  # noqa: F401  (small: a fixture)
from labeller.app.screens.author import AuthorScreen
from labeller.app.screens.review import ReviewScreen
from labeller.review.log import read_review_log

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@run_async
async def test_edit_from_review_saves_returns_to_the_record_and_accepts_it(small, monkeypatch, size):
    monkeypatch.setenv("LABELLER_REVIEWER", "tester")
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen)
        queue = list(review.record_ids)
        await pilot.press("n")  # the second record of the queue
        await settle(pilot)
        rid = review.session.record_id
        assert rid == queue[1]
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen) and app.screen.record_id == rid
        await type_into(pilot, "#form-query", "A reworded query, edited from review?")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        back = app.screen
        assert isinstance(back, ReviewScreen), "the save returns to review"
        assert list(back.record_ids) == queue and back.session.record_id == rid
        assert back.session.current().query == "A reworded query, edited from review?"
        await pilot.press("a")
        await settle(pilot)
    questions = {q.id: q for q in app.session.project.load_questions().questions}
    log = read_review_log(small / "golden" / "reviews.jsonl")
    assert log.statuses(list(questions.values()))[rid] == "reviewed"
