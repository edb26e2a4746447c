"""The first open of a record (issue 17.7: a 1 MB document to its first quote in 300 ms, the
first time too). The author screen is built while the app is idle once the corpus is read,
and building it skips Textual's refresh of the whole app's CSS that a mode's new screen sets
off (``AuthorScreen.__init__``): what that refresh would have done must already be done,
every node of the new screen styled exactly as a refresh styles it, also after the theme
changed while the screen did not exist yet."""

from __future__ import annotations

import pytest
from textual.app import App

from helpers_app import make_app, run_async, settle, small  # noqa: F401


def styles_of(screen) -> list[tuple[str, str, str]]:
    """Every node's computed CSS and the rich style it draws with, in DOM order."""
    return [(repr(node), node.styles.css, str(node.rich_style)) for node in screen.walk_children(with_self=True)]


@run_async
async def test_a_new_author_screen_is_styled_as_a_css_refresh_styles_it(small):
    from labeller.app.screens.author import AuthorScreen

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
        app.add_mode("fresh-author", AuthorScreen)  # the author screen is built already: a new one
        app.current = ("q001", 0)
        app.switch_mode("fresh-author")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen) and app.screen.record_id == "q001" and not refreshed
        shown = styles_of(app.screen)
        refresh(app, animate=False)
        await settle(pilot)
        assert styles_of(app.screen) == shown


@run_async
async def test_the_author_screen_is_built_once_while_idle_after_the_corpus_is_read(small, monkeypatch):
    """Built when the app has prepared (before any open), so the first open only shows it; a
    second preparation (the corpus read again) builds nothing more."""
    from labeller.app.screens.author import AuthorScreen

    composed: list[AuthorScreen] = []
    compose = AuthorScreen.compose

    def counted(self):
        composed.append(self)
        yield from compose(self)

    monkeypatch.setattr(AuthorScreen, "compose", counted)
    app = make_app(small)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.current_mode == "questions"
        (built,) = app.get_screen_stack("author")
        assert composed == [built] and built.is_mounted and built.query_one("#document")
        app.open_record("q001")
        await settle(pilot)
        assert app.screen is built and composed == [built]
        assert built.record_id == "q001" and built.query_one("#document").doc is not None
        await pilot.press("f8")  # reload the corpus: prepared again
        await settle(pilot)
        assert composed == [built] and app.screen is built


@run_async
async def test_an_app_closing_as_the_corpus_is_read_adds_no_screen_to_the_ones_it_closes(small):
    """The author screen is built on an idle callback after the corpus is read; when that
    callback comes while Textual closes the app's screens (the author quit right then, or the
    loading benchmark stops there), it must build nothing: a mode added then broke the close
    ("dictionary changed size during iteration"). Here it comes while the first screen closes."""
    from labeller.app.app import LabellerApp

    app = make_app(small)
    prune = LabellerApp._prune
    arrived: list[bool] = []

    async def pruning(self, *args, **kwargs):
        if not arrived:
            arrived.append(True)
            self._build_author_screen()  # the idle callback, arriving mid-close
        return await prune(self, *args, **kwargs)

    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.get_screen_stack("author")  # built after the corpus was read
        app._screen_stacks.pop("author")  # as if the callback had not come yet
        app._prune = pruning.__get__(app)  # type: ignore[method-assign]
        app.exit()
    assert arrived and "author" not in app._screen_stacks and app.return_code == 0


@run_async
async def test_a_finished_load_worker_does_not_keep_the_project_a_reload_replaced(small, monkeypatch):
    """Textual keeps a finished worker (and its work's closure) for a while; under load the
    start's load worker was still held when a reload's heap freeze ran, so the project it had
    read was frozen, never collected (the freeze test failed in CI). Here every worker is held
    for the whole test: the project read before a reload is still collected."""
    import gc
    import weakref

    app = make_app(small)
    held = []
    real = type(app).run_worker

    def holding(self, *args, **kwargs):
        held.append(real(self, *args, **kwargs))
        return held[-1]

    monkeypatch.setattr(type(app), "run_worker", holding)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        old = weakref.ref(app.session.project)
        app.action_reload_corpus()
        await settle(pilot)
        gc.collect()
        assert held and old() is None, "a finished worker kept the project read before the reload"


@pytest.mark.real_heap_freeze
@run_async
async def test_the_loaded_project_is_frozen_out_of_the_cycle_collector(small):
    """After each load the heap is frozen (``app._freeze_heap``), so a full collection, which
    would walk every object of the corpus and the session, does not land in the first open;
    a reload unfreezes first, so the previous project's garbage is still collected."""
    import gc
    import weakref

    gc.unfreeze()
    app = make_app(small)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            frozen = gc.get_freeze_count()
            assert frozen > 0
            old = weakref.ref(app.session.project)
            app.action_reload_corpus()
            await settle(pilot)
            assert gc.get_freeze_count() > 0
            assert old() is None, "the project read before the reload was collected, not frozen"
    finally:
        gc.unfreeze()  # the rest of the test run collects as usual
