"""Chunkings as values, and chunk files (SPEC §10): how a foreign pipeline's chunks get in.

A span label outlives any chunking, so a golden set can score chunks that labeller did not
make: a RAG system's own splitter writes them to a JSONL *chunk file*, one chunk a line,
either as offsets ``{"id", "doc", "start", "end"}`` into the canonical text or as the
passage itself ``{"id", "doc"?, "text"}``. A passage is placed by the pipeline-text
locator (``labeller.core.passages``, SPEC §10.1: exact, then in the rendered text, then by
its words), in file order, and is neither trimmed nor expanded; the tier of each placement
is kept with the chunking, and the placements of a file are cached under its digest. A
chunk file is untrusted input, so it is read through the bounded no-symlink reader and
every malformed line is refused (exit 2) with its line and chunk id — never guessed at,
never half-loaded. A well-formed passage that no tier can place is another matter: a real
index holds a few degenerate chunks (cut from the middle of a table), so it is left out
and named (``Chunking.unplaced``), the rest placed and scored (``strict`` refuses instead).

A ``Chunking`` is the result whatever its source (a chunk file or labeller's own chunker):
a name, the SPEC §10 digest over its ranges (the same chunks give the same digest whether
written as offsets or as texts, in any order), and its chunks as ``ChunkRange``s sorted by
place, per document, for hit computation.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from operator import itemgetter
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from labeller.core.anchors import fold_text
from labeller.core.cache import Codec, DigestCache, as_list, check
from labeller.core.canon import canonical_fragment
from labeller.core.chunkers import Chunk
from labeller.core.corpus import Corpus, Document
from labeller.core.hitrules import HitRule
from labeller.core.markdown import front_matter_title
from labeller.core.passages import LOCATOR_VERSION, MIN_SHARE, TIERS, Passage, PassageLocator, Placement
from labeller.core.vocab import Place
from labeller.diagnostics import Bounded
from labeller.errors import InvalidInput
from labeller.io import nonblank_lines, read_regular_file

FILE_ORIGIN = "file"
# How ``foreign_chunks`` fills a foreign chunk's indexed fields: part of a BM25 index's cache key.
FOREIGN_FIELDS = "foreign-fields-v1: heading empty, breadcrumb the document title, body the text"


class ChunkRange(NamedTuple):
    """One chunk of a chunking: its id and where it lies."""

    id: str
    place: Place


_BY_PLACE = itemgetter(1, 0)  # a ChunkRange's (place, id): by document, start, end, then id


_DIGEST_BATCH = 1 << 14  # ranges encoded per call while digesting a chunking


class Chunking:
    """A named set of chunk ranges over one corpus; ranges may overlap and ids are not
    required to be unique (labeller's own chunker gives identical passages one id)."""

    def __init__(self, name: str, ranges: Iterable[ChunkRange], origin: str,
                 located: dict[str, int] | None = None, passages: dict[str, list[str]] | None = None,
                 unplaced: Iterable[dict] = ()) -> None:
        self.name = name
        self.origin = origin  # FILE_ORIGIN, or the name of the labeller chunker that made it
        # A chunk file's chunks per way of placing them ("offsets", or a SPEC §10.1 tier);
        # None for a chunking labeller made.
        self.located = located
        # A chunk file's own passage texts (whitespace-folded, trimmed) -> the ids written
        # with them: a retriever returning the pipeline's text names its chunk directly.
        self.passages = passages or {}
        # A chunk file's chunks no tier could place ({path, line, id, message}, file order):
        # left out of the ranges, never hitting a span, named by every report (SPEC §10).
        self.unplaced: tuple[dict, ...] = tuple(unplaced)
        self.unplaced_ids = frozenset(u["id"] for u in self.unplaced)
        self.ranges: tuple[ChunkRange, ...] = tuple(sorted(ranges, key=_BY_PLACE))  # (doc, start, end), then id
        self.by_doc: dict[str, list[ChunkRange]] = {}
        for r in self.ranges:
            self.by_doc.setdefault(r.place.doc, []).append(r)
        self._starts = {d: [r.place.start for r in rs] for d, rs in self.by_doc.items()}
        self._longest = {d: max(r.place.end - r.place.start for r in rs) for d, rs in self.by_doc.items()}

    @classmethod
    def of_chunks(cls, name: str, chunks: Iterable[Chunk]) -> "Chunking":
        return cls(name, (ChunkRange(c.chunk_id, Place(c.doc_id, c.start, c.end)) for c in chunks), origin=name)

    @cached_property
    def digest(self) -> str:
        """sha256 over the chunks sorted by (doc, start, end, id) of
        ``utf8(id) 0x00 utf8(doc) 0x00 start 0x00 end 0x00`` (offsets in decimal)."""
        h = hashlib.sha256()
        for at in range(0, len(self.ranges), _DIGEST_BATCH):  # UTF-8 of a joined text is the joined UTF-8s
            h.update("".join(f"{r.id}\x00{r.place.doc}\x00{r.place.start}\x00{r.place.end}\x00"
                             for r in self.ranges[at:at + _DIGEST_BATCH]).encode("utf-8"))
        return h.hexdigest()

    @cached_property
    def disjoint(self) -> bool:
        """No two chunks share a character (each document's ranges, sorted, touch at most):
        then the size of a union of distinct chunks is the sum of their lengths, which the
        character metrics use instead of merging ranges (``eval.chars``)."""
        return all(a.place.end <= b.place.start for rs in self.by_doc.values() for a, b in zip(rs, rs[1:]))

    @property
    def n_chunks(self) -> int:
        return len(self.ranges)

    @property
    def mean_chars(self) -> float | None:
        return math.fsum(r.place.end - r.place.start for r in self.ranges) / len(self.ranges) if self.ranges else None

    def overlapping(self, doc: str, start: int, end: int) -> list[ChunkRange]:
        """The chunks of ``doc`` sharing a character with ``[start, end)``, by bisection on
        the sorted starts (a chunk starting before ``start - longest`` cannot reach it)."""
        rs = self.by_doc.get(doc)
        if not rs:
            return []
        starts = self._starts[doc]
        lo = bisect.bisect_right(starts, start - self._longest[doc])
        hi = bisect.bisect_left(starts, end)
        return [r for r in rs[lo:hi] if r.place.end > start]

    def hitting(self, span: Place, rule: HitRule) -> list[ChunkRange]:
        """The chunks that hit ``span`` under ``rule``, each on its own (a ``union_coverage``
        rule: every chunk contributing to a union that satisfies it; none if it is not)."""
        near = self.overlapping(*span) if rule.needs_overlap else self.by_doc.get(span.doc, [])
        iv = (span.start, span.end)
        hits = [r for r in near if rule.chunk_hits((r.place.start, r.place.end), iv)]
        return hits if rule.span_satisfied([(r.place.start, r.place.end) for r in hits], iv) else []


def answer_bearing(chunking: Chunking, spans: Iterable[Place], rule: HitRule) -> list[str]:
    """A record's answer-bearing chunk ids under a chunking: the sorted union over its spans
    of the chunks hitting them under ``rule`` (SPEC §5, §10) — what qrels for it hold."""
    return sorted({r.id for span in spans for r in chunking.hitting(span, rule)})


def foreign_chunks(chunking: Chunking, corpus: Corpus) -> list[Chunk]:
    """A foreign chunking's chunks with the three indexed fields (SPEC §4) filled in.

    A foreign chunk carries no section structure, so its ``heading`` is empty (its text
    holds whatever headings its splitter kept) and its ``breadcrumb`` is the document
    title — the front-matter ``title``, else the file's base name — so that BM25 sees the
    same document-level context for every chunking. ``heading_path`` (what reports show)
    is ``doc:line`` of the chunk's start.
    """
    make = foreign_chunk_maker(chunking, corpus)
    return [make(i) for i in range(chunking.n_chunks)]


def foreign_chunk_maker(chunking: Chunking, corpus: Corpus) -> Callable[[int], Chunk]:
    """``foreign_chunks(chunking, corpus)[i]`` made alone, for a caller that shows a few of
    the chunks (a run's report) and need not make 200,000 of them."""
    titles: dict[str, str] = {}
    first: dict[str, int] = {}  # each document's first index in ``ranges`` (sorted by document)
    at = 0
    for doc_id, rs in chunking.by_doc.items():
        first[doc_id], at = at, at + len(rs)

    def make(i: int) -> Chunk:
        r = chunking.ranges[i]
        doc_id, s, e = r.place
        doc = corpus[doc_id]
        title = titles.get(doc_id)
        if title is None:
            title = titles[doc_id] = front_matter_title(doc.text) or PurePosixPath(doc_id).name
        return Chunk(r.id, doc_id, i - first[doc_id], s, e, doc.text, _heading_path(doc, s), "", title)

    return make


def foreign_shown(chunking: Chunking, corpus: Corpus) -> Callable[[int], tuple[str, str]]:
    """``(c.doc_id, c.heading_path)`` of ``foreign_chunk_maker(chunking, corpus)(i)`` without
    making the chunk: a run's report shows 10 ranks of each of 20,000 queries, and a
    ``Chunk`` (with its title) per shown rank was a twentieth of the whole command."""
    ranges = chunking.ranges

    def shown(i: int) -> tuple[str, str]:
        doc_id, s, _ = ranges[i].place
        return doc_id, _heading_path(corpus[doc_id], s)

    return shown


def _heading_path(doc: Document, start: int) -> str:
    """A foreign chunk has no headings of its own: ``doc:line`` of its start."""
    return f"{doc.doc_id}:{doc.line_of(start) + 1}"


# -- reading chunk files --------------------------------------------------------------------


class _Line(NamedTuple):
    """One checked line: offsets (``place``) or a passage to locate (``text``), or both.
    (A tuple: a chunk file of 200,000 lines makes one each, at a tenth of a dataclass' cost.)"""

    line: int
    id: str
    doc: str | None
    place: Place | None
    text: str | None


class _Problems:
    """Every problem of a file, so one run of the tool lists them all (the first kept, all counted)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.items: Bounded[dict] = Bounded()  # every unplaceable chunk listed in JSON (up to diagnostics.KEEP)

    @property
    def count(self) -> int:
        return self.items.total

    def add(self, line: int, chunk_id, message: str) -> None:
        item = {"path": self.path, "line": line, "message": message}
        if isinstance(chunk_id, str):
            item["id"] = chunk_id
        self.items.append(item)

    def raise_if_any(self) -> None:
        if not self.count:
            return
        first = self.items[0]
        more = f" ({self.count} problems in all; each is listed)" if self.count > 1 else ""
        if self.count > len(self.items):
            more = f" ({self.count} problems in all; the first {len(self.items)} are listed)"
        raise InvalidInput(first["message"] + more, path=self.path, line=first["line"],
                           record_id=first.get("id")).with_details(list(self.items))


class PlacedChunk(NamedTuple):
    """One chunk of a file where it lies: ``located`` is "offsets" or the §10.1 tier (a
    tuple, as ``_Line``: one per chunk)."""

    line: int
    id: str
    place: Place
    located: str
    share: float | None = None  # the matched share of its words, when ``aligned``
    added_before: int = 0  # characters of its text the pipeline added (SPEC §10.1 *Added text*)
    added_after: int = 0


@dataclass
class FilePlacement:
    """A chunk file read and placed: its chunks in file order, the problems that make it
    malformed (``problems``: exit 2) and the passages no tier could place (``unplaced``)."""

    chunks: list[PlacedChunk]
    problems: _Problems
    unplaced: list[dict]
    passages: dict[str, list[str]]  # each text passage (folded, trimmed) -> the ids written with it

    def counts(self) -> dict[str, int]:
        """Chunks per way of placing them: offsets, each tier, and unplaceable."""
        out = {"offsets": 0} | {t: 0 for t in TIERS}
        for c in self.chunks:
            out[c.located] += 1
        return out | {"unplaceable": len(self.unplaced)}

    @property
    def added(self) -> int:
        """How many chunks were placed on part of their text, the rest added by the pipeline."""
        return sum(1 for c in self.chunks if c.added_before or c.added_after)


def read_chunk_file(path: Path | str, corpus: Corpus, *, max_bytes: int, max_chunks: int,
                    name: str | None = None, cache: DigestCache | None = None, strict: bool = False) -> Chunking:
    """Read and check a chunk file: strict UTF-8, no symlinks, at most ``max_bytes`` bytes
    and ``max_chunks`` chunks ([eval] ``chunk_file_max_bytes`` / ``chunk_file_max_chunks``).
    The chunking is named ``name``, else after the file (its stem)."""
    path = Path(path)
    return parse_chunk_file(read_chunk_text(path, max_bytes), corpus, path=str(path), name=name or path.stem,
                            max_chunks=max_chunks, cache=cache, strict=strict)


def read_chunk_text(path: Path, max_bytes: int) -> str:
    data = read_regular_file(path, max_bytes=max_bytes, what="chunk file",
                             bound_hint="[eval] chunk_file_max_bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not valid UTF-8 at byte offset {exc.start}", path=str(path)) from None


def parse_chunk_file(text: str, corpus: Corpus, *, max_chunks: int, path: str = "chunks",
                     name: str = "chunks", cache: DigestCache | None = None, strict: bool = False) -> Chunking:
    """The chunking a chunk file's text describes; refused (exit 2) if it is malformed,
    every problem listed. A passage no tier can place is left out and kept in the
    chunking's ``unplaced`` (SPEC §10: one chunk a pipeline degraded does not sink the
    file); ``strict`` refuses the file for it instead."""
    placed = place_chunk_file(text, corpus, max_chunks=max_chunks, path=path, cache=cache)
    if strict:
        for u in placed.unplaced:
            placed.problems.add(u["line"], u["id"], u["message"] + " (--strict: no chunk may be unplaced)")
    placed.problems.raise_if_any()
    counts = placed.counts()
    del counts["unplaceable"]
    return Chunking(name, (ChunkRange(c.id, c.place) for c in placed.chunks), origin=FILE_ORIGIN, located=counts,
                    passages=placed.passages, unplaced=placed.unplaced)


def place_chunk_file(text: str, corpus: Corpus, *, max_chunks: int, path: str = "chunks",
                     cache: DigestCache | None = None, min_share: float = MIN_SHARE) -> FilePlacement:
    """Check every line of a chunk file and place its passages (SPEC §10.1, in file order).

    The placements are cached under the file's and the corpus' digests (and the locator's
    rules): placing is the slow part of reading a chunk file of passages, and the same
    file over the same corpus always places the same way."""
    problems = _Problems(path)
    lines = _parse_lines(text, corpus, problems, max_chunks, path)
    found: list = [None] * len(lines)  # a file of offsets alone has nothing to place (nor to cache)
    if any(ln.place is None for ln in lines):
        key = ("passage-placements", LOCATOR_VERSION, hashlib.sha256(text.encode("utf-8")).hexdigest(),
               corpus.digest, min_share)
        cached = cache.get(key, PLACEMENTS_CODEC) if cache is not None else None
        if isinstance(cached, list) and len(cached) == len(lines):
            found = cached
        else:
            found = PassageLocator(corpus, min_share=min_share).place(
                [Passage(ln.doc, place=ln.place) if ln.place is not None else Passage(ln.doc, ln.text)
                 for ln in lines], ordered=True)
            if cache is not None:
                cache.put(key, found, PLACEMENTS_CODEC)
    chunks: list[PlacedChunk] = []
    unplaced: list[dict] = []
    passages: dict[str, list[str]] = {}
    for ln in lines:
        if ln.text is not None:
            passages.setdefault(fold_text(canonical_fragment(ln.text)).strip(), []).append(ln.id)
    for ln, got in zip(lines, found):
        if ln.place is not None:
            doc, s, e = ln.place
            if ln.text is not None and fold_text(canonical_fragment(ln.text)) != fold_text(corpus[doc].text[s:e]):
                problems.add(ln.line, ln.id, f"text and offsets disagree: {doc}[{s}:{e}] is not this text "
                             "(whitespace runs folded)")
                continue
            chunks.append(PlacedChunk(ln.line, ln.id, ln.place, "offsets"))
        elif isinstance(got, Placement):
            chunks.append(PlacedChunk(ln.line, ln.id, got.place, got.tier, got.share, got.added_before,
                                      got.added_after))
        else:
            unplaced.append({"path": path, "line": ln.line, "id": ln.id, "message": str(got)})
    return FilePlacement(chunks, problems, unplaced, passages)


def _placements_to_data(found: list) -> list:
    return [None if p is None else p if isinstance(p, str) else [p.tier, *p.place, p.share, p.added_before,
                                                                  p.added_after] for p in found]


def _placements_from_data(data) -> list:
    out: list[Placement | str | None] = []
    for item in as_list(data):
        if item is None or isinstance(item, str):
            out.append(item)
            continue
        tier, doc, start, end, share, before, after = as_list(item, 7)
        check(tier in TIERS and isinstance(doc, str) and type(start) is int and type(end) is int
              and (share is None or isinstance(share, float)) and type(before) is int and type(after) is int)
        out.append(Placement(Place(doc, start, end), tier, share, before, after))
    return out


PLACEMENTS_CODEC = Codec("passage-placements", _placements_to_data, _placements_from_data)


def _parse_lines(text: str, corpus: Corpus, problems: _Problems, max_chunks: int, path: str) -> list[_Line]:
    raw_lines = list(islice(nonblank_lines(text), max_chunks + 1))  # lines past the bound are never kept
    if len(raw_lines) > max_chunks:
        raise InvalidInput(f"more than {max_chunks} chunks, over the bound of {max_chunks} "
                           "([eval] chunk_file_max_chunks)", path=path, line=raw_lines[-1][0])
    fast = _offset_lines(raw_lines, corpus)
    if fast is not None:
        return fast
    out: list[_Line] = []
    first_line: dict[str, int] = {}
    ordinals: dict[str | None, int] = {}  # doc -> chunks of it so far, for the ids a file leaves out
    for n, raw in raw_lines:
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            problems.add(n, None, f"not a JSON object: {exc}")
            continue
        except RecursionError:  # hostile nesting ("[" * 100_000) must be a refusal, not a crash
            problems.add(n, None, "not a JSON object: nested too deeply")
            continue
        if not isinstance(obj, dict):
            problems.add(n, None, "not a JSON object")
            continue
        doc = obj.get("doc") if isinstance(obj.get("doc"), str) else None
        ordinal = ordinals[doc] = ordinals.get(doc, 0) + 1
        cid = obj["id"] if "id" in obj else derived_id(doc, ordinal)
        if not isinstance(cid, str) or cid.split() != [cid]:  # empty, or holds whitespace (one C call)
            problems.add(n, None, f"id {cid!r} must be a non-empty string without whitespace (ids are written to "
                         "TREC runs and qrels)")
            continue
        if cid in first_line:
            problems.add(n, cid, f"duplicate id (first on line {first_line[cid]})")
            continue
        first_line[cid] = n
        ln = _check_fields(n, cid, obj, corpus, problems)
        if ln is not None:
            out.append(ln)
    return out


_OFFSET_KEYS = frozenset(("id", "doc", "start", "end"))
_JSON_SPACE = " \t\r\n"  # the whitespace JSON allows between tokens

# ``_offset_lines`` parses the lines joined as one array, ``[line1\n,line2\n,...]``, and
# keeps the result only when it is one flat object (str and int values) per line. That is
# what each line parsed alone gives: a string cannot run past its line (a raw newline in a
# string is refused), so a line that starts with ``{`` and ends with ``}`` opens and closes
# objects of its own (a flat object holds no braces outside its strings); one object per
# line, as many as lines, leaves room for nothing else on any line.


def _offset_lines(raw_lines: list[tuple[int, str]], corpus: Corpus) -> list[_Line] | None:
    """The common chunk file, checked by columns: every line an object of exactly ``id``,
    ``doc``, ``start`` and ``end``, every id a distinct string without whitespace, every doc
    in the corpus, every range in it. Then the lines are those the line reader gives (the
    same checks, each over a whole column in one or two C calls, not a dozen Python steps a
    line); None as soon as any line is anything else, and the line reader finds and words
    every problem."""
    if not all((t := raw.strip(_JSON_SPACE))[:1] == "{" and t[-1:] == "}" for _, raw in raw_lines):
        return None
    try:  # one parse for the file; kept only when each line is exactly one object (the note above)
        objs = json.loads("[" + "\n,".join(raw for _, raw in raw_lines) + "]")
    except (ValueError, RecursionError):
        return None
    if len(objs) != len(raw_lines):
        return None
    if not all(type(o) is dict and o.keys() == _OFFSET_KEYS for o in objs):
        return None
    ids, docs = [o["id"] for o in objs], [o["doc"] for o in objs]
    starts, ends = [o["start"] for o in objs], [o["end"] for o in objs]
    if not (all(type(i) is str for i in ids) and " ".join(ids).split() == ids and len(set(ids)) == len(ids)
            and all(type(d) is str for d in docs) and all(type(v) is int for v in starts)
            and all(type(v) is int for v in ends)):
        return None  # a non-string or empty id, one with whitespace, a repeated id, a doc or offset of another type
    distinct = set(docs)
    if not all(d in corpus for d in distinct):
        return None
    size = {d: len(corpus[d].text) for d in distinct}
    if not all(0 <= s < e <= size[d] for d, s, e in zip(docs, starts, ends)):
        return None
    return [_Line(n, cid, d, Place(d, s, e), None)
            for (n, _), cid, d, s, e in zip(raw_lines, ids, docs, starts, ends)]


def derived_id(doc: str | None, ordinal: int) -> str:
    """The id of a chunk written without one: ``doc#n``, its ``n``-th chunk of ``doc`` in
    file order (from 1; ``#n`` among the chunks that name no document), whitespace in the
    document's name written as ``_`` (an id holds none). A script's first chunk file is
    ``{doc, text}`` lines; the ids stay stable while the file's order does."""
    return f"{'_'.join((doc or '').split())}#{ordinal}"


def _check_fields(n: int, cid: str, obj: dict, corpus: Corpus, problems: _Problems) -> _Line | None:
    doc, passage = obj.get("doc"), obj.get("text")
    has_offsets = "start" in obj or "end" in obj
    if not has_offsets and "text" not in obj:
        problems.add(n, cid, "a chunk needs doc, start and end, or text")
        return None
    if doc is None and has_offsets:
        problems.add(n, cid, "offsets need doc")
        return None
    if doc is not None:
        if not isinstance(doc, str):
            problems.add(n, cid, "doc must be a string")
            return None
        if doc not in corpus:
            problems.add(n, cid, f"unknown document {doc!r} (not in the corpus)")
            return None
    if "text" in obj and (not isinstance(passage, str) or not passage):
        problems.add(n, cid, "text must be a non-empty string")
        return None
    if passage is not None and not fold_text(canonical_fragment(passage)).strip():
        problems.add(n, cid, "text is only whitespace (it would match every whitespace run)")
        return None
    place = None
    if has_offsets and isinstance(doc, str):
        start, end = obj.get("start"), obj.get("end")
        bad = [k for k, v in (("start", start), ("end", end)) if type(v) is not int]
        if bad or not isinstance(start, int) or not isinstance(end, int):
            problems.add(n, cid, f"{' and '.join(bad)} must be whole numbers (code-point offsets), got "
                         + ", ".join(f"{k} {obj.get(k)!r}" for k in bad))
            return None
        size = len(corpus[doc].text)
        if not 0 <= start < end <= size:
            problems.add(n, cid, f"offsets out of range: needs 0 <= start < end <= {size} (the length of {doc}), "
                         f"got start {start}, end {end}")
            return None
        place = Place(doc, start, end)
    return _Line(n, cid, doc, place, passage)
