"""Chunkers: turn a canonical document into chunks with content-addressed ids.

Labels are spans, not chunk ids, precisely so that chunkers can change; each chunker is
one versioned module, and its name is written into every artifact built with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from labeller.core.cache import Codec, check, ints, strs
from labeller.core.corpus import Corpus, Document


@dataclass(frozen=True, slots=True)
class Chunk:
    """A half-open slice ``[start, end)`` of one document's canonical text.

    ``heading``, ``breadcrumb`` and ``text`` are the three fields the BM25 index and the
    leak scan read (see SPEC §4); ``ordinal`` is the chunk's position in its document.
    """

    chunk_id: str
    doc_id: str
    ordinal: int
    start: int
    end: int
    text: str
    heading_path: str
    heading: str
    breadcrumb: str

    @property
    def embed_text(self) -> str:
        return f"{self.heading_path}\n\n{self.text.strip()}"


# A chunk without its text, which the document holds: (chunk_id, ordinal, start, end,
# heading_path, heading, breadcrumb). The form the cache stores and worker processes send
# back; the text was two thirds of those bytes.
ChunkRow = tuple[str, int, int, int, str, str, str]
_ROW_COLUMNS = ("chunk_id", "ordinal", "start", "end", "heading_path", "heading", "breadcrumb")
_INT_COLUMNS = {"ordinal", "start", "end"}


def rows_to_data(rows: list[ChunkRow]) -> dict:
    """Chunk rows as plain data for the cache: one list per field, so reading them back
    checks each column's type in one call."""
    columns = list(zip(*rows)) if rows else [()] * len(_ROW_COLUMNS)
    return {name: list(col) for name, col in zip(_ROW_COLUMNS, columns)}


def rows_from_data(data) -> list[ChunkRow]:
    """The rows ``rows_to_data`` wrote; anything else raises (a cache miss)."""
    check(type(data) is dict and set(data) == set(_ROW_COLUMNS))
    columns = [ints(data[n]) if n in _INT_COLUMNS else strs(data[n]) for n in _ROW_COLUMNS]
    check(len({len(c) for c in columns}) == 1)
    return list(zip(*columns))


ROWS_CODEC = Codec("chunk-rows", rows_to_data, rows_from_data)


class Chunker(Protocol):
    name: str
    max_chars: int

    def chunk(self, doc: Document) -> list[Chunk]: ...

    def rows(self, doc: Document) -> list[ChunkRow]: ...


def get_chunker(name: str, max_chars: int) -> Chunker:
    from labeller.core.chunkers.md_struct_v1 import MdStructV1

    registry = {MdStructV1.name: MdStructV1}
    if name not in registry:
        from labeller.errors import InvalidInput

        raise InvalidInput(f"unknown chunker {name!r}; known: {', '.join(sorted(registry))}")
    return registry[name](max_chars=max_chars)


def chunk_key(chunker: Chunker, doc: Document) -> tuple:
    """The cache key of one document's chunks: chunker, its settings, the document's digest,
    and the versions of the parsers behind the breadcrumb's front-matter title."""
    return (chunker.name, chunker.max_chars, doc.doc_id, doc.sha256, _parser_versions(), "rows")


@lru_cache(maxsize=1)
def _parser_versions() -> tuple[str, str, str, str]:
    import markdown_it
    import mdit_py_plugins
    import yaml

    from labeller.core.markdown import YAML_LOADER

    return markdown_it.__version__, mdit_py_plugins.__version__, yaml.__version__, YAML_LOADER.__name__


def chunk_corpus(corpus: Corpus, chunker: Chunker, cache=None) -> dict[str, list[Chunk]]:
    """Chunk every document, reusing cached chunk lists keyed by the document's digest.

    Cache misses are chunked together, on every core when there are many (a cold build).
    """
    from labeller.core.parallel import map_documents

    found: dict[str, list[Chunk]] = {}
    missing: list[Document] = []
    for doc in corpus:
        rows = cache.get(chunk_key(chunker, doc), ROWS_CODEC) if cache is not None else None
        if rows is None:
            missing.append(doc)
        else:
            found[doc.doc_id] = unpack_chunks(doc, rows)
    for doc, rows in zip(missing, map_documents(chunker.rows, missing)):
        if cache is not None:
            cache.put(chunk_key(chunker, doc), rows, ROWS_CODEC)
        found[doc.doc_id] = unpack_chunks(doc, rows)
    return {doc_id: found[doc_id] for doc_id in corpus.docs}  # corpus order, whatever came from where


def unpack_chunks(doc: Document, rows) -> list[Chunk]:
    text, doc_id = doc.text, doc.doc_id
    return [Chunk(chunk_id, doc_id, ordinal, start, end, text[start:end], heading_path, heading, breadcrumb)
            for chunk_id, ordinal, start, end, heading_path, heading, breadcrumb in rows]
