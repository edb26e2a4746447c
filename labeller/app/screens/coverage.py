"""The coverage panel as a mode: what the golden set covers, from the build's summary."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Header

from labeller.app.screens.base import LatestOnly, SessionScreen
from labeller.app.widgets.coverage import CoverageView
from labeller.app.widgets.markup import visible_line
from labeller.app.widgets.key_bar import KeyBar


class CoverageScreen(SessionScreen):
    CSS_PATH = "coverage.tcss"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._builds = LatestOnly(self, "coverage", self._compute, self._apply)

    def compose(self) -> ComposeResult:
        yield Header()
        yield CoverageView(id="coverage")
        yield KeyBar()

    def refresh_from_session(self) -> None:
        if self.is_mounted and self.session.ready:
            self._builds.request(self.session.snapshot())

    def _compute(self, drafts, interim):
        return self.session.compute(drafts)

    def _apply(self, args: tuple, result) -> None:
        if isinstance(result, Exception):
            self.notify(visible_line(f"coverage failed: {result}"), severity="error", markup=False)
            return
        self.session.store(result)
        summary = self.session.coverage(result)
        summary["incomplete"] = sum(1 for d in args[0] if d.problems())
        view = self.query_one(CoverageView)
        view.show(summary)
        self.sub_title = (f"{summary['records']} resolvable records"
                          + (f" · {summary['incomplete']} unfinished draft(s) not counted"
                             if summary["incomplete"] else ""))
