"""Diagnostics bounded per kind: what a hostile file can make labeller print, and hold.

``build --check`` runs in CI on files a pull request wrote. Without a bound, a review log
of 262,144 ``{}`` lines prints 262,144 warnings (and, at the log's 64 MiB bound, holds
gigabytes of them), and one quote of 600 KB is echoed whole in its error. So every kind
of diagnostic (warnings, refusals, near-duplicates, review-log problems, chunk-file or
import problems) is gathered in a ``Bounded``: the first ``KEEP`` kept, every one counted.
Text output shows the first ``TEXT_LIMIT`` of a kind and one line for the rest
(``print_bounded``); ``--format json`` lists what was kept with the count. One message is
cut at ``MESSAGE_CHARS`` (``shorten``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import islice
from typing import TypeVar

from rich.console import Console

from labeller.display import safe_line, visible_line

T = TypeVar("T")
U = TypeVar("U")

TEXT_LIMIT = 20  # of each kind, in text output
KEEP = 100_000  # of each kind, in memory and in --format json; beyond, only counted
MESSAGE_CHARS = 500  # one message, in text output


def shorten(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` cut at ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def safe_short(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``shorten`` then ``display.safe_line``: one message as Rich output may print it."""
    return safe_line(shorten(text, limit))


class Bounded(list[T]):
    """Diagnostics of one kind: a list of the first ``keep``, in order, and ``total``, every one
    added. A list, so that code reading a plain list of problems reads this one unchanged."""

    def __init__(self, items: Iterable[T] = (), keep: int | None = None) -> None:
        super().__init__()
        self.keep = KEEP if keep is None else keep
        self.total = 0
        self.extend(items)

    def append(self, item: T) -> None:
        """Count ``item``; keep it while fewer than ``keep`` are kept."""
        self.total += 1
        if len(self) < self.keep:
            super().append(item)

    def extend(self, items: Iterable[T]) -> None:
        for item in items:
            self.append(item)

    def __reduce__(self):
        """Copied and pickled through ``__init__`` (a list's default re-appends before ``keep`` exists)."""
        return (type(self), (list(self), self.keep), {"total": self.total})

    def map(self, render: Callable[[T], U]) -> Bounded[U]:
        """The kept items rendered, with the same count."""
        out: Bounded[U] = Bounded((render(item) for item in self), keep=self.keep)
        out.total = self.total
        return out


def more_line(shown: int, total: int, what: str, listed: int | None = None) -> str | None:
    """``… and 262,124 more review-log warnings; --format json lists them all`` (None: nothing left out).

    ``listed``: how many the JSON holds when it does not hold them all (0: the JSON does not list this kind)."""
    if total <= shown:
        return None
    if listed == 0:
        return f"… and {total - shown:,} more {what}"
    json = ("lists them all" if listed is None or listed >= total
            else f"lists the first {listed:,}; more are only counted")
    return f"… and {total - shown:,} more {what}; --format json {json}"


def listing(items: Sequence[str], what: str, limit: int = TEXT_LIMIT) -> str:
    """``a, b, c … and 1,234 more ids``: a list that would be one endless line, on one bounded line."""
    head = ", ".join(shorten(item, 200) for item in items[:limit])
    return head if len(items) <= limit else f"{head} … and {len(items) - limit:,} more {what}"


class TerminalConsole(Console):
    """Rich's console, except that a closed pipe is a ``BrokenPipeError`` again.

    Rich's own answer to a reader that went away (``labeller build | head -1``) is
    ``SystemExit(1)``, which a pipeline reads as "the build refused"; raised as the error it
    is, the CLI's one handler (``labeller.cli.main``) ends every command alike."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError("the reader of labeller's output closed the pipe")


def print_bounded(console: Console, lines: Iterable[str], total: int, what: str, *, listed: int | None = None,
                  limit: int = TEXT_LIMIT) -> None:
    """Print the first ``limit`` of ``lines`` (Rich markup, already made safe) and one line for
    the rest: ``total`` of them in all, of which the JSON holds ``listed`` (None: all)."""
    shown = 0
    for line in islice(lines, limit):
        console.print(line, soft_wrap=True)  # each line is bounded; one diagnostic, one line
        shown += 1
    tail = more_line(shown, total, what, listed)
    if tail:
        console.print(f"[dim]{tail}[/]", soft_wrap=True)


def print_kind(console: Console, found: Bounded[T], render: Callable[[T], str], what: str, *,
               limit: int = TEXT_LIMIT) -> None:
    """``print_bounded`` for a ``Bounded``: each kept item as ``render(item)`` gives it."""
    print_bounded(console, (render(item) for item in found), found.total, what, listed=len(found), limit=limit)


# Every ASCII punctuation character CommonMark lets a backslash escape: a cell of a PR comment
# is text someone else wrote, and must stay text — no link, image, HTML tag, code span, table
# pipe or @mention made from a quote.
_MARKDOWN_SPECIAL = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
CELL_CHARS = 200  # one Markdown table cell


def markdown_cell(text: str, limit: int = CELL_CHARS) -> str:
    """``text`` as one literal Markdown table cell: cut at ``limit``, on one line (newlines as ⏎,
    controls visible), every Markdown punctuation character escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", visible_line(shorten(text, limit)))


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]], total: int, what: str, *,
                   listed: int | None = None, limit: int = TEXT_LIMIT) -> list[str]:
    """A Markdown table of the first ``limit`` rows (each cell escaped by ``markdown_cell``),
    then ``more_line``'s line for the rest: sized for a pull-request comment."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    shown = 0
    for row in islice(rows, limit):
        lines.append("| " + " | ".join(markdown_cell(cell) for cell in row) + " |")
        shown += 1
    tail = more_line(shown, total, what, listed)
    return lines + ([f"\n{tail}"] if tail else [])
