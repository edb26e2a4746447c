"""A minimal App that runs one screen on its own and exits when the screen is dismissed.

``labeller review``, ``annotate`` and ``adjudicate`` use it, so those screens work (and
are tested) independently of the main authoring app, which pushes the same screens. It
reads the user's keymap and theme as the authoring app does (one ``keymap.toml`` serves
both), so a key moved there is moved in every review round too.
"""

from __future__ import annotations

from typing import Callable

from textual.app import App
from textual.screen import Screen

from labeller.app.settings import load_keymap, load_settings
from labeller.app.widgets.markup import visible_line


def _binding_ids() -> set[str]:
    """The ids the keymap may name (asked only when a keymap file exists: it imports every screen)."""
    from labeller.app.app import binding_ids

    return binding_ids()


class ScreenApp(App):
    def __init__(self, make_screen: Callable[[], Screen], title: str = "labeller") -> None:
        """Reads the keymap first: an unknown binding id there is an ``InvalidInput`` (exit 2)
        before anything is shown, as in the authoring app."""
        keymap = load_keymap(_binding_ids)
        super().__init__()
        self.make_screen = make_screen
        self.title = title
        self.keymap = keymap
        self.settings, self._settings_problem = load_settings()

    def on_mount(self) -> None:
        self.set_keymap(self.keymap)
        if self._settings_problem:
            self.notify(visible_line(self._settings_problem), severity="warning", timeout=10, markup=False)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.push_screen(self.make_screen(), callback=lambda _result: self.exit())
