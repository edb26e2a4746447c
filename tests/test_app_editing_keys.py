"""Issue 38's eighth rule: editing like any editor, in every text field. Ctrl+A selects all;
in the answer (a wrapping TextArea) End and Home go to the ends of the logical line, not of
the wrapped row, so text typed after End is appended; alt+left/right move by word."""

from __future__ import annotations

from helpers_app import make_app, open_record, paste_into, run_async, settle, small  # noqa: F401

LONG = "Run keys rotate to issue a new API key, then redeploy every service in every region, one at a time."


@run_async
async def test_end_home_and_select_all_in_the_wrapping_answer(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q001")
        area = app.screen.query_one("#form-answer")
        area.focus()
        area.load_raw(LONG)
        await settle(pilot)
        assert area.wrapped_document.height > 1, "the answer wraps at this width: the test needs it"
        area.move_cursor((0, 0))
        await pilot.press("end", "!")
        await settle(pilot)
        assert area.raw == LONG + "!"
        await pilot.press("home", "X")
        assert area.raw == "X" + LONG + "!"
        await pilot.press("ctrl+a")
        assert area.selected_text == area.text
        await pilot.press("Z")
        await settle(pilot)
        assert area.raw == "Z" and app.session.draft("q001").expected_answer == "Z"


@run_async
async def test_select_all_and_word_movement_in_one_line_fields(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q001")
        for field in ("#form-query", "#loc-quote", "#form-tags"):
            await paste_into(pilot, field, "alpha beta gamma")
            widget = app.screen.query_one(field)
            await pilot.press("end", "alt+left")
            assert widget.cursor_position == len("alpha beta ")
            await pilot.press("alt+left", "alt+right")  # to "beta", then past it (to the next word's start)
            assert widget.cursor_position == len("alpha beta ")
            await pilot.press("ctrl+a", "x")
            assert widget.raw == "x", field
