"""``AppHost``: what the screens ask of the app that shows them.

The shell (``labeller.app.app``) lists the screens, so the screens must not import the
shell back: they see the app through this protocol, which the shell's ``LabellerApp``
satisfies. A screen that needs something new from the app adds it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from labeller.app.session.session import AuthoringSession
    from labeller.app.settings import Settings

BindingGroups = list[tuple[str, list[tuple[str, str, str]]]]  # (where, [(key, what it does, binding id)])


class AppHost(Protocol):
    session: "AuthoringSession"
    current: tuple[str, int] | None  # the record (and locator) open in the editor
    settings: "Settings"

    def remember_pane(self, width_class: str, shown: bool) -> None:
        """Keep the corpus pane's visibility for this width class (``settings.json``)."""

    def open_record(self, record_id: str, index: int = 0) -> None:
        """Open a record in the authoring workspace (switching to it)."""

    def status_line(self) -> str: ...

    def help_groups(self) -> BindingGroups:
        """Every key of the app by where it applies (the help screen's rows)."""

    def refresh_screens(self) -> None: ...

    def records_changed(self, ids: list[str]) -> None:
        """A screen changed these records' drafts: redraw every screen and resolve them again."""

    def prepare(self) -> None:
        """Load (again) the heavy parts of the project in a worker."""

    # Textual's App methods the screens' open functions call
    # (signatures that Textual's own overloads and keywords satisfy)
    def notify(self, message: str, *, title: str = "", severity: Literal["information", "warning", "error"] = ...,
               timeout: float | None = None, markup: bool = True) -> None: ...

    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
