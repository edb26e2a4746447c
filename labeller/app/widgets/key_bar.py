"""``KeyBar``: the footer's keys in as many rows as the terminal needs, none cut short.

Textual's ``Footer`` lays its keys out in one row and cuts off what does not fit, so on
an 80-column terminal the keys at the end (often the ones a newcomer looks for) are
simply not there. A grid of equal cells is no better: a cell narrow enough for many keys
per row cuts the longer labels ("Delete question" became "Delete ques"). The key bar
wraps the keys as text wraps words: each key keeps its whole label, and a key that would
run past the right edge starts the next row. The rows are laid out again when the width
changes.

At most ``MAX_ROWS`` rows (issue 38: at 80 columns every footer took three rows of a 24-row
terminal): where the keys need more, the bar leaves out whole groups of keys that are reached
another way, in the order of ``SPARE`` (first the screen keys F2-F10, which F1 lists first and
the palette names, then undo and reload), until the rest fits. Whole groups, so a key is
either in the footer of every screen at that width or of none. The screen's own keys, F1 Help,
Save and the palette always stay; every key left out is still a named, remappable binding in
F1 and the palette.

The keys keep one order whatever has the focus (``declared_rank``): Textual lists the screen's
bindings in the order the focused widget's own (hidden) bindings meet them, so F6, F7 and
Ctrl+Z moved to the front when the answer field took the focus and back when the query did —
the keys jumped under the author's eyes, and every focus change between two fields laid the
whole bar out again.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from textual import events
from textual.binding import Binding
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer

from labeller.app.widgets.textual_adapter import FooterKey, bindings_ready

# What a FooterKey draws around its two texts in the (non-compact) footer style, from its
# DEFAULT_CSS: " key " (padding 0 1) then "description " (padding 0 1 0 0). The key bar
# draws the command-palette key the same way (Textual's footer docks it on the right, compact
# and with a border), so this is every key's width. tests/test_app_layout.py checks the rendered bar, so a Textual change shows.
KEY_PADDING = 3
MAX_ROWS = 2


def _screen_keys(binding_id: str) -> bool:
    return binding_id.startswith("go.") and binding_id != "go.help"


# the groups of keys the bar may leave out, first left out first (binding ids; see the docstring)
SPARE: tuple[Callable[[str], bool], ...] = (_screen_keys, {"app.undo", "app.reload_corpus"}.__contains__)


def key_width(key: FooterKey) -> int:
    """Columns the key takes on screen: its key, its description and their padding."""
    return cell_len(key.key_display) + cell_len(key.description) + KEY_PADDING


def spared(ids: list[str], widths: list[int], width: int) -> set[int]:
    """Indices of the keys left out so that the rest fits ``MAX_ROWS`` rows of ``width``:
    none if all fit, else the first groups of ``SPARE`` (whole) until the rest fits or none
    is left to leave out."""
    out: set[int] = set()
    for group in SPARE:
        if len(wrap_keys([w for i, w in enumerate(widths) if i not in out], width)) <= MAX_ROWS:
            break
        out |= {i for i, binding_id in enumerate(ids) if group(binding_id)}
    return out


def declared_rank(node, screen, binding) -> tuple[int, int]:
    """Where a shown binding sorts in the bar: a focused widget's own first, then the screen's,
    then the app's, each in the order its classes declare them (base class first). ``node`` is
    the one Textual says the binding belongs to."""
    level = 2 if node is screen.app else 1 if node is screen else 0
    declared = [b for klass in reversed(type(node).__mro__) for b in klass.__dict__.get("BINDINGS", ())
                if isinstance(b, Binding)]
    same = [i for i, b in enumerate(declared) if (b.id and b.id == binding.id) or b.action == binding.action]
    return level, same[0] if same else len(declared)


def wrap_keys(widths: list[int], width: int) -> list[list[int]]:
    """Indices of the keys on each row: as many as fit, in order (a key wider than the
    whole bar gets a row of its own)."""
    rows: list[list[int]] = []
    used = width + 1
    for i, w in enumerate(widths):
        if used + w > width:
            rows.append([])
            used = 0
        rows[-1].append(i)
        used += w
    return rows


class KeyBar(Footer):
    DEFAULT_CSS = """
    KeyBar {
        layout: vertical;
        height: auto;
    }
    KeyBar > HorizontalGroup {
        height: 1;
    }
    KeyBar FooterKey.-command-palette {
        dock: none;
        border-left: none;
        padding-right: 0;
    }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._laid_out_for = 0  # the width the rows were made for
        self._shown: tuple = ()  # the bindings the rows show
        self.left_out: tuple[str, ...] = ()  # ids of the keys left out at this width (``SPARE``)

    def _bar_width(self) -> int:
        return self.size.width or self.app.size.width

    def compose(self):
        keys: list[Widget] = list(super().compose())
        self._shown = self._what_shows(self.screen) if bindings_ready(self) else ()
        # one reading of the screen's bindings: Textual computes ``active_bindings`` anew on each
        # access (every binding's check_action), which per key was a tenth of a focus change
        active = self.screen.active_bindings if bindings_ready(self) else {}
        keys = self._in_declared_order(keys, active)
        for key in keys:
            if key.has_class("-command-palette"):  # Textual leaves it compact: drawn like the rest here
                key.data_bind(compact=Footer.compact)
            if isinstance(key, FooterKey):
                # born with the bar's value (and its class, before any styling): a key starts
                # compact and its binding then makes it not, which restyled every key twice
                # before the first frame (3% of the app's start)
                key.set_reactive(FooterKey.compact, self.compact)
                key.set_class(self.compact, "-compact", update=False)
        self._laid_out_for = width = self._bar_width()
        ids = [self._binding_id(k, active) for k in keys]
        widths = [key_width(k) if isinstance(k, FooterKey) else width for k in keys]
        out = spared(ids, widths, width)
        self.left_out = tuple(ids[i] for i in sorted(out))
        keys = [k for i, k in enumerate(keys) if i not in out]
        widths = [w for i, w in enumerate(widths) if i not in out]
        for row in wrap_keys(widths, width):
            yield HorizontalGroup(*(keys[i] for i in row))

    @staticmethod
    def _binding_id(key: Widget, active: dict) -> str:
        """The id of the binding a footer key stands for ("" for the palette's key and the rest)."""
        found = active.get(key.key) if isinstance(key, FooterKey) else None
        return (found[1].id or "") if found is not None else ""

    def _in_declared_order(self, keys: list[Widget], active: dict) -> list[Widget]:
        """The footer's keys sorted by ``declared_rank`` (stable: the palette's key, which
        Textual yields last, stays last)."""
        def rank(key: Widget) -> tuple[int, int]:
            found = active.get(key.key) if isinstance(key, FooterKey) else None
            if found is None or key.has_class("-command-palette"):
                return (3, 0)  # after every level of declared_rank
            return declared_rank(found[0], self.screen, found[1])

        return sorted(keys, key=rank)

    @staticmethod
    def _what_shows(screen) -> tuple:
        """What the bar shows, in no order (the bar orders it: a new order is no change)."""
        return tuple(sorted((b.key, b.description, enabled) for _, b, enabled, _ in screen.active_bindings.values()
                            if b.show))

    def bindings_changed(self, screen) -> None:
        """Lay the keys out again only when what they say changed: Textual's footer rebuilds
        itself on every focus change, and each rebuild moves the layout under it.

        A screen covered by another (a dialog over the question list) keeps the keys it showed:
        Textual reads its bindings again when it is shown (``Screen.stack_updates``), and laying
        them out behind the dialog was work nobody saw, which Textual then painted in the picture
        behind the dialog on Python 3.13 and not on 3.11 (the conflict dialog's snapshot)."""
        app = screen.app
        if screen is not app.screen and screen in app.screen_stack:
            return
        if not bindings_ready(self) or self._what_shows(screen) != self._shown:
            super().bindings_changed(screen)

    async def recompose(self) -> None:
        """Lay the keys out again, unless the rows already show what they would. Textual queues
        one recompose per change of bindings, so two changes before the first ran (the focus
        landing on a screen as it starts) built every key twice: a third of the app's start
        went to key bars."""
        if self.children and bindings_ready(self) and (self._what_shows(self.screen), self._bar_width()) == (
                self._shown, self._laid_out_for):
            return
        await super().recompose()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for and bindings_ready(self):
            self.call_after_refresh(self.recompose)
