"""whoosh's BM25F over whole posting blocks with numpy: the same scores, without a Python call per posting.

whoosh scores a term one posting at a time (matcher ``id()``/``weight()``, a field length
looked up per document, ``BM25FScorer._score`` on two Python floats); that call chain was
most of an eval. Here a term's posting list is read block by block from whoosh's own
index (the index format, the stored weights and the byte-quantised field lengths are
whoosh's) into arrays, and whoosh's own scoring function is applied to the arrays at once:
``BM25FScorer._score(weights, lengths)`` is ``whoosh.scoring.bm25``, which is plain
arithmetic, so on float64 arrays it performs the very operations, in the very order, that
it performs on one posting, and the scores are equal bit for bit (``tests/
test_bm25_scorer.py`` holds them equal to whoosh's matchers on random corpora). Its
inputs (idf, avgfl, B, K1) are the ones ``BM25FScorer`` takes, read without building
one per term: building one was a sixth of a first-seen term's cost (``term_scores``).

What is read from whoosh's posting blocks (codec ``whoosh3``): a term's whole posting
region at once (the extent its term info records), split into blocks as the leaf matcher
splits it; each block's data tuple, whose first item is the docnums delta-encoded from 0
(decoded here by one cumulative sum for all blocks instead of ``delta_decode``'s
generator), and the weights as the matcher de-minifies them (``_read_weights``: all 1.0,
one repeated float32, or the float32 array); and each field's
lengths column (one length code a document, ``LENGTHS_COLUMN``) as bytes. labeller writes
every index it reads (``build_storage``): one codec, no deletions, no inlined posting
lists; anything else is refused loudly rather than scored some other way. The blocks are
pickles, as whoosh reads them too: only an index whose bytes passed labeller's cache
checks (``bm25.load_storage``) is ever opened.
"""

from __future__ import annotations

import io
import pickle
import struct
import zlib
from math import log  # whoosh.scoring's

import numpy as np
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC, W3TermsReader, _lenfield
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25F, bm25
from whoosh.util.numeric import byte_to_length

_BLOCK_LENGTH = struct.Struct("!i")  # whoosh's write_int
EMPTY = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=float))
# whoosh's ``doc_field_length(d, f, default=1)`` of each stored length code (0 = no length: the default).
LENGTH_OF_CODE = np.array([1.0] + [float(byte_to_length(code)) for code in range(1, 256)])


class PostingScorer:
    """``term_scores(field, term)`` = whoosh's BM25F score of each document that holds the term."""

    def __init__(self, searcher, weighting: BM25F) -> None:
        if searcher.reader().has_deletions():
            raise ValueError("an index with deleted documents: labeller never writes one")
        if type(weighting) is not BM25F:
            raise TypeError(f"{type(weighting).__name__} is not whoosh's BM25F")
        self._searcher = searcher
        self._weighting = weighting
        self._doc_count = searcher.doc_count_all()
        self._leaves = searcher.reader().leaf_readers()  # [(reader, docnum offset)], offsets in order
        for reader, _ in self._leaves:
            if type(getattr(reader, "_terms", None)) is not W3TermsReader:
                raise TypeError(f"{type(reader).__name__} does not read whoosh3 terms: labeller writes only those")
        self._lengths: dict[str, np.ndarray] = {}
        self._params: dict[str, tuple[float, float]] = {}

    def lengths(self, field: str) -> np.ndarray:
        """Each document's length of ``field`` as the scorer sees it: ``doc_field_length(d, field,
        1)``, whoosh's one-byte length code decoded, 1 for an empty field. Read once per field
        as the column's bytes (one byte a document) through a table of the 256 codes, instead
        of one Python call per document."""
        found = self._lengths.get(field)
        if found is None:
            parts = []
            for reader, _ in self._leaves:
                codes = np.zeros(reader.doc_count_all(), dtype=np.uint8)  # past the column's end: code 0
                column = reader._perdoc._cached_reader(_lenfield(field), LENGTHS_COLUMN)
                if column is not None:
                    raw = np.frombuffer(column._dbfile.get(column._basepos, column._count), dtype=np.uint8)
                    codes[:len(raw)] = raw
                parts.append(LENGTH_OF_CODE[codes])
            found = self._lengths[field] = np.concatenate(parts)
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
        postings in ``field``.

        The term's whole posting region is read at once (its extent in the term info) and
        its blocks decoded here as ``W3LeafMatcher`` decodes them: per block a signed length
        (negative: the last block), the pickled info tuple (postings, max id, max weight,
        compression, length bytes), then the data tuple, compressed at that level. The
        docnums of all blocks are summed back from their deltas in one ``cumsum``. The
        document frequency is the term info's (``doc_frequency``, what whoosh's idf reads),
        summed over the leaves as whoosh's ``MultiReader`` sums it."""
        tbytes = term.encode("utf-8")  # a TEXT field's to_bytes
        deltas: list[int] = []
        sizes: list[int] = []
        weights: list[float] = []
        bases: list[int] = []
        df = 0
        for reader, offset in self._leaves:
            terms = reader._terms
            try:
                info = terms.term_info(field, tbytes)
            except TermNotFound:
                continue
            if info.is_inlined():
                raise TypeError(f"posting list of {field}:{term!r} is inlined: labeller's writer never inlines")
            df += info.doc_frequency()
            start, length = info.extent()
            if isinstance(length, tuple):  # W3TermInfo.from_bytes keeps the unpacked 1-tuple
                (length,) = length
            buf = terms._postfile.get(start, length)
            if buf[:4] != WHOOSH3_HEADER_MAGIC:
                raise ValueError(f"posting list of {field}:{term!r} does not start a whoosh3 block")
            stream = io.BytesIO(buf)
            pos = 4
            while True:
                (size,) = _BLOCK_LENGTH.unpack_from(buf, pos)
                end = pos + 4 + abs(size)
                stream.seek(pos + 4)
                count, _, _, compression, _, _ = pickle.load(stream)
                data = buf[stream.tell():end]
                ids, w, _ = pickle.loads(zlib.decompress(data) if compression else data)
                deltas += ids
                sizes.append(count)
                bases.append(offset)
                # the weights as W3LeafMatcher de-minifies them: all 1.0, one repeated float32, or each
                if w is None:
                    weights += [1.0] * count
                elif isinstance(w, float):
                    weights += [w] * count
                else:
                    weights += w
                if size < 0:
                    break
                pos = end
        if not sizes:
            return EMPTY[0], EMPTY[1], 0
        # fromiter with the count: about half the time of np.array on a list of Python numbers
        total = np.cumsum(np.fromiter(deltas, dtype=np.int32, count=len(deltas)), dtype=np.int32)
        if len(sizes) > 1 or bases[0]:
            # each block's deltas start from 0: a running sum over all blocks, less the sum
            # carried in from the blocks before, plus the leaf's docnum offset
            ends = np.cumsum(sizes)
            carried = np.concatenate([[0], total[ends[:-1] - 1]]) - np.array(bases, dtype=np.int32)
            total -= np.repeat(carried, sizes).astype(np.int32)
        return total, np.fromiter(weights, dtype=float, count=len(weights)), df

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
