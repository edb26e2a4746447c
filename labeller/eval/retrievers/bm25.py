"""The default retriever: BM25F (whoosh's model) over the chunks' ``heading``, ``breadcrumb`` and ``body``.

It is the baseline every other system is compared against, so it has to be reproducible
and honest about its cache:

- One index entry per distinct chunk id, with the three indexed fields of SPEC §4 cut by
  the versioned analysis chain (``labeller.eval.analysis``). A query is analysed the same
  way; its distinct terms are OR-ed over the three fields, each field's BM25F score
  multiplied by its weight (query-time boosts, so changing a weight never needs a rebuild).
- The index is cached on disk under ``<cache_dir>/bm25/<chunker spec>-<analyzer>/``.
  The cache's manifest stores the key it was built for (index format, corpus digest,
  chunker spec and version, analyzer, digest of the chunk ids, whoosh and PyStemmer versions), the sha256 of
  every index file, and an HMAC of both under the user's cache secret (kept outside the
  project, see ``labeller.core.cache``): an index this user did not write (untrusted) is
  never read. The index itself is labeller's own file (``bm25_index``: numpy postings and a
  term table; the whoosh and PyStemmer versions are in the key because the analysis uses
  their stemmers and whoosh's stop words). A key that differs (stale) or a
  file that is missing, extra or does not hash to its recorded value (corrupt) makes it
  rebuild; it is never used as is. A rebuild
  is written into a temporary folder and renamed into place, so a crash never leaves a
  half-written index where a reader would find it.
- Loading verifies each file while reading it once through one descriptor, then memory-maps
  that descriptor (``IndexFiles``): an index costs the pages its queries touch, not its
  size in RAM (at 100 MB of corpus the index is ~260 MB). Why that is as safe as the bytes
  in RAM it replaced is argued at ``load_storage``.
"""

from __future__ import annotations

import ctypes
import hashlib
import hmac
import json
import mmap
import os
import re
import shutil
import tempfile
import threading
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import whoosh

from labeller.core.cache import map_hashed, map_verified, mac, private_subfolder, read_untrusted
from labeller.core.chunkers import Chunk, chunker_spec
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.analysis import STEMMER_VERSION, Analyzer, get_analyzer
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit, Progress, top_k
from labeller.eval.retrievers.bm25_index import FIELDS, INDEX_FILE, BM25Index, write_index
from labeller.io import parse_json

INDEX_FORMAT = "labeller-bm25-index-v3"  # v3: labeller's own file (bm25_index); v2 was whoosh's blocks + a sidecar
MANIFEST = "labeller-index.json"
MAX_MANIFEST_BYTES = 1 << 20
# Chosen on every outside set at hand against tantivy and bm25s out of the box, then checked
# on question sets held out of the choice (benchmarks/bm25_tuning.py; the tables are in
# docs/performance.md), with the v3 analysis (stop words kept). A high b: a long chunk that
# shares a question's frequent words must not outrank a short one that answers it; the
# heading and breadcrumb add a little (their words recur in every chunk of a section, so at
# full weight they drown the body). ``[eval]`` can change all four, e.g. to reproduce a
# baseline recorded with older defaults.
DEFAULT_FIELD_WEIGHTS = {"heading": 0.25, "breadcrumb": 0.1, "body": 1.0}
K1 = 0.9
B = 0.85
TERM_CACHE_SIZE = 200_000  # posting lists kept in memory (term, field); cleared when full


def field_weights(configured: dict | None = None) -> dict[str, float]:
    """The defaults overridden by ``[eval] field_weights``; unknown fields or negative weights refused."""
    weights = dict(DEFAULT_FIELD_WEIGHTS)
    for name, value in (configured or {}).items():
        if name not in FIELDS:
            raise InvalidInput(f"[eval] field_weights: unknown field {name!r}; fields: {', '.join(FIELDS)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise InvalidInput(f"[eval] field_weights: {name} must be a number >= 0")
        weights[name] = float(value)
    if not any(weights.values()):
        raise InvalidInput("[eval] field_weights: at least one weight must be above 0")
    return weights


def distinct_chunks(chunks: list[Chunk]) -> list[Chunk]:
    """First position of each chunk id: positions sharing an id have identical fields."""
    seen: dict[str, Chunk] = {}
    for c in chunks:
        seen.setdefault(c.chunk_id, c)
    return list(seen.values())


def index_key(project: Project, analyzer: Analyzer, chunks: list[Chunk]) -> dict:
    ids = hashlib.sha256("\n".join(c.chunk_id for c in chunks).encode("ascii")).hexdigest()
    return {"format": INDEX_FORMAT, "corpus_digest": project.corpus.digest, "chunker": chunker_spec(project.chunker),
            "chunker_version": project.chunker.version, "analyzer": analyzer.name, "chunk_ids_sha256": ids,
            "whoosh": whoosh.versionstring(), "stemmer": STEMMER_VERSION}


def foreign_index_key(project: Project, analyzer: Analyzer, chunk_set: ChunkSet) -> dict:
    """A foreign chunking's index is a function of its digest (ids and ranges), the corpus
    (the fields' text) and how its fields were filled (``ChunkSet.fields``: a chunk file's
    by ``foreign_chunks``, another chunker's by that chunker)."""
    return {"format": INDEX_FORMAT, "corpus_digest": project.corpus.digest, "chunking_digest": chunk_set.chunking.digest,
            "fields": chunk_set.fields, "analyzer": analyzer.name, "whoosh": whoosh.versionstring(),
            "stemmer": STEMMER_VERSION}


def _foreign_slot(chunk_set: ChunkSet, analyzer: Analyzer) -> str:
    fields = hashlib.sha256((chunk_set.fields or "").encode("utf-8")).hexdigest()[:8]  # set: it is foreign
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"chunks-{chunk_set.chunking.digest[:16]}-{fields}-{analyzer.name}")


class IndexFiles:
    """The index's files by name: read-only memory maps of the inodes that were hashed
    (``labeller.core.cache.map_hashed``/``map_verified``), or bytes where a file could not
    be mapped (an empty file)."""

    def __init__(self, files: dict[str, mmap.mmap | bytes] | None = None) -> None:
        self.files: dict[str, mmap.mmap | bytes] = dict(files or {})

    def list(self) -> list[str]:
        return list(self.files)


def build_storage(chunks: list[Chunk], analyzer: Analyzer, progress: Progress | None = None) -> IndexFiles:
    """Index the chunks (one entry per distinct id, in corpus order) into a private temporary
    folder (``bm25_index.write_index``), and give back the file memory-mapped, the folder
    already deleted (``mkdtemp``: this user's only; the mapped inode outlives it). On disk,
    not in RAM: the index (~260 MB at 100 MB of corpus) then costs the pages a query touches."""
    folder = Path(tempfile.mkdtemp(prefix="labeller-bm25-"))
    try:
        path = folder / INDEX_FILE
        with open(path, "xb") as out:
            write_index(out, chunks, analyzer, (lambda done, total: progress("index", done, total)) if progress
                        else None)
        return_freed_memory()
        found = map_hashed(path, private=False)
        if found is None:
            raise OSError(f"cannot map the index file {path} just written")
        return IndexFiles({INDEX_FILE: found[0]})
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def return_freed_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing). The build frees its counting arrays in pieces the allocator keeps for reuse;
    kept, they raised every later phase of an eval."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL(None)  # the process's own symbols: libc's, where it is glibc
except OSError:
    _LIBC = None


def _manifest_mac(secret: bytes, files: dict, key: object) -> str:  # key: as read, any JSON
    return mac(secret, INDEX_FORMAT.encode("ascii"),
               json.dumps({"files": files, "key": key}, sort_keys=True, ensure_ascii=True).encode("ascii"))


def load_storage(folder: Path, key: dict, secret: bytes) -> tuple[IndexFiles | None, str]:
    """The verified cached index, or None and why not (``missing``, ``untrusted``, ``stale``,
    ``corrupt``).

    Nothing of the index is read unless the manifest carries this user's MAC
    (``labeller.core.cache``) and every file's bytes hash to what that manifest lists: a
    planted or copied index is rebuilt, never opened.

    Queries read the postings lazily, for as long as the retriever lives, so it is not
    enough that the bytes were right when hashed; they must be the bytes read at any later
    time. Each file is a read-only map of the very inode that was hashed (``map_verified``:
    hash through the descriptor, then map the same descriptor; no path is opened again).
    That inode's content cannot change behind the map except by a write into it, and
    ``map_verified`` accepts a file only if this user alone can write it; labeller itself
    never writes into an index file once it is in place (``save_storage`` writes new files
    in a new folder, mode 0644, and renames the folder). A folder replaced, renamed or
    deleted by another process leaves the mapped inodes as they were. What this does not
    cover: a file system that does not enforce file modes (some network mounts map every
    file to the mounting user) lets whoever else writes there change a mapped page; a
    project shared that way should be evaluated from a local copy (docs/performance.md).
    """
    manifest_path = folder / MANIFEST
    raw = read_untrusted(manifest_path, MAX_MANIFEST_BYTES)
    if raw is None:
        return None, "corrupt" if os.path.lexists(manifest_path) else "missing"
    try:
        manifest = parse_json(raw, str(manifest_path))  # guarded: a nesting bomb is corrupt, not a crash
    except InvalidInput:
        return None, "corrupt"
    if not (isinstance(manifest, dict) and isinstance(manifest.get("files"), dict)
            and isinstance(manifest.get("mac"), str)
            and all(isinstance(n, str) and isinstance(d, str) for n, d in manifest["files"].items())):
        return None, "corrupt"
    files: dict = manifest["files"]
    if not hmac.compare_digest(manifest["mac"], _manifest_mac(secret, files, manifest.get("key"))):
        return None, "untrusted"
    if manifest.get("key") != key:
        return None, "stale"
    try:
        present = set(os.listdir(folder)) - {MANIFEST}
    except OSError:
        return None, "corrupt"
    if present != set(files):
        return None, "corrupt"
    storage = IndexFiles()
    for name, digest in files.items():
        mapped = map_verified(folder / name, digest)
        if mapped is None:
            return None, "corrupt"
        storage.files[name] = mapped
    return storage, "loaded"


def save_storage(folder: Path, storage: IndexFiles, key: dict, secret: bytes) -> IndexFiles:
    """Write into a fresh temporary folder, manifest (with its MAC) last, then swap it into
    place; return the index as it now is on disk, mapped and verified like any load (the
    RAM the built index held can go), or ``storage`` itself if it cannot be read back.

    Each file is streamed from ``storage`` in pieces, hashed as it is
    written, and created with mode 0644 (never writable by group or others, which
    ``load_storage`` requires). The files are not fsynced: a cache that a crash leaves
    damaged fails its hashes and is rebuilt, so durability would buy nothing; the rename
    is what keeps readers safe.
    """
    parent = folder.parent
    tmp = parent / f".tmp-{folder.name}-{uuid.uuid4().hex}"
    tmp.mkdir(parents=True)
    try:
        files = {}
        for name in sorted(storage.list()):
            h = hashlib.sha256()
            fd = os.open(tmp / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as out:
                for block in _pieces(storage, name):
                    h.update(block)
                    out.write(block)
            files[name] = h.hexdigest()
        manifest = {"files": files, "key": key, "mac": _manifest_mac(secret, files, key)}
        fd = os.open(tmp / MANIFEST, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        old = None
        if folder.exists():
            old = parent / f".old-{folder.name}-{uuid.uuid4().hex}"
            os.rename(folder, old)
        try:
            os.rename(tmp, folder)
        except OSError:  # another process put its own fresh build there first: keep that one
            pass
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    saved, _ = load_storage(folder, key, secret)  # ours, or the equal build of whoever renamed first
    return saved if saved is not None else storage


PIECE = 1 << 20  # bytes copied at a time by save_storage (a multiple of the page size)


def _pieces(storage: IndexFiles, name: str):
    """The bytes of file ``name`` of ``storage``, ``PIECE`` at a time.

    A memory-mapped file (what ``build_storage`` gives) is sliced out of its map, and each
    piece's pages are given back once copied (``MADV_DONTNEED``: the map is read-only and
    file-backed, so a page touched again is read back from the page cache). Read-through
    pages of a map count in the process's resident memory until it is unmapped: copying
    a 100 MB corpus's ~330 MB index out of its maps made it resident whole, on top of
    everything the eval held (its peak, measured)."""
    data = storage.files[name]
    for at in range(0, len(data), PIECE):
        yield data[at:at + PIECE]
        if isinstance(data, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):  # not on Windows
            data.madvise(mmap.MADV_DONTNEED, at, min(PIECE, len(data) - at))


def _slot(project: Project, analyzer: Analyzer) -> str:
    raw = f"{chunker_spec(project.chunker)}-{analyzer.name}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", raw)


def cache_folder(project: Project, slot: str, base: Path | None = None) -> tuple[Path | None, bytes | None, str]:
    """Where this index (or, ``base``, another cached file set under the cache folder, as the
    dense retriever's embeddings) is cached and the secret that authenticates it, or None and why not.

    Only for a project with a disk cache (like its chunks, whose ``DigestCache`` holds the
    user's secret), and never through a symlink planted in the project.
    """
    cache = getattr(project, "cache", None)
    if cache is None or getattr(cache, "folder", None) is None:
        why = getattr(cache, "disabled", None)
        return None, None, f", not cached: {why}" if why else ""
    layout = project.config.layout
    base = layout.bm25_index if base is None else base
    folder = private_subfolder(layout.cache_dir, *base.relative_to(layout.cache_dir).parts, slot)
    if folder is None:
        return None, None, f", not cached: a folder in {base} is a symlink"
    return folder, cache.secret, ""


class BM25Retriever:
    """BM25F (k1 ``K1``, b ``B``) over one corpus snapshot's chunks."""

    name = "bm25"

    def __init__(self, chunks: list[Chunk], storage: IndexFiles, analyzer: Analyzer, weights: dict[str, float],
                 cache_status: str = "memory", k1: float = K1, b: float = B) -> None:
        """``k1``/``b`` apply at query time (the index holds counts): the tuning
        (``benchmarks/bm25_tuning.py``) tries others on one index; the eval uses the defaults."""
        self.analyzer = analyzer
        self.weights = weights
        self.k1, self.b = k1, b
        self.cache_status = cache_status  # loaded | built (missing/stale/corrupt) | memory
        self._chunks = {c.chunk_id: c for c in chunks}
        # Docnum i is the i-th of ``chunks``: the index was written from that list in that
        # order, and holds the sha256 of their ids, checked here.
        self._ids = [c.chunk_id for c in chunks]
        if INDEX_FILE not in storage.files:
            raise ValueError(f"the index has no {INDEX_FILE}")
        self._index = BM25Index(storage.files[INDEX_FILE], self._ids, b, k1)
        self._n = self._index.doc_count
        self._weighted_cache: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        self._zero_scored = False  # set by _weighted
        self._active = [(f, w) for f, w in weights.items() if w > 0]
        self._lock = threading.Lock()  # the term cache is shared by the app's threads
        self._docnums: dict[str, int] | None = None  # chunk id -> docnum, made at the first ``held_share``

    @classmethod
    def build(cls, project: Project, analyzer: Analyzer, weights: dict[str, float], progress: Progress | None = None,
              chunk_set: ChunkSet | None = None, k1: float = K1, b: float = B) -> "BM25Retriever":
        """Load the verified cached index of this snapshot, or (re)build and cache it.

        A foreign chunking (``chunk_set``) is indexed the same way, its fields as
        ``foreign_chunks`` fills them, and cached under its own slot keyed by its digest."""
        foreign = chunk_set if chunk_set is not None and chunk_set.foreign else None
        chunks = distinct_chunks(foreign.chunks if foreign is not None else project.all_chunks)
        key = foreign_index_key(project, analyzer, foreign) if foreign is not None else index_key(project, analyzer,
                                                                                                  chunks)
        slot = _foreign_slot(foreign, analyzer) if foreign is not None else _slot(project, analyzer)
        folder, secret, not_cached = cache_folder(project, slot)
        status = "memory"
        storage = None
        if folder is not None and secret is not None:  # cache_folder gives both or neither
            storage, why = load_storage(folder, key, secret)
            if storage is not None:
                try:
                    return cls(chunks, storage, analyzer, weights, "loaded", k1, b)
                except ValueError:  # verified bytes that are not an index of these chunks: rebuild, never trust
                    why = "corrupt"
            status = f"built ({why})"
        storage = build_storage(chunks, analyzer, progress)
        status += not_cached
        if folder is not None and secret is not None:
            try:
                storage = save_storage(folder, storage, key, secret)
            except OSError:
                status += ", not cached: cache folder not writable"
        return cls(chunks, storage, analyzer, weights, status, k1, b)

    @classmethod
    def for_project(cls, project: Project, analyzer: str | None = None, weights: dict | None = None,
                    progress: Progress | None = None, chunks: ChunkSet | None = None) -> "BM25Retriever":
        """The project's retriever, built once per project, chunking and settings (the app
        searches often). ``chunks``: the ``ChunkSet`` scored (None: the project's chunks)."""
        an = get_analyzer(analyzer or project.config.eval.analyzer)
        w = field_weights(project.config.eval.field_weights if weights is None else weights)
        conf = project.config.eval
        k1 = K1 if conf.bm25_k1 is None else conf.bm25_k1
        b = B if conf.bm25_b is None else conf.bm25_b
        memo = _MEMO.setdefault(project, {})
        foreign = chunks if chunks is not None and chunks.foreign else None
        key = (an.name, tuple(sorted(w.items())), k1, b,
               (foreign.chunking.digest, foreign.fields) if foreign is not None else None)
        if key not in memo:
            memo[key] = cls.build(project, an, w, progress, foreign, k1, b)
        return memo[key]

    def describe(self) -> dict:
        return {"name": self.name, "model": "whoosh BM25F", "k1": self.k1, "b": self.b, "analyzer": self.analyzer.name,
                "field_weights": dict(sorted(self.weights.items())), "query": "distinct terms OR-ed over fields"}

    def chunk(self, chunk_id: str) -> Chunk:
        return self._chunks[chunk_id]

    def term_scores(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray]:
        """whoosh's BM25F score of ``term`` in ``field`` for each chunk (docnum) that holds it.

        Scored over the whole posting list at once (``bm25_index.BM25Index``, equal to
        whoosh's scorer bit for bit)."""
        return self._index.term_scores(field, term)

    def held_terms(self, query: str, chunk_id: str) -> dict[str, bool]:
        """Each of the query's distinct analysed terms (as ``search_hits`` searches them), and
        whether chunk ``chunk_id`` holds it in a field with a weight above 0 (a chunk this index
        does not hold holds none)."""
        terms = list(dict.fromkeys(self.analyzer.terms(query)))
        if self._docnums is None:
            self._docnums = {cid: i for i, cid in enumerate(self._ids)}
        doc = self._docnums.get(chunk_id)
        if doc is None:
            return dict.fromkeys(terms, False)
        with self._lock:
            postings = {t: [self._weighted(field, t, weight)[0] for field, weight in self._active] for t in terms}
        return {t: any(len(ids) and ids[min(int(ids.searchsorted(doc)), len(ids) - 1)] == doc for ids in per_field)
                for t, per_field in postings.items()}  # each field's docnums ascend

    def held_share(self, query: str, chunk_id: str) -> float:
        """The share of the query's distinct analysed terms that chunk ``chunk_id`` holds
        (``held_terms``; 0 for a query with no terms). Read by the hybrid fusion
        (``fusion.coverage``): a first hit that holds the whole question is one BM25 can be
        trusted on."""
        held = self.held_terms(query, chunk_id)
        return sum(held.values()) / len(held) if held else 0.0

    def _weighted(self, field: str, term: str, weight: float) -> tuple[np.ndarray, np.ndarray]:
        """``term_scores`` times the field's weight (the boost whoosh's ``Term`` multiplies
        in), cached per term: the terms of a golden set repeat, and a query then only
        concatenates arrays. A weighted score of exactly 0 (a weight so small the product
        underflows; a BM25F score itself is never 0) is noted: ``search_hits`` then cannot
        tell a match by its score."""
        key = (field, term)
        found = self._weighted_cache.get(key)
        if found is None:
            if len(self._weighted_cache) >= TERM_CACHE_SIZE:
                self._weighted_cache.clear()
            ids, scores = self.term_scores(field, term)
            scores = scores * weight
            if len(scores) and not scores.min() > 0:
                self._zero_scored = True
            found = self._weighted_cache[key] = (ids, scores)
        return found

    def search_hits(self, text: str, k: int) -> list[Hit]:
        """Top ``k`` in trec_eval order for the distinct query terms OR-ed over the fields.

        A chunk's score is the sum, in field then term order, of each matching term's BM25F
        score times its field's weight: exactly what whoosh's ``Or`` of boosted ``Term``s
        computes (a test holds them equal), done as array additions. Every match is scored,
        so a group of equal scores across the cut is seen whole and cut by the tie rule.

        A query of a golden set matches about as many postings as there are chunks (10 MB:
        12.6 k postings, 11.4 k chunks), so the sum is one ``bincount`` over all chunks, and
        since every weighted score is above 0 a chunk is matched exactly when its sum is:
        the k-th largest sum over all chunks is the cut, with no separate array of matches.
        """
        terms = list(dict.fromkeys(self.analyzer.terms(text)))
        if not terms or k <= 0:
            return []
        with self._lock:
            parts = [self._weighted(field, term, weight) for field, weight in self._active for term in terms]
        ids = np.concatenate([p[0] for p in parts])
        if not len(ids):
            return []
        # bincount adds the weighted scores one by one in array order, that is in field then
        # term order for every chunk: the additions whoosh's Or makes, in its order.
        scores = np.bincount(ids, weights=np.concatenate([p[1] for p in parts]), minlength=self._n)
        if self._zero_scored:  # a match may sum to 0: mark the matches themselves
            matched = np.zeros(self._n, dtype=bool)
            matched[ids] = True
            cand = np.flatnonzero(matched)
            if len(cand) > k:
                cutoff = np.partition(scores[cand], len(cand) - k)[len(cand) - k]
                cand = cand[scores[cand] >= cutoff]
        else:
            # the k-th largest sum: above 0, at least k chunks are matched and the cut keeps
            # all that reach it (ties included); 0, fewer than k are and all are kept
            cutoff = np.partition(scores, self._n - k)[self._n - k] if self._n > k else 0.0
            cand = np.flatnonzero(scores >= cutoff) if cutoff > 0 else np.flatnonzero(scores)
        ids_of = self._ids
        return top_k([Hit(ids_of[d], s) for d, s in zip(cand.tolist(), scores[cand].tolist())], k)

    def retrieve(self, query_id: str, query: str, k: int) -> list[Hit]:
        return self.search_hits(query, k)


_MEMO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class SearchHit:
    rank: int
    score: float
    chunk: Chunk


def search(project: Project, query_text: str, limit: int = 20) -> list[SearchHit]:
    """The app's search box: the eval's own index and analysis, so what an author finds is
    what the eval retrieves (Japanese queries find Japanese passages)."""
    r = BM25Retriever.for_project(project)
    return [SearchHit(i, h.score, r.chunk(h.chunk_id)) for i, h in enumerate(r.search_hits(query_text, limit), 1)]
