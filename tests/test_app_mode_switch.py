"""Switching between modes (F2 / F3) restyles only what changed (``SessionScreen.on_screen_resume``).

Textual restyles every widget of a screen each time it is shown again; the app keeps that for
a screen's first showing only. These tests hold both halves: a switch back styles nothing, and
what the screen shows afterwards is exactly what a full restyle would give — after a plain
switch, after a theme change made on the other screen, and after a field was hidden while its
screen was.
"""

from __future__ import annotations

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
        await pilot.press(key)
        await settle(pilot)
    finally:
        del app.stylesheet.apply
    return sum(1 for node in styled if isinstance(node, Widget) and node.screen is app.screen), app.screen


@run_async
async def test_a_switch_back_restyles_nothing_and_leaves_every_style_current(small):
    app = make_app(small)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_record(pilot, "q001")
        author = app.screen
        await pilot.press("f2")
        await settle(pilot)
        questions = app.screen
        for key, screen in (("f3", author), ("f2", questions), ("f3", author)):
            restyled, shown = await count_styled(pilot, key)
            assert shown is screen
            # not the screen's 90-odd widgets (Textual's default); at most one focused again on the way in
            assert restyled <= 2, (key, restyled)
            assert_current(app, shown)


@run_async
async def test_a_theme_changed_on_one_screen_shows_on_the_other(small):
    app = make_app(small)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_record(pilot, "q001")
        await pilot.press("f2")
        await settle(pilot)
        before = styles_of(app.screen)
        await pilot.press("f3")
        await settle(pilot)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert styles_of(app.screen) != before  # the new theme's colours
        assert_current(app, app.screen)


@run_async
async def test_a_class_changed_while_hidden_is_shown(small):
    app = make_app(small)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_record(pilot, "q001")
        author = app.screen
        await pilot.press("f2")
        await settle(pilot)
        field = author.query_one("#form-query")
        before = styles_of(author)
        field.display = False  # as a screen's code hides a field, here while its screen is hidden
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        assert app.screen is author and styles_of(author) != before
        assert_current(app, author)
