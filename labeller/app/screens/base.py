"""What every mode screen shares: the session, the header and footer, a refresh hook."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

from textual import events
from textual.screen import Screen

from labeller.app.screens.host import AppHost

if TYPE_CHECKING:
    from labeller.app.session.session import AuthoringSession


class SessionScreen(Screen):
    """A mode's base screen. Screens read the session when shown and after app-level
    changes (save, restore, reload); they never keep their own copy of records."""

    @property
    def labeller(self) -> AppHost:
        return cast(AppHost, self.app)

    @property
    def session(self) -> "AuthoringSession":
        return self.labeller.session

    def on_compose(self) -> None:
        """The screen's width class (``-narrow`` / ``-wide``, Textual's rule for the app's
        ``HORIZONTAL_BREAKPOINTS``) before its widgets are made: Textual adds it on the first
        resize, which styled every widget of the screen a second time before the first frame.
        That resize, and every later one, still sets it."""
        own = self.HORIZONTAL_BREAKPOINTS
        for edge, name in sorted((self.app.HORIZONTAL_BREAKPOINTS if own is None else own) or (), reverse=True):
            if self.app.size.width >= edge:
                self.add_class(name)
                break

    def refresh_from_session(self) -> None:
        """Redraw from the session (override)."""

    _styled = False  # set once Textual has restyled the whole screen on its first showing

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Redraw from the session. Textual restyles every widget of a screen each time it is
        shown again (F2/F3 back and forth: 40-90 ms of CPU on the author screen at each switch);
        only the first showing needs it here. A widget's class or focus change while the screen
        is hidden restyles that widget at once, a theme change restyles every screen when its
        mode is next shown (Textual's CSS version check), and this app's CSS reads no state of
        the app's own (``App:blur``); returning from a dialog never restyles, in Textual too.
        ``refresh_styles`` is the event's public flag; this handler runs before Textual's."""
        if self._styled:
            event.refresh_styles = False
        self._styled = True
        self.refresh_from_session()


class LatestOnly:
    """Run a job in a thread worker, one at a time, always for the newest request.

    Live resolution must never block the UI and must never queue up work the author has
    already typed past: while a job runs, newer requests replace each other, and the
    newest one starts when the running one ends. Every result is applied (the author sees
    progress while typing); ``compute`` may also report an interim result.
    """

    def __init__(self, screen: Screen, name: str, compute: Callable[..., Any],
                 apply: Callable[[tuple, Any], None]) -> None:
        self.screen = screen
        self.name = name
        self.compute = compute
        self.apply = apply
        self.running = False
        self._pending: tuple | None = None

    def request(self, *args) -> None:
        self._pending = args
        if not self.running:
            self._start()

    def _start(self) -> None:
        args, self._pending = self._pending, None
        assert args is not None, "started only with a request pending"
        self.running = True
        # compute's errors come back as results; an error while applying one is a bug and stops the app
        self.screen.run_worker(lambda: self._run(args), thread=True, group=self.name)

    def _run(self, args: tuple) -> None:
        app = self.screen.app

        def interim(result) -> None:
            app.call_from_thread(self.apply, args, result)

        try:
            result = self.compute(*args, interim=interim)
        except Exception as exc:  # shown to the author, never swallowed
            result = exc
        app.call_from_thread(self._done, args, result)

    def _done(self, args: tuple, result) -> None:
        self.running = False
        self.apply(args, result)
        if self._pending is not None:
            self._start()
