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
  stack), read with its ``layout``; a chunk's heading is the innermost heading in force at
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
from collections.abc import Iterable

from labeller.core.chunkers import Chunk, ChunkRow, unpack_chunks
from labeller.core.chunkers.md_struct_v1 import document_title, layout
from labeller.core.corpus import Document
from labeller.core.markdown import front_matter
from labeller.errors import InvalidInput


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


def family_chunk_id(doc_id: str, spec: str, start: int, end: int, text: str) -> str:
    parts = (doc_id, spec, str(start), str(end), text)
    return hashlib.sha256(b"".join(p.encode("utf-8") + b"\x00" for p in parts)).hexdigest()


def rows_for_spans(doc: Document, spec: str, spans: Iterable[tuple[int, int]]) -> list[ChunkRow]:
    """Chunk rows for ``spans`` (in document order): id, ordinal, offsets and the heading
    fields. Whitespace-only spans and repeats of the previous span are dropped (a repeat is
    the same chunk: one id, one row)."""
    text = doc.text
    lay = layout(text)
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
    """Refuse a window no rule can step with: ``size >= 1`` and ``0 <= overlap < size``."""
    for key, value in (("size", size), ("overlap", overlap)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInput(f"{key} must be an integer number of {unit}, got {value!r}")
    if size < 1:
        raise InvalidInput(f"size must be at least 1 {unit[:-1]}, got {size}")
    if not 0 <= overlap < size:
        raise InvalidInput(f"overlap must be at least 0 and less than size ({size}), got {overlap}")


class SpanChunker:
    """The shared half of a family chunker: a subclass names its rule (``name``), keeps its
    typed parameters in ``params`` (declared order) and says where chunks lie in ``spans``."""

    name: str
    params: dict[str, int]

    @property
    def spec(self) -> str:
        """The canonical spec, every parameter spelled out: ``name:key=value,...``."""
        return f"{self.name}:" + ",".join(f"{k}={v}" for k, v in self.params.items())

    def spans(self, text: str, start: int) -> Iterable[tuple[int, int]]:
        """The chunks of ``text[start:]`` as ``(start, end)`` offsets into ``text``, in order."""
        raise NotImplementedError

    def rows(self, doc: Document) -> list[ChunkRow]:
        return rows_for_spans(doc, self.spec, self.spans(doc.text, body_start(doc.text)))

    def chunk(self, doc: Document) -> list[Chunk]:
        return unpack_chunks(doc, self.rows(doc))
