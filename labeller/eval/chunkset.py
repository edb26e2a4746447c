"""The chunks an eval scores: labeller's own, or a foreign chunking from a chunk file.

Every number of an eval is relative to one chunking: hits, answer-bearing chunks, the BM25
index, the ids a run may name. ``ChunkSet`` holds it once in the three shapes those need —
the ``Chunking`` value (name, digest, ranges), the chunks with their indexed fields, and
every position of every id — and maps a retriever's result (an id, a range or a passage)
back to one of its chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property
from itertools import repeat
from pathlib import Path

from labeller.core.anchors import fold_text
from labeller.core.canon import canonical_fragment
from labeller.core.chunkers import Chunk, Chunker, chunk_corpus, chunker_spec
from labeller.core.build import BuildResult
from labeller.core.chunkfile import (FOREIGN_FIELDS, Chunking, answer_bearing, foreign_chunk_maker, foreign_shown,
                                     read_chunk_file)
from labeller.core.corpus import Corpus
from labeller.core.parallel import gc_paused
from labeller.core.passages import Passage, PassageLocator, Placement
from labeller.core.project import Project
from labeller.core.vocab import Place
from labeller.errors import InvalidInput
from labeller.eval.metrics import ChunkPositions


class ChunkSet:
    def __init__(self, chunking: Chunking, chunks: list[Chunk] | Callable[[], list[Chunk]],
                 positions: ChunkPositions, fields: str | None = None) -> None:
        self.chunking = chunking
        self._chunks = chunks
        self.positions = positions
        # How the chunks' indexed fields were made when they are not the project's own chunks
        # (a BM25 index of them is keyed by it); None for the project's own.
        self.fields = fields

    @cached_property
    def chunks(self) -> list[Chunk]:
        """With their indexed fields, corpus order (a chunk file's: made when first read)."""
        return self._chunks() if callable(self._chunks) else self._chunks

    @classmethod
    def of(cls, chunking: Chunking, chunks: Sequence[Chunk], fields: str | None = None) -> "ChunkSet":
        return cls(chunking, list(chunks), _with_unplaced(ChunkPositions(chunks, chunking), chunking), fields)

    @classmethod
    def of_foreign(cls, chunking: Chunking, corpus: Corpus) -> "ChunkSet":
        """``of(chunking, foreign_chunks(chunking, corpus), FOREIGN_FIELDS)``, its chunks made
        when read: a run's report shows a few of a chunk file's 200,000, BM25 reads them all."""
        make = foreign_chunk_maker(chunking, corpus)
        positions = _with_unplaced(ChunkPositions.of_ranges(chunking, make, foreign_shown(chunking, corpus)), chunking)
        return cls(chunking, lambda: [make(i) for i in range(chunking.n_chunks)], positions, FOREIGN_FIELDS)

    @property
    def foreign(self) -> bool:
        """Not the project's own chunks (a chunk file's, or another chunker's): retrievers
        index and name these chunks, not ``project.all_chunks``."""
        return self.fields is not None

    @property
    def label(self) -> str:
        """How messages name this chunking."""
        return f"chunking {self.chunking.name!r} ({self.chunking.n_chunks} chunks, digest " \
               f"{self.chunking.digest[:12]})"

    def places(self, chunk_id: str) -> Sequence[Place]:
        """Every place of the chunk (none for an unknown id): the positions' own list, not to be changed."""
        return self.positions.positions.get(chunk_id, ())

    def places_of(self, chunk_ids: Sequence[str]) -> list[Sequence[Place]]:
        """``places`` of each id, in one C pass."""
        return list(map(self.positions.positions.get, chunk_ids, repeat(())))

    @cached_property
    def _by_place(self) -> dict[Place, str]:
        return {r.place: r.id for r in self.chunking.ranges}

    @cached_property
    def _by_text(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for c in self.chunks:
            out.setdefault(fold_text(c.text).strip(), []).append(c.chunk_id)
        for text, ids in self.chunking.passages.items():  # a chunk file's own texts, as its pipeline wrote them
            out.setdefault(text, []).extend(ids)
        return out

    def resolve(self, results: Sequence[object], corpus: Corpus, locator: PassageLocator) -> list[str]:
        """The chunk id each of a retriever's results names: an id of this chunking, a ``(doc,
        start, end)`` range / ``Place`` that is one of its chunks, or a passage text — the
        chunk whose text it is (whitespace runs folded, ends trimmed; the chunk file's own
        text or the source's), else placed on the corpus like a chunk file's text (SPEC
        §10.1, the ranking's passages in its order) and then the chunk at that place.
        A result that names no chunk is refused, naming its rank."""
        out: list[str | None] = []
        passages: dict[int, str] = {}
        for i, result in enumerate(results):
            if isinstance(result, str):
                ids = [result] if result in self.positions.first else sorted(
                    set(self._by_text.get(fold_text(canonical_fragment(result)).strip(), ())))
                if len(ids) != 1:
                    passages[i] = result
                out.append(ids[0] if len(ids) == 1 else None)
            elif isinstance(result, (tuple, list)) and len(result) == 3:
                place = Place(*result)
                found = self._by_place.get(place)
                if found is None:
                    raise InvalidInput(f"result {i + 1}: range {tuple(place)!r} is not a chunk of {self.label}")
                out.append(found)
            else:
                raise InvalidInput(f"result {i + 1}: a result must be a chunk id, a (doc, start, end) range or a "
                                   f"passage text; got {type(result).__name__} {result!r:.80}")
        if passages:
            placed = locator.place([Passage(None, text) for text in passages.values()], ordered=True)
            for i, got in zip(passages, placed):
                if not isinstance(got, Placement):
                    raise InvalidInput(f"result {i + 1}: {got}")
                found = self._by_place.get(got.place)
                if found is None:
                    raise InvalidInput(f"result {i + 1}: the passage placed at {corpus[got.place.doc].where(got.place.start)} "
                                       f"({got.tier}) is not a chunk of {self.label}")
                out[i] = found
        return [cid for cid in out if cid is not None]


def _with_unplaced(positions: ChunkPositions, chunking: Chunking) -> ChunkPositions:
    """A retriever may still name a chunk file's unplaced chunks: known ids, at no place (they hit nothing)."""
    for u in chunking.unplaced:
        positions.first[u["id"]] = Chunk(u["id"], "", 0, 0, 0, "", f"(unplaced: line {u['line']})", "", "")
    return positions


# What ``--chunks`` (or a caller in Python) may name: the project's chunker (None), a chunk
# file, a ``Chunking``, or a ``ChunkSet`` already made.
ChunksSource = ChunkSet | Chunking | str | Path | None


@gc_paused()
def load_chunk_set(project: Project, chunks: ChunksSource = None, strict: bool = False) -> ChunkSet:
    """``chunks``: None (the project's chunker), a chunk file path, or a ``Chunking``.
    ``strict``: a chunk file with a chunk no tier places is refused (else it is left out,
    SPEC §10). The cycle collector is paused: a chunk file's chunks are made several times
    over (lines, ranges, chunks, positions) and none forms a cycle."""
    if chunks is None:
        return ChunkSet.of(Chunking.of_chunks(chunker_spec(project.chunker), project.all_chunks), project.all_chunks)
    if isinstance(chunks, ChunkSet):
        return chunks
    if isinstance(chunks, (str, Path)):
        cfg = project.config.eval
        chunks = read_chunk_file(chunks, project.corpus, max_bytes=cfg.chunk_file_max_bytes,
                                 max_chunks=cfg.chunk_file_max_chunks, cache=project.cache, strict=strict)
    if not isinstance(chunks, Chunking):
        raise InvalidInput(f"chunks must be a chunk file path or a Chunking, got {type(chunks).__name__}")
    for r in chunks.ranges:  # a Chunking made in Python has not been through the file checks
        if r.place.doc not in project.corpus or not 0 <= r.place.start < r.place.end <= len(
                project.corpus[r.place.doc].text):
            raise InvalidInput(f"chunk {r.id!r} of chunking {chunks.name!r}: {tuple(r.place)!r} is not a range of "
                               "a corpus document")
    return ChunkSet.of_foreign(chunks, project.corpus)


def chunker_chunk_set(project: Project, chunker: Chunker) -> ChunkSet:
    """The chunks any registered chunker makes of the project's corpus, with the fields that
    chunker gives them (heading, breadcrumb), so BM25 sees each chunking as its own rule
    made it. The project's own chunker gives the project's chunks; any other is chunked
    through the project's digest-keyed chunk cache (``chunk_corpus``)."""
    spec = chunker_spec(chunker)
    if spec == chunker_spec(project.chunker):
        return load_chunk_set(project)
    chunks = [c for doc_chunks in chunk_corpus(project.corpus, chunker, project.cache).values() for c in doc_chunks]
    return ChunkSet.of(Chunking.of_chunks(spec, chunks), chunks, f"chunker-fields-v1: {spec} version {chunker.version}")


def through_chunking(project: Project, result: BuildResult, chunks: ChunksSource) -> tuple[Project, BuildResult]:
    """The project and its build seen through another chunking (``export --chunks``).

    The view's ``all_chunks`` are that chunking's chunks (their fields as BM25 sees them)
    and each record's ``chunk_ids`` its answer-bearing chunks there under the build hit
    rule, so every export format writes that chunking's ids and qrels unchanged. The corpus
    and configuration are shared with ``project``; nothing is rebuilt.
    """
    chunk_set = load_chunk_set(project, chunks)
    view = Project(project.config, project.cache)
    view.__dict__.update(corpus=project.corpus, hit_rule=project.hit_rule, all_chunks=chunk_set.chunks)
    rule = project.hit_rule
    records = [replace(rec, chunk_ids=answer_bearing(chunk_set.chunking, [Place(s.doc_id, s.start, s.end)
                                                                          for s in rec.spans], rule))
               for rec in result.records]
    return view, BuildResult(records, result.manifest, result.summary)
