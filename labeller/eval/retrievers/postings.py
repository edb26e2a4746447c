"""whoosh's BM25F over whole posting lists with numpy: the same scores, without a Python call per posting.

whoosh scores a term one posting at a time (matcher ``id()``/``weight()``, a field length
looked up per document, ``BM25FScorer._score`` on two Python floats); that call chain was
most of an eval. Here a term's postings are arrays and whoosh's own scoring function is
applied to the arrays at once: ``BM25FScorer._score(weights, lengths)`` is
``whoosh.scoring.bm25``, which is plain arithmetic, so on float64 arrays it performs the
very operations, in the very order, that it performs on one posting, and the scores are
equal bit for bit (``tests/test_bm25_scorer.py`` holds them equal to whoosh's matchers on
random corpora). Its inputs (idf, avgfl, B, K1) are the ones ``BM25FScorer`` takes, read
without building one per term: building one was a sixth of a first-seen term's cost
(``term_scores``).

Where the arrays come from: the index's sidecar (``bm25_writer.SIDECAR``), which labeller's
writer fills from the very arrays it cut the posting blocks from — each term's docnums and
frequencies, memory-mapped and sliced, nothing decoded. Reading them back out of whoosh's
blocks (a pickle and a zlib stream per block) was two thirds of a query's time. The term
is still looked up in whoosh's own terms table: its term info gives the document frequency
whoosh's idf reads and where its posting list starts, which finds its row in the sidecar,
and its first and last docnum, which that row must agree with (else the index is refused).
Each field's lengths column (one length code a document, ``LENGTHS_COLUMN``) is read as
bytes. labeller writes every index it reads (``build_storage``): one segment, no
deletions, no inlined posting lists, a sidecar; anything else is refused loudly rather
than scored some other way. Only an index whose bytes passed labeller's cache checks
(``bm25.load_storage``: the sidecar is one of its hashed files) is ever opened.
"""

from __future__ import annotations

import mmap
from math import log  # whoosh.scoring's

import numpy as np
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3TermsReader, _lenfield
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25F, bm25
from whoosh.util.numeric import byte_to_length

from labeller.eval.retrievers.bm25_writer import SIDECAR_MAGIC

EMPTY = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=float))
# whoosh's ``doc_field_length(d, f, default=1)`` of each stored length code (0 = no length: the default).
LENGTH_OF_CODE = np.array([1.0] + [float(byte_to_length(code)) for code in range(1, 256)])


class PostingScorer:
    """``term_scores(field, term)`` = whoosh's BM25F score of each document that holds the term."""

    def __init__(self, searcher, weighting: BM25F, sidecar) -> None:
        """``sidecar``: the bytes (a buffer: the mapped file) of the index's ``bm25_writer.SIDECAR``."""
        if searcher.reader().has_deletions():
            raise ValueError("an index with deleted documents: labeller never writes one")
        if type(weighting) is not BM25F:
            raise TypeError(f"{type(weighting).__name__} is not whoosh's BM25F")
        self._searcher = searcher
        self._weighting = weighting
        self._doc_count = searcher.doc_count_all()
        leaves = searcher.reader().leaf_readers()  # [(reader, docnum offset)]; none for an empty index
        if len(leaves) > 1:
            raise TypeError(f"an index of {len(leaves)} segments: labeller writes one")
        self._reader = leaves[0][0] if leaves else None
        self._terms = getattr(self._reader, "_terms", None)
        if leaves and type(self._terms) is not W3TermsReader:
            raise TypeError(f"{type(self._reader).__name__} does not read whoosh3 terms: labeller writes only those")
        self._values, (self._offsets, self._doc_at, self._freq_at, self._counts) = _read_sidecar(sidecar)
        self._map = sidecar if isinstance(sidecar, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED") else None
        # one row a term of the index (every indexed field is a text field: bm25_writer), and
        # a docnum and a frequency for each of their postings
        n_terms = self._terms._tindex.indexlen if self._terms is not None else 0
        if len(self._offsets) != n_terms or 2 * int(self._counts.sum()) != len(self._values):
            raise ValueError("the index's postings sidecar does not hold its terms' postings")
        self._lengths: dict[str, np.ndarray] = {}
        self._params: dict[str, tuple[float, float]] = {}

    def lengths(self, field: str) -> np.ndarray:
        """Each document's length of ``field`` as the scorer sees it: ``doc_field_length(d, field,
        1)``, whoosh's one-byte length code decoded, 1 for an empty field. Read once per field
        as the column's bytes (one byte a document) through a table of the 256 codes, instead
        of one Python call per document."""
        found = self._lengths.get(field)
        if found is None:
            reader = self._reader
            codes = np.zeros(self._doc_count, dtype=np.uint8)  # past the column's end: code 0
            column = reader._perdoc._cached_reader(_lenfield(field), LENGTHS_COLUMN) if reader else None
            if column is not None:
                raw = np.frombuffer(column._dbfile.get(column._basepos, column._count), dtype=np.uint8)
                codes[:len(raw)] = raw
            found = self._lengths[field] = LENGTH_OF_CODE[codes]
        return found

    def _field_params(self, field: str) -> tuple[float, float]:
        """(avgfl, B) of ``field`` as ``BM25F.scorer`` / ``BM25FScorer.__init__`` take them: the
        searcher's average field length (``or 1``) and the field's own B if the model has one."""
        found = self._params.get(field)
        if found is None:
            if not self._searcher.schema[field].scorable:
                raise TypeError(f"field {field!r} is not scored by BM25F")
            found = self._params[field] = (self._searcher.avg_field_length(field) or 1,
                                           self._weighting._field_B.get(field, self._weighting.B))
        return found

    def postings(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray, int]:
        """Docnums (ascending, int32), weights and the document frequency of the term's
        postings in ``field``: the sidecar's row for the term (found by where its term info
        says its posting list starts), sliced out of the mapped file. The weights are the
        frequencies as floats, the weights whoosh's ``Frequency`` format stores and its
        matcher reads back. The document frequency is the term info's (``doc_frequency``,
        what whoosh's idf reads)."""
        if self._terms is None:
            return EMPTY[0], EMPTY[1], 0
        try:
            info = self._terms.term_info(field, term.encode("utf-8"))  # a TEXT field's to_bytes
        except TermNotFound:
            return EMPTY[0], EMPTY[1], 0
        if info.is_inlined():
            raise TypeError(f"posting list of {field}:{term!r} is inlined: labeller's writer never inlines")
        df = info.doc_frequency()
        start = info.extent()[0]
        row = int(np.searchsorted(self._offsets, start))
        if row == len(self._offsets) or self._offsets[row] != start or self._counts[row] != df:
            raise ValueError(f"the sidecar has no posting list of {field}:{term!r} where the index has one")
        doc_at, freq_at = int(self._doc_at[row]), int(self._freq_at[row])
        ids = self._values[doc_at:doc_at + df].copy()
        if len(ids) != df or ids[0] != info.min_id() or ids[-1] != info.max_id():
            raise ValueError(f"the sidecar's postings of {field}:{term!r} are not the index's")
        weights = self._values[freq_at:freq_at + df].astype(float)
        self._release(doc_at, df)
        self._release(freq_at, df)
        return ids, weights, df

    def _release(self, at: int, count: int) -> None:
        """Give back the mapped pages wholly inside int32 values ``at``..``at + count`` of the
        sidecar, once copied out (``MADV_DONTNEED``; read-only and file-backed, so a page read
        again comes back from the page cache). A map's pages count in resident memory for as
        long as it is mapped: at 100 MB of corpus the postings a golden set's queries read
        left ~200 MB of the sidecar resident beside the copies the term cache keeps."""
        if self._map is None:
            return
        start = len(SIDECAR_MAGIC) + 4 * at
        first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
        end = (start + 4 * count) // mmap.PAGESIZE * mmap.PAGESIZE
        if end > first:
            self._map.madvise(mmap.MADV_DONTNEED, first, end - first)

    def term_scores(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Docnums and whoosh's BM25F scores: ``BM25FScorer._score`` is ``whoosh.scoring.bm25(idf,
        weight, length, avgfl, B, K1)``, applied here to the arrays with the scorer's own
        inputs, taken without building a ``BM25FScorer`` per term (its ``setup`` looks the term
        up twice more and computes a block quality nobody reads here): the idf is
        ``WeightingModel.idf``'s ``log(doc_count_all / (doc_frequency + 1)) + 1`` on the term
        info just read, avgfl and B are the field's (``_field_params``)."""
        ids, weights, df = self.postings(field, term)
        if not df:
            return EMPTY
        avgfl, b = self._field_params(field)
        idf = log(self._doc_count / (df + 1)) + 1
        return ids, bm25(idf, weights, self.lengths(field)[ids], avgfl, b, self._weighting.K1)


def _read_sidecar(buf) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The sidecar's int32 values and its four per-term int64 columns (layout: ``bm25_writer._Sidecar``),
    as views of ``buf`` (nothing copied). A file of another shape is refused."""
    magic = len(SIDECAR_MAGIC)
    size = len(buf)
    if size < 2 * magic + 8 or bytes(buf[:magic]) != SIDECAR_MAGIC or bytes(buf[size - magic:]) != SIDECAR_MAGIC:
        raise ValueError("the index's postings sidecar is not one labeller wrote")
    n_terms = int(np.frombuffer(buf, dtype="<i8", count=1, offset=size - magic - 8)[0])
    table = size - magic - 8 - 32 * n_terms
    if n_terms < 0 or table < magic or (table - magic) % 8:
        raise ValueError("the index's postings sidecar is not one labeller wrote")
    values = np.frombuffer(buf, dtype="<i4", count=(table - magic) // 4, offset=magic)
    columns = tuple(np.frombuffer(buf, dtype="<i8", count=n_terms, offset=table + 8 * n_terms * i) for i in range(4))
    return values, columns
