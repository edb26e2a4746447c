"""Issue 38's seventh rule, in the app: where a newcomer starts is in the footer. ``^n`` (a new
question) is drawn in the key bar of the question list and of the editor, at 80×24."""

from __future__ import annotations

import pytest

from helpers_app import make_app, run_async, settle, small  # noqa: F401  (small: a fixture)
from labeller.app.widgets.key_bar import KeyBar


@pytest.mark.parametrize("key", ["f2", "f3"])
@run_async
async def test_ctrl_n_is_in_the_footer_of_the_list_and_the_editor(small, key):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        keys = [(k.key_display, k.description) for k in bar.query("FooterKey")]
        assert ("^n", "New question") in keys, keys
        assert all(k.region.area for k in bar.query("FooterKey") if k.description == "New question")
        before = len(app.session.order)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert len(app.session.order) == before + 1  # one question, not two (the app's key and the footer's)
