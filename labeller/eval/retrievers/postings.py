"""whoosh's BM25F over whole posting blocks with numpy: the same scores, without a Python call per posting.

whoosh scores a term one posting at a time (matcher ``id()``/``weight()``, a field length
looked up per document, ``BM25FScorer._score`` on two Python floats); that call chain was
most of an eval. Here a term's posting list is read block by block from whoosh's own
index (the index format, the stored weights and the byte-quantised field lengths are
whoosh's) into arrays, and whoosh's own scorer is applied to the arrays at once:
``BM25FScorer._score(weights, lengths)`` is ``whoosh.scoring.bm25``, which is plain
arithmetic, so on float64 arrays it performs the very operations, in the very order, that
it performs on one posting, and the scores are equal bit for bit (``tests/
test_bm25_scorer.py`` holds them equal to whoosh's matchers on random corpora).

What is read from whoosh's posting blocks (codec ``whoosh3``): each block's data tuple,
whose first item is the docnums delta-encoded from 0 (decoded here by a cumulative sum
instead of ``delta_decode``'s generator), and the weights as the matcher de-minifies them
(``_read_weights``: all 1.0, one repeated float32, or the float32 array); and each field's
lengths column (one length code a document, ``LENGTHS_COLUMN``) as bytes. labeller writes
every index it reads (``build_storage``): one codec, no deletions, one leaf matcher kind;
anything else is refused loudly rather than scored some other way.
"""

from __future__ import annotations

import numpy as np
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3LeafMatcher, _lenfield
from whoosh.scoring import BM25F, BM25FScorer
from whoosh.util.numeric import byte_to_length

EMPTY = (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=float))
# whoosh's ``doc_field_length(d, f, default=1)`` of each stored length code (0 = no length: the default).
LENGTH_OF_CODE = np.array([1.0] + [float(byte_to_length(code)) for code in range(1, 256)])


class PostingScorer:
    """``term_scores(field, term)`` = whoosh's BM25F score of each document that holds the term."""

    def __init__(self, searcher, weighting: BM25F) -> None:
        if searcher.reader().has_deletions():
            raise ValueError("an index with deleted documents: labeller never writes one")
        self._searcher = searcher
        self._weighting = weighting
        self._leaves = searcher.reader().leaf_readers()  # [(reader, docnum offset)], offsets in order
        self._lengths: dict[str, np.ndarray] = {}

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

    def postings(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Docnums (ascending) and weights of the term's postings in ``field``."""
        ids, weights = [], []
        for reader, offset in self._leaves:
            if (field, term) not in reader:
                continue
            m = reader.postings(field, term)
            if type(m) is not W3LeafMatcher:
                raise TypeError(f"posting list of {field}:{term!r} is a {type(m).__name__}, not whoosh3 blocks")
            while m.is_active():  # at the start of each block
                m._read_data()
                ids.append(np.cumsum(np.asarray(m._data[0], dtype=np.intp)) + offset)
                m._read_weights()
                weights.append(np.asarray(m._weights, dtype=float))
                m._next_block()
        if not ids:
            return EMPTY
        return np.concatenate(ids), np.concatenate(weights)

    def term_scores(self, field: str, term: str) -> tuple[np.ndarray, np.ndarray]:
        ids, weights = self.postings(field, term)
        if not len(ids):
            return EMPTY
        scorer = self._weighting.scorer(self._searcher, field, term)  # whoosh's idf, avgfl, B, K1 for this term
        if type(scorer) is not BM25FScorer:
            raise TypeError(f"field {field!r} is not scored by BM25F")
        return ids, scorer._score(weights, self.lengths(field)[ids])
