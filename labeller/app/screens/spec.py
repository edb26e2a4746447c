"""``ModeSpec``: what the app needs to know about one of its screens to reach it.

Every top-level screen has one line in ``labeller.app.screens.modes.SCREENS``; from that list
the app makes its key bindings, its command-palette entries and the help screen's groups. A
screen is either a *mode* (its own screen stack, switched to with ``switch_mode``) or
*pushed* over the current screen by its ``open`` function (help, review mode), which may
refuse with a message (review needs a saved file). The screen's class and its ``open``
function are named as ``"module:attr"`` of this package and imported only when the app
first needs them (the screen is shown, or its bindings listed): the eval's plots, the
editor's document view and the review screen cost nothing until then. Adding a screen is
one new module plus one line in ``modes.SCREENS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, cast

from textual.screen import Screen

from labeller.app.screens.host import AppHost
from labeller.registry import load_target


@dataclass(frozen=True)
class ModeSpec:
    name: str
    title: str  # the footer's word for it
    key: str
    help: str  # one line, for the binding's tooltip, F1 and the palette
    screen_at: str  # "module:Class" of its screen (F1 lists the bindings the class declares)
    open_at: str | None = None  # pushed screens: "module:function" that opens it over the app

    @property
    def screen(self) -> type[Screen]:
        return cast("type[Screen]", load_target(self.screen_at, __package__))

    @property
    def open(self) -> Callable[[AppHost], None] | None:
        if self.open_at is None:
            return None
        return cast("Callable[[AppHost], None]", load_target(self.open_at, __package__))

    def make(self) -> Screen:
        """A new instance of the screen (what ``App.MODES`` calls when the mode is first shown)."""
        return self.screen()

    @property
    def is_mode(self) -> bool:
        return self.open_at is None

    @property
    def action(self) -> str:
        return f"switch_mode('{self.name}')" if self.is_mode else f"open_screen('{self.name}')"

    @property
    def command(self) -> str:
        """Its title in the command palette."""
        return f"Go to {self.title}" if self.is_mode else self.title
