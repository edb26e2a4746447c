"""Chunkers: turn a canonical document into chunks with content-addressed ids.

Labels are spans, not chunk ids, precisely so that chunkers can change; each chunker is
one versioned module, and its version is written into every artifact built with it.

Adding a chunker is one new module in this package (copy ``md_struct_v1.py``) that
implements ``Chunker``, plus its one line in ``REGISTRY``. A chunker is named in
``labeller.toml`` by a *spec*, ``name`` or ``name:key=value,...``; ``get_chunker`` parses
it and passes each value to the chunker's constructor as the type its signature declares.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar, Protocol, cast

from labeller.core.cache import Codec, DigestCache, check, ints, strs
from labeller.core.corpus import Corpus, Document
from labeller.errors import InvalidInput
from labeller.registry import Registry


@dataclass(frozen=True, slots=True)
class Chunk:
    """A half-open slice ``[start, end)`` of one document's canonical text.

    ``heading``, ``breadcrumb`` and ``text`` are the three fields the BM25 index and the
    leak scan read (see SPEC §4); ``ordinal`` is the chunk's position in its document.

    ``source`` is that document's whole text, the very string the document holds (not a
    copy), and ``text`` is sliced from it when asked: a copy per chunk was the corpus once
    more in memory (200 MB of chunks at 100 MB of corpus).
    """

    chunk_id: str
    doc_id: str
    ordinal: int
    start: int
    end: int
    source: str = field(repr=False)
    heading_path: str
    heading: str
    breadcrumb: str

    @property
    def text(self) -> str:
        return self.source[self.start:self.end]

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


Setting = int | float | bool | str


class Chunker(Protocol):
    """What a chunker declares, and what the build, the cache and the resolver ask of it.

    ``name`` is how a spec names it (the key of ``REGISTRY``); ``version`` names its rule
    and goes into chunk ids, the manifest's ``chunker_version`` and every cache key, so
    changing what a chunker does means a new version. ``settings`` are the typed
    parameters it was made with (the keyword arguments of its constructor, in their
    order), which the manifest and the cache keys also record.
    """

    name: ClassVar[str]
    version: ClassVar[str]

    @property
    def settings(self) -> Mapping[str, Setting]: ...  # Mapping: a chunker may hold a narrower dict[str, int]

    def chunk(self, doc: Document) -> list[Chunk]: ...

    def rows(self, doc: Document) -> list[ChunkRow]:
        """The document's chunks without their text (``ChunkRow``), in document order."""
        ...

    def unchunked_lines(self, doc: Document) -> list[tuple[int, int]]:
        """The lines, as offsets ``[start, end)`` past their newline, that hold nothing a
        chunk is made of by this chunker's rule (md-struct-v1: heading lines, blank lines,
        thematic breaks). A span of only such lines may lie in no chunk: the resolver
        refuses it as ``heading_only`` for the author to fix. Any other span that no chunk
        touches is a bug in the chunker, and the build fails loudly on it. A chunker that
        covers every line returns ``[]``."""
        ...


# One line per chunker: its name → "module:Class", imported only when asked for (the
# name must equal the class's ``name``). A module without a dot is one of this package;
# a dotted one is imported as it is (a chunker kept elsewhere, as the tests' toy). Installed
# packages add chunkers through the ``labeller.chunkers`` entry-point group.
REGISTRY: Registry[type] = Registry(__name__, {
    "md-struct-v1": "md_struct_v1:MdStructV1",
    "fixed-chars-v1": "fixed_chars_v1:FixedCharsV1",
    "recursive-v1": "recursive_v1:RecursiveV1",
    "words-v1": "words_v1:WordsV1",
    "sections-v1": "sections_v1:SectionsV1",
}, group="labeller.chunkers", what="chunker", named_by="name")

_SPEC = re.compile(r"[a-z0-9][a-z0-9._-]*")
_INT = re.compile(r"[+-]?[0-9]+")


def chunker_class(name: str) -> type:
    """The registered class for ``name``; an unknown name is invalid input."""
    return cast(type, REGISTRY.load(name, unknown=lambda: f"unknown chunker {name!r}; known: "
                                                        f"{', '.join(sorted(REGISTRY.names()))}"))


def parse_spec(spec: str, what: str = "chunker") -> tuple[str, dict[str, str]]:
    """``"name:key=value,..."`` → ``(name, {key: raw value})``, refusing a malformed spec (the
    error names ``what`` it was to choose: a chunker, a person-name detector)."""
    name, colon, rest = spec.partition(":")
    name = name.strip()
    if not _SPEC.fullmatch(name):
        raise InvalidInput(f"{what} {spec!r}: the name must be lower-case letters, digits, '.', '_' or '-'")
    params: dict[str, str] = {}
    if colon:
        for item in rest.split(","):
            key, eq, value = (part.strip() for part in item.partition("="))
            if not eq or not key or not value:
                raise InvalidInput(f"{what} {spec!r}: {item.strip()!r} is not key=value")
            if key in params:
                raise InvalidInput(f"{what} {spec!r}: {key!r} is given twice")
            params[key] = value
    return name, params


def get_chunker(spec: str, **defaults: Setting) -> Chunker:
    """The chunker a spec names, e.g. ``md-struct-v1`` or ``md-struct-v1:max_chars=900``.

    ``defaults`` are project-wide settings (``max_chars`` from ``labeller.toml``): each is
    passed only to a chunker whose constructor takes it, and a value in the spec wins.
    Every refusal (unknown name or parameter, a value of the wrong type or out of range)
    is invalid input that names the spec.
    """
    name, raw = parse_spec(spec)
    cls = chunker_class(name)
    params = _parameters(cls)
    unknown = sorted(set(raw) - set(params))
    if unknown:
        known = ", ".join(params) or "none"
        raise InvalidInput(f"chunker {spec!r}: unknown parameter {unknown[0]!r} (parameters of {name}: {known})")
    kwargs = {k: v for k, v in defaults.items() if k in params}
    kwargs.update({k: _convert(spec, k, v, params[k]) for k, v in raw.items()})
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"chunker {spec!r}: {exc}") from None


def chunker_spec(chunker: Chunker) -> str:
    """The canonical spec of a chunker: its name and every setting (``get_chunker`` of it
    gives an equal chunker)."""
    settings = ",".join(f"{k}={_format(v)}" for k, v in chunker.settings.items())
    return f"{chunker.name}:{settings}" if settings else chunker.name


def _parameters(cls: type) -> dict[str, type]:
    """The constructor's keyword parameters and their declared types."""
    out = {}
    for p in inspect.signature(cls, eval_str=True).parameters.values():
        if p.annotation not in (int, float, bool, str):
            raise TypeError(f"{cls.__name__}: parameter {p.name!r} must be declared int, float, bool or str")
        out[p.name] = p.annotation
    return out


_EXPECTED = {bool: "true or false", int: "an integer", float: "a finite number"}


def _convert(spec: str, key: str, value: str, kind: type) -> Setting:
    """A spec's raw value as the type the constructor declares (``str`` is taken as is)."""
    if kind is str:
        return value
    if kind is bool and value in ("true", "false"):
        return value == "true"
    if kind is int and _INT.fullmatch(value):
        return int(value)
    if kind is float:
        try:
            number = float(value)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
    raise InvalidInput(f"chunker {spec!r}: {key}={value!r} is not {_EXPECTED[kind]}")


def _format(value: Setting) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def chunk_key(chunker: Chunker, doc: Document) -> tuple:
    """The cache key of one document's chunks: the chunker's version and settings, the
    document's digest, and the versions of the parsers behind the breadcrumb's front-matter
    title."""
    return (chunker.version, tuple(chunker.settings.items()), doc.doc_id, doc.sha256, _parser_versions(), "rows")


@lru_cache(maxsize=1)
def _parser_versions() -> tuple[str, str, str, str]:
    import markdown_it
    import mdit_py_plugins
    import yaml

    from labeller.core.markdown import YAML_LOADER

    return markdown_it.__version__, mdit_py_plugins.__version__, yaml.__version__, YAML_LOADER.__name__


def chunk_corpus(corpus: Corpus, chunker: Chunker, cache: DigestCache | None = None) -> dict[str, list[Chunk]]:
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


def unpack_chunks(doc: Document, rows: list[ChunkRow]) -> list[Chunk]:
    text, doc_id = doc.text, doc.doc_id
    return [Chunk(chunk_id, doc_id, ordinal, start, end, text, heading_path, heading, breadcrumb)
            for chunk_id, ordinal, start, end, heading_path, heading, breadcrumb in rows]
