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

Memory is sized to the postings, not to the tokens: documents come one at a time from a
generator, each field's counts become integer term ids and frequencies (``_FieldCollector``),
numpy int32 once sorted (``_FieldPostings``), freed field by field, and only a run of terms
(``WINDOW`` postings) is turned into the Python ints and floats the pickles need. At 100 MB of
corpus (~12 M postings, 0.83 M body terms) the index build adds ~480 MB to what the eval
held before it; holding every token list and every posting as Python objects it added ~3 GB.

The result is a genuine whoosh index (whoosh's searcher opens it, and labeller's cache
reads it like any other). ``tests/test_bm25_writer.py`` holds its files byte-identical to
whoosh's own writer's on random corpora and on the bundled example, and its whoosh search
results and scores equal. Beside whoosh's files the writer puts one of labeller's,
``SIDECAR``: the same postings decoded (docnums and frequencies, ``_Sidecar``), which
``postings.PostingScorer`` scores from instead of unpickling and decompressing blocks per
query; the test holds it equal to what whoosh's matchers read from whoosh's own files.

Fields other than the analyzer's text fields are stored only (labeller's ``chunk_id``): no
field is indexed that no query searches.
"""

from __future__ import annotations

import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from hashlib import md5

import numpy as np
from whoosh.compat import dumps  # the pickler whoosh writes its blocks with
from whoosh.codec.whoosh3 import WHOOSH3_HEADER_MAGIC, W3Codec, W3FieldWriter
from whoosh.fields import TEXT, Schema
from whoosh.filedb.filetables import OrderedHashWriter, md5_hash
from whoosh.formats import Frequency
from whoosh.system import pack_int, pack_ushort
from whoosh.util.numeric import byte_to_length, length_to_byte

# A document: its stored values by field name, and each analysed text field's terms.
Doc = tuple[dict[str, str], dict[str, list[str]]]


class _Vocab(dict):
    """Term -> id, a new term getting the next id when first looked up: ``map(vocab.__getitem__,
    terms)`` then runs in C for every term seen before, Python only for a new one."""

    def __missing__(self, term: str) -> int:
        found = self[term] = len(self)
        return found


class _FieldCollector:
    """One text field's postings as they are counted, document by document: each distinct
    term gets an integer id on first sight, and only integers are kept (``array`` of C
    ints: a term id and a frequency a posting, a posting count and a token count a
    document), not the tokens nor Python objects per posting. At 100 MB of corpus that is
    ~13 M postings: a few bytes each instead of a string and a Python int each."""

    def __init__(self) -> None:
        self.vocab = _Vocab()
        self.ids = array("i")
        self.freqs = array("i")
        self.distinct = array("i")  # postings of each document
        self.lengths = array("i")  # tokens of each document: the field length whoosh stores

    def add(self, tokens: Sequence[str]) -> None:
        counts = Counter(tokens)
        self.ids.extend(map(self.vocab.__getitem__, counts))
        self.freqs.extend(counts.values())
        self.distinct.append(len(counts))
        self.lengths.append(len(tokens))


class _FieldPostings:
    """One text field's postings in whoosh's pool order (term bytes, then docnum), cut into
    blocks of ``blocklimit`` postings per term as ``W3PostingsWriter.add_posting`` cuts them,
    with every statistic whoosh records per block and per term computed for all at once.
    Everything is a numpy array (int32 per posting); Python values are made a window of
    terms at a time when they are written (``_write_text_field``)."""

    def __init__(self, c: _FieldCollector, blocklimit: int) -> None:
        """Consumes ``c``: its arrays are dropped as soon as they are sorted into these."""
        vocab = c.vocab
        # UTF-8 byte order is code point order, so Python's str order is whoosh's term order.
        self.terms = sorted(vocab)
        if not self.terms:
            return
        rank = np.empty(len(vocab), dtype=np.int32)
        rank[np.fromiter((vocab[t] for t in self.terms), dtype=np.int64, count=len(vocab))] = np.arange(len(vocab))
        del c.vocab, vocab
        key = rank[np.frombuffer(c.ids, dtype=np.int32)]
        del rank, c.ids
        order = np.argsort(key, kind="stable")  # docnums were appended ascending: kept per term
        df = np.bincount(key, minlength=len(self.terms))
        del key
        n_docs = len(c.distinct)
        doc = np.repeat(np.arange(n_docs, dtype=np.int32), np.frombuffer(c.distinct, dtype=np.int32))[order]
        del c.distinct
        freq = np.frombuffer(c.freqs, dtype=np.int32)[order]
        del order, c.freqs
        ends = np.cumsum(df)
        term_starts = ends - df
        nblocks = -(-df // blocklimit)
        first = np.repeat(term_starts, nblocks)
        within = np.arange(len(first)) - np.repeat(np.cumsum(nblocks) - nblocks, nblocks)
        starts = first + within * blocklimit
        del first, within
        block_ends = np.minimum(starts + blocklimit, np.repeat(ends, nblocks))
        # whoosh's per-posting length is the quantised one its per-document reader returns
        qlen = _quantised(np.frombuffer(c.lengths, dtype=np.int32))[doc]
        min_len = np.minimum.reduceat(qlen, starts)
        max_len = np.maximum.reduceat(qlen, starts)
        del qlen
        max_w = np.maximum.reduceat(freq, starts)
        min_w = np.minimum.reduceat(freq, starts)
        byte = _length_bytes(np.concatenate([min_len, max_len]))
        self.blocks_per_term = nblocks
        self.block_starts = starts
        self.block_ends = block_ends
        self.block_min_byte = byte[:len(starts)]
        self.block_max_byte = byte[len(starts):]
        self.block_max_weight = max_w.astype(float)
        # _mini_weights: None when every weight is 1.0, the one weight when all are equal
        self.block_weight_kind = np.where(max_w == 1, 0, np.where(min_w == max_w, 1, 2)).astype(np.int8)
        block_term = np.repeat(np.arange(len(df)), nblocks)
        term_min = np.full(len(df), np.iinfo(np.int32).max, dtype=np.int32)
        np.minimum.at(term_min, block_term, min_len)
        term_max = np.zeros(len(df), dtype=np.int32)
        np.maximum.at(term_max, block_term, max_len)
        del block_term
        term_byte = _length_bytes(np.concatenate([term_min, term_max]))
        self.term_min_byte = term_byte[:len(df)]
        self.term_max_byte = term_byte[len(df):]
        self.term_max_weight = np.maximum.reduceat(freq, term_starts).astype(float)
        self.term_weight = np.add.reduceat(freq, term_starts).astype(float)
        self.term_df = df
        self.term_first = doc[term_starts]
        self.term_last = doc[ends - 1]
        self.term_starts = term_starts
        self.term_ends = ends
        self.block_last_doc = doc[block_ends - 1]
        self.docs = doc  # ascending within a term; the blocks store them delta-encoded (``_write_text_field``)
        self.freqs = freq


def _quantised(lengths: np.ndarray) -> np.ndarray:
    """What whoosh's per-document reader gives back for a stored field length: the length
    coded into one byte and decoded (``byte_to_length(length_to_byte(n))``), 0 for none."""
    table = np.zeros(int(lengths.max(initial=0)) + 1, dtype=np.int32)
    for n in np.unique(lengths):
        if n:
            table[n] = byte_to_length(length_to_byte(int(n)))
    return table[lengths]


def _length_bytes(lengths: np.ndarray) -> np.ndarray:
    """``length_to_byte`` of each (quantised) length, through a table of the distinct ones."""
    distinct, where = np.unique(lengths, return_inverse=True)
    return np.array([length_to_byte(int(n)) for n in distinct], dtype=np.int32)[where]


def write_segment(writer, docs: Iterable[Doc], total: int, progress: Callable[[int, int], None] | None = None) -> None:
    """Add ``docs`` (docnums 0..; ``total`` of them) to a fresh ``SegmentWriter`` of a whoosh3
    index and commit.

    ``docs`` yields (values by field name, analysed terms of each text field), one document
    at a time: a document's terms are counted into integer arrays (``_FieldCollector``) and
    dropped, so no token list outlives its document. Every document names the same text
    fields; each must be a ``TEXT`` with the ``Frequency`` format (labeller's schema): the
    only format whose postings are computed here. Any other field must be stored, not
    indexed. The text fields' postings also go to ``SIDECAR`` in the index's storage."""
    schema: Schema = writer.schema
    if writer.docnum != 0 or writer.segments:
        raise ValueError("write_segment fills a fresh index's first segment")
    fw = writer.fieldwriter
    codec = writer.codec
    if type(codec) is not W3Codec or type(fw) is not W3FieldWriter or codec._inlinelimit > 1:
        raise TypeError(f"the index's codec is {type(codec).__name__} (inline limit {codec._inlinelimit}): only "
                        "whoosh3 blocks, never inlined, are written here")
    perdoc = writer.perdocwriter
    names = sorted(schema.names())
    collectors: dict[str, _FieldCollector] = {}
    d = -1
    for d, (values, tokens) in enumerate(docs):
        if not collectors:
            collectors = {name: _FieldCollector() for name in _text_fields(schema, tokens)}
        elif tokens.keys() != collectors.keys():
            raise ValueError(f"document {d} has text fields {sorted(tokens)}, not {sorted(collectors)}")
        perdoc.start_doc(d)
        for name in names:
            field = schema[name]
            if name in tokens:
                terms = tokens[name]
                collectors[name].add(terms)
                perdoc.add_field(name, field, None, len(terms))
            elif name in values:
                if field.indexed:
                    raise TypeError(f"field {name!r} is indexed but not one of the text fields: only stored "
                                    "fields go beside them")
                perdoc.add_field(name, field, values[name], 0)
        perdoc.finish_doc()
        if progress and ((d + 1) % 200 == 0 or d + 1 == total):
            progress(d + 1, total)
    if d + 1 != total:
        raise ValueError(f"{d + 1} documents given, {total} announced")
    writer.docnum = total
    writer._added = bool(total)

    sidecar = _Sidecar(writer.storage.create_file(SIDECAR))
    for name in names:
        if name in collectors:
            postings = _FieldPostings(collectors.pop(name), codec._blocklimit)
            if postings.terms:  # whoosh starts a field only when a posting of it comes
                sidecar.add(postings, _write_text_field(fw, name, schema[name], postings, codec._compression))
            del postings  # this field's arrays go before the next field's are made
    sidecar.close()
    writer.commit()  # the pool is empty: commit writes the lengths, the TOC and closes the files


SIDECAR = "labeller-postings.bin"  # beside the index's files; whoosh's own names all start with the index name
SIDECAR_MAGIC = b"LBPOST01"


class _Sidecar:
    """The text fields' postings decoded, for the query path (``postings.PostingScorer``): what
    reading a term's blocks back out of the index gives (its docnums and its frequencies,
    which are its weights), written from the arrays the blocks were made of. Decoding the
    finished index's blocks instead took 3.2 s at 10 MB.

    Layout (little-endian): ``SIDECAR_MAGIC``; then per text field, in the order written,
    its postings' docnums (int32, term by term, ascending within a term) followed by their
    frequencies (int32) — an even count of int32s, so what follows is 8-aligned; then four
    int64 arrays of one value per term of all text fields in the order written — the term's
    offset in the index's postings file
    (what its term info's extent starts at: ascending, so a term is found by bisection),
    the int32 position of its first docnum, of its first frequency, and its posting count;
    then the number of terms (int64) and ``SIDECAR_MAGIC`` again. The file sits in the
    index's folder, so the cache's manifest hashes and MACs it with the index's files."""

    def __init__(self, file) -> None:
        self._file = file
        file.write(SIDECAR_MAGIC)
        self._at = 0  # int32 values written after the magic
        self._columns: list[list[np.ndarray]] = [[], [], [], []]

    def add(self, p: _FieldPostings, offsets: np.ndarray) -> None:
        n = len(p.docs)
        for values in (p.docs, p.freqs):  # the arrays' own buffers (int32 already): no copy of a field's postings
            self._file.write(np.ascontiguousarray(values, dtype="<i4").data.cast("B"))
        starts = p.term_starts.astype(np.int64) + self._at
        for column, values in zip(self._columns, (offsets, starts, starts + n, p.term_df)):
            column.append(np.asarray(values, dtype="<i8"))
        self._at += 2 * n

    def close(self) -> None:
        f = self._file
        n_terms = 0
        for column in self._columns:
            values = np.concatenate(column) if column else np.zeros(0, dtype="<i8")
            n_terms = len(values)
            f.write(values.astype("<i8").tobytes())
        f.write(np.int64(n_terms).astype("<i8").tobytes() + SIDECAR_MAGIC)
        f.close()


def _text_fields(schema: Schema, tokens: dict[str, list[str]]) -> list[str]:
    for name in tokens:
        field = schema[name]
        if not (isinstance(field, TEXT) and type(field.format) is Frequency and field.scorable and not field.stored
                and not field.vector and not field.separate_spelling() and field.column_type is None):
            raise TypeError(f"field {name!r} is not a plain TEXT field with term frequencies")
    return sorted(tokens)


WINDOW = 1 << 18  # postings whose Python values (``tolist``) exist at once while a field is written (or one term's)


def _write_text_field(fw, name: str, field, p: _FieldPostings, compression: int) -> np.ndarray:
    """Each term's posting blocks and term-info row, as ``W3PostingsWriter._write_block``,
    ``finish_postings`` and ``W3TermInfo.to_bytes`` write them, with the statistics
    ``_FieldPostings`` computed: per term the header, then per block its signed length
    (negative for the term's last), the pickled info tuple and the pickled (compressed) data
    tuple; per term one row in the terms table, keyed by the field's number and the term's
    bytes. Returns each term's offset in the postings file (where its term info says its
    list starts).

    The arrays become Python lists a run of whole terms at a time, ``WINDOW`` postings or one
    term's (the pickles must hold Python ints and floats, as whoosh's do): never a Python
    object per posting of the whole field. Runs cut by postings, not by a count of terms: a
    few thousand frequent terms hold millions of postings. Only the pickles and their
    compression are made a block at a time; a run's posting lists go to the file in one
    write, and each term's offset, extent and term-info row are worked out for the whole run
    with numpy (``_TERM_ROW``, ``_add_rows``).

    A small data tuple recurs: a term found once, in one document, with the same frequency
    as another such term of that document, pickles to the same bytes (the 10 MB benchmark:
    86 k of 122 k blocks). zlib gives the same bytes for the same input, so a small block's
    compressed form is computed once (``SMALL_BLOCK`` bytes at most, ``MEMO_SIZE`` kept)."""
    fw.start_field(name, field)
    postfile, tindex = fw._postfile, fw._tindex
    prefix = pack_ushort(fw._fieldid)
    n_terms = len(p.terms)
    offsets = np.empty(n_terms, dtype=np.int64)
    offset = postfile.tell()
    block_of_term = np.concatenate([[0], np.cumsum(p.blocks_per_term)])
    first_block = np.zeros(len(p.block_starts) + 1, dtype=bool)
    first_block[block_of_term] = True  # a term's first block follows the list's header
    last_block = first_block[1:]  # the block before a first one is a term's last
    memo: dict[bytes, bytes] = {}
    compress = zlib.compress
    t0 = 0
    while t0 < n_terms:
        base = int(p.term_starts[t0])
        t1 = max(t0 + 1, int(np.searchsorted(p.term_ends, base + WINDOW, side="right")))
        j0, j1 = int(block_of_term[t0]), int(block_of_term[t1])
        top = int(p.term_ends[t1 - 1])
        docs = p.docs[base:top]
        deltas = np.diff(docs, prepend=0)
        block_starts = p.block_starts[j0:j1] - base
        deltas[block_starts] = docs[block_starts]  # each block's ids are delta-encoded from 0 (delta_encode)
        deltas = deltas.tolist()
        freqs = p.freqs[base:top]
        weights = freqs.astype(float).tolist()
        values = freqs.astype(">u4").tobytes()  # Frequency's pack_uint(freq), one after another
        out: list[bytes] = []
        sizes: list[int] = []
        for a, b, kind, first, last, last_doc, max_weight, min_byte, max_byte in zip(
                block_starts.tolist(), (p.block_ends[j0:j1] - base).tolist(),
                p.block_weight_kind[j0:j1].tolist(), first_block[j0:j1].tolist(), last_block[j0:j1].tolist(),
                p.block_last_doc[j0:j1].tolist(), p.block_max_weight[j0:j1].tolist(),
                p.block_min_byte[j0:j1].tolist(), p.block_max_byte[j0:j1].tolist()):
            mini = None if kind == 0 else weights[a] if kind == 1 else tuple(weights[a:b])
            data = dumps((tuple(deltas[a:b]), mini, values[4 * a:4 * b]), 2)
            if compression:
                if len(data) <= SMALL_BLOCK:
                    packed = memo.get(data)
                    if packed is None:
                        if len(memo) >= MEMO_SIZE:
                            memo.clear()
                        packed = memo[data] = compress(data, compression)
                    data = packed
                else:
                    data = compress(data, compression)
            info = dumps((b - a, last_doc, max_weight, compression, min_byte, max_byte), 2)
            size = len(info) + len(data)
            if first:
                out.append(WHOOSH3_HEADER_MAGIC)
            out += (pack_int(-size if last else size), info, data)
            sizes.append(size)
        postfile.write(b"".join(out))
        # a term's extent: its header, then each block's length, info and data
        block_bytes = np.array(sizes, dtype=np.int64) + 4
        extents = np.add.reduceat(block_bytes, block_of_term[t0:t1] - j0) + len(WHOOSH3_HEADER_MAGIC)
        starts = offset + np.cumsum(extents) - extents
        offsets[t0:t1] = starts
        offset = int(starts[-1] + extents[-1])
        rows = np.zeros(t1 - t0, dtype=_TERM_ROW)  # flags 0: not inlined
        rows["weight"] = p.term_weight[t0:t1]
        rows["df"] = p.term_df[t0:t1]
        rows["min_len"] = p.term_min_byte[t0:t1]
        rows["max_len"] = p.term_max_byte[t0:t1]
        rows["max_weight"] = p.term_max_weight[t0:t1]
        rows["first"] = p.term_first[t0:t1]
        rows["last"] = p.term_last[t0:t1]
        rows["offset"] = starts
        rows["length"] = extents
        _add_rows(tindex, [prefix + term.encode("utf-8") for term in p.terms[t0:t1]], rows)
        t0 = t1
    fw.finish_field()
    return offsets


SMALL_BLOCK = 64  # bytes of a pickled data tuple: one posting's is ~61
MEMO_SIZE = 1 << 16  # small blocks' compressed forms kept (~120 bytes each with the dict's share)
# A term-info row as ``W3TermInfo.to_bytes`` packs it (``W3TermInfo._struct`` "!BfIBBfII", then
# ``pack_long(offset) + pack_int(length)``): big-endian, no padding, so numpy's bytes of a
# record are struct's bytes of the row; float32 fields rounded as struct rounds (a C cast).
_TERM_ROW = np.dtype([("flags", "u1"), ("weight", ">f4"), ("df", ">u4"), ("min_len", "u1"), ("max_len", "u1"),
                      ("max_weight", ">f4"), ("first", ">u4"), ("last", ">u4"), ("offset", ">i8"),
                      ("length", ">i4")])


def _add_rows(tindex: OrderedHashWriter, keys: list[bytes], rows: np.ndarray) -> None:
    """``OrderedHashWriter.add(key, row)`` for each key and term-info row, in one write: the
    same bytes (the two lengths, the key, the value), the same positions in its ordered
    index, the same ``(hash, position)`` in the same one of its 256 buckets, the same order
    check. The hash is ``md5_hash``'s (the low 32 bits of the key's MD5, read from the
    digest's last four bytes rather than parsed from its hex). The rows' bytes are laid out
    with numpy: keys vary in length, every value has ``_TERM_ROW.itemsize`` bytes."""
    if type(tindex) is not OrderedHashWriter or tindex.hashfn is not md5_hash:
        raise TypeError("the terms table is not whoosh3's MD5-hashed OrderedHashWriter")
    if not keys:
        return
    if keys[0] <= tindex.lastkey or any(a >= b for a, b in zip(keys, keys[1:])):
        raise ValueError(f"Keys must increase: {tindex.lastkey!r}..{keys[0]!r}")
    n, width = len(keys), rows.dtype.itemsize
    key_len = np.fromiter(map(len, keys), dtype=np.int64, count=n)
    row_len = 8 + key_len + width
    row_start = np.cumsum(row_len) - row_len
    out = np.empty(int(row_start[-1] + row_len[-1]), dtype=np.uint8)
    lengths = np.empty((n, 2), dtype=">i4")  # filetables._lengths: "!ii" of the key's and value's lengths
    lengths[:, 0] = key_len
    lengths[:, 1] = width
    out[row_start[:, None] + np.arange(8)] = lengths.view(np.uint8).reshape(n, 8)
    key_bytes = np.frombuffer(b"".join(keys), dtype=np.uint8)
    key_start = np.cumsum(key_len) - key_len
    out[np.repeat(row_start + 8 - key_start, key_len) + np.arange(len(key_bytes))] = key_bytes
    out[(row_start + 8 + key_len)[:, None] + np.arange(width)] = rows.view(np.uint8).reshape(n, width)
    dbfile = tindex.dbfile
    positions = row_start + dbfile.tell()
    digests = np.frombuffer(b"".join([md5(key, usedforsecurity=False).digest() for key in keys]), dtype=np.uint8)
    hashes = digests.reshape(n, 16)[:, 12:].copy().view(">u4").ravel().astype(np.uint32)
    if not all(type(b) is _HashBucket for b in tindex.buckets):
        tindex.buckets = [_HashBucket(b) for b in tindex.buckets]
    low = hashes & 255
    order = np.argsort(low, kind="stable")  # each bucket's entries stay in the order whoosh appends them
    cuts = np.searchsorted(low[order], np.arange(257))
    for b in np.flatnonzero(np.diff(cuts)).tolist():
        tindex.buckets[b].extend(hashes[order[cuts[b]:cuts[b + 1]]], positions[order[cuts[b]:cuts[b + 1]]])
    dbfile.write(out.tobytes())
    tindex.index.extend(positions.tolist())
    tindex.lastkey = keys[-1]


class _HashBucket:
    """One of the terms table's 256 hash buckets (``HashWriter.buckets``) as two C arrays:
    what ``HashWriter._write_hashes`` reads of a bucket (its length, its ``(hash, position)``
    pairs in the order added) without a tuple and two Python ints a term. At 100 MB of
    corpus (~1 M terms) the lists of tuples were ~120 MB of the build's peak, held until
    the table is written at commit."""

    def __init__(self, entries=()) -> None:
        self.hashes = array("L")
        self.positions = array("q")
        for h, pos in entries:
            self.append((h, pos))

    def append(self, entry: tuple[int, int]) -> None:
        self.hashes.append(entry[0])
        self.positions.append(entry[1])

    def extend(self, hashes: np.ndarray, positions: np.ndarray) -> None:
        self.hashes.extend(hashes.tolist())
        self.positions.extend(positions.tolist())

    def __len__(self) -> int:
        return len(self.hashes)

    def __iter__(self):
        return zip(self.hashes, self.positions)
