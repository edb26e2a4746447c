"""``ModeSpec``: what the app needs to know about one of its screens to reach it.

Every top-level screen declares one (``SPEC`` in its own module) and ``labeller.app.screens.modes``
lists them; from that list the app makes its key bindings, its command-palette entries
and the help screen's groups. A screen is either a *mode* (its own screen stack, switched
to with ``switch_mode``) or *pushed* over the current screen by its ``open`` function
(help, review mode), which may refuse with a message (review needs a saved file).
Adding a screen is one new module with its class and ``SPEC``, plus one line in
``modes.SCREENS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from textual.screen import Screen

from labeller.app.screens.host import AppHost


@dataclass(frozen=True)
class ModeSpec:
    name: str
    title: str  # the footer's word for it
    key: str
    help: str  # one line, for the binding's tooltip, F1 and the palette
    screen: type[Screen]  # its class: F1 lists the bindings it declares
    open: Callable[[AppHost], None] | None = None  # pushed screens: how the app opens it

    @property
    def is_mode(self) -> bool:
        return self.open is None

    @property
    def action(self) -> str:
        return f"switch_mode('{self.name}')" if self.is_mode else f"open_screen('{self.name}')"

    @property
    def command(self) -> str:
        """Its title in the command palette."""
        return f"Go to {self.title}" if self.is_mode else self.title
