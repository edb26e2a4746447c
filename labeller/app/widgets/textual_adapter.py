"""Every use of a private part of Textual, in one place (issue 26).

Textual's private modules and attributes may change in any release, patch releases included,
so the rest of labeller reaches none of them: tests/test_architecture.py fails on a private
Textual import, a ``x._name`` on a Textual object, or an override of a Textual private, in any
other module. Each use below says why no public way exists and which upstream issue would
give one; when Textual makes it public, the shim goes and its callers stay.

Uses (Textual 8, pinned ``<9``):

* ``FooterKey`` (``textual.widgets._footer``): not exported by ``textual.widgets``; the key
  bar measures and styles the keys the Footer composes. No upstream issue found; to file.
* ``Footer._bindings_ready``: whether the footer may read the screen's bindings yet; no
  public flag. No upstream issue found; to file.
* ``App._init_mode``: building a mode's screen before it is first shown (issue 17.7). No
  public API; no upstream issue found.
* ``Screen._css_update_count``: a new screen's CSS version, so that showing it does not
  refresh the whole app's CSS twice. No public API; no upstream issue found.
* ``DataTable._update_dimensions``/``_update_count``: rows cached before they are measured
  (Textual issue #4470).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App
from textual.screen import Screen
from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey

__all__ = ["FooterKey", "MeasuredDataTable", "adopt_app_css", "bindings_ready", "build_mode"]


def bindings_ready(footer: Footer) -> bool:
    """Whether ``footer`` may read its screen's bindings (Textual sets it once mounted)."""
    return footer._bindings_ready


def build_mode(app: App, mode: str) -> None:
    """Build ``mode``'s screen now, as Textual does when the mode is first shown."""
    app._init_mode(mode)


def adopt_app_css(screen: Screen) -> None:
    """Give a new screen the app's CSS version, so that showing it does not refresh the whole
    app's CSS (a new screen's is -1). Safe where the screen's widgets are styled from the
    current stylesheet as they mount (tests/test_app_first_open.py holds that)."""
    screen._css_update_count = screen.app._css_update_count


class MeasuredDataTable(DataTable):
    """A DataTable that redraws its rows once they are measured (Textual issue #4470: a row
    drawn before the idle measurement is cached at the header's widths, under a key the
    measurement does not change). tests/test_app_table.py fails if Textual changes this."""

    def _update_dimensions(self, new_rows: Iterable) -> None:
        super()._update_dimensions(new_rows)
        self._update_count += 1
        self.refresh()
