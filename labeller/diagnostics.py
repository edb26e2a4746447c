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
from rich.text import Text

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


def print_with_command(console: Console, message: str, command: str) -> None:
    """A message (Rich markup) that tells the reader to run ``command``, the command on a line
    of its own: Rich wraps a long line between words, and a command inside the sentence was cut
    in two (issue 38: "`labeller" at the end of one line, "build`" on the next). The message
    still wraps, between its own words; the command line is never wrapped by Rich, so at worst
    a terminal narrower than the command folds it, which copying puts back together."""
    console.print(message)
    console.print(Text(f"    {command}"), soft_wrap=True)


def print_kind(console: Console, found: Bounded[T], render: Callable[[T], str], what: str, *,
               limit: int = TEXT_LIMIT) -> None:
    """``print_bounded`` for a ``Bounded``: each kept item as ``render(item)`` gives it."""
    print_bounded(console, (render(item) for item in found), found.total, what, listed=len(found), limit=limit)


# Every ASCII punctuation character CommonMark lets a backslash escape: a cell of a PR comment
# is text someone else wrote, and must stay text — no link, image, HTML tag, code span, table
# pipe or emphasis made from a quote.
_MARKDOWN_SPECIAL = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
# What GitHub links in the text a comment renders to, where no backslash reaches (``\@team``
# renders as "@team", which GitHub then mentions): @mentions and @org/team mentions, #123 and
# GH-123 references, URLs (``scheme://``, ``www.``) and e-mail addresses (``a@b.c``, ``mailto:``).
# A zero-width joiner after such an ``@``, a ``#`` or ``GH-`` before a digit, between ``:`` and
# ``//``, and between ``www`` and ``.`` breaks each pattern, and the text reads the same (an
# ``@`` inside a word, as in ``recall@5``, is neither a mention nor an address and is left)
# (tests/test_markdown_safety.py renders it with cmark-gfm, GitHub's renderer).
ZWJ = "\u200d"
_GITHUB_LINK = re.compile(
    r"(?<=@)(?<![A-Za-z0-9_]@)"  # a mention: "@" after no (ASCII) word character, as GitHub reads it
    r"|(?<=@)(?=[\w-]*\.)"  # an e-mail address (a@b.c, mailto:a@b.c): "@" before a dotted domain
    r"|(?<=#)(?=\d)|(?i:(?<=gh-))(?=\d)"  # #123, owner/repo#123 and GH-123
    r"|(?<=:)(?=//)|(?i:(?<=www))(?=\.)")  # scheme://... and www....
CELL_CHARS = 200  # one Markdown table cell, escaped
COMMENT_CHARS = 60_000  # one comment, escaped; GitHub refuses a comment over 65,536 characters


def markdown_text(text: str) -> str:
    """``text`` as literal Markdown on one line, GitHub's links broken (``_GITHUB_LINK``): newlines
    as ⏎, controls visible, every Markdown punctuation character escaped."""
    return _escape_line(visible_line(text))


def _escape_line(line: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _GITHUB_LINK.sub(ZWJ, line))


def markdown_cell(text: str, limit: int = CELL_CHARS) -> str:
    """``text`` as one literal Markdown table cell (``markdown_text``) of at most ``limit``
    characters once escaped, saying how much was left out.

    The text is cut, then escaped, so a cut never splits an escape (a lone backslash would
    escape the cell's pipe) and a cell never grows past its bound (cut before escaping, 200
    characters of ``@`` became 600)."""
    line = visible_line(text)
    if len(line) <= limit and len(cell := _escape_line(line)) <= limit:
        return cell

    def more(left: int) -> str:
        return f"… \\({left:,} more characters\\)"

    room = limit - len(more(len(line)))
    lo, hi = 0, min(len(line), max(room, 0))  # the longest prefix whose escaped form fits ``room``
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if len(_escape_line(line[:mid])) <= room else (lo, mid - 1)
    return _escape_line(line[:lo]) + more(len(line) - lo)


def bounded_comment(text: str, full_report: str) -> str:
    """A pull-request comment of at most ``COMMENT_CHARS`` (counted as UTF-16 code units, as
    a browser counts them, which is never fewer than characters): ``text`` when it fits, else
    its first lines that fit and a last line saying what was left out and where the whole
    report is (``full_report``, Markdown). Whole lines are kept, so no table row or escape is cut."""
    def size(s: str) -> int:
        return len(s.encode("utf-16-le")) // 2

    if size(text) <= COMMENT_CHARS:
        return text
    lines = text.split("\n")

    def last(left: int, chars: int) -> str:
        return (f"**cut to fit a pull-request comment**: {left:,} more line(s), {chars:,} characters, left out; the "
                f"whole report: {full_report}")

    room = COMMENT_CHARS - size(last(len(lines), size(text))) - 1  # the blank line before it
    kept, used = 0, 0
    while kept < len(lines) and used + size(lines[kept]) + 1 <= room:
        used += size(lines[kept]) + 1
        kept += 1
    return "\n".join([*lines[:kept], "", last(len(lines) - kept, size(text) - used)])


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
