"""The default retriever: whoosh BM25F over the chunks' ``heading``, ``breadcrumb`` and ``body``.

It is the baseline every other system is compared against, so it has to be reproducible
and honest about its cache:

- One index entry per distinct chunk id, with the three indexed fields of SPEC §4 cut by
  the versioned analysis chain (``labeller.eval.analysis``). A query is analysed the same
  way; its distinct terms are OR-ed over the three fields, each field's BM25F score
  multiplied by its weight (query-time boosts, so changing a weight never needs a rebuild).
- The index is cached on disk under ``<cache_dir>/bm25/<chunker spec>-<analyzer>/``.
  The cache's manifest stores the key it was built for (index format, corpus digest,
  chunker spec and version, analyzer, digest of the chunk ids, whoosh version), the sha256 of
  every index file, and an HMAC of both under the user's cache secret (kept outside the
  project, see ``labeller.core.cache``): whoosh unpickles the index's TOC, so an index this
  user did not write (untrusted) is never handed to whoosh. A key that differs (stale) or a
  file that is missing, extra or does not hash to its recorded value (corrupt) makes it
  rebuild; it is never used as is. A rebuild
  is written into a temporary folder and renamed into place, so a crash never leaves a
  half-written index where a reader would find it.
- Loading verifies each file while reading it once through one descriptor, then memory-maps
  that descriptor (``MappedStorage``): an index costs the pages its queries touch, not its
  size in RAM (at 100 MB of corpus the index is ~260 MB). Why that is as safe as the bytes
  in RAM it replaced is argued at ``load_storage``.
"""

from __future__ import annotations

import ctypes
import hashlib
import hmac
import io
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
from whoosh.fields import STORED, TEXT, Schema
from whoosh.filedb.filestore import FileStorage, RamStorage, Storage
from whoosh.filedb.structfile import BufferFile
from whoosh.scoring import BM25F

from labeller.core.cache import map_hashed, map_verified, mac, private_subfolder, read_untrusted
from labeller.core.chunkers import Chunk, chunker_spec
from labeller.core.project import Project
from labeller.errors import InvalidInput
from labeller.eval.analysis import Analyzer, get_analyzer
from labeller.eval.chunkset import ChunkSet
from labeller.eval.retrievers.base import Hit, Progress, top_k
from labeller.eval.retrievers.bm25_writer import SIDECAR, write_segment
from labeller.eval.retrievers.postings import PostingScorer
from labeller.io import parse_json

INDEX_FORMAT = "labeller-bm25-index-v2"  # v2: with the postings sidecar (bm25_writer.SIDECAR)
MANIFEST = "labeller-index.json"
MAX_MANIFEST_BYTES = 1 << 20
FIELDS = ("heading", "breadcrumb", "body")
# Chosen by measurement on the test fixtures; the numbers are in docs/eval.md.
DEFAULT_FIELD_WEIGHTS = {"heading": 0.25, "breadcrumb": 0.5, "body": 1.0}
K1 = 1.2
B = 0.75
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
            "whoosh": whoosh.versionstring()}


def foreign_index_key(project: Project, analyzer: Analyzer, chunk_set: ChunkSet) -> dict:
    """A foreign chunking's index is a function of its digest (ids and ranges), the corpus
    (the fields' text) and how its fields were filled (``ChunkSet.fields``: a chunk file's
    by ``foreign_chunks``, another chunker's by that chunker)."""
    return {"format": INDEX_FORMAT, "corpus_digest": project.corpus.digest, "chunking_digest": chunk_set.chunking.digest,
            "fields": chunk_set.fields, "analyzer": analyzer.name, "whoosh": whoosh.versionstring()}


def _foreign_slot(chunk_set: ChunkSet, analyzer: Analyzer) -> str:
    fields = hashlib.sha256((chunk_set.fields or "").encode("utf-8")).hexdigest()[:8]  # set: it is foreign
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"chunks-{chunk_set.chunking.digest[:16]}-{fields}-{analyzer.name}")


def schema(analyzer: Analyzer) -> Schema:
    """The index's fields: the stored id, and the three text fields cut by ``analyzer``. The id
    is stored, not indexed: nothing looks a chunk up by its id in the index (a docnum is the
    position in ``chunks``, checked against the stored id), and an inverted list per chunk
    was about a seventh of the block writer's time (profiled at 10 MB)."""
    an = analyzer.whoosh()
    return Schema(chunk_id=STORED(), **{f: TEXT(analyzer=an, phrase=False) for f in FIELDS})


def build_storage(chunks: list[Chunk], analyzer: Analyzer, progress: Progress | None = None) -> RamStorage:
    """Index the chunks (one entry per distinct id, in corpus order) into a private
    temporary folder, and give back its files memory-mapped (``MappedStorage``) with the
    folder already deleted.

    Each chunk's fields are cut once by the analyzer, one chunk at a time (a generator: no
    chunk's tokens outlive it), and the postings written a whole list at a time
    (``bm25_writer``): the index whoosh's own ``add_document`` would write, byte
    for byte, without its per-posting Python.

    On disk, not in whoosh's ``RamStorage``: there the index's bytes (~260 MB at 100 MB of
    corpus) sat in RAM two and three times over while the writer assembled its compound
    segment. The folder (``mkdtemp``: this user's only, so nobody else can open its files)
    is deleted before this returns; the mapped inodes outlive it.
    """
    folder = Path(tempfile.mkdtemp(prefix="labeller-bm25-"))
    try:
        ix = FileStorage(str(folder)).create().create_index(schema(analyzer))
        writer = ix.writer()
        docs = (({"chunk_id": c.chunk_id}, {"heading": analyzer.terms(c.heading),
                                            "breadcrumb": analyzer.terms(c.breadcrumb),
                                            "body": analyzer.terms(c.text)}) for c in chunks)
        write_segment(writer, docs, len(chunks),
                      (lambda done, total: progress("index", done, total)) if progress else None)
        del writer, docs
        return_freed_memory()
        storage = MappedStorage()
        for name in sorted(set(os.listdir(folder)) - {f"{ix.indexname}_WRITELOCK"}):  # the writer's empty lock
            found = map_hashed(folder / name, private=False)
            if found is None:
                raise OSError(f"cannot map the index file {folder / name} just written")
            storage.files[name] = found[0]
        return storage
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def return_freed_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing). The writer frees hundreds of MB in pieces the allocator keeps for reuse: at
    100 MB of corpus ~215 MB stayed resident after the build (measured), of which the
    queries' term cache later reuses only a part; kept, it raised every later phase."""
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


class _ViewRaw(io.RawIOBase):
    """A memoryview as a raw binary stream. ``io.BytesIO`` would copy the whole view on
    creation; this copies only what ``readinto`` is asked for, and ``io.BufferedReader``
    over it serves whoosh's many small reads (``pickle.load`` reads opcode by opcode) in C,
    a Python call only when its buffer runs out or a seek leaves it."""

    def __init__(self, view: memoryview) -> None:
        super().__init__()
        self._view = view
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = max(0, min(len(b), len(self._view) - self._pos))
        b[:n] = self._view[self._pos:self._pos + n]
        self._pos += n
        return n

    def seek(self, where: int, whence: int = 0) -> int:
        base = 0 if whence == io.SEEK_SET else self._pos if whence == io.SEEK_CUR else len(self._view)
        self._pos = max(0, base + where)
        return self._pos

    def tell(self) -> int:
        return self._pos


class MappedFile(BufferFile):
    """whoosh's ``BufferFile`` over a slice of a memory map, without its two copies (the
    ``BytesIO`` of the whole buffer, and ``bytes`` of every sub-file a compound segment
    opens): reads copy only what they read."""

    def __init__(self, buf: memoryview, name: str | None = None, onclose=None) -> None:
        super().__init__(b"", name=name, onclose=onclose)
        self._buf = buf
        self.file = io.BufferedReader(_ViewRaw(buf), buffer_size=4096)

    def subset(self, position, length, name=None):
        return MappedFile(self._buf[position:position + length], name=name or self._name)


class MappedStorage(RamStorage):
    """A verified index: ``files`` maps each name to a read-only memory map of the inode
    that was hashed (``labeller.core.cache.map_verified``), served without copying."""

    def open_file(self, name, **kwargs):
        if name not in self.files:
            raise NameError(name)
        return MappedFile(memoryview(self.files[name]), name=name, **kwargs)


def load_storage(folder: Path, key: dict, secret: bytes) -> tuple[RamStorage | None, str]:
    """The verified cached index, or None and why not (``missing``, ``untrusted``, ``stale``,
    ``corrupt``).

    whoosh pickles the index's TOC, and whoosh would unpickle it: so nothing of the index
    reaches whoosh unless the manifest carries this user's MAC (``labeller.core.cache``)
    and every file's bytes hash to what that manifest lists. A planted or copied index is
    rebuilt, never opened.

    whoosh keeps unpickling after it has opened an index: the TOC and the compound
    segment's directory at open, then, lazily and for as long as the retriever lives, the
    stored fields, each term's inlined postings, every posting block's info and data
    tuple (``whoosh.codec.whoosh3``) and the column headers. So it is not enough that the
    bytes were right when hashed; they must be the bytes whoosh reads at any later time.
    Every one of those reads goes through ``MappedStorage.open_file``, that is through a
    read-only map of the very inode that was hashed (``map_verified``: hash through the
    descriptor, then map the same descriptor; no path is opened again). That inode's
    content cannot change behind the map except by a write into it, and
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
    storage = MappedStorage()
    for name, digest in files.items():
        mapped = map_verified(folder / name, digest)
        if mapped is None:
            return None, "corrupt"
        storage.files[name] = mapped
    return storage, "loaded"


def save_storage(folder: Path, storage: Storage, key: dict, secret: bytes) -> RamStorage:
    """Write into a fresh temporary folder, manifest (with its MAC) last, then swap it into
    place; return the index as it now is on disk, mapped and verified like any load (the
    RAM the built index held can go), or ``storage`` itself if it cannot be read back.

    Each file is streamed from ``storage`` (any whoosh storage) in pieces, hashed as it is
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


def _pieces(storage: Storage, name: str):
    """The bytes of file ``name`` of ``storage``, ``PIECE`` at a time.

    A memory-mapped file (what ``build_storage`` gives) is sliced out of its map, and each
    piece's pages are given back once copied (``MADV_DONTNEED``: the map is read-only and
    file-backed, so a page touched again is read back from the page cache). Read-through
    pages of a map count in the process's resident memory until it is unmapped: copying
    a 100 MB corpus's ~330 MB index out of its maps made it resident whole, on top of
    everything the eval held (its peak, measured)."""
    mapped = storage.files.get(name) if isinstance(getattr(storage, "files", None), dict) else None
    if isinstance(mapped, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):  # not on Windows
        for at in range(0, len(mapped), PIECE):
            yield mapped[at:at + PIECE]
            mapped.madvise(mmap.MADV_DONTNEED, at, min(PIECE, len(mapped) - at))
        return
    with storage.open_file(name) as source:
        while block := source.read(PIECE):
            yield block


def _slot(project: Project, analyzer: Analyzer) -> str:
    raw = f"{chunker_spec(project.chunker)}-{analyzer.name}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", raw)


def cache_folder(project: Project, slot: str) -> tuple[Path | None, bytes | None, str]:
    """Where this index is cached and the secret that authenticates it, or None and why not.

    Only for a project with a disk cache (like its chunks, whose ``DigestCache`` holds the
    user's secret), and never through a symlink planted in the project.
    """
    cache = getattr(project, "cache", None)
    if cache is None or getattr(cache, "folder", None) is None:
        why = getattr(cache, "disabled", None)
        return None, None, f", not cached: {why}" if why else ""
    layout = project.config.layout
    folder = private_subfolder(layout.cache_dir, *layout.bm25_index.relative_to(layout.cache_dir).parts, slot)
    if folder is None:
        return None, None, f", not cached: a folder in {layout.bm25_index} is a symlink"
    return folder, cache.secret, ""


class BM25Retriever:
    """BM25F (k1 1.2, b 0.75) over one corpus snapshot's chunks."""

    name = "bm25"

    def __init__(self, chunks: list[Chunk], storage: RamStorage, analyzer: Analyzer, weights: dict[str, float],
                 cache_status: str = "memory") -> None:
        self.analyzer = analyzer
        self.weights = weights
        self.cache_status = cache_status  # loaded | built (missing/stale/corrupt) | memory
        self._chunks = {c.chunk_id: c for c in chunks}
        ix = storage.open_index()
        self._searcher = ix.searcher(weighting=BM25F(B=B, K1=K1))
        self._n = self._searcher.doc_count_all()
        # Docnum i is the i-th of ``chunks``: the index was written from that list in that order,
        # and its cache key holds the ids in order (``index_key``) or the chunking they come
        # from (``foreign_index_key``). Checked at both ends and in the middle, not re-read
        # one stored document at a time (a quarter of loading a cached index).
        self._ids = [c.chunk_id for c in chunks]
        if len(self._ids) != self._n or any(
                self._searcher.stored_fields(d)["chunk_id"] != self._ids[d] for d in {0, self._n // 2, self._n - 1}
                if 0 <= d < self._n):
            raise ValueError("the index does not hold these chunks in this order")
        if SIDECAR not in storage.files:
            raise ValueError(f"the index has no {SIDECAR}: labeller's writer always writes one")
        self._scorer = PostingScorer(self._searcher, self._searcher.weighting, storage.files[SIDECAR])
        self._weighted_cache: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        self._zero_scored = False  # set by _weighted
        self._active = [(f, w) for f, w in weights.items() if w > 0]
        self._lock = threading.Lock()  # whoosh searchers are not safe to share between threads

    @classmethod
    def build(cls, project: Project, analyzer: Analyzer, weights: dict[str, float], progress: Progress | None = None,
              chunk_set: ChunkSet | None = None) -> "BM25Retriever":
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
                    return cls(chunks, storage, analyzer, weights, "loaded")
                except Exception:  # verified bytes whoosh still cannot read: rebuild, never trust
                    why = "corrupt"
            status = f"built ({why})"
        storage = build_storage(chunks, analyzer, progress)
        status += not_cached
        if folder is not None and secret is not None:
            try:
                storage = save_storage(folder, storage, key, secret)
            except OSError:
                status += ", not cached: cache folder not writable"
        return cls(chunks, storage, analyzer, weights, status)

    @classmethod
    def for_project(cls, project: Project, analyzer: str | None = None, weights: dict | None = None,
                    progress: Progress | None = None, chunks: ChunkSet | None = None) -> "BM25Retriever":
        """The project's retriever, built once per project, chunking and settings (the app
        searches often). ``chunks``: the ``ChunkSet`` scored (None: the project's chunks)."""
        an = get_analyzer(analyzer or project.config.eval.analyzer)
        w = field_weights(project.config.eval.field_weights if weights is None else weights)
        memo = _MEMO.setdefault(project, {})
        foreign = chunks if chunks is not None and chunks.foreign else None
        key = (an.name, tuple(sorted(w.items())),
               (foreign.chunking.digest, foreign.fields) if foreign is not None else None)
        if key not in memo:
            memo[key] = cls.build(project, an, w, progress, foreign)
        return memo[key]

    def describe(self) -> dict:
        return {"name": self.name, "model": "whoosh BM25F", "k1": K1, "b": B, "analyzer": self.analyzer.name,
                "field_weights": dict(sorted(self.weights.items())), "query": "distinct terms OR-ed over fields"}

    def chunk(self, chunk_id: str) -> Chunk:
        return self._chunks[chunk_id]

    def term_scores(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray]:
        """whoosh's BM25F score of ``term`` in ``field`` for each chunk (docnum) that holds it.

        Scored over whole posting blocks (``postings.PostingScorer``, equal to whoosh's
        matchers bit for bit)."""
        return self._scorer.term_scores(field, term)

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
