"""md-struct-v1: split at headings, pack paragraph blocks greedily, never split a fence.

Other tools' labels are built with this exact chunker, so it follows SPEC §4 to the
letter, including its quirks (any fence line closes any open fence; heading lines are
never inside a chunk; a thematic break counts as a blank line).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from labeller.core.chunkers import Chunk
from labeller.core.corpus import Document
from labeller.core.markdown import front_matter_title

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
THEMATIC_BREAK = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")


@dataclass(frozen=True, slots=True)
class Line:
    start: int
    end: int  # past the line terminator
    content: str  # without its terminator


@dataclass(frozen=True, slots=True)
class Section:
    titles: tuple[str, ...]
    levels: tuple[int, ...]
    lines: tuple[Line, ...]


def split_lines(text: str) -> list[Line]:
    lines = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        body = raw.splitlines()[0] if raw else ""
        lines.append(Line(pos, pos + len(raw), body))
        pos += len(raw)
    return lines


def heading_of(line: str) -> tuple[int, str] | None:
    m = HEADING.match(line)
    return (len(m.group(1)), m.group(2)) if m else None


def sections(text: str) -> list[Section]:
    """Cut the document at md-struct heading lines (outside fences)."""
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    body: list[Line] = []
    in_fence = False
    seen_heading = False

    def close() -> None:
        if seen_heading or any(ln.content.strip() for ln in body):
            out.append(Section(tuple(t for _, t in stack), tuple(lv for lv, _ in stack), tuple(body)))

    for line in split_lines(text):
        h = None if in_fence else heading_of(line.content)
        if h is not None:
            close()
            while stack and stack[-1][0] >= h[0]:
                stack.pop()
            stack.append(h)
            body = []
            seen_heading = True
            continue
        if FENCE.match(line.content):
            in_fence = not in_fence
        body.append(line)
    close()
    return out


def heading_line_spans(text: str) -> list[tuple[int, int]]:
    """Offsets ``[start, end)`` of every md-struct heading line (they lie in no chunk)."""
    spans = []
    in_fence = False
    for line in split_lines(text):
        if not in_fence and heading_of(line.content):
            spans.append((line.start, line.end))
        elif FENCE.match(line.content):
            in_fence = not in_fence
    return spans


def _is_blank(content: str) -> bool:
    return not content.strip() or THEMATIC_BREAK.match(content) is not None


def blocks(lines: tuple[Line, ...]) -> list[tuple[int, int, list[Line]]]:
    """Maximal runs of non-blank lines; a fence (and the lines right above it) is one block."""
    out: list[tuple[int, int, list[Line]]] = []
    run: list[Line] = []
    in_fence = False
    for line in lines:
        if in_fence:
            run.append(line)
            if FENCE.match(line.content):
                in_fence = False
                out.append((run[0].start, run[-1].end, run))
                run = []
            continue
        if FENCE.match(line.content):
            run.append(line)
            in_fence = True
            continue
        if _is_blank(line.content):
            if run:
                out.append((run[0].start, run[-1].end, run))
                run = []
            continue
        run.append(line)
    if run:
        out.append((run[0].start, run[-1].end, run))
    return out


def pack(block_list: list[tuple[int, int, list[Line]]], max_chars: int) -> list[tuple[int, int]]:
    """Greedy packing; an oversized block is emitted alone, cut at line boundaries."""
    chunks: list[tuple[int, int]] = []
    cur: list[int] | None = None
    for start, end, lines in block_list:
        if cur is not None and end - cur[0] <= max_chars:
            cur[1] = end
            continue
        if cur is not None:
            chunks.append((cur[0], cur[1]))
            cur = None
        if end - start <= max_chars:
            cur = [start, end]
            continue
        piece_start = piece_end = lines[0].start
        for line in lines:
            if line.end - piece_start > max_chars and piece_end > piece_start:
                chunks.append((piece_start, piece_end))
                piece_start = line.start
            piece_end = line.end
        chunks.append((piece_start, piece_end))
    if cur is not None:
        chunks.append((cur[0], cur[1]))
    return chunks


def chunk_id(doc_id: str, version: str, embed_text: str) -> str:
    data = b"\x00".join(s.encode("utf-8") for s in (doc_id, version, embed_text)) + b"\x00"
    return hashlib.sha256(data).hexdigest()


def document_title(doc: Document, secs: list[Section]) -> str:
    """Front-matter ``title``, else the first level-1 md-struct heading, else the base name."""
    title = front_matter_title(doc.text)
    if title:
        return title
    for sec in secs:
        if sec.levels and sec.levels[-1] == 1 and len(sec.levels) == 1:
            return sec.titles[-1]
    return PurePosixPath(doc.doc_id).name


class MdStructV1:
    name = "md-struct-v1"

    def __init__(self, max_chars: int = 1800) -> None:
        if max_chars < 1:
            raise ValueError("max_chars must be positive")
        self.max_chars = max_chars

    def chunk(self, doc: Document) -> list[Chunk]:
        text = doc.text
        secs = sections(text)
        title = document_title(doc, secs)
        out: list[Chunk] = []
        for sec in secs:
            heading_path = " > ".join((doc.doc_id, *sec.titles))
            breadcrumb = " > ".join((title, *sec.titles))
            heading = sec.titles[-1] if sec.titles else ""
            for start, end in pack(blocks(sec.lines), self.max_chars):
                body = text[start:end]
                if not body.strip():
                    continue
                embed = f"{heading_path}\n\n{body.strip()}"
                out.append(Chunk(chunk_id=chunk_id(doc.doc_id, self.name, embed), doc_id=doc.doc_id,
                                 ordinal=len(out), start=start, end=end, text=body,
                                 heading_path=heading_path, heading=heading, breadcrumb=breadcrumb))
        return out
