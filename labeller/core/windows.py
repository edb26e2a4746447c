"""Where a Markdown document may be cut and each piece parsed on its own.

Expanding a quote needs the blocks around it, not the whole document, and parsing a
whole 10 MB corpus with markdown-it was three quarters of a cold build. A *restart line*
``L`` is a line at which the full parse has no block open, so the tokens of
``text[line L:]`` parsed alone are the full parse's tokens from ``L`` on (maps shifted),
and the tokens of ``text[:line L]`` are the full parse's tokens before ``L``. Windows
between two restart lines are therefore exact, and ``tests/test_windows.py`` holds every
window of every test corpus, and of generated hostile documents, equal to the full parse.

Why the conditions below are enough (CommonMark as markdown-it-py implements it):

* line ``L - 1`` is blank (only spaces and tabs): it ends every paragraph, table, block
  quote, reference definition, and HTML block of types 6-7, and no lazy continuation
  line can follow it;
* line ``L`` starts in column 0 with a letter or ``#``: it is not indented, so it ends
  every list item and indented code block, and it is not a list marker, so it cannot
  continue a list;
* or line ``L`` is a top-level list item with content (``- x`` in column 0 after any line,
  ``1. x`` after a blank line): it interrupts a paragraph, table or block quote, ends
  every item before it, and starts a list that holds the same items from ``L`` on as the
  list it continues (only that list's own extent differs, and no block records it);
* what can still be open at such a line is a fenced code block, an HTML block of types
  1-5 (``<!--``, ``<pre``...) opened at top level, an HTML block of types 6-7 (until its
  blank line), and front matter. The scan tracks fences exactly, skips HTML blocks of
  types 6-7, stops at the first one of types 1-5 (no restart line after it), and starts
  after the front matter.

Fences inside list items are the subtle part: the scan cannot tell a fence at indent 2-3
in a list item from one at top level, and does not see fences opened on a list-marker
line or deeper in an item. It does not need to. While an item may be open, a fence line
at indent 2-3 is followed with ``keep`` set to its indent, and any non-blank line indented
less than that (where an enclosing item could end) stops the scan. So a fence the scan
gets wrong lies inside a list item, which every restart line ends, and a real top-level
fence is followed exactly: a fence line at indent 0-1 ends every item and opens one.
Stopping is always safe: it only makes the last window longer.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache

from labeller.core.cache import Codec, as_list, check, ints
from labeller.core.corpus import Document
from labeller.core.expansion import DocBlocks, parse_blocks
from labeller.core.markdown import front_matter

WINDOWS_VERSION = "restart-lines-v1"  # part of every cached list of restart lines


def window_key(doc: Document) -> tuple:
    """The key a document's ``DocWindows`` are cached under, inside the block cache's
    namespace (``Project.block_cache``): the resolver and the cold build both use it."""
    return (WINDOWS_VERSION, doc.doc_id, doc.sha256)

# The only lines the scan stops at: a blank line right before a restart candidate (a line
# starting with a letter or ``#``), and lines that may open a fence or an HTML block.
# Each pattern of _EVENT starts at the newline before the line (a literal first character
# lets the regex engine skip to candidates three times faster than ``^`` does) and ends
# with a newline exactly when the next line is a restart line; line 0, which has no
# newline before it (and is never a restart line), is matched by _EVENT_AT_0.
_AFTER_BLANK = r"[ \t]*\n(?=[^\W\d_]|#|[0-9]{1,9}[.)][ \t]+\S)"
_EVENT_AT_0 = re.compile(rf"{_AFTER_BLANK}|[ \t]*(?:```|~~~|<)")
_EVENT = re.compile(rf"\n(?:{_AFTER_BLANK}|(?=[-+*][ \t]+\S)|[ \t]*(?:```|~~~|<))")
_BLANK_LINE = re.compile(r"^[ \t]*$", re.MULTILINE)
_LIST_MARKER_LINE = re.compile(r"^[ \t]*(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)", re.MULTILINE)
_HTML_1_TO_5 = re.compile(r"<(?:(?:script|pre|style|textarea)(?:[\s>]|$)|!--|\?|![A-Za-z]|!\[CDATA\[)",
                          re.IGNORECASE | re.ASCII)
_FENCE_LIKE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)


@lru_cache(maxsize=64)
def _closer(marker: str, n: int) -> re.Pattern:
    return re.compile(rf"^[ \t]*{re.escape(marker)}{{{n},}}[ \t]*$", re.MULTILINE)


@lru_cache(maxsize=4)
def _outdented(keep: int) -> re.Pattern:
    """A non-blank line indented less than ``keep`` columns (``keep`` is 2 or 3; a tab is 4)."""
    return re.compile(rf"^ {{0,{keep - 1}}}[^ \t\n]", re.MULTILINE)


def _indent(text: str, pos: int) -> tuple[int, int]:
    """(column of the first non-space character of the line at ``pos``, tabs to multiples
    of 4 as markdown-it counts them, and that character's offset)."""
    col = 0
    while text[pos] in " \t":
        col = col + 4 - col % 4 if text[pos] == "\t" else col + 1
        pos += 1
    return col, pos


def _fence_open(text: str, pos: int) -> tuple[str, int] | None:
    """``(marker, length)`` if the line content starting at ``pos`` opens a fence."""
    end = text.find("\n", pos)
    rest = text[pos:end]
    if rest[:3] not in ("```", "~~~"):
        return None
    marker = rest[0]
    n = len(rest) - len(rest.lstrip(marker))
    if marker == "`" and "`" in rest[n:]:
        return None
    return marker, n


def restart_lines(doc: Document) -> tuple[int, ...]:
    """Every restart line of ``doc`` in order (never line 0; see the module docstring).

    A regex finds the few lines that matter; everything between them is skipped at C
    speed, which keeps the scan a small fraction of reading the corpus.
    """
    text, starts = doc.text, doc.line_starts
    first, _ = front_matter(text)
    pos = since = starts[first] if first < len(starts) else len(text)
    out: list[int] = []
    after_restart = False
    while True:
        m = _EVENT_AT_0.match(text) if pos == 0 else None
        if m is not None:
            line_start = 0
        # from the newline before the line at ``pos``, unless that line is a restart line
        # (whose own newline-before would match it again)
        elif (m := _EVENT.search(text, pos if after_restart else max(pos - 1, 0))) is not None:
            line_start = m.start() + 1
        else:
            break
        after_restart = text[m.end() - 1] == "\n"  # the next line is a restart line
        if after_restart:
            since = pos = m.end()
            out.append(doc.line_of(pos))
            continue
        pos = text.find("\n", line_start) + 1
        col, at = _indent(text, line_start)
        if col > 3:
            continue  # indented code, or content of a list item: never opens a top-level block
        if text[at] == "<":
            if _HTML_1_TO_5.match(text, at):
                return tuple(out)
            # Types 6-7 end at the next blank line: a fence line before it is HTML text.
            blank = _BLANK_LINE.search(text, pos)
            end = blank.start() if blank else len(text)
            for f in _FENCE_LIKE.finditer(text, pos, end):
                col, at = _indent(text, f.start())
                if col <= 3 and _fence_open(text, at):
                    return tuple(out)
            pos = max(pos, end)  # nothing up to the blank line is a block of its own
            continue
        opened = _fence_open(text, at)
        if opened is None:
            continue
        # A fence at indent 2-3 may sit in a list item: follow it only while no line is
        # indented less than it (see the module docstring).
        keep = col if col >= 2 and _LIST_MARKER_LINE.search(text, since, line_start) else 0
        closer = _closer(*opened).search(text, pos)
        while closer is not None and _indent(text, closer.start())[0] > 3:
            closer = _closer(*opened).search(text, closer.end() + 1)
        if closer is None:
            return tuple(out)  # the fence runs to the end of the document
        if keep and _outdented(keep).search(text, pos, closer.end()):
            return tuple(out)  # an enclosing list item may end first: the hypotheses disagree
        pos = closer.end() + 1
    return tuple(out)


def window(restarts: tuple[int, ...], first: int, last: int, n_lines: int) -> tuple[int, int]:
    """The smallest ``[start, stop)`` between restart lines (or the document's ends) that
    holds lines ``first..last``."""
    i = bisect.bisect_right(restarts, first)
    start = restarts[i - 1] if i > 0 else 0
    j = bisect.bisect_right(restarts, last)
    stop = restarts[j] if j < len(restarts) else n_lines
    return start, stop


@dataclass
class DocWindows:
    """A document's restart lines and the windows parsed so far: one cache entry per
    document, so a build reads one file per labelled document, not one per quote."""

    restarts: tuple[int, ...]
    parsed: dict[tuple[int, int], DocBlocks] = field(default_factory=dict)

    @classmethod
    def of(cls, doc: Document) -> "DocWindows":
        return cls(restart_lines(doc))

    def snapshot(self) -> "DocWindows":
        """A copy to store: the app's resolution threads may add a window to this one while
        the cache encodes it (copying a dict is atomic; iterating one that grows is not)."""
        return DocWindows(self.restarts, dict(self.parsed))

    def to_data(self) -> dict:
        return {"restarts": list(self.restarts),
                "parsed": [[start, stop, blocks.to_data()] for (start, stop), blocks in sorted(self.parsed.items())]}

    @classmethod
    def from_data(cls, data) -> "DocWindows":
        """What ``to_data`` wrote, every field's type checked (a cache miss otherwise)."""
        check(type(data) is dict and data.keys() == {"restarts", "parsed"})
        parsed = {}
        for entry in as_list(data["parsed"]):
            start, stop, blocks = as_list(entry, 3)
            ints([start, stop])
            parsed[start, stop] = DocBlocks.from_data(blocks)
        return cls(tuple(ints(data["restarts"])), parsed)

    def blocks_at(self, doc: Document, first: int, last: int) -> DocBlocks:
        """Blocks exact for lines ``first..last`` (parsing their window if not done yet)."""
        span = window(self.restarts, first, last, len(doc.line_starts))
        found = self.parsed.get(span)
        if found is None:
            found = self.parsed[span] = parse_blocks(doc, *span)
        return found


WINDOWS_CODEC = Codec.of(DocWindows)
