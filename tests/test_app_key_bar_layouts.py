"""A key bar lays its keys out once per change of what it shows (``KeyBar.recompose``).

Textual queues a recompose for every change of a screen's bindings; two changes before the
first recompose ran (the focus landing on the question list as the app starts) built every
key of the bar twice, the same keys at the same width, and the key bars took a third of the
app's start. Here every layout of every bar is recorded while the app starts and while the
author types across the editor's fields: no bar is laid out twice in a row with the same keys.
"""

from __future__ import annotations

from helpers_app import make_app, run_async, settle, small  # noqa: F401  (small: a fixture)
from labeller.app.widgets.key_bar import KeyBar


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


