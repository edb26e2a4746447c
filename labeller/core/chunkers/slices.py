"""What every span-producing chunker of the family shares: where a document's chunkable text
starts, which heading is in force at an offset, and how a chunk's id is formed.

The family's rules (fixed-chars-v1, recursive-v1, words-v1, sections-v1) each decide only
*where* chunks lie; this module turns those ``(start, end)`` spans into ``ChunkRow`` tuples
the same way for all of them, so no rule re-implements headings, titles or ids.

- **Body only.** Chunking starts on the line after YAML front matter (as
  ``labeller.core.markdown.front_matter`` recognises it), else at offset 0. Front matter is
  metadata (SPEC §3 refuses a quote inside it); its ``title`` reaches BM25 and the leak scan
  through the breadcrumb instead of as a chunk body.
- **Headings** are md-struct-v1's (SPEC §4: ATX lines outside fences, the same heading
  stack), read with its ``layout`` of the body (``body_layout``); a chunk's heading is the innermost heading in force at
  its start (a chunk that starts on a heading line is under that heading), its breadcrumb
  the document title (``document_title``) followed by the titles in force.
- **Ids**: sha256 of ``utf8(doc_id) 0x00 utf8(spec) 0x00 start 0x00 end 0x00 utf8(text)
  0x00`` with ``spec`` the full canonical spec (every parameter spelled out). The spec keeps
  two settings of one rule apart; the offsets make ids unique inside a document, as a chunk
  file requires (SPEC §10), even where windows repeat text (boilerplate, tables); the text
  makes an id change whenever the content under it changes, so a system that caches
  embeddings by id never serves stale text. (md-struct-v1 hashes ``embed_text`` instead and
  may repeat ids; its formula is fixed by SPEC §4.)
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import ClassVar

from labeller.core.chunkers import Chunk, ChunkRow, chunker_spec, unpack_chunks
from labeller.core.chunkers.md_struct_v1 import Layout, document_title, layout
from labeller.core.corpus import Document
from labeller.core.markdown import front_matter


def body_start(text: str) -> int:
    """Offset of the first line after YAML front matter (0 when there is none)."""
    lines, _ = front_matter(text)
    if not lines:
        return 0
    pos = 0
    for _ in range(lines):
        nl = text.find("\n", pos)
        pos = len(text) if nl == -1 else nl + 1
    return pos


def body_layout(text: str) -> Layout:
    """md-struct-v1's layout of the body alone, on the document's own line offsets: front
    matter is read as blank lines (a YAML comment line ``# ...`` is no heading). Whitespace
    is kept as it is (every line boundary ``str.splitlines`` knows is whitespace), so the
    layout's line numbers are the document's too."""
    body = body_start(text)
    if body:
        text = "".join(c if c.isspace() else " " for c in text[:body]) + text[body:]
    return layout(text)


def family_chunk_id(doc_id: str, spec: str, start: int, end: int, text: str) -> str:
    parts = (doc_id, spec, str(start), str(end), text)
    return hashlib.sha256(b"".join(p.encode("utf-8") + b"\x00" for p in parts)).hexdigest()


def rows_for_spans(doc: Document, spec: str, spans: Iterable[tuple[int, int]]) -> list[ChunkRow]:
    """Chunk rows for ``spans`` (in document order): id, ordinal, offsets and the heading
    fields. Whitespace-only spans and repeats of a span already given are dropped (a repeat
    is the same chunk: one id, one row)."""
    text = doc.text
    lay = body_layout(text)
    heading_starts = [lay.starts[i] for i in lay.headings]
    title = document_title(doc, lay.sections)
    rows: list[ChunkRow] = []
    seen: set[tuple[int, int]] = set()
    for start, end in spans:
        if (start, end) in seen or text[start:end].isspace() or start >= end:
            continue
        seen.add((start, end))
        # sections[k] holds the titles in force after the k-th heading line (sections[0]: before any)
        titles = lay.sections[bisect_right(heading_starts, start)].titles
        rows.append((family_chunk_id(doc.doc_id, spec, start, end, text[start:end]), len(rows), start, end,
                     " > ".join((doc.doc_id, *titles)), titles[-1] if titles else "", " > ".join((title, *titles))))
    return rows


def check_window(size: int, overlap: int, unit: str) -> None:
    """Refuse a window no rule can step with: ``size >= 1`` and ``0 <= overlap < size``
    (``ValueError``, which ``get_chunker`` reports as invalid input naming the spec)."""
    if size < 1:
        raise ValueError(f"size must be at least 1 ({unit}), got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be at least 0 and less than size ({size}), got {overlap}")


class SpanChunker:
    """The shared half of a family chunker (``Chunker`` protocol): a subclass names its rule
    (``name`` = ``version``), keeps its typed parameters in ``settings`` (constructor order)
    and says where chunks lie in ``spans``."""

    name: ClassVar[str]
    version: ClassVar[str]
    settings: dict[str, int]

    def spans(self, text: str, start: int) -> Iterable[tuple[int, int]]:
        """The chunks of ``text[start:]`` as ``(start, end)`` offsets into ``text``, in order."""
        raise NotImplementedError

    def rows(self, doc: Document) -> list[ChunkRow]:
        return rows_for_spans(doc, chunker_spec(self), self.spans(doc.text, body_start(doc.text)))

    def chunk(self, doc: Document) -> list[Chunk]:
        return unpack_chunks(doc, self.rows(doc))

    def unchunked_lines(self, doc: Document) -> list[tuple[int, int]]:
        """Front-matter lines and whitespace-only lines: all a family chunker may leave out
        (a whitespace-only window is dropped, a stripped chunk ends at non-whitespace)."""
        return unchunked(doc.text, self.is_blank)

    @staticmethod
    def is_blank(line: str) -> bool:
        return not line.strip()


def unchunked(text: str, is_blank: Callable[[str], bool]) -> list[tuple[int, int]]:
    """The lines ``[start, end)`` (newline included) of the front matter, and the body's
    lines for which ``is_blank`` holds."""
    body = body_start(text)
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        if pos < body or is_blank(line):
            out.append((pos, pos + len(line)))
        pos += len(line)
    return out
