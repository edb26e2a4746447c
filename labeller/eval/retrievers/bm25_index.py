"""labeller's BM25 index: numpy postings and a term table in one versioned file, and whoosh's BM25F over it.

Why labeller's own format: the scores were already computed from numpy arrays of docnums
and frequencies; whoosh's block format (pickled, compressed posting blocks and a hashed
terms table) was written only to be bypassed, and writing it meant re-creating whoosh's
private writer internals. whoosh stays what it is for: the analysis chain
(``labeller.eval.analysis``: its tokenizer glue, Snowball stemmer and stop words), and its
own scorer is the oracle the tests hold every ranking equal to (``tests/bm25_oracle.py``
builds a real whoosh index with whoosh's public writer).

The model is whoosh's ``BM25F(B, K1)`` exactly, so the scores equal whoosh's bit for bit:

- idf = ``log(doc_count / (df + 1)) + 1`` (``WeightingModel.idf``);
- a document's field length is its term count coded into one byte and decoded, as whoosh
  stores it (``whoosh.util.numeric.length_to_byte``/``byte_to_length``, public functions:
  the 256 codes are a table here); avgfl is the field's exact term total over the document
  count (``or 1``);
- the score is ``whoosh.scoring.bm25``'s arithmetic, operation for operation (``bm25``
  below), applied to float64 arrays, which performs per element what Python floats do.

File layout (``INDEX_FILE``, little-endian): ``MAGIC``; the header's length (uint64) and
the header (JSON, ASCII, sorted keys: format, document count, the sha256 of the chunk ids,
each field's exact length total, and each array's offset and count); zero padding to 8;
the arrays, each 8-aligned: ``term_bytes`` (every distinct term of every field, UTF-8,
concatenated in code point order), ``term_at`` (int64, where term i starts; one more than
the terms), then per field ``<field>.ptr`` (int64, term i's postings are
``ptr[i]:ptr[i+1]``), ``<field>.docs`` and ``<field>.freqs`` (int32, docnums ascending
within a term) and ``<field>.codes`` (uint8, each document's length code); ``MAGIC``
again. Every array's dtype is fixed here, never read from the file, and every offset and
count is checked against the file's size before anything is viewed.
"""

from __future__ import annotations

import hashlib
import json
import mmap
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import accumulate, chain
from math import log

import numpy as np
from whoosh.util.numeric import byte_to_length, length_to_byte

from labeller.core.chunkers import Chunk
from labeller.eval.analysis import Analyzer, forget_words, raw_tokens

INDEX_FILE = "labeller-bm25.bin"
FORMAT = "labeller-bm25-v3"
MAGIC = b"LBBM25\x00\x03"
MAX_HEADER_BYTES = 1 << 20
FIELDS = ("heading", "breadcrumb", "body")
BATCH_TOKENS = 1 << 19  # body tokens counted at a time: bounds the build's numpy temporaries (~40 B a token)
EMPTY = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=float))

_MAX_CODED = byte_to_length(255)
# length code of every term count up to the last code's length (above it: 255), and back
_CODE_OF_LENGTH = np.array([length_to_byte(n) for n in range(_MAX_CODED + 1)], dtype=np.uint8)
# whoosh's ``doc_field_length(d, f, default=1)`` of each code (0 = no length: the default)
LENGTH_OF_CODE = np.array([1.0] + [float(byte_to_length(code)) for code in range(1, 256)])


def bm25(idf: float, tf, fl, avgfl: float, b: float, k1: float):
    """``whoosh.scoring.bm25``, the same operations in the same order (so arrays score as its floats)."""
    return idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl)))


def ids_digest(ids: Sequence[str]) -> str:
    """What the file records of the chunks it indexes: docnum i must be ``ids[i]`` when it is read."""
    return hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()


class _Tokens(dict):
    """Raw token (``analysis.raw_tokens``) -> id, given on first sight (``map(tokens.__getitem__,
    ...)`` runs in C for every token seen before). What the new tokens analyse to (stemming,
    stop words, bigrams) is worked out in bulk before their postings are counted
    (``expand_new``: ``Analyzer.expand_all``), once per distinct token of the corpus."""

    def __init__(self, analyzer: Analyzer) -> None:
        super().__init__()
        self.analyzer = analyzer
        self.new: list[str] = []  # tokens given an id since the last ``expand_new``
        self.terms = _Ids()
        self.term_at = array("q", [0])  # token i's terms: term_ids[term_at[i]:term_at[i + 1]]
        self.term_ids = array("i")

    def __missing__(self, token: str) -> int:
        found = self[token] = len(self)
        self.new.append(token)
        return found

    def expand_new(self) -> None:
        expanded = self.analyzer.expand_all(self.new)
        self.term_ids.extend(map(self.terms.__getitem__, chain.from_iterable(expanded)))  # in C, as tokens are
        ends = accumulate(map(len, expanded), initial=self.term_at[-1])
        next(ends)  # ``initial``: the end already there
        self.term_at.extend(ends)
        self.new = []


class _Ids(dict):
    """Key -> id, given in order of first sight."""

    def __missing__(self, key: str) -> int:
        found = self[key] = len(self)
        return found


class _FieldCounter:
    """One field's postings as (term id, docnum, frequency) runs, counted a batch of documents
    at a time with numpy from the documents' token ids: only integers are kept."""

    def __init__(self) -> None:
        self.tokens = array("i")
        self.per_doc = array("i")  # tokens of each document of the batch
        self.lengths: list[np.ndarray] = []  # terms of each document: the field length
        # each batch's postings, by term then docnum: term ids, docnums, frequencies (int32)
        self.runs: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] = ([], [], [])
        self.first_doc = 0

    def add(self, tokens: _Tokens, text: str) -> None:
        before = len(self.tokens)
        self.tokens.extend(map(tokens.__getitem__, raw_tokens(text)))
        self.per_doc.append(len(self.tokens) - before)

    def flush(self, tokens: _Tokens) -> None:
        n_docs = len(self.per_doc)
        if not n_docs:
            return
        tokens.expand_new()
        at = np.array(tokens.term_at, dtype=np.int64)
        term_ids = np.array(tokens.term_ids, dtype=np.int32)
        tok = np.frombuffer(self.tokens, dtype=np.int32)
        count = (at[1:] - at[:-1])[tok]  # terms of each token
        doc_of_token = np.repeat(np.arange(n_docs, dtype=np.int32), np.frombuffer(self.per_doc, dtype=np.int32))
        self.lengths.append(np.bincount(doc_of_token, weights=count, minlength=n_docs).astype(np.int64))
        ends = np.cumsum(count)
        where = np.repeat(at[:-1][tok] - (ends - count), count) + np.arange(int(ends[-1]) if len(ends) else 0)
        del tok
        key = term_ids[where].astype(np.int64) * n_docs + np.repeat(doc_of_token, count)
        del where, doc_of_token, count, ends
        key, freq = np.unique(key, return_counts=True)  # by term, then docnum
        for column, values in zip(self.runs, ((key // n_docs), (key % n_docs + self.first_doc), freq)):
            column.append(values.astype(np.int32))
        self.first_doc += n_docs
        self.tokens = array("i")
        self.per_doc = array("i")


def write_index(out, chunks: list[Chunk], analyzer: Analyzer, progress: Callable[[int, int], None] | None = None) -> None:
    """Index ``chunks`` (docnum i is ``chunks[i]``) into the binary file ``out`` (``INDEX_FILE``'s layout).

    Each field of each chunk is cut into raw tokens (a regex, in C) whose ids are counted;
    what a token analyses to is worked out once per distinct token, in bulk, and the postings of a
    batch of documents are counted with numpy (``_FieldCounter``), not one term at a time."""
    tokens = _Tokens(analyzer)
    counters = {f: _FieldCounter() for f in FIELDS}
    total = len(chunks)
    for d, c in enumerate(chunks):
        for f, text in (("heading", c.heading), ("breadcrumb", c.breadcrumb), ("body", c.text)):
            counters[f].add(tokens, text)
        if len(counters["body"].tokens) >= BATCH_TOKENS:
            for counter in counters.values():
                counter.flush(tokens)
        if progress and ((d + 1) % 200 == 0 or d + 1 == total):
            progress(d + 1, total)
    for counter in counters.values():
        counter.flush(tokens)
    names = sorted(tokens.terms)  # code point order: UTF-8 byte order
    rank = np.empty(len(names), dtype=np.int32)
    rank[np.fromiter(map(tokens.terms.__getitem__, names), dtype=np.int64, count=len(names))] = np.arange(len(names))
    del tokens
    forget_words()  # the stems cached during the build sit among its freed strings: dropped, their memory can go back
    term_at = np.zeros(len(names) + 1, dtype="<i8")
    np.cumsum(np.fromiter(map(len, map(str.encode, names)), dtype=np.int64, count=len(names)), out=term_at[1:])
    arrays: list[tuple[str, np.ndarray | bytes]] = [("term_bytes", "".join(names).encode("utf-8")),
                                                    ("term_at", term_at)]
    del names
    lengths_total = {}
    for f in FIELDS:
        counter = counters.pop(f)
        lengths = np.concatenate(counter.lengths) if counter.lengths else np.zeros(0, dtype=np.int64)
        lengths_total[f] = int(lengths.sum())
        codes = _CODE_OF_LENGTH[np.minimum(lengths, _MAX_CODED)]
        codes[lengths > _MAX_CODED] = 255
        # each column is gathered, reordered and its batches dropped before the next: the
        # build's peak is a few int32s a posting of one field, not all its columns at once
        term_runs, doc_runs, freq_runs = counter.runs
        del counter
        term = rank[_gather(term_runs)]
        order = np.argsort(term, kind="stable")  # batches in docnum order: docnums stay ascending per term
        ptr = np.zeros(len(rank) + 1, dtype="<i8")
        np.cumsum(np.bincount(term, minlength=len(rank)), out=ptr[1:])
        del term
        docs = _gather(doc_runs)[order]
        freqs = _gather(freq_runs)[order]
        del order
        arrays += [(f"{f}.ptr", ptr), (f"{f}.docs", docs), (f"{f}.freqs", freqs), (f"{f}.codes", codes)]
    _write(out, arrays, {"format": FORMAT, "docs": total, "ids_sha256": ids_digest([c.chunk_id for c in chunks]),
                         "field_length": lengths_total})


def _gather(runs: list[np.ndarray]) -> np.ndarray:
    """The batches' arrays as one, the list emptied as it goes (each batch freed once copied)."""
    out = np.empty(sum(len(r) for r in runs), dtype=np.int32)
    at = 0
    while runs:
        r = runs.pop(0)
        out[at:at + len(r)] = r
        at += len(r)
    return out


def _dtypes() -> dict[str, str]:
    found = {"term_bytes": "u1", "term_at": "<i8"}
    for f in FIELDS:
        found.update({f"{f}.ptr": "<i8", f"{f}.docs": "<i4", f"{f}.freqs": "<i4", f"{f}.codes": "u1"})
    return found


DTYPES = _dtypes()


def _write(out, arrays: list[tuple[str, np.ndarray | bytes]], header: dict) -> None:
    """The header (with each array's offset and count) and the arrays, 8-aligned, between the magics."""
    sizes = [(name, len(a) if isinstance(a, bytes) else a.size, len(a) if isinstance(a, bytes) else a.nbytes)
             for name, a in arrays]
    # the offsets depend on the header's length, which depends on the offsets' digits: fix it at a bound
    placed: dict[str, list[int]] = {}
    for _ in range(2):
        text = json.dumps({**header, "arrays": placed}, sort_keys=True, ensure_ascii=True).encode("ascii")
        at = _align(len(MAGIC) + 8 + len(text) + 64)
        placed = {}
        for name, count, nbytes in sizes:
            placed[name] = [at, count]
            at = _align(at + nbytes)
    text = json.dumps({**header, "arrays": placed}, sort_keys=True, ensure_ascii=True).encode("ascii")
    start = len(MAGIC) + 8 + len(text)
    first = min((v[0] for v in placed.values()), default=_align(start))
    if first < start:
        raise AssertionError("the index header outgrew its room")
    out.write(MAGIC + len(text).to_bytes(8, "little") + text + bytes(first - start))
    pos = first
    for name, a in arrays:
        if pos != placed[name][0]:
            raise AssertionError(f"array {name} is not where the header puts it")
        data = a if isinstance(a, bytes) else np.ascontiguousarray(a, dtype=DTYPES[name]).data.cast("B")
        out.write(data)
        pos += len(data)
        pad = _align(pos) - pos
        out.write(bytes(pad))
        pos += pad
    out.write(MAGIC)


def _align(n: int) -> int:
    return -(-n // 8) * 8


class NotAnIndex(ValueError):
    """An index file that is not one labeller wrote (never scored some other way)."""


class BM25Index:
    """A read view of one ``INDEX_FILE`` (a buffer: the mapped file): term lookup and
    ``term_scores``, nothing copied at open but the header."""

    def __init__(self, buf, ids: Sequence[str], b: float, k1: float) -> None:
        self._buf = buf
        self._map = buf if isinstance(buf, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED") else None
        header, self._arrays = _read(buf)
        self._offsets = {name: at for name, (at, _) in header["arrays"].items()}
        self.doc_count = header["docs"]
        if self.doc_count != len(ids) or header["ids_sha256"] != ids_digest(ids):
            raise ValueError("the index does not hold these chunks in this order")
        self._b, self._k1 = b, k1
        self._avgfl = {f: (header["field_length"][f] / (self.doc_count or 1)) or 1 for f in FIELDS}
        self._lengths: dict[str, np.ndarray] = {}
        self._terms = _TermTable(self._arrays["term_bytes"], self._arrays["term_at"])

    def row(self, term: str) -> int | None:
        key = term.encode("utf-8")
        i = bisect_left(self._terms, key)
        return i if i < len(self._terms) and self._terms[i] == key else None

    def lengths(self, field: str) -> np.ndarray:
        """Each document's length of ``field`` as whoosh's scorer sees it (code decoded, 1 for none)."""
        found = self._lengths.get(field)
        if found is None:
            found = self._lengths[field] = LENGTH_OF_CODE[self._arrays[f"{field}.codes"]]
        return found

    def postings(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Docnums (ascending, int32, copied) and frequencies (float) of ``term`` in ``field``."""
        row = self.row(term)
        if row is None:
            return EMPTY
        ptr = self._arrays[f"{field}.ptr"]
        start, end = int(ptr[row]), int(ptr[row + 1])
        if start == end:
            return EMPTY
        docs, freqs = self._arrays[f"{field}.docs"], self._arrays[f"{field}.freqs"]
        ids = docs[start:end].copy()
        weights = freqs[start:end].astype(float)
        self._release(f"{field}.docs", start, end)
        self._release(f"{field}.freqs", start, end)
        return ids, weights

    def term_scores(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Docnums and whoosh's BM25F score of ``term`` in ``field`` for each."""
        ids, tf = self.postings(field, term)
        if not len(ids):
            return EMPTY
        idf = log(self.doc_count / (len(ids) + 1)) + 1
        return ids, bm25(idf, tf, self.lengths(field)[ids], self._avgfl[field], self._b, self._k1)

    def _release(self, name: str, start: int, end: int) -> None:
        """Give back the mapped pages wholly inside ``values[start:end]`` once copied out
        (``MADV_DONTNEED``; read-only and file-backed, so a page read again comes back from
        the page cache). A map's pages count in resident memory for as long as it is
        mapped: at 100 MB of corpus the postings a golden set's queries read left ~200 MB
        resident beside the copies the retriever's term cache keeps."""
        if self._map is None:
            return
        base, width = self._offsets[name], self._arrays[name].itemsize
        first = -(-(base + start * width) // mmap.PAGESIZE) * mmap.PAGESIZE
        last = (base + end * width) // mmap.PAGESIZE * mmap.PAGESIZE
        if last > first:
            self._map.madvise(mmap.MADV_DONTNEED, first, last - first)


class _TermTable:
    """The sorted term table as a sequence of UTF-8 keys, for ``bisect``: only the probed keys are read."""

    def __init__(self, blob: np.ndarray, at: np.ndarray) -> None:
        self._blob = blob
        self._at = at

    def __len__(self) -> int:
        return len(self._at) - 1

    def __getitem__(self, i: int) -> bytes:
        return self._blob[int(self._at[i]):int(self._at[i + 1])].tobytes()


def _read(buf) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and every array as a view of ``buf``; a file of any other shape is refused."""
    size = len(buf)
    m = len(MAGIC)
    bad = NotAnIndex("the BM25 index file is not one labeller wrote")
    if size < 2 * m + 8 or bytes(buf[:m]) != MAGIC or bytes(buf[size - m:]) != MAGIC:
        raise bad
    n = int.from_bytes(bytes(buf[m:m + 8]), "little")
    if n > min(MAX_HEADER_BYTES, size - 2 * m - 8):
        raise bad
    try:
        header = json.loads(bytes(buf[m + 8:m + 8 + n]).decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise bad from None
    try:
        docs, placed, totals = header["docs"], header["arrays"], header["field_length"]
        ok = (header["format"] == FORMAT and type(docs) is int and docs >= 0 and isinstance(header["ids_sha256"], str)
              and isinstance(placed, dict) and set(placed) == set(DTYPES)
              and all(type(totals[f]) is int and totals[f] >= 0 for f in FIELDS))
    except (KeyError, TypeError):
        ok = False
    if not ok:
        raise bad
    arrays = {}
    for name, dtype in DTYPES.items():
        where = placed[name]
        if not (isinstance(where, list) and len(where) == 2 and all(type(v) is int and v >= 0 for v in where)):
            raise bad
        at, count = where
        width = np.dtype(dtype).itemsize
        if at % 8 or at < m + 8 + n or at + count * width > size - m:
            raise bad
        arrays[name] = np.frombuffer(buf, dtype=dtype, count=count, offset=at)
    n_terms = len(arrays["term_at"]) - 1
    at = arrays["term_at"]
    if n_terms < 0 or at[0] != 0 or at[-1] != len(arrays["term_bytes"]) or (np.diff(at) < 0).any():
        raise bad
    for f in FIELDS:
        ptr, fdocs = arrays[f"{f}.ptr"], arrays[f"{f}.docs"]
        if (len(ptr) != n_terms + 1 or ptr[0] != 0 or ptr[-1] != len(fdocs) or len(arrays[f"{f}.freqs"]) != len(fdocs)
                or len(arrays[f"{f}.codes"]) != docs or (np.diff(ptr) < 0).any()
                or (len(fdocs) and not (0 <= fdocs.min() and fdocs.max() < docs))):
            raise bad
    return header, arrays
