"""A key bar lays its keys out once per change of what it shows (``KeyBar.recompose``).

Textual queues a recompose for every change of a screen's bindings; two changes before the
first recompose ran (the focus landing on the question list as the app starts) built every
key of the bar twice, the same keys at the same width, and the key bars took a third of the
app's start. Here every layout of every bar is recorded while the app starts and while the
author types across the editor's fields: no bar is laid out twice in a row with the same keys.
"""

from __future__ import annotations

from helpers_app import make_app, open_record, run_async, settle, small  # noqa: F401  (small: a fixture)
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.textual_adapter import FooterKey


@run_async
async def test_no_key_bar_is_laid_out_twice_with_the_same_keys(small, monkeypatch):
    layouts: list[tuple[int, tuple, int]] = []
    real = KeyBar.compose

    def recorded(self):
        rows = list(real(self))
        layouts.append((id(self), self._shown, self._laid_out_for))
        yield from rows

    monkeypatch.setattr(KeyBar, "compose", recorded)
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("ctrl+n", *"what", "alt+a", *"an answer", "alt+w", *"quote", "alt+q", "f2")
        await settle(pilot)
    shown = [entry for entry in layouts if entry[1]]
    assert len({bar for bar, _, _ in shown}) >= 2, "both screens' bars were laid out"
    last: dict[int, tuple] = {}
    for bar, keys, width in layouts:
        assert last.get(bar) != (keys, width) or not keys, f"a bar laid out twice with the same {len(keys)} keys"
        last[bar] = (keys, width)




@run_async
async def test_the_keys_keep_their_order_and_their_layout_whatever_field_has_the_focus(small):
    """Textual lists a screen's bindings in the order the focused widget's own hidden ones meet
    them: with the answer field (a TextArea, which binds F6, F7 and Ctrl+Z itself) focused, Undo
    jumped to the front of the bar and back when the query took the focus, and each such focus
    change laid the whole bar out again. Now one order (the widget's own keys, the screen's, the
    app's, each as declared), and moving between fields that show the same keys lays out nothing."""
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q004")
        seen = []
        for field in ("form-query", "form-answer", "loc-quote", "form-tags", "form-query"):
            app.screen.query_one(f"#{field}").focus()
            await settle(pilot)
            bar = app.screen.query_one(KeyBar)
            keys = list(bar.query(FooterKey))
            seen.append((field, [k.key for k in keys], keys))
        first = seen[0]
        for field, order, keys in seen[1:]:
            assert order == first[1], (field, order, first[1])
            assert all(a is b for a, b in zip(keys, first[2])), f"the bar was laid out again for {field}"
        assert first[1][-1] == "ctrl+p"  # the palette's key stays last


@run_async
async def test_a_screen_under_a_dialog_keeps_its_keys_until_it_is_shown_again(small, monkeypatch):
    """The conflict dialog over the question list: the list's bar is not laid out behind the
    dialog (its bindings change there: the app's keys are off while a dialog is up), and once
    the dialog is gone it shows the keys its screen then has."""
    from labeller.app.session.session import AuthoringSession

    composed: list[str] = []
    real = KeyBar.compose

    def recorded(self):
        composed.append(type(self.screen).__name__)
        yield from real(self)

    monkeypatch.setattr(KeyBar, "compose", recorded)
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        under = app.screen
        bar = under.query_one(KeyBar)
        before = [key.description for key in bar.query(FooterKey)]
        app.session.update("q002", query="How quickly must on-call answer?")
        other = AuthoringSession.open(small)
        other.prepare()
        other.update("q002", query="Within what time are pages answered?")
        assert other.save_questions().written
        composed.clear()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert type(app.screen).__name__ == "ConflictScreen"
        assert type(under).__name__ not in composed, composed
        assert [key.description for key in bar.query(FooterKey)] == before
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is under
        assert bar._shown == KeyBar._what_shows(under)
        assert [key.description for key in bar.query(FooterKey)] == before  # Escape changed nothing
