"""A document's *rendered text*: what a Markdown-to-text loader leaves of it (SPEC §10.1 tier 2).

Loaders such as Haystack's ``MarkdownToDocument`` or unstructured's Markdown partitioner
drop the syntax and keep the words, so their passages occur in no canonical text. We
compute the same kind of text with every character mapped back to its source offset, so a
passage found in it is placed on the source exactly.

The syntax is found by CommonMark's line rules, in one pass over the lines (``_Marker``):
front matter (the plugin's own rule, ``markdown.front_matter``), fence delimiters, thematic
breaks, setext underlines, table delimiter rows and link reference definitions are dropped
as whole lines, and heading, list and block-quote markers where a line starts with them.
(markdown-it's own parse would be the obvious source, but it costs over a second per
megabyte; the rendered tier must read a 10 MB corpus in a few seconds.)
Inside a block's text one scanner takes the inline syntax left to right (code spans first,
whose content is kept verbatim; then autolinks, HTML tags and comments, images and links
keeping their text (a reference link only when its label is defined), escapes, entities,
and the emphasis runs that pair up under CommonMark's flanking rules). Code blocks are kept as they are.

What is dropped is marked in a byte mask over the source, so the rendered text and its
offset map come out of a few array operations (numpy) however long the document; then
whitespace runs fold to one space and typographic variants fold to ASCII, as for the
passage, keeping the map.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from labeller.core.markdown import front_matter

# Typographic variants a loader or an editor may have changed (both sides fold, 1:1).
TYPOGRAPHIC = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                             "\u2014": "-", "\u00a0": " "})
_TYPOGRAPHIC_POINTS = [(np.uint32(k), np.uint32(ord(v))) for k, v in TYPOGRAPHIC.items() if chr(k) != "\u00a0"]
# Every character ``str.isspace`` holds true for (what the exact tier folds).
_SPACES = np.array(sorted(ord(c) for c in map(chr, range(0x3001)) if c.isspace()), dtype=np.uint32)

# Line rules (CommonMark's), applied to a line's text after its block-quote markers.
_CONTAINER = re.compile(r"(?:[ \t]{0,3}>[ \t]?)+")
_FENCE = re.compile(r"([ \t]*)(`{3,}(?=[^`]*$)|~{3,})(.*)$")
_THEMATIC = re.compile(r"[ \t]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_SETEXT = re.compile(r"[ \t]{0,3}(?:=+|-+)[ \t]*$")
# a link reference definition: a label, a destination, an optional title, nothing else on the line
_REFERENCE = re.compile(r"[ \t]{0,3}\[([^\]\n]+)\]:[ \t]*(?:<[^>\n]*>|\S+)"
                        r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$")
_ATX_OPEN = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]+|$)")
_ATX_CLOSE = re.compile(r"(?:[ \t]+#+)?[ \t]*$")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)")
_DELIMITER_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_PIPE = re.compile(r"(?<!\\)\|")

# One scanner for the inline syntax; alternatives are tried left to right at each position.
_INLINE = re.compile(
    r"(?P<code>(?P<ticks>`+)(?!`)(?P<code_text>.+?)(?<!`)(?P=ticks)(?!`))"
    r"|(?P<autolink><(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+)>)"
    r"|(?P<comment><!--.*?-->)"
    r"|(?P<tag></?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*?)?/?>)"
    r"|(?P<link>!?\[(?P<link_text>(?:[^\[\]\n]|\n(?!\n)|\[[^\[\]]*\])*)\]"
    r"(?:\((?P<target>(?:[^()\n]|\([^()\n]*\))*)\)|\[(?P<label>[^\[\]\n]*)\]))"
    r"|(?P<escape>\\[!-/:-@\[-`{-~])"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|(?P<emphasis>\*+|_+)",
    re.DOTALL,
)
_INLINE_START = re.compile(r"[`<!\[\\&*_]")


@dataclass(frozen=True, slots=True)
class RenderedText:
    """A document's rendered text, whitespace-folded and typographically folded, with the
    source offset of each of its characters."""

    text: str
    source: np.ndarray  # int64, len(text): the canonical offset each character came from

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The source range of the rendered characters ``[start, end)``: from the first one's
        offset to the last one's, plus one."""
        return int(self.source[start]), int(self.source[end - 1]) + 1


_HAS_TYPOGRAPHIC = re.compile("[\u2018\u2019\u201c\u201d\u2013\u2014]")


def _punct(ch: str) -> bool:
    """Unicode punctuation or symbol, as CommonMark's flanking rules read it."""
    return unicodedata.category(ch)[0] in "PS"


def _label(text: str) -> str:
    """A link label as CommonMark matches it: case-folded, whitespace runs as one space."""
    return " ".join(text.split()).casefold()


def fold_passage(text: str) -> str:
    """A passage as the rendered tier searches it: typographic variants folded, whitespace
    runs as single spaces (NBSP is one), trimmed."""
    if _HAS_TYPOGRAPHIC.search(text):  # translate is slow on the many passages that hold none
        text = text.translate(TYPOGRAPHIC)
    return " ".join(text.split())


def render(text: str) -> RenderedText:
    """The rendered text of a canonical document text."""
    n = len(text)
    keep = bytearray(b"\x01") * n
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).copy()
    _Marker(text, keep, points).run()
    kept = np.flatnonzero(np.frombuffer(bytes(keep), dtype=np.uint8))
    chars = points[kept]
    space = np.isin(chars, _SPACES)
    # a whitespace character that follows another is dropped; every remaining one is " "
    first = space.copy()
    first[1:] &= ~space[:-1]
    keep_folded = ~space | first
    chars = np.where(space, np.uint32(32), chars)[keep_folded]
    for variant, plain in _TYPOGRAPHIC_POINTS:  # str.translate costs ten times these array passes
        chars[chars == variant] = plain
    folded = chars.astype("<u4").tobytes().decode("utf-32-le")
    return RenderedText(folded, kept[keep_folded].astype(np.int64))


class _Marker:
    """Marks the syntax of one document in ``keep`` (0 = dropped), line by line."""

    def __init__(self, text: str, keep: bytearray, points: np.ndarray) -> None:
        self.text = text
        self.keep = keep
        self.points = points
        self.labels = {_label(m.group(1)) for line in text.split("\n") if "]:" in line  # link reference definitions
                       for m in [_REFERENCE.match(line)] if m}

    def drop(self, start: int, end: int) -> None:
        if end > start:
            self.keep[start:end] = bytes(end - start)

    def run(self) -> None:
        text = self.text
        lines = text.split("\n")  # a canonical text ends with "\n": the last entry is ""
        first_line = 0
        fm_lines, _ = front_matter(text)
        starts = [0] * len(lines)
        pos = 0
        for i, line in enumerate(lines):
            starts[i] = pos
            pos += len(line) + 1
        if fm_lines:
            self.drop(0, starts[1])
            self.drop(starts[fm_lines - 1], starts[fm_lines])
            first_line = fm_lines
        fence: tuple[str, int] | None = None  # (fence character, length) while inside a fence
        fence_quoted = False  # the fence opened inside a block quote: its lines carry "> " markers
        para: int | None = None  # where the current run of inline text started
        prev_blank, in_list, in_table, in_code = True, False, False, False
        n = len(lines) - 1
        i = first_line
        while i < n:
            line, start = lines[i], starts[i]
            end = start + len(line)
            if fence is not None:
                q = _CONTAINER.match(line) if fence_quoted else None
                if q and ">" in q.group():
                    self.drop(start, start + q.end())
                m = _FENCE.match(line, q.end() if q else 0)
                if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= fence[1] and not m.group(3).strip():
                    self.drop(start, end + 1)
                    fence = None
                i += 1
                continue
            if not line.strip():
                self._flush(para, start)
                para = None
                prev_blank, in_table = True, False
                i += 1
                continue
            m = _CONTAINER.match(line)
            body = m.end() if m else 0
            quoted = m is not None and ">" in m.group()
            if quoted:
                self.drop(start, start + body)
            rest = line[body:]
            indent = len(rest) - len(rest.lstrip(" \t"))
            if indent < 4 and rest.startswith("<!--", indent):
                # an HTML comment block runs to its "-->", blank lines and all (CommonMark type 2)
                self._flush(para, start)
                para = None
                close = text.find("-->", start + body + indent)
                stop = len(text) if close == -1 else close + 3
                self.drop(start + body + indent, stop)
                while i < n and starts[i] + len(lines[i]) < stop:
                    i += 1
                i += 1
                continue
            if indent >= 4 and para is None and not in_list and (prev_blank or in_code):
                in_code = True  # an indented code block (what follows a blank line, four columns in): kept as it is
                i += 1
                continue
            in_code = False
            fm = _FENCE.match(rest)
            if fm:
                self._flush(para, start)
                para = None
                fence, fence_quoted = (fm.group(2)[0], len(fm.group(2))), quoted
                self.drop(start, end + 1)
                prev_blank = False
                i += 1
                continue
            if _THEMATIC.match(rest) or (para is not None and _SETEXT.match(rest)):
                self._flush(para, start)  # a thematic break, or a setext heading's underline
                para = None
                self.drop(start, end + 1)
                prev_blank = False
                i += 1
                continue
            if _REFERENCE.match(rest):
                self._flush(para, start)
                para = None
                self.drop(start, end + 1)
                i += 1
                continue
            h = _ATX_OPEN.match(rest)
            if h:
                self._flush(para, start)
                para = None
                self.drop(start + body, start + body + h.end())
                c = _ATX_CLOSE.search(rest, h.end())
                if c and c.start() < c.end():
                    self.drop(start + body + c.start(), start + body + c.end())
                self.inline(start + body + h.end(), end)
                prev_blank = False
                i += 1
                continue
            if not in_table and "|" in rest and i + 1 < n and _DELIMITER_ROW.match(lines[i + 1]) \
                    and "|" in lines[i + 1]:
                self._flush(para, start)
                para = None
                in_table = True
                self._row(start + body, end)
                self.drop(starts[i + 1], starts[i + 2])
                prev_blank = False
                i += 2
                continue
            if in_table:
                self._row(start + body, end)
                i += 1
                continue
            lm = _LIST_MARKER.match(rest)
            if lm:
                self._flush(para, start)
                para = None
                self.drop(start + body, start + body + lm.end())
                in_list = True
            elif prev_blank and indent == 0 and not quoted:
                in_list = False
            if para is None:
                para = start + body + (lm.end() if lm else 0)
            prev_blank = False
            i += 1
        self._flush(para, starts[n] if n < len(starts) else len(text))

    def _flush(self, para: int | None, end: int) -> None:
        """The inline syntax of a run of text lines ``[para, end)``, if one is open."""
        if para is not None:
            self.inline(para, end)
        return None

    def _row(self, start: int, end: int) -> None:
        """A table row: its unescaped pipes read as spaces (cell boundaries), then its cells' inline syntax."""
        for m in _PIPE.finditer(self.text, start, end):
            self.points[m.start()] = 32
        self.inline(start, end)

    def inline(self, start: int, end: int) -> None:
        text = self.text
        runs: list[tuple[int, int, str, bool, bool]] = []  # emphasis runs: start, end, char, can open, can close
        pos = start
        while True:
            # The scanner is tried only where some syntax can start: one alternation tried
            # at every character is ten times slower than this search plus a match.
            hint = _INLINE_START.search(text, pos, end)
            if hint is None:
                break
            m = _INLINE.match(text, hint.start(), end)
            if m is None:
                pos = hint.start() + 1
                continue
            pos = max(m.end(), hint.start() + 1)
            group = m.lastgroup
            if group in ("code_text", "ticks"):
                group = "code"
            if group == "code":
                body_start, body_end = m.start("code_text"), m.end("code_text")
                body = m.group("code_text")
                if len(body) > 2 and body[0] == " " and body[-1] == " " and body.strip():
                    body_start, body_end = body_start + 1, body_end - 1  # CommonMark strips one space each side
                self.drop(m.start(), body_start)
                self.drop(body_end, m.end())
            elif group == "autolink":
                self.drop(m.start(), m.start() + 1)
                self.drop(m.end() - 1, m.end())
            elif group in ("comment", "tag"):
                self.drop(m.start(), m.end())
            elif group in ("link", "link_text", "target", "label"):
                if m.group("target") is None and _label(m.group("label") or m.group("link_text")) not in self.labels:
                    pos = m.start() + 1  # a reference to no definition is text, as CommonMark renders it
                    continue
                self.drop(m.start(), m.start("link_text"))
                self.drop(m.end("link_text"), m.end())
                self.inline(m.start("link_text"), m.end("link_text"))
            elif group == "escape":
                self.drop(m.start(), m.start() + 1)
            elif group == "entity":
                value = html.unescape(m.group())
                if len(value) == 1:
                    self.points[m.start()] = ord(value)
                    self.drop(m.start() + 1, m.end())
            elif group == "emphasis":
                before = text[m.start() - 1] if m.start() > start else " "
                after = text[m.end()] if m.end() < end else " "
                # CommonMark's flanking rules: which runs can open and which can close
                left = not after.isspace() and (not _punct(after) or before.isspace() or _punct(before))
                right = not before.isspace() and (not _punct(before) or after.isspace() or _punct(after))
                if m.group()[0] == "*":
                    runs.append((m.start(), m.end(), "*", left, right))
                else:  # "_" also may not open or close inside a word (snake_case)
                    runs.append((m.start(), m.end(), "_", left and (not right or _punct(before)),
                                 right and (not left or _punct(after))))
        self._pair(runs)

    def _pair(self, runs: list[tuple[int, int, str, bool, bool]]) -> None:
        """Drop the emphasis runs that pair up (an opener, then a closer of the same
        character); an unpaired ``*`` or ``_`` is text, as CommonMark renders it."""
        openers: list[tuple[int, int, str]] = []
        for start, end, char, can_open, can_close in runs:
            if can_close:
                k = next((k for k in range(len(openers) - 1, -1, -1) if openers[k][2] == char), None)
                if k is not None:
                    self.drop(openers[k][0], openers[k][1])
                    self.drop(start, end)
                    del openers[k:]
                    continue
            if can_open:
                openers.append((start, end, char))
