"""Switching between modes (F2 / F3) restyles only what changed (``SessionScreen.on_screen_resume``).

Textual restyles every widget of a screen each time it is shown again; the app keeps that for
a screen's first showing only. These tests hold both halves: a switch back styles nothing, and
what the screen shows afterwards is exactly what a full restyle would give — after a plain
switch, after a theme change made on the other screen, and after a field was hidden while its
screen was.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from textual.widget import Widget

from helpers_app import make_app, open_record, run_async, settle, small  # noqa: F401  (small: a fixture)


def styles_of(screen) -> list[tuple]:
    """Every widget's resolved colours and layout rules, in DOM order."""
    return [(node.id, type(node).__name__, node.styles.color, node.styles.background, node.styles.display,
             node.styles.width, node.styles.height, node.styles.padding) for node in screen.walk_children(with_self=True)]


def assert_current(app, screen) -> None:
    """The styles shown equal those a full restyle computes from the current stylesheet."""
    shown = styles_of(screen)
    app.stylesheet.update(screen, animate=False)
    assert styles_of(screen) == shown


async def switch(pilot, key: str) -> None:
    await pilot.press(key)
    await settle(pilot)


async def count_styled(pilot, key: str) -> tuple[int, object]:
    """Press ``key`` and count the widgets of the screen it shows that the stylesheet styled."""
    app = pilot.app
    styled: list = []
    apply = app.stylesheet.apply

    def counting(node, *args, **kwargs):
        styled.append(node)
        return apply(node, *args, **kwargs)

    app.stylesheet.apply = counting
    try:
        await switch(pilot, key)
    finally:
        del app.stylesheet.apply
    return sum(1 for node in styled if isinstance(node, Widget) and node.screen is app.screen), app.screen


@asynccontextmanager
async def on_the_list(root):
    """A record opened in the editor, then the question list shown (F2): the app, its pilot and
    the author screen left behind."""
    app = make_app(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_record(pilot, "q001")
        author = app.screen
        await switch(pilot, "f2")
        yield app, pilot, author


@run_async
async def test_a_switch_back_restyles_nothing_and_leaves_every_style_current(small):
    async with on_the_list(small) as (app, pilot, author):
        questions = app.screen
        for key, screen in (("f3", author), ("f2", questions), ("f3", author)):
            restyled, shown = await count_styled(pilot, key)
            assert shown is screen
            # not the screen's 90-odd widgets (Textual's default); at most one focused again on the way in
            assert restyled <= 2, (key, restyled)
            assert_current(app, shown)


@run_async
async def test_a_theme_changed_on_one_screen_shows_on_the_other(small):
    async with on_the_list(small) as (app, pilot, _):
        before = styles_of(app.screen)
        await switch(pilot, "f3")
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await settle(pilot)
        await switch(pilot, "f2")
        assert styles_of(app.screen) != before  # the new theme's colours
        assert_current(app, app.screen)


@run_async
async def test_a_field_hidden_while_its_screen_was_is_shown(small):
    async with on_the_list(small) as (app, pilot, author):
        field = author.query_one("#form-query")
        before = styles_of(author)
        field.display = False  # as a screen's code hides a field, here while its screen is hidden
        await settle(pilot)
        await switch(pilot, "f3")
        assert app.screen is author and styles_of(author) != before
        assert_current(app, author)
