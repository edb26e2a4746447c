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
- per field, ``W3FieldWriter.start_field / finish_field``; per term, its posting blocks
  (``blocklimit`` postings each) and its row in the terms table, the bytes
  ``W3PostingsWriter._write_block``, ``finish_postings`` and ``W3TermInfo.to_bytes`` write
  (the same minified tuples, pickles, compression and block headers), with every block's
  and term's statistics (length and weight bounds from the same quantised lengths whoosh
  looks up, totals, first and last docnum) computed for all terms at once with numpy.

The result is a genuine whoosh index (whoosh's searcher opens it, and labeller's cache and
``postings.PostingScorer`` read it like any other). ``tests/test_bm25_writer.py`` holds its
files byte-identical to whoosh's own writer's on random corpora and on the bundled example,
and its whoosh search results and scores equal.

Fields other than the analyzer's text fields (the stored ``chunk_id`` ``ID`` field) go
through whoosh's own ``field.index``: one posting a document, nothing to gain there.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from whoosh.compat import dumps  # the pickler whoosh writes its blocks with
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC, W3Codec, W3FieldWriter, W3TermInfo
from whoosh.fields import TEXT, Schema
from whoosh.formats import Frequency
from whoosh.system import pack_int, pack_long, pack_ushort
from whoosh.util.numeric import byte_to_length, length_to_byte

_TERM_INFO = W3TermInfo._struct  # flags (0: not inlined), weight, df, min/max length byte, max weight, first/last id
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
    """One text field's postings in whoosh's pool order (term bytes, then docnum), cut into
    blocks of ``blocklimit`` postings per term as ``W3PostingsWriter.add_posting`` cuts them,
    with every statistic whoosh records per block and per term computed for all at once."""

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
        if not self.terms:
            return
        rank = np.empty(len(vocab), dtype=np.int64)
        rank[[vocab[t] for t in self.terms]] = np.arange(len(vocab))
        key = rank[ids]
        order = np.argsort(key, kind="stable")  # docnums were appended ascending: kept per term
        doc = np.asarray(docs, dtype=np.int64)[order]
        freq = np.asarray(freqs, dtype=np.int64)[order]
        df = np.bincount(key, minlength=len(vocab))
        ends = np.cumsum(df)
        term_starts = ends - df
        nblocks = -(-df // blocklimit)
        first = np.repeat(term_starts, nblocks)
        within = np.arange(len(first)) - np.repeat(np.cumsum(nblocks) - nblocks, nblocks)
        starts = first + within * blocklimit
        block_ends = np.minimum(starts + blocklimit, np.repeat(ends, nblocks))
        # whoosh's per-posting length is the quantised one its per-document reader returns
        qlen = _quantised(lengths)[doc]
        min_len = np.minimum.reduceat(qlen, starts)
        max_len = np.maximum.reduceat(qlen, starts)
        max_w = np.maximum.reduceat(freq, starts)
        min_w = np.minimum.reduceat(freq, starts)
        byte = _length_bytes(np.concatenate([min_len, max_len]))
        delta = np.diff(doc, prepend=0)
        delta[starts] = doc[starts]  # each block's ids are delta-encoded from 0 (delta_encode)
        self.blocks_per_term = nblocks.tolist()
        self.block_starts = starts.tolist()
        self.block_ends = block_ends.tolist()
        self.block_min_byte = byte[:len(starts)].tolist()
        self.block_max_byte = byte[len(starts):].tolist()
        self.block_max_weight = max_w.astype(float).tolist()
        # _mini_weights: None when every weight is 1.0, the one weight when all are equal
        self.block_weight_kind = np.where(max_w == 1, 0, np.where(min_w == max_w, 1, 2)).tolist()
        block_term = np.repeat(np.arange(len(df)), nblocks)
        term_min = np.full(len(df), np.iinfo(np.int64).max)
        np.minimum.at(term_min, block_term, min_len)
        term_max = np.zeros(len(df), dtype=np.int64)
        np.maximum.at(term_max, block_term, max_len)
        term_byte = _length_bytes(np.concatenate([term_min, term_max]))
        self.term_min_byte = term_byte[:len(df)].tolist()
        self.term_max_byte = term_byte[len(df):].tolist()
        self.term_max_weight = np.maximum.reduceat(freq, term_starts).astype(float).tolist()
        self.term_weight = np.add.reduceat(freq, term_starts).astype(float).tolist()
        self.term_df = df.tolist()
        self.term_first = doc[term_starts].tolist()
        self.term_last = doc[ends - 1].tolist()
        self.docs = doc.tolist()
        self.deltas = delta.tolist()
        self.weights = freq.astype(float).tolist()
        self.values = freq.astype(">u4").tobytes()  # Frequency's pack_uint(freq), one after another


def _length_bytes(lengths: np.ndarray) -> np.ndarray:
    """``length_to_byte`` of each (quantised) length."""
    out = np.zeros(len(lengths), dtype=np.int64)
    for n in np.unique(lengths):
        out[lengths == n] = length_to_byte(int(n))
    return out


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
    if type(codec) is not W3Codec or type(fw) is not W3FieldWriter or codec._inlinelimit > 1:
        raise TypeError(f"the index's codec is {type(codec).__name__} (inline limit {codec._inlinelimit}): only "
                        "whoosh3 blocks, never inlined, are written here")
    for name in names:
        if name in text_fields:
            postings = _FieldPostings([t[name] for _, t in docs], codec._blocklimit)
            if postings.terms:  # whoosh starts a field only when a posting of it comes
                _write_text_field(fw, name, schema[name], postings, codec._compression)
        elif name in other_postings:
            _write_other_field(fw, name, schema[name], sorted(other_postings[name]))
    writer.commit()  # the pool is empty: commit writes the lengths, the TOC and closes the files


def _write_text_field(fw, name: str, field, p: _FieldPostings, compression: int) -> None:
    """Each term's posting blocks and term-info row, as ``W3PostingsWriter._write_block``,
    ``finish_postings`` and ``W3TermInfo.to_bytes`` write them, with the statistics
    ``_FieldPostings`` computed: per block its signed length (negative for the last), the
    pickled info tuple and the pickled (compressed) data tuple; per term one row in the
    terms table, keyed by the field's number and the term's bytes."""
    fw.start_field(name, field)
    postfile, tindex = fw._postfile, fw._tindex
    prefix = pack_ushort(fw._fieldid)
    docs, deltas, weights, values = p.docs, p.deltas, p.weights, p.values
    j = 0
    for t, term in enumerate(p.terms):
        offset = postfile.tell()
        out = [WHOOSH3_HEADER_MAGIC]
        last_block = j + p.blocks_per_term[t] - 1
        for j in range(j, last_block + 1):
            a, b = p.block_starts[j], p.block_ends[j]
            kind = p.block_weight_kind[j]
            mini = None if kind == 0 else weights[a] if kind == 1 else tuple(weights[a:b])
            data = dumps((tuple(deltas[a:b]), mini, values[4 * a:4 * b]), 2)
            if compression:
                data = zlib.compress(data, compression)
            info = dumps((b - a, docs[b - 1], p.block_max_weight[j], compression, p.block_min_byte[j],
                          p.block_max_byte[j]), 2)
            size = len(info) + len(data)
            out += (pack_int(-size if j == last_block else size), info, data)
        j = last_block + 1
        blob = b"".join(out)
        postfile.write(blob)
        row = _TERM_INFO.pack(0, p.term_weight[t], p.term_df[t], p.term_min_byte[t], p.term_max_byte[t],
                              p.term_max_weight[t], p.term_first[t], p.term_last[t])
        tindex.add(prefix + term.encode("utf-8"), row + pack_long(offset) + pack_int(len(blob)))
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
