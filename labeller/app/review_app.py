"""A minimal App that runs one screen on its own and exits when the screen is dismissed.

``labeller review``, ``annotate`` and ``adjudicate`` use it, so those screens work (and
are tested) independently of the main authoring app, which pushes the same screens.
"""

from __future__ import annotations

from typing import Callable

from textual.app import App
from textual.screen import Screen


class ScreenApp(App):
    def __init__(self, make_screen: Callable[[], Screen], title: str = "labeller") -> None:
        super().__init__()
        self.make_screen = make_screen
        self.title = title

    def on_mount(self) -> None:
        self.push_screen(self.make_screen(), callback=lambda _result: self.exit())
