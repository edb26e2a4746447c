"""A key typed in a one-line field repaints that field and nothing else.

Textual's ``Input`` sets its virtual width to its text's at each change, and that size is a
layout reactive: each key typed in the editor arranged and repainted the whole author screen
(20-40 ms of CPU a key there, a frame of latency on a slow machine). ``SafeInput`` declares the
size a repaint only; these tests hold that, and that a text longer than its field still scrolls
so that the cursor and the text just typed stay in view, as Input's own does.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from helpers_app import make_app, open_record, run_async, small  # noqa: F401  (small: a fixture)
from labeller.app.widgets.fields import SafeInput

LONG = ("how long does an old key stay valid after a rotation of every key, and who announces "
        "the rotation in the ops channel")  # longer than any field
TYPED = " and when"


def watch_layouts(widget) -> list[bool]:
    """Record each refresh the widget asks for: True where it asks for a layout."""
    asked: list[bool] = []
    refresh = widget.refresh

    def recording(*regions, **kwargs):
        asked.append(bool(kwargs.get("layout")) or bool(kwargs.get("recompose")))
        return refresh(*regions, **kwargs)

    widget.refresh = recording
    return asked


@pytest.mark.parametrize("field_id", ["form-query", "loc-quote"])
@run_async
async def test_typing_in_a_field_lays_out_nothing(small, field_id):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q001")
        field = app.screen.query_one(f"#{field_id}", SafeInput)
        field.focus()
        await pilot.pause()
        field.raw = before = LONG  # as loaded or pasted: the keys typed after it are the test
        await pilot.pause()
        asked = watch_layouts(field)
        await pilot.press("end", *TYPED)
        await pilot.pause()
        assert app.screen.focused is field
        assert field.raw == before + TYPED
        assert asked, "typing repainted nothing"
        # at most once: Textual's Input flags a horizontal scrollbar (of size 0) in the first layout
        # after its text outgrows it, whoever asked for that layout (before: a layout each key)
        assert sum(asked) <= 1, f"{sum(asked)} of {len(asked)} refreshes asked for a layout"
        width = field.content_size.width
        assert len(LONG) > width, "the text must overflow the field for the scroll to be checked"
        shown = field.render_line(0).text
        assert (before + TYPED)[-(width // 2):] in shown, shown  # scrolled: the end just typed is in view
        await pilot.press("home")
        await pilot.pause()
        assert field.render_line(0).text.startswith((before + TYPED)[:width // 2]), field.render_line(0).text


@run_async
async def test_a_field_scrolls_as_textuals_input_does(small):
    """The same keys in Textual's own Input and in a SafeInput of the same width: the same
    scroll position and the same painted line after each step."""
    from textual.app import App

    class Two(App):
        CSS = "Input { width: 20; }"

        def compose(self):
            yield Input(id="plain")
            yield SafeInput(id="safe")

    steps = [list(LONG[:26]), ["left"] * 12, ["home"], ["end", "backspace", "backspace"], ["left"] * 3 + ["x"]]
    app = Two()
    async with app.run_test(size=(40, 6)) as pilot:
        fields = [app.query_one("#plain", Input), app.query_one("#safe", SafeInput)]
        seen: list[list[tuple]] = [[], []]
        for n, field in enumerate(fields):
            field.focus()
            await pilot.pause()
            for keys in steps:
                await pilot.press(*keys)
                await pilot.pause()
                seen[n].append((field.value, field.cursor_position, field.scroll_x, field.render_line(0).text))
        assert seen[0] == seen[1]
        assert seen[1][0][2] > 0  # the long text did scroll
