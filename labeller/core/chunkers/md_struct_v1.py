"""md-struct-v1: split at headings, pack paragraph blocks greedily, never split a fence.

Other tools' labels are built with this exact chunker, so it follows SPEC §4 to the
letter, including its quirks (any fence line closes any open fence; heading lines are
never inside a chunk; a thematic break counts as a blank line).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from itertools import accumulate
from pathlib import PurePosixPath

from labeller.core.chunkers import Chunk, ChunkRow, unpack_chunks
from labeller.core.corpus import Document

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
THEMATIC_BREAK = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")


@dataclass(frozen=True, slots=True)
class Section:
    titles: tuple[str, ...]
    levels: tuple[int, ...]
    blocks: tuple[tuple[int, int], ...]  # (first, last) line of each block


def heading_of(line: str) -> tuple[int, str] | None:
    m = HEADING.match(line)
    return (len(m.group(1)), m.group(2)) if m else None


@dataclass(frozen=True, slots=True)
class Layout:
    """One pass over a document's lines: all that md-struct-v1 reads from it.

    ``starts[i]`` is where line ``i`` starts (``str.splitlines`` lines, one more entry
    for the end of the text); each section lists its blocks as ``(first, last)`` line
    numbers. Lines are classified by their first non-space character, so the regexes
    run only on the few lines that can be a heading, a fence or a thematic break; a
    10 MB corpus is laid out in a fraction of a second.
    """

    starts: list[int]
    headings: list[int]  # line numbers of md-struct heading lines
    sections: list[Section]


def layout(text: str) -> Layout:
    """Cut the document at md-struct heading lines (outside fences) and each section into
    blocks: maximal runs of non-blank lines, where a fence (and the lines right above it)
    is one block that ends at its closing line."""
    starts = list(accumulate(map(len, text.splitlines(keepends=True)), initial=0))
    sections: list[Section] = []
    headings: list[int] = []
    stack: list[tuple[int, str]] = []
    blocks: list[tuple[int, int]] = []
    run = -1  # first line of the open run of non-blank lines
    in_fence = False
    for i, content in enumerate(text.splitlines()):
        s = content.lstrip()
        if not s:
            if not in_fence and run >= 0:
                blocks.append((run, i - 1))
                run = -1
            continue
        first = s[0]
        if first in "`~" and s.startswith(("```", "~~~")):
            if in_fence:
                blocks.append((run, i))
                run = -1
            elif run < 0:
                run = i
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if first == "#" and content[0] == "#" and (h := heading_of(content)) is not None:
            if run >= 0:
                blocks.append((run, i - 1))
                run = -1
            sections.append(Section(tuple(t for _, t in stack), tuple(lv for lv, _ in stack), tuple(blocks)))
            while stack and stack[-1][0] >= h[0]:
                stack.pop()
            stack.append(h)
            headings.append(i)
            blocks = []
            continue
        if first in "-*_" and THEMATIC_BREAK.match(content):
            if run >= 0:
                blocks.append((run, i - 1))
                run = -1
        elif run < 0:
            run = i
    if run >= 0:
        blocks.append((run, len(starts) - 2))
    sections.append(Section(tuple(t for _, t in stack), tuple(lv for lv, _ in stack), tuple(blocks)))
    return Layout(starts, headings, sections)


def heading_line_spans(text: str) -> list[tuple[int, int]]:
    """Offsets ``[start, end)`` of every md-struct heading line (they lie in no chunk)."""
    lay = layout(text)
    return [(lay.starts[i], lay.starts[i + 1]) for i in lay.headings]


def _is_blank(content: str) -> bool:
    return not content.strip() or THEMATIC_BREAK.match(content) is not None


def pack(blocks: tuple[tuple[int, int], ...], starts: list[int], max_chars: int) -> list[tuple[int, int]]:
    """Greedy packing; an oversized block is emitted alone, cut at line boundaries."""
    chunks: list[tuple[int, int]] = []
    cur: list[int] | None = None
    for first, last in blocks:
        start, end = starts[first], starts[last + 1]
        if cur is not None and end - cur[0] <= max_chars:
            cur[1] = end
            continue
        if cur is not None:
            chunks.append((cur[0], cur[1]))
            cur = None
        if end - start <= max_chars:
            cur = [start, end]
            continue
        piece_start = piece_end = start
        for line in range(first, last + 1):
            line_start, line_end = starts[line], starts[line + 1]
            if line_end - piece_start > max_chars and piece_end > piece_start:
                chunks.append((piece_start, piece_end))
                piece_start = line_start
            piece_end = line_end
        chunks.append((piece_start, piece_end))
    if cur is not None:
        chunks.append((cur[0], cur[1]))
    return chunks


def chunk_id(doc_id: str, version: str, embed_text: str) -> str:
    data = b"\x00".join(s.encode("utf-8") for s in (doc_id, version, embed_text)) + b"\x00"
    return hashlib.sha256(data).hexdigest()


def document_title(doc: Document, secs: list[Section]) -> str:
    """Front-matter ``title``, else the first level-1 md-struct heading, else the base name."""
    from labeller.core.markdown import front_matter_title  # the Markdown parser and YAML: not for opening a project

    title = front_matter_title(doc.text)
    if title:
        return title
    for sec in secs:
        if sec.levels and sec.levels[-1] == 1 and len(sec.levels) == 1:
            return sec.titles[-1]
    return PurePosixPath(doc.doc_id).name


class MdStructV1:
    """The ``Chunker`` of SPEC §4: its name is its rule version, ``max_chars`` its one setting."""

    name = "md-struct-v1"
    version = "md-struct-v1"

    def __init__(self, max_chars: int = 1800) -> None:
        if max_chars < 1:
            raise ValueError("max_chars must be positive")
        self.max_chars = max_chars

    @property
    def settings(self) -> dict[str, int]:
        return {"max_chars": self.max_chars}

    def unchunked_lines(self, doc: Document) -> list[tuple[int, int]]:
        """Heading lines, and the lines read as blank (thematic breaks included: a rule
        under a heading, ``-\u00a0-\u00a0-`` that CommonMark calls a paragraph)."""
        lay = layout(doc.text)
        headings = set(lay.headings)
        return [(lay.starts[i], lay.starts[i + 1]) for i, content in enumerate(doc.text.splitlines())
                if i in headings or _is_blank(content)]

    def chunk(self, doc: Document) -> list[Chunk]:
        return unpack_chunks(doc, self.rows(doc))

    def rows(self, doc: Document) -> list[ChunkRow]:
        text = doc.text
        lay = layout(text)
        title = document_title(doc, lay.sections)
        out: list[ChunkRow] = []
        for sec in lay.sections:
            heading_path = " > ".join((doc.doc_id, *sec.titles))
            breadcrumb = " > ".join((title, *sec.titles))
            heading = sec.titles[-1] if sec.titles else ""
            for start, end in pack(sec.blocks, lay.starts, self.max_chars):
                body = text[start:end].strip()
                if not body:
                    continue
                embed = f"{heading_path}\n\n{body}"
                out.append((chunk_id(doc.doc_id, self.version, embed), len(out), start, end, heading_path, heading,
                            breadcrumb))
        return out
