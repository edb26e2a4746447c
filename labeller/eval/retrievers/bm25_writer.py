"""Write a whoosh index a whole posting list at a time: the same index whoosh's writer makes, without its per-posting Python.

whoosh's ``add_document`` runs the analyzer per field per document, puts every posting in a
pool as a tuple, sorts the pool and then feeds the codec one posting at a time
(``FieldWriter.add_postings`` -> ``W3PostingsWriter.add_posting``, a per-document length
lookup for each). On the 10 MB benchmark corpus that is 1.28 M postings and almost all of a
nine-second build. Here the postings of each field are counted once per document
(``Counter`` of the analyzer's terms: exactly the ``freq`` and ``weight`` whoosh's
``Frequency`` format computes, every token's boost being 1.0), ordered with numpy the way
whoosh's pool sorts them (field name, term bytes, docnum), and written through whoosh's own
codec objects of the index's segment:

- per document, ``W3PerDocWriter.start_doc / add_field(name, field, stored, length) /
  finish_doc``, the calls ``add_document`` makes (stored ``chunk_id``, each text field's
  token count as its length);
- per term, ``W3FieldWriter.start_term / finish_term``, and in between each block of
  ``blocklimit`` postings handed to the segment's ``W3PostingsWriter`` whole (its buffers
  set to the block's docnums, weights and packed frequencies, the block's length and weight
  bounds computed from the same quantised lengths whoosh looks up), then written by whoosh's
  own ``_write_block``: the same minified tuple, pickle, compression and block header.

The result is a genuine whoosh index (whoosh's searcher opens it, and labeller's cache and
``postings.PostingScorer`` read it like any other). ``tests/test_bm25_writer.py`` holds its
files byte-identical to whoosh's own writer's on random corpora and on the bundled example,
and its whoosh search results and scores equal.

Fields other than the analyzer's text fields (the stored ``chunk_id`` ``ID`` field) go
through whoosh's own ``field.index``: one posting a document, nothing to gain there.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from whoosh.codec.whoosh3 import W3PostingsWriter
from whoosh.fields import TEXT, Schema
from whoosh.formats import Frequency
from whoosh.util.numeric import byte_to_length, length_to_byte

# A document: its stored/indexed values by field name, and each analysed text field's terms.
Doc = tuple[dict[str, str], dict[str, list[str]]]


def _quantised(lengths: np.ndarray) -> np.ndarray:
    """What whoosh's per-document reader gives back for a stored field length: the length
    coded into one byte and decoded (``byte_to_length(length_to_byte(n))``), 0 for none."""
    out = np.zeros(len(lengths), dtype=np.int64)
    for n in np.unique(lengths):
        if n:
            out[lengths == n] = byte_to_length(length_to_byte(int(n)))
    return out


class _FieldPostings:
    """One text field's postings in whoosh's pool order (term bytes, then docnum), with the
    bounds of every ``blocklimit``-sized block of each term."""

    def __init__(self, per_doc: Sequence[list[str]], blocklimit: int) -> None:
        terms: list[str] = []
        docs: list[int] = []
        freqs: list[int] = []
        lengths = np.zeros(len(per_doc), dtype=np.int64)
        for d, tokens in enumerate(per_doc):
            counts = Counter(tokens)
            terms.extend(counts)
            freqs.extend(counts.values())
            docs.extend([d] * len(counts))
            lengths[d] = len(tokens)
        vocab: dict[str, int] = {}
        ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in terms), dtype=np.int64, count=len(terms))
        # UTF-8 byte order is code point order, so Python's str order is whoosh's term order.
        self.terms = sorted(vocab)
        rank = np.empty(len(vocab), dtype=np.int64)
        rank[[vocab[t] for t in self.terms]] = np.arange(len(vocab))
        key = rank[ids] if len(ids) else ids
        order = np.argsort(key, kind="stable")  # docnums were appended ascending: kept per term
        doc_arr = np.asarray(docs, dtype=np.int64)[order]
        freq_arr = np.asarray(freqs, dtype=np.int64)[order]
        df = np.bincount(key, minlength=len(vocab))
        self.term_ends = np.cumsum(df).tolist()
        # Blocks: each term's postings cut every ``blocklimit``, as add_posting does.
        term_starts = np.concatenate([[0], np.cumsum(df)[:-1]]) if len(df) else df
        nblocks = -(-df // blocklimit)
        first = np.repeat(term_starts, nblocks)
        within = np.arange(len(first)) - np.repeat(np.cumsum(nblocks) - nblocks, nblocks)
        starts = first + within * blocklimit
        self.block_starts = starts.tolist()
        self.blocks_per_term = nblocks.tolist()
        qlen = _quantised(lengths)[doc_arr] if len(doc_arr) else doc_arr
        self.block_min_length = np.minimum.reduceat(qlen, starts).tolist() if len(starts) else []
        self.block_max_length = np.maximum.reduceat(qlen, starts).tolist() if len(starts) else []
        self.block_max_weight = np.maximum.reduceat(freq_arr, starts).astype(float).tolist() if len(starts) else []
        self.docs = doc_arr.tolist()
        self.weights = freq_arr.astype(float).tolist()
        self.values = freq_arr.astype(">u4").tobytes()  # Frequency's pack_uint(freq), one after another
        self.lengths = lengths


def write_segment(writer, docs: Sequence[Doc], progress: Callable[[int, int], None] | None = None) -> None:
    """Add ``docs`` (docnums 0..) to a fresh ``SegmentWriter`` of a whoosh3 index and commit.

    ``docs[i]`` = (values by field name, analysed terms of each text field). Every text field
    must be a ``TEXT`` with the ``Frequency`` format (labeller's schema): the only format whose
    postings are computed here."""
    schema: Schema = writer.schema
    text_fields = sorted({name for _, tokens in docs for name in tokens})
    for name in text_fields:
        field = schema[name]
        if not (isinstance(field, TEXT) and type(field.format) is Frequency and field.scorable
                and not field.vector and not field.separate_spelling() and field.column_type is None):
            raise TypeError(f"field {name!r} is not a plain TEXT field with term frequencies")
    if writer.docnum != 0 or writer.segments:
        raise ValueError("write_segment fills a fresh index's first segment")
    perdoc = writer.perdocwriter
    names = sorted(schema.names())
    other_postings: dict[str, list[tuple[bytes, int, float, bytes]]] = {}
    for d, (values, tokens) in enumerate(docs):
        perdoc.start_doc(d)
        for name in names:
            value = values.get(name)
            if value is None and name not in tokens:
                continue
            field = schema[name]
            length = 0
            if name in tokens:
                length = len(tokens[name])
            elif field.indexed:
                for tbytes, freq, weight, vbytes in field.index(value):
                    other_postings.setdefault(name, []).append((tbytes, d, weight, vbytes))
                    if field.scorable:
                        length += freq
            perdoc.add_field(name, field, value if field.stored else None, length)
        perdoc.finish_doc()
        if progress and ((d + 1) % 200 == 0 or d + 1 == len(docs)):
            progress(d + 1, len(docs))
    writer.docnum = len(docs)
    writer._added = bool(docs)

    fw = writer.fieldwriter
    codec = writer.codec
    for name in names:
        if name in text_fields:
            postings = _FieldPostings([t[name] for _, t in docs], codec._blocklimit)
            if postings.terms:  # whoosh starts a field only when a posting of it comes
                _write_text_field(fw, name, schema[name], postings)
        elif name in other_postings:
            _write_other_field(fw, name, schema[name], sorted(other_postings[name]))
    writer.commit()  # the pool is empty: commit writes the lengths, the TOC and closes the files


def _write_text_field(fw, name: str, field, p: _FieldPostings) -> None:
    fw.start_field(name, field)
    pw = fw._postwriter
    if type(pw) is not W3PostingsWriter:
        raise TypeError(f"the index's codec writes {type(pw).__name__}, not whoosh3 posting blocks")
    docs, weights, values = p.docs, p.weights, p.values
    block = 0
    for term, end, nblocks in zip(p.terms, p.term_ends, p.blocks_per_term):
        fw.start_term(term.encode("utf-8"))
        for j in range(block, block + nblocks):
            a = p.block_starts[j]
            b = p.block_starts[j + 1] if j + 1 < block + nblocks else end
            pw._ids = array("I", docs[a:b])
            pw._weights = array("f", weights[a:b])
            pw._values = [values[4 * a:4 * b]]
            pw._minlength = p.block_min_length[j]
            pw._maxlength = p.block_max_length[j]
            pw._maxweight = p.block_max_weight[j]
            if j + 1 < block + nblocks:
                pw._write_block()
        block += nblocks
        fw.finish_term()  # writes the last block (last=True) and the term's info row
    fw.finish_field()


def _write_other_field(fw, name: str, field, postings: list[tuple[bytes, int, float, bytes]]) -> None:
    """whoosh's own per-posting path, for a field with one posting a document."""
    fw.start_field(name, field)
    last = None
    for tbytes, docnum, weight, vbytes in postings:
        if tbytes != last:
            if last is not None:
                fw.finish_term()
            fw.start_term(tbytes)
            last = tbytes
        fw.add(docnum, weight, vbytes, 0)
    if last is not None:
        fw.finish_term()
    fw.finish_field()
