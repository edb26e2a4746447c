"""The first open of the author screen (issue 17.7: a 1 MB document to its first quote in
300 ms, the first time too) skips Textual's refresh of the whole app's CSS that a mode's new
screen sets off (``AuthorScreen.__init__``): what that refresh would have done must already
be done, every node of the new screen styled exactly as a refresh styles it, also after the
theme changed while the screen did not exist yet."""

from __future__ import annotations

from textual.app import App

from helpers_app import make_app, run_async, settle, small  # noqa: F401


def styles_of(screen) -> list[tuple[str, str, str]]:
    """Every node's computed CSS and the rich style it draws with, in DOM order."""
    return [(repr(node), node.styles.css, str(node.rich_style)) for node in screen.walk_children(with_self=True)]


@run_async
async def test_the_first_author_screen_is_styled_as_a_css_refresh_styles_it(small):
    app = make_app(small)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        refreshed: list[str] = []
        refresh = App.refresh_css

        def counted(self, animate: bool = True) -> None:
            refreshed.append(self.screen.__class__.__name__)
            refresh(self, animate)

        app.refresh_css = counted.__get__(app)  # type: ignore[method-assign]
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"  # before the screen exists
        await settle(pilot)
        assert refreshed, "a theme change refreshes the CSS"
        refreshed.clear()
        app.open_record("q001")  # the author screen is built now
        await settle(pilot)
        assert app.screen.__class__.__name__ == "AuthorScreen" and not refreshed
        shown = styles_of(app.screen)
        refresh(app, animate=False)
        await settle(pilot)
        assert styles_of(app.screen) == shown
